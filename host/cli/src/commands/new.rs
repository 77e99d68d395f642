//! `tfwasm new`: a provider to start from, in Rust (a crate) or Go (a
//! terraform-plugin-framework module), which builds and passes its tests as generated (tests
//! in `tests/protocol` prove both).

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

/// Arguments of `tfwasm new`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider's name: lowercase letters and digits, starting with a letter (`thing`
    /// gives the crate `terraform-provider-thing` and the resource `thing_note`).
    name: String,
    /// Where to create the crate [default: ./terraform-provider-NAME]; must not exist or be
    /// empty.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// The tfwasm repository whose SDK (`guest-sdk`) and test harness (`host/harness`) the
    /// crate depends on by path [default: the one this tfwasm was built from].
    #[arg(long, value_name = "DIR")]
    tfwasm: Option<PathBuf>,
    /// The language: `rust` (the tfwasm Rust SDK) or `go` (terraform-plugin-framework, built
    /// by `tfwasm build-go` with the Go SDK, `guest-sdk/go`).
    #[arg(long, value_enum, default_value = "rust")]
    lang: Lang,
}

/// Languages `tfwasm new` starts a provider in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// A Rust crate on tfwasm-sdk.
    Rust,
    /// A Go module on terraform-plugin-framework and tfwasm.dev/go.
    Go,
}

/// The files of a new crate: (path, template).
const TEMPLATES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        include_str!("../../templates/new/Cargo.toml.tmpl"),
    ),
    (
        "src/lib.rs",
        include_str!("../../templates/new/src/lib.rs.tmpl"),
    ),
    (
        "tests/lifecycle.rs",
        include_str!("../../templates/new/tests/lifecycle.rs.tmpl"),
    ),
    (
        "examples/provider/provider.tf",
        include_str!("../../templates/new/examples/provider.tf.tmpl"),
    ),
    (
        "examples/resources/{{name}}_note/resource.tf",
        include_str!("../../templates/new/examples/resource.tf.tmpl"),
    ),
    (
        "README.md",
        include_str!("../../templates/new/README.md.tmpl"),
    ),
    (".gitignore", "/target\n/mirror\n"),
    (
        ".cargo/config.toml",
        "[env]\n# The tfwasm `cargo test` drives (tfwasm-harness); TFWASM_BIN in the environment wins.\nTFWASM_BIN = \"{{tfwasm_bin}}\"\n",
    ),
];

/// The files of a new Go module: (path, template).
const GO_TEMPLATES: &[(&str, &str)] = &[
    ("go.mod", include_str!("../../templates/new-go/go.mod.tmpl")),
    (
        "main.go",
        include_str!("../../templates/new-go/main.go.tmpl"),
    ),
    (
        "internal/provider/provider.go",
        include_str!("../../templates/new-go/internal/provider/provider.go.tmpl"),
    ),
    (
        "internal/provider/note_resource.go",
        include_str!("../../templates/new-go/internal/provider/note_resource.go.tmpl"),
    ),
    (
        "internal/provider/provider_test.go",
        include_str!("../../templates/new-go/internal/provider/provider_test.go.tmpl"),
    ),
    (
        "examples/main.tf",
        include_str!("../../templates/new-go/examples/main.tf.tmpl"),
    ),
    (
        "README.md",
        include_str!("../../templates/new-go/README.md.tmpl"),
    ),
    (".gitignore", "/mirror\n*.wasm\n"),
];

pub fn run(args: Args) -> anyhow::Result<()> {
    let name = &args.name;
    if !valid_name(name) {
        bail!(
            "invalid provider name {name:?}: use lowercase letters and digits, starting with a letter (it prefixes every type name, as in {name}_note)"
        );
    }
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("terraform-provider-{name}")));
    if dir.exists() && std::fs::read_dir(&dir).map_or(true, |mut d| d.next().is_some()) {
        bail!("{} already exists and is not empty", dir.display());
    }
    let repo = match &args.tfwasm {
        Some(repo) => repo.clone(),
        None => built_from().context(
            "this tfwasm was not built from a checkout that still exists; pass --tfwasm DIR (a tfwasm repository)",
        )?,
    };
    let repo = std::fs::canonicalize(&repo)
        .with_context(|| format!("--tfwasm {}: not found", repo.display()))?;
    let (sdk, testing) = (repo.join("guest-sdk"), repo.join("host/harness"));
    let needed = match args.lang {
        Lang::Rust => vec![sdk.join("Cargo.toml"), testing.join("Cargo.toml")],
        Lang::Go => vec![sdk.join("go/go.mod")],
    };
    for file in needed {
        if !file.is_file() {
            bail!(
                "{} is not a tfwasm repository (no {})",
                repo.display(),
                file.display()
            );
        }
    }
    // The tests drive this tfwasm unless TFWASM_BIN says otherwise.
    let tfwasm_bin = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map(|p| {
            p.display()
                .to_string()
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
        })
        .unwrap_or_else(|_| "tfwasm".to_owned());
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{Name}}", &camel(name))
            .replace("{{sdk}}", &sdk.display().to_string())
            .replace("{{testing}}", &testing.display().to_string())
            .replace("{{tfwasm_bin}}", &tfwasm_bin)
    };
    let templates = match args.lang {
        Lang::Rust => TEMPLATES,
        Lang::Go => GO_TEMPLATES,
    };
    for (path, template) in templates {
        let path = dir.join(fill(path));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, fill(template))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if args.lang == Lang::Go {
        println!(
            "Created {} (provider {name}, resource {name}_note, terraform-plugin-framework). Next:\n\n    cd {}\n    go mod tidy\n    go test ./...\n    tfwasm build-go . -o {name}.wasm\n\nREADME.md there goes on to packaging and use.",
            dir.display(),
            dir.display()
        );
        return Ok(());
    }
    // The versions tfwasm itself is built and tested with.
    let lock = repo.join("Cargo.lock");
    if lock.is_file() {
        std::fs::copy(&lock, dir.join("Cargo.lock"))
            .with_context(|| format!("copying {}", lock.display()))?;
    }
    println!(
        "Created {} (provider {name}, resource {name}_note). Next:\n\n    cd {}\n    cargo build --release --target wasm32-wasip2\n    cargo test\n\nREADME.md there goes on to packaging and use.",
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// The repository this binary was built from, when it is still there.
fn built_from() -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    repo.join("guest-sdk/Cargo.toml").is_file().then_some(repo)
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// `thing2` → `Thing2`, for the provider's type name.
fn camel(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_templates_filled() {
        assert!(valid_name("thing") && valid_name("s3x"));
        for bad in ["", "Thing", "9lives", "my-thing", "my_thing"] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert_eq!(camel("thing"), "Thing");
        for (_, template) in TEMPLATES.iter().chain(GO_TEMPLATES) {
            // Every placeholder is one `run` fills.
            let rest = template
                .replace("{{name}}", "")
                .replace("{{Name}}", "")
                .replace("{{sdk}}", "")
                .replace("{{testing}}", "")
                .replace("{{tfwasm_bin}}", "");
            assert!(!rest.contains("{{"), "{rest}");
        }
    }
}
