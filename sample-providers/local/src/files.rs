//! Files at guest paths, refused with a useful message when no granted directory holds them.

use std::path::{Component, Path};

use tfwasm_sdk::prelude::*;

/// The guest directories the operator granted (WASI preopens).
#[cfg(target_arch = "wasm32")]
fn granted() -> Option<Vec<String>> {
    Some(
        wasip2::filesystem::preopens::get_directories()
            .into_iter()
            .map(|(_, path)| path)
            .collect(),
    )
}

/// Natively (unit tests) every path is reachable.
#[cfg(not(target_arch = "wasm32"))]
fn granted() -> Option<Vec<String>> {
    None
}

/// `path` without `.`/`..` tricks, as an absolute path; `None` if it climbs above `/`.
fn normalized(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// Checks that `filename` lies inside a granted directory; the error names the attribute,
/// the grants there are, and the `--allow-dir` that would allow it.
pub(crate) fn check_granted(attribute: &str, filename: &str) -> Result<(), Diagnostic> {
    let Some(granted) = granted() else {
        return Ok(());
    };
    let at = AttributePath::attribute(attribute);
    if !filename.starts_with('/') {
        return Err(Diagnostic::error(
            "Relative path",
            format!(
                "{attribute} {filename:?} is relative; in the sandbox files live under the directories the operator granted, so use an absolute guest path such as \"{}/{}\".",
                granted.first().map_or("/out", |g| g.trim_end_matches('/')),
                filename.trim_start_matches("./")
            ),
        )
        .at(at));
    }
    let normal = normalized(filename).unwrap_or_default();
    let inside = granted.iter().any(|dir| {
        let dir = dir.trim_end_matches('/');
        normal == dir || normal.starts_with(&format!("{dir}/")) || dir.is_empty()
    });
    if inside {
        return Ok(());
    }
    let parent = Path::new(&normal)
        .parent()
        .map_or_else(|| "/".to_owned(), |p| p.display().to_string());
    let listed = if granted.is_empty() {
        "none".to_owned()
    } else {
        granted.join(", ")
    };
    Err(Diagnostic::error(
        "Path outside the granted directories",
        format!(
            "{attribute} {filename:?} is not inside any directory granted to this provider (granted: {listed}). Grant its directory with `tfwasm package --allow-dir HOST_DIR:{parent}:rw` (add :ro for read-only use), or `dirs` under [grants] in tfwasm.toml."
        ),
    )
    .at(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_removes_dot_dot() {
        assert_eq!(
            normalized("/out/../etc/passwd").as_deref(),
            Some("/etc/passwd")
        );
        assert_eq!(normalized("/out/./a/b").as_deref(), Some("/out/a/b"));
        assert_eq!(normalized("/../x"), None);
    }
}
