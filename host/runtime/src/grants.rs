//! What a provider may reach outside its sandbox. Everything is denied unless granted.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

/// The operator's grants to one provider.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// Environment variables the guest may read (by exact name). Their values are taken from
    /// the host's environment when the provider starts; missing ones are simply absent.
    pub env: Vec<String>,
    /// Host directories the guest may open.
    pub dirs: Vec<DirGrant>,
    /// Where the guest may send HTTP requests.
    pub http: HttpAllowList,
}

/// HTTP destinations a guest may reach: `scheme://host[:port]` entries.
///
/// `scheme` is `http`, `https` or `*`; `host` is a name or IP, where a leading `*.` matches any
/// subdomain and `*` alone any host; `port` is a number or `*`, and defaults to the scheme's
/// (80, 443). Paths are not part of an entry. Nothing is allowed by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpAllowList {
    entries: Vec<HttpEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct HttpEntry {
    text: String,
    scheme: Option<String>,
    host: String,
    port: Option<u16>,
}

impl HttpAllowList {
    /// Parses every entry.
    ///
    /// # Errors
    /// The first malformed entry, with the expected form.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<HttpAllowList, ParseGrantError> {
        let entries = entries
            .iter()
            .map(|e| HttpEntry::parse(e.as_ref()))
            .collect::<Result<_, _>>()?;
        Ok(HttpAllowList { entries })
    }

    /// True when nothing is allowed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries as written.
    pub fn entries(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.text.as_str())
    }

    /// Whether a request to `scheme://host:port` is allowed (scheme and host lowercase).
    pub fn allows(&self, scheme: &str, host: &str, port: u16) -> bool {
        self.entries.iter().any(|e| e.matches(scheme, host, port))
    }
}

impl HttpEntry {
    fn parse(text: &str) -> Result<HttpEntry, ParseGrantError> {
        let err = |reason: &str| ParseGrantError {
            text: text.to_owned(),
            reason: format!(
                "{reason} (expected scheme://host[:port], e.g. https://api.example.com or http://127.0.0.1:8080)"
            ),
        };
        let (scheme, rest) = text
            .split_once("://")
            .ok_or_else(|| err("missing scheme://"))?;
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "*" => None,
            s @ ("http" | "https") => Some(s.to_owned()),
            _ => return Err(err("the scheme must be http, https or *")),
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains('/') || rest.contains('?') || rest.contains('@') {
            return Err(err("an entry names a host, not a path or credentials"));
        }
        let (host, port) = match rest.rsplit_once(':') {
            Some((host, "*")) => (host, None),
            Some((host, port)) => (
                host,
                Some(
                    port.parse::<u16>()
                        .map_err(|_| err("the port must be a number or *"))?,
                ),
            ),
            None => (
                rest,
                scheme
                    .as_deref()
                    .map(|s| if s == "https" { 443 } else { 80 }),
            ),
        };
        let rest_of_host = host.strip_prefix("*.").unwrap_or(host);
        if host.is_empty() || (host != "*" && rest_of_host.contains('*')) {
            return Err(err("a * may only be the whole host or a leading *. label"));
        }
        Ok(HttpEntry {
            text: text.to_owned(),
            scheme,
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    fn matches(&self, scheme: &str, host: &str, port: u16) -> bool {
        let scheme_ok = self.scheme.as_deref().is_none_or(|s| s == scheme);
        let port_ok = self.port.is_none_or(|p| p == port);
        let host_ok = match self.host.strip_prefix("*.") {
            _ if self.host == "*" => true,
            Some(suffix) => {
                host.len() > suffix.len() + 1
                    && host.ends_with(suffix)
                    && host[..host.len() - suffix.len()].ends_with('.')
            }
            None => self.host == host,
        };
        scheme_ok && port_ok && host_ok
    }
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
    /// Whether the guest may set permission bits there (WIT 0.3.0 `files`; read-write grants
    /// only). `HOST:GUEST:rw:fixed-modes` turns it off.
    pub modes: bool,
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
                "{reason} (expected HOST_DIR:GUEST_DIR[:ro|rw|rw:fixed-modes], e.g. /srv/data:/data:ro)"
            ),
        };
        let parts: Vec<&str> = text.split(':').collect();
        let (host, guest, writable, modes) = match parts.as_slice() {
            [host, guest] => (*host, *guest, false, false),
            [host, guest, "ro"] => (*host, *guest, false, false),
            [host, guest, "rw"] => (*host, *guest, true, true),
            [host, guest, "rw", "fixed-modes"] => (*host, *guest, true, false),
            [_, _, mode] => return Err(err(&format!("mode {mode:?} is neither ro nor rw"))),
            [_, _, access, option] => {
                return Err(err(&format!("{access}:{option} is not rw:fixed-modes")));
            }
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
            modes,
        })
    }
}

impl fmt::Display for DirGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let access = match (self.writable, self.modes) {
            (false, _) => "ro",
            (true, true) => "rw",
            (true, false) => "rw:fixed-modes",
        };
        write!(f, "{}:{}:{access}", self.host.display(), self.guest)
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

