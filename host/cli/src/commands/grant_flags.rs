//! The grant and HTTP flags `package` writes into a package's settings and `serve --debug`
//! adds to a component's: one declaration, so an author debugging a provider grants it
//! exactly what the package will.

use std::path::PathBuf;

use crate::config::ProviderConfig;

/// What the provider may reach, and how its HTTP goes out.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct GrantFlags {
    /// Grant an environment variable, by name (repeatable). Its value is read from the
    /// environment Terraform runs in.
    #[arg(long = "allow-env", value_name = "NAME")]
    pub allow_env: Vec<String>,
    /// Grant a host directory, HOST_DIR:GUEST_DIR[:ro|rw] (repeatable; read-only by default).
    /// A read-write grant lets the provider set file modes there; `:rw:fixed-modes` does not.
    #[arg(long = "allow-dir", value_name = "HOST:GUEST[:ro|rw]")]
    pub allow_dir: Vec<String>,
    /// Allow outgoing HTTP to scheme://host[:port] (repeatable; `*` for any port, `*.` for
    /// any subdomain), e.g. https://api.example.com. Every redirect hop is checked too.
    #[arg(long = "allow-http", value_name = "PATTERN")]
    pub allow_http: Vec<String>,
    /// Trust the CA certificates in this PEM file for outgoing HTTPS, besides the system's
    /// roots (repeatable). `package` copies the file into the package.
    #[arg(long = "ca-file", value_name = "PATH")]
    pub ca_files: Vec<PathBuf>,
    /// Send allowed http:// requests through this proxy (http://host:port). Setting any
    /// proxy flag replaces HTTP_PROXY/HTTPS_PROXY/NO_PROXY from Terraform's environment.
    #[arg(long, value_name = "URL")]
    pub http_proxy: Option<String>,
    /// Tunnel allowed https:// requests through this proxy (http://host:port, CONNECT).
    #[arg(long, value_name = "URL")]
    pub https_proxy: Option<String>,
    /// Hosts reached without the proxy: comma-separated names (subdomains included), IPs,
    /// CIDR ranges, or `*`.
    #[arg(long, value_name = "LIST")]
    pub no_proxy: Option<String>,
}

impl GrantFlags {
    /// No flag was given.
    pub fn is_empty(&self) -> bool {
        self.allow_env.is_empty()
            && self.allow_dir.is_empty()
            && self.allow_http.is_empty()
            && self.ca_files.is_empty()
            && self.http_proxy.is_none()
            && self.https_proxy.is_none()
            && self.no_proxy.is_none()
    }

    /// Adds these grants to `config`'s and sets the proxies given. CA files are made absolute
    /// first: the flags are relative to where the command runs, the settings file's entries
    /// to the file.
    pub fn add_to(&self, config: &mut ProviderConfig) {
        config.grants.env.extend(self.allow_env.iter().cloned());
        config.grants.dirs.extend(self.allow_dir.iter().cloned());
        config.grants.http.extend(self.allow_http.iter().cloned());
        let cwd = std::env::current_dir().unwrap_or_default();
        config
            .http
            .ca_files
            .extend((self.ca_files.iter()).map(|path| cwd.join(path).display().to_string()));
        for (flag, setting) in [
            (&self.http_proxy, &mut config.http.http_proxy),
            (&self.https_proxy, &mut config.http.https_proxy),
            (&self.no_proxy, &mut config.http.no_proxy),
        ] {
            if flag.is_some() {
                setting.clone_from(flag);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_add_to_the_settings_and_replace_only_the_proxies_given() {
        let mut config = ProviderConfig::default();
        config.grants.http.push("https://api.example.com".into());
        config.http.no_proxy = Some("internal".into());
        config.http.http_proxy = Some("http://old:3128".into());
        let flags = GrantFlags {
            allow_http: vec!["http://localhost:8080".into()],
            allow_env: vec!["TOKEN".into()],
            ca_files: vec![PathBuf::from("ca.pem")],
            http_proxy: Some("http://proxy:3128".into()),
            ..GrantFlags::default()
        };
        assert!(!flags.is_empty());
        flags.add_to(&mut config);
        assert_eq!(
            config.grants.http,
            ["https://api.example.com", "http://localhost:8080"]
        );
        assert_eq!(config.grants.env, ["TOKEN"]);
        assert!(std::path::Path::new(&config.http.ca_files[0]).is_absolute());
        assert_eq!(config.http.http_proxy.as_deref(), Some("http://proxy:3128"));
        assert_eq!(config.http.no_proxy.as_deref(), Some("internal"));
        assert!(GrantFlags::default().is_empty());
    }
}
