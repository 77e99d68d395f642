//! The go-plugin handshake: the magic cookie, protocol negotiation, the listener, and the
//! first stdout line that tells Terraform where to connect.

use std::collections::HashMap;
use std::path::PathBuf;

use base64::Engine as _;

/// Environment variable carrying the magic cookie.
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
/// The cookie value Terraform and OpenTofu set.
pub const MAGIC_COOKIE_VALUE: &str =
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
/// go-plugin's core protocol version; anything else makes the client refuse.
pub const CORE_PROTOCOL_VERSION: u32 = 1;
/// The application protocol we serve: tfplugin6.
pub const PROTOCOL_VERSION: u32 = 6;

/// What go-plugin prints (to stderr) when the binary is run by hand.
pub const NOT_A_PLUGIN_MESSAGE: &str = "This binary is a plugin. These are not meant to be executed directly.\n\
Please execute the program that consumes these plugins, which will\n\
load any plugins automatically\n";

/// The plugin-related environment, read once at start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginEnv {
    /// `TF_PLUGIN_MAGIC_COOKIE`.
    pub magic_cookie: Option<String>,
    /// `PLUGIN_PROTOCOL_VERSIONS`, e.g. `5,6`.
    pub protocol_versions: Option<String>,
    /// `PLUGIN_CLIENT_CERT`: PEM; present when AutoMTLS is on.
    pub client_cert: Option<String>,
    /// `PLUGIN_MIN_PORT` / `PLUGIN_MAX_PORT` for TCP.
    pub port_range: (u16, u16),
    /// `PLUGIN_UNIX_SOCKET_DIR`.
    pub unix_socket_dir: Option<PathBuf>,
    /// `PLUGIN_UNIX_SOCKET_GROUP`: group name or numeric id.
    pub unix_socket_group: Option<String>,
    /// `PLUGIN_MULTIPLEX_GRPC`: adds a 7th handshake field.
    pub multiplex_grpc: bool,
}

impl PluginEnv {
    /// Reads the variables from an environment map.
    pub fn from_vars(vars: &HashMap<String, String>) -> PluginEnv {
        let get = |k: &str| vars.get(k).filter(|v| !v.is_empty()).cloned();
        let port = |k: &str, default: u16| get(k).and_then(|v| v.parse().ok()).unwrap_or(default);
        PluginEnv {
            magic_cookie: get(MAGIC_COOKIE_KEY),
            protocol_versions: get("PLUGIN_PROTOCOL_VERSIONS"),
            client_cert: get("PLUGIN_CLIENT_CERT"),
            port_range: (
                port("PLUGIN_MIN_PORT", 10000),
                port("PLUGIN_MAX_PORT", 25000),
            ),
            unix_socket_dir: get("PLUGIN_UNIX_SOCKET_DIR").map(PathBuf::from),
            unix_socket_group: get("PLUGIN_UNIX_SOCKET_GROUP"),
            multiplex_grpc: get("PLUGIN_MULTIPLEX_GRPC").is_some_and(|v| v == "true" || v == "1"),
        }
    }

    /// Reads the process environment.
    pub fn from_process() -> PluginEnv {
        PluginEnv::from_vars(&std::env::vars().collect())
    }

    /// True when the magic cookie matches.
    pub fn has_magic_cookie(&self) -> bool {
        self.magic_cookie.as_deref() == Some(MAGIC_COOKIE_VALUE)
    }

    /// Checks that the client offers protocol 6. An absent list (very old clients) is
    /// accepted. Returns a message for the log when 6 is not offered; like go-plugin we still
    /// answer 6 and let the client report the mismatch.
    pub fn negotiate(&self) -> Result<u32, String> {
        match &self.protocol_versions {
            None => Ok(PROTOCOL_VERSION),
            Some(list) => {
                let offered: Vec<&str> = list.split(',').map(str::trim).collect();
                if offered
                    .iter()
                    .any(|v| v.parse::<u32>() == Ok(PROTOCOL_VERSION))
                {
                    Ok(PROTOCOL_VERSION)
                } else {
                    Err(format!(
                        "client offers plugin protocol versions {list}, but tfwasm serves only {PROTOCOL_VERSION} (Terraform >= 1.0 or OpenTofu needed)"
                    ))
                }
            }
        }
    }
}