/// A set of directory grants that cannot be used together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("granted directory {grant}: {message}")]
pub struct DirGrantsError {
    /// The grant as written.
    pub grant: String,
    /// Why it cannot be used.
    pub message: String,
}

/// `path` made absolute with symlinks resolved as far as it exists; the rest, which does not
/// exist and so holds no symlink, is taken lexically.
pub fn resolved(path: &Path) -> PathBuf {
    resolved_within(path, 40)
}

/// [`resolved`], following at most `links` dangling symlinks: a link whose target does not
/// exist yet is taken as its target, not as a name (its target may appear later, inside a
/// grant).
fn resolved_within(path: &Path, links: usize) -> PathBuf {
    // A bare file name's directory is `""`, which is the working directory.
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    for existing in path.ancestors() {
        let rest = path.strip_prefix(existing).unwrap_or(Path::new(""));
        let mut base = match std::fs::canonicalize(existing) {
            Ok(base) => base,
            Err(_) => match std::fs::read_link(existing) {
                Ok(target) if links > 0 => {
                    let parent = existing.parent().unwrap_or(Path::new("/"));
                    return resolved_within(&parent.join(target).join(rest), links - 1);
                }
                _ => continue,
            },
        };
        for component in rest.components() {
            match component {
                Component::ParentDir => {
                    base.pop();
                }
                Component::Normal(name) => base.push(name),
                _ => {}
            }
        }
        return base;
    }
    path
}

/// The read-write grant whose host directory holds `path` (or is it), or any directory on
/// the way to it, symlinks resolved as far as they exist: a guest could replace what the host
/// keeps there (code it runs, settings it reads, files it writes) or plant a symlink in its
/// place. The way counts as much as the end: a link the guest planted inside its grant
/// (`WORKDIR/.tfwasm-journal -> /elsewhere`) resolves outside it, yet the guest can point it
/// anywhere later.
pub fn writable_grant_holding<'g>(dirs: &'g [DirGrant], path: &Path) -> Option<&'g DirGrant> {
    let writable: Vec<(&DirGrant, PathBuf)> = (dirs.iter())
        .filter(|grant| grant.writable)
        .map(|grant| (grant, resolved(&grant.host)))
        .collect();
    if writable.is_empty() {
        return None;
    }
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    path.ancestors().find_map(|step| {
        let step = resolved(step);
        (writable.iter())
            .find(|(_, host)| step.starts_with(host))
            .map(|(grant, _)| *grant)
    })
}

