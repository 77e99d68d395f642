//! What a provider may reach outside its sandbox. Everything is denied unless granted.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// The operator's grants to one provider.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// Environment variables the guest may read (by exact name). Their values are taken from
    /// the host's environment when the provider starts; missing ones are simply absent.
    pub env: Vec<String>,
    /// Host directories the guest may open.
    pub dirs: Vec<DirGrant>,
}

/// One preopened directory: `HOST_DIR:GUEST_DIR[:ro|rw]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirGrant {
    /// Directory on the host (must exist).
    pub host: PathBuf,
    /// Where the guest sees it, an absolute path like `/data`.
    pub guest: String,
    /// Whether the guest may create, change and delete files (default read-only).
    pub writable: bool,
}

/// A grant could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid grant {text:?}: {reason}")]
pub struct ParseGrantError {
    /// The text.
    pub text: String,
    /// Why, with the expected form.
    pub reason: String,
}

impl FromStr for DirGrant {
    type Err = ParseGrantError;
    fn from_str(text: &str) -> Result<DirGrant, ParseGrantError> {
        let err = |reason: &str| ParseGrantError {
            text: text.to_owned(),
            reason: format!(
                "{reason} (expected HOST_DIR:GUEST_DIR[:ro|rw], e.g. /srv/data:/data:ro)"
            ),
        };
        let parts: Vec<&str> = text.split(':').collect();
        let (host, guest, writable) = match parts.as_slice() {
            [host, guest] => (*host, *guest, false),
            [host, guest, "ro"] => (*host, *guest, false),
            [host, guest, "rw"] => (*host, *guest, true),
            [_, _, mode] => return Err(err(&format!("mode {mode:?} is neither ro nor rw"))),
            _ => return Err(err("wrong number of parts")),
        };
        if host.is_empty() || guest.is_empty() {
            return Err(err("empty directory"));
        }
        if !guest.starts_with('/') {
            return Err(err("the guest directory must be absolute"));
        }
        Ok(DirGrant {
            host: PathBuf::from(host),
            guest: guest.to_owned(),
            writable,
        })
    }
}

impl fmt::Display for DirGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}",
            self.host.display(),
            self.guest,
            if self.writable { "rw" } else { "ro" }
        )
    }
}

/// Checks an environment variable name for the allow-list.
pub fn check_env_name(name: &str) -> Result<(), ParseGrantError> {
    let valid = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if valid {
        Ok(())
    } else {
        Err(ParseGrantError {
            text: name.to_owned(),
            reason: "an environment variable name is letters, digits and _".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_grants_parse() {
        let g: DirGrant = "/srv/data:/data".parse().unwrap();
        assert!(!g.writable);
        assert_eq!(g.to_string(), "/srv/data:/data:ro");
        assert!("/srv:/out:rw".parse::<DirGrant>().unwrap().writable);
        for bad in ["/srv", "/srv:data", "/srv:/d:rx", ":/d", "/a:/b:ro:x"] {
            let e = bad.parse::<DirGrant>().unwrap_err();
            assert!(e.to_string().contains("HOST_DIR:GUEST_DIR"), "{e}");
        }
    }

    #[test]
    fn env_names() {
        assert!(check_env_name("API_TOKEN").is_ok());
        assert!(check_env_name("1X").is_err());
        assert!(check_env_name("A-B").is_err());
    }
}