/// Where the server listens, as the handshake announces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// A unix socket path.
    Unix(PathBuf),
    /// A loopback TCP address.
    Tcp(std::net::SocketAddr),
}

/// The `TF_REATTACH_PROVIDERS` value that attaches Terraform to a server already running at
/// `address` (process `pid`) as provider `source` (`registry.terraform.io/NS/NAME`): the JSON
/// go-plugin's `ReattachConfig` reads. `Test` tells Terraform not to stop the process.
pub fn reattach_providers(source: &str, address: &Address, pid: u32) -> String {
    let (network, addr) = match address {
        Address::Unix(path) => ("unix", path.display().to_string()),
        Address::Tcp(addr) => ("tcp", addr.to_string()),
    };
    serde_json::json!({
        source: {
            "Protocol": "grpc",
            "ProtocolVersion": PROTOCOL_VERSION,
            "Pid": pid,
            "Test": true,
            "Addr": { "Network": network, "String": addr },
        }
    })
    .to_string()
}

/// The handshake line (without the newline): `CORE|APP|NETWORK|ADDR|grpc|CERT[|true]`.
/// The certificate is base64 (standard alphabet, no padding) of its DER, or empty.
pub fn handshake_line(
    address: &Address,
    certificate_der: Option<&[u8]>,
    multiplex: bool,
) -> String {
    let (network, addr) = match address {
        Address::Unix(path) => ("unix", path.display().to_string()),
        Address::Tcp(addr) => ("tcp", addr.to_string()),
    };
    let cert = certificate_der
        .map(|der| base64::engine::general_purpose::STANDARD_NO_PAD.encode(der))
        .unwrap_or_default();
    let mut line =
        format!("{CORE_PROTOCOL_VERSION}|{PROTOCOL_VERSION}|{network}|{addr}|grpc|{cert}");
    if multiplex {
        line.push_str("|true");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> PluginEnv {
        PluginEnv::from_vars(
            &pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn cookie_must_match_exactly() {
        assert!(env(&[(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)]).has_magic_cookie());
        assert!(!env(&[(MAGIC_COOKIE_KEY, "nope")]).has_magic_cookie());
        assert!(!env(&[]).has_magic_cookie());
    }

    #[test]
    fn negotiation_picks_six_in_any_order() {
        assert_eq!(
            env(&[("PLUGIN_PROTOCOL_VERSIONS", "5,6")]).negotiate(),
            Ok(6)
        );
        assert_eq!(
            env(&[("PLUGIN_PROTOCOL_VERSIONS", "6,5")]).negotiate(),
            Ok(6)
        );
        assert_eq!(env(&[]).negotiate(), Ok(6));
        assert!(
            env(&[("PLUGIN_PROTOCOL_VERSIONS", "4,5")])
                .negotiate()
                .is_err()
        );
    }

    #[test]
    fn ports_default_to_go_plugin_range() {
        assert_eq!(env(&[]).port_range, (10000, 25000));
        assert_eq!(
            env(&[("PLUGIN_MIN_PORT", "2000"), ("PLUGIN_MAX_PORT", "2001")]).port_range,
            (2000, 2001)
        );
    }

    #[test]
    fn line_format_matches_go_plugin() {
        let unix = Address::Unix("/tmp/plugin123".into());
        assert_eq!(
            handshake_line(&unix, None, false),
            "1|6|unix|/tmp/plugin123|grpc|"
        );
        let tcp = Address::Tcp("127.0.0.1:10000".parse().unwrap());
        // 0xfb 0xff encode to "+/8" with the standard alphabet and no padding
        assert_eq!(
            handshake_line(&tcp, Some(&[0xfb, 0xff]), true),
            "1|6|tcp|127.0.0.1:10000|grpc|+/8|true"
        );
    }
}