/// Resolves every grant's host directory to its canonical path (what the guest gets is
/// decided now, not by whatever a path names when an instance starts later) and refuses a
/// grant inside a read-write one: the guest could rename it away and plant a symlink in its
/// place, and the next instance would open wherever that points.
///
/// # Errors
/// A grant that is not an existing directory, or lies inside (or is) a read-write grant.
pub fn pin_dirs(dirs: &mut [DirGrant]) -> Result<(), DirGrantsError> {
    for dir in dirs.iter_mut() {
        let fail = |message: String| DirGrantsError {
            grant: dir.to_string(),
            message,
        };
        if !dir.host.is_dir() {
            return Err(fail("not an existing directory on this host".into()));
        }
        dir.host = std::fs::canonicalize(&dir.host)
            .map_err(|e| fail(format!("cannot resolve it: {e}")))?;
    }
    for (i, inner) in dirs.iter().enumerate() {
        for (j, outer) in dirs.iter().enumerate() {
            if i != j && outer.writable && inner.host.starts_with(&outer.host) {
                return Err(DirGrantsError {
                    grant: inner.to_string(),
                    message: format!(
                        "it lies inside the read-write grant {outer}, so the provider could replace it with a symlink to anywhere; grant directories that do not nest in a read-write one"
                    ),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The twentieth hostile pass: a bare file name's directory (`""`) resolved to nothing,
    /// so no grant held it; a dangling symlink was taken as a name, so a journal directory
    /// linked to a place the guest creates later passed the check.
    #[test]
    fn bare_names_and_dangling_links_resolve_to_where_they_lead() {
        let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
        assert_eq!(resolved(Path::new("")), cwd);
        assert!(resolved(Path::new("x.wasm")).starts_with(&cwd));
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let grant = base.join("grant");
        std::fs::create_dir(&grant).unwrap();
        let link = base.join("journal");
        std::os::unix::fs::symlink(grant.join("later/j"), &link).unwrap();
        assert_eq!(resolved(&link.join("entry")), grant.join("later/j/entry"));
        let grants = [DirGrant {
            host: grant.clone(),
            guest: "/g".into(),
            writable: true,
            modes: true,
        }];
        assert!(writable_grant_holding(&grants, &link).is_some());
        // The twenty-fourth hostile pass: a link the guest planted inside its grant pointing
        // out of it resolves outside, but the way to it runs through the grant.
        let outside = base.join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, grant.join(".tfwasm-journal")).unwrap();
        assert!(!resolved(&grant.join(".tfwasm-journal/k")).starts_with(&grant));
        assert!(writable_grant_holding(&grants, &grant.join(".tfwasm-journal/k")).is_some());
        assert!(writable_grant_holding(&grants, &outside.join("k")).is_none());
        // A loop of links ends.
        let a = base.join("a");
        std::os::unix::fs::symlink(base.join("b"), &a).unwrap();
        std::os::unix::fs::symlink(&a, base.join("b")).unwrap();
        let _ = resolved(&a);
    }

    #[test]
    fn grants_are_pinned_and_none_may_lie_inside_a_writable_one() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        std::fs::create_dir_all(out.join("inner")).unwrap();
        std::fs::create_dir(root.path().join("data")).unwrap();
        std::os::unix::fs::symlink(out.join("inner"), root.path().join("alias")).unwrap();
        let grant = |host: &Path, guest: &str, writable| DirGrant {
            host: host.to_owned(),
            guest: guest.into(),
            writable,
            modes: writable,
        };
        // Side by side, and a writable grant inside a read-only one: fine, and canonical.
        let mut ok = vec![
            grant(&out, "/out", true),
            grant(&root.path().join("data/../data"), "/data", false),
        ];
        pin_dirs(&mut ok).unwrap();
        assert_eq!(
            ok[1].host,
            std::fs::canonicalize(root.path().join("data")).unwrap()
        );
        let mut ro_around = vec![grant(root.path(), "/all", false), grant(&out, "/out", true)];
        pin_dirs(&mut ro_around).unwrap();
        // Inside a writable grant, by its own path, through a symlink, or the same directory.
        for inner in [out.join("inner"), root.path().join("alias"), out.clone()] {
            let mut nested = vec![grant(&out, "/out", true), grant(&inner, "/inner", false)];
            let err = pin_dirs(&mut nested).unwrap_err();
            assert!(
                err.message.contains("lies inside the read-write grant")
                    && err.message.contains("/out:rw"),
                "{err}"
            );
        }
        let mut missing = vec![grant(&root.path().join("nope"), "/n", false)];
        assert!(
            pin_dirs(&mut missing)
                .unwrap_err()
                .message
                .contains("not an existing directory")
        );
    }

    #[test]
    fn dir_grants_parse() {
        let g: DirGrant = "/srv/data:/data".parse().unwrap();
        assert!(!g.writable);
        assert_eq!(g.to_string(), "/srv/data:/data:ro");
        assert!("/srv:/out:rw".parse::<DirGrant>().unwrap().writable);
        let fixed: DirGrant = "/srv:/out:rw:fixed-modes".parse().unwrap();
        assert!(fixed.writable && !fixed.modes);
        assert_eq!(fixed.to_string(), "/srv:/out:rw:fixed-modes");
        assert!("/srv:/out:rw".parse::<DirGrant>().unwrap().modes);
        assert!(!"/srv:/out:ro".parse::<DirGrant>().unwrap().modes);
        assert!("/srv:/out:rw:other".parse::<DirGrant>().is_err());
        assert!("/srv:/out:ro:fixed-modes".parse::<DirGrant>().is_err());
        for bad in ["/srv", "/srv:data", "/srv:/d:rx", ":/d", "/a:/b:ro:x"] {
            let e = bad.parse::<DirGrant>().unwrap_err();
            assert!(e.to_string().contains("HOST_DIR:GUEST_DIR"), "{e}");
        }
    }

    #[test]
    fn http_entries_match_scheme_host_and_port() {
        let list = HttpAllowList::parse(&[
            "https://api.example.com",
            "http://127.0.0.1:8080",
            "https://*.corp.example",
            "*://any.example:*",
        ])
        .unwrap();
        assert!(list.allows("https", "api.example.com", 443));
        assert!(
            !list.allows("http", "api.example.com", 80),
            "scheme is part of the entry"
        );
        assert!(
            !list.allows("https", "api.example.com", 8443),
            "default port only"
        );
        assert!(list.allows("http", "127.0.0.1", 8080));
        assert!(!list.allows("http", "127.0.0.1", 8081));
        assert!(list.allows("https", "a.corp.example", 443));
        assert!(list.allows("https", "b.a.corp.example", 443));
        assert!(
            !list.allows("https", "corp.example", 443),
            "*. needs a subdomain"
        );
        assert!(!list.allows("https", "evilcorp.example", 443));
        assert!(list.allows("http", "any.example", 1234));
        assert!(
            !HttpAllowList::default().allows("https", "api.example.com", 443),
            "deny by default"
        );
    }

    #[test]
    fn bad_http_entries_say_what_is_expected() {
        for bad in [
            "api.example.com",
            "ftp://x",
            "https://x/path",
            "https://x:port",
            "https://a*b.com",
            "https://user@x",
        ] {
            let e = HttpAllowList::parse(&[bad]).unwrap_err();
            assert!(e.to_string().contains("scheme://host[:port]"), "{e}");
        }
    }

    #[test]
    fn env_names() {
        assert!(check_env_name("API_TOKEN").is_ok());
        assert!(check_env_name("1X").is_err());
        assert!(check_env_name("A-B").is_err());
    }
}
