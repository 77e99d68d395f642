//! `tfwasm build-go`: a Go provider (terraform-plugin-framework or any terraform-plugin-go
//! server, served with `tfwasm.Serve` from the SDK module `tfwasm.dev/go`) into a component.
//!
//! Go builds a WASI preview-1 reactor (`GOOS=wasip1 -buildmode=c-shared`) whose
//! `//go:wasmexport` functions are the SDK's generated bindings. This embeds the SDK's WIT
//! world into that module and wraps it with the preview-1 adapter of the wasmtime tfwasm
//! runs on, giving a component of the released `tfwasm:provider@0.2.0` world.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};

/// The SDK's Go module.
const SDK_MODULE: &str = "tfwasm.dev/go";
/// The encoded WIT world inside the SDK module, written by scripts/go-bindings.sh.
const SDK_WORLD: &str = "internal/wit/world.wasm";
/// The world a Go provider component implements.
const WORLD: &str = "tfwasm:go-sdk/provider";
/// Oldest Go that builds wasip1 reactors with `//go:wasmexport`.
const MIN_GO_MINOR: u32 = 24;

/// Arguments of `tfwasm build-go`.
///
/// Run inside the provider's Go module, whose go.mod requires `tfwasm.dev/go` (with a
/// `replace tfwasm.dev/go => PATH` to the SDK while it is not published). PKG is the main
/// package whose `main` calls `tfwasm.Serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The main package to build, e.g. `.` or `./cmd/tfwasm`.
    #[arg(default_value = ".")]
    package: String,
    /// Where to write the component.
    #[arg(short, long, value_name = "FILE.wasm")]
    output: PathBuf,
    /// The Go command [default: `go` on PATH].
    #[arg(long, value_name = "PATH", env = "GO")]
    go: Option<PathBuf>,
}

/// Builds the component.
///
/// # Errors
/// Go missing or too old, the module not requiring the SDK, a failed Go build, or a module
/// that does not fit the world.
pub fn run(args: Args) -> anyhow::Result<()> {
    let go = args.go.clone().unwrap_or_else(|| PathBuf::from("go"));
    check_go(&go)?;
    let sdk = sdk_dir(&go)?;
    let world = std::fs::read(sdk.join(SDK_WORLD)).with_context(|| {
        format!(
            "reading the SDK's WIT world {}",
            sdk.join(SDK_WORLD).display()
        )
    })?;

    let scratch = tempdir_beside(&args.output)?;
    let module_path = scratch.join("module.wasm");
    let modfile = without_grpc_servers(&go, &scratch);
    let overlay = match net_http_overlay(&go, &scratch) {
        Ok(overlay) => overlay,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&scratch);
            return Err(e);
        }
    };
    let build = |modfile: Option<&Path>| -> anyhow::Result<bool> {
        let mut cmd = Command::new(&go);
        cmd.args(["build", "-buildmode=c-shared", "-trimpath"])
            // The SDK's runtime support links runtime.sbrk for the canonical ABI's allocator,
            // and its HTTP support net/http's hook.
            .arg("-ldflags=-s -w -checklinkname=0")
            .arg(format!("-overlay={}", overlay.display()));
        if let Some(modfile) = modfile {
            cmd.arg(format!("-modfile={}", modfile.display()));
        }
        Ok(cmd
            .arg("-o")
            .arg(&module_path)
            .arg(&args.package)
            .env("GOOS", "wasip1")
            .env("GOARCH", "wasm")
            .env("CGO_ENABLED", "0")
            .status()
            .with_context(|| format!("running {}", go.display()))?
            .success())
    };
    eprintln!(
        "go build (GOOS=wasip1 GOARCH=wasm, c-shared) {}",
        args.package
    );
    let mut built = build(modfile.as_deref())?;
    if !built && modfile.is_some() {
        eprintln!(
            "building without terraform-plugin-go's gRPC servers failed (the provider uses more of them than providerserver does); building with them"
        );
        built = build(None)?;
    }
    if !built {
        let _ = std::fs::remove_dir_all(&scratch);
        bail!("go build of {} failed (its output is above)", args.package);
    }
    let module = std::fs::read(&module_path).context("reading what go build wrote")?;
    let _ = std::fs::remove_dir_all(&scratch);

    let component = componentize(module, &world)?;
    std::fs::write(&args.output, &component)
        .with_context(|| format!("writing {}", args.output.display()))?;
    eprintln!(
        "wrote {} ({:.1} MiB)",
        args.output.display(),
        component.len() as f64 / f64::from(1 << 20)
    );
    Ok(())
}

/// Embeds `world` (an encoded WIT package holding [`WORLD`]) into a wasip1 reactor module
/// and turns it into a component with the preview-1 reactor adapter.
///
/// # Errors
/// The world does not decode, or the module does not fit it.
pub fn componentize(mut module: Vec<u8>, world: &[u8]) -> anyhow::Result<Vec<u8>> {
    let decoded = wit_component::decode(world).context("decoding the SDK's WIT world")?;
    let wit_component::DecodedWasm::WitPackage(resolve, package) = decoded else {
        bail!("the SDK's world file is a component, not a WIT package");
    };
    let world_id = resolve
        .select_world(&[package], Some(WORLD))
        .with_context(|| format!("finding {WORLD} in the SDK's WIT"))?;
    wit_component::embed_component_metadata(
        &mut module,
        &resolve,
        world_id,
        wit_component::StringEncoding::UTF8,
    )
    .context("embedding the WIT world")?;
    wit_component::ComponentEncoder::default()
        .validate(true)
        .module(&module)
        .context("reading the module go build wrote")?
        .adapter(
            wasi_preview1_component_adapter_provider::WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME,
            wasi_preview1_component_adapter_provider::WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
        )
        .context("adding the WASI preview-1 adapter")?
        .encode()
        .context("making the component (does the main package call tfwasm.Serve?)")
}

fn check_go(go: &Path) -> anyhow::Result<()> {
    let out = Command::new(go)
        .args(["env", "GOVERSION"])
        .output()
        .with_context(|| {
            format!(
                "cannot run {} (install Go 1.{MIN_GO_MINOR} or newer, or set GO)",
                go.display()
            )
        })?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let minor = version
        .strip_prefix("go1.")
        .and_then(|rest| rest.split(['.', 'r', 'b']).next())
        .and_then(|m| m.parse::<u32>().ok());
    match minor {
        Some(m) if m >= MIN_GO_MINOR => Ok(()),
        _ => bail!(
            "{} is {version:?}; building a component needs Go 1.{MIN_GO_MINOR} or newer (wasip1 reactors with go:wasmexport)",
            go.display()
        ),
    }
}

/// The directory of the SDK module the provider's module uses.
fn sdk_dir(go: &Path) -> anyhow::Result<PathBuf> {
    let out = Command::new(go)
        .args(["list", "-m", "-f", "{{.Dir}}", SDK_MODULE])
        .env("GOOS", "wasip1")
        .env("GOARCH", "wasm")
        .output()
        .with_context(|| format!("running {} list", go.display()))?;
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() || dir.is_empty() {
        bail!(
            "this Go module does not use {SDK_MODULE} ({}): run build-go inside the provider's module, whose go.mod has `require {SDK_MODULE} v0.1.0` and, while the SDK is not published, `replace {SDK_MODULE} => /path/to/tfwasm/guest-sdk/go`",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(PathBuf::from(dir))
}

/// The statement of net/http's `Transport.RoundTrip` that the overlay puts the hook before.
const ROUND_TRIP_BODY: &str = "\treturn t.roundTrip(req)\n";

/// A `go build -overlay` file that builds net/http with a hook in `Transport.RoundTrip`,
/// which the SDK sets (`internal/wasihttp`) to send every Transport's requests through
/// wasi:http. wasip1 has no sockets, and providers make Transports of their own (go-cleanhttp,
/// the AWS SDK) with dialers the SDK cannot reach any other way. The Go installation is
/// untouched: the build reads a copy of `net/http/roundtrip.go` with the hook added.
///
/// # Errors
/// When this Go's `roundtrip.go` is not the shape the hook is added to (a Go release that
/// changed it), saying so rather than building a provider whose HTTP would fail.
fn net_http_overlay(go: &Path, scratch: &Path) -> anyhow::Result<PathBuf> {
    let out = Command::new(go)
        .args(["env", "GOROOT"])
        .output()
        .with_context(|| format!("running {} env GOROOT", go.display()))?;
    let goroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let original = goroot.join("src/net/http/roundtrip.go");
    let source = std::fs::read_to_string(&original).with_context(|| {
        format!(
            "reading {} (the Go installation's net/http)",
            original.display()
        )
    })?;
    let patched = with_round_trip_hook(&source).with_context(|| {
        format!(
            "{} is not the shape tfwasm build-go adds its HTTP hook to: this Go release is newer than this tfwasm knows",
            original.display()
        )
    })?;
    let copy = scratch.join("roundtrip.go");
    std::fs::write(&copy, patched).with_context(|| format!("writing {}", copy.display()))?;
    let overlay = scratch.join("overlay.json");
    let json =
        serde_json::json!({ "Replace": { original.to_string_lossy(): copy.to_string_lossy() } });
    std::fs::write(&overlay, json.to_string())
        .with_context(|| format!("writing {}", overlay.display()))?;
    Ok(overlay)
}

/// `roundtrip.go` with `tfwasmRoundTrip` asked first in `Transport.RoundTrip`; `None` unless
/// the statement it goes before is there exactly once.
fn with_round_trip_hook(source: &str) -> Option<String> {
    if source.matches(ROUND_TRIP_BODY).count() != 1
        || !source.contains("func (t *Transport) RoundTrip(req *Request) (*Response, error) {")
    {
        return None;
    }
    let hook = "\tif h := tfwasmRoundTrip; h != nil {\n\t\tif handled, resp, err := h(t, req); handled {\n\t\t\treturn resp, err\n\t\t}\n\t}\n";
    let mut patched = source.replacen(ROUND_TRIP_BODY, &format!("{hook}{ROUND_TRIP_BODY}"), 1);
    patched.push_str(
        "\n// tfwasmRoundTrip is set by the tfwasm Go SDK (go:linkname): added by tfwasm build-go.\nvar tfwasmRoundTrip func(*Transport, *Request) (bool, *Response, error)\n",
    );
    Some(patched)
}

/// terraform-plugin-go's module.
const PLUGIN_GO: &str = "github.com/hashicorp/terraform-plugin-go";

/// A `go build -modfile` that builds terraform-plugin-go's gRPC servers (`tf5server`,
/// `tf6server`) as the two functions providerserver calls, returning an error: a component
/// serves its provider in-process through the SDK, never over gRPC, and the servers bring
/// gRPC and go-plugin, two thirds of a framework provider's code. The provider's source and
/// its go.mod stay as they are: the build reads a copy of go.mod that replaces
/// terraform-plugin-go with a scratch copy whose two server packages are stubs. `None` when
/// the module does not use terraform-plugin-go, or already replaces it.
fn without_grpc_servers(go: &Path, scratch: &Path) -> Option<PathBuf> {
    let go_env = |what: &[&str]| -> Option<String> {
        let out = Command::new(go)
            .args(what)
            .env("GOOS", "wasip1")
            .env("GOARCH", "wasm")
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        (out.status.success() && !text.is_empty()).then_some(text)
    };
    let module = PathBuf::from(go_env(&["list", "-m", "-f", "{{.Dir}}", PLUGIN_GO])?);
    if go_env(&[
        "list",
        "-m",
        "-f",
        "{{if .Replace}}replaced{{end}}",
        PLUGIN_GO,
    ])
    .is_some()
    {
        return None;
    }
    let go_mod = PathBuf::from(go_env(&["env", "GOMOD"])?);
    let copy = scratch.join("terraform-plugin-go");
    copy_tree(&module, &copy).ok()?;
    for (package, protocol) in [("tfprotov5/tf5server", "5"), ("tfprotov6/tf6server", "6")] {
        let name = package.rsplit('/').next().unwrap_or(package);
        let dir = copy.join(package);
        for entry in std::fs::read_dir(&dir).ok()? {
            let path = entry.ok()?.path();
            if path.extension().is_some_and(|e| e == "go") {
                std::fs::remove_file(&path).ok()?;
            }
        }
        std::fs::write(dir.join("server.go"), grpc_server_stub(name, protocol)).ok()?;
    }
    let mut text = std::fs::read_to_string(&go_mod).ok()?;
    text.push_str(&format!(
        "\n// Added by tfwasm build-go for this build only.\nreplace {PLUGIN_GO} => {}\n",
        copy.display()
    ));
    let modfile = scratch.join("build.mod");
    std::fs::write(&modfile, text).ok()?;
    if let Ok(sum) = std::fs::read(go_mod.with_extension("sum")) {
        std::fs::write(scratch.join("build.sum"), sum).ok()?;
    }
    Some(modfile)
}

/// Copies a directory tree (files made writable: the module cache's are read-only).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
            let mut perms = std::fs::metadata(&target)?.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&target, perms)?;
        }
    }
    Ok(())
}

/// The source a gRPC server package is built from in a component.
fn grpc_server_stub(name: &str, protocol: &str) -> String {
    format!(
        r#"// Package {name}, as tfwasm build-go builds it: a component serves its provider
// in-process through the tfwasm SDK, so terraform-plugin-go's gRPC server is left out.
package {name}

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-go/tfprotov{protocol}"
)

// ServeOpt is an option of Serve, which a component never calls.
type ServeOpt interface{{ tfwasmServeOpt() }}

type managedDebug struct{{}}

func (managedDebug) tfwasmServeOpt() {{}}

// WithManagedDebug is accepted and ignored.
func WithManagedDebug() ServeOpt {{ return managedDebug{{}} }}

// Serve fails: in a component, tfwasm.Serve serves the provider.
func Serve(name string, serverFactory func() tfprotov{protocol}.ProviderServer, opts ...ServeOpt) error {{
	return errors.New("{name}.Serve is not available in a tfwasm component; call tfwasm.Serve")
}}
"#
    )
}

/// A scratch directory next to the output, so the module never crosses filesystems: made
/// new (never one that exists, which whoever can write beside the output could have
/// planted, to swap the sources the build reads), under an unguessable name, mode 0700.
fn tempdir_beside(output: &Path) -> anyhow::Result<PathBuf> {
    use std::hash::{BuildHasher as _, RandomState};
    use std::os::unix::fs::DirBuilderExt as _;
    let parent = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let random = RandomState::new().hash_one(std::process::id());
    let dir = parent.join(format!(".tfwasm-build-go-{random:016x}"));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUND_TRIP: &str = "package http\n\nfunc (t *Transport) RoundTrip(req *Request) (*Response, error) {\n\tif t == nil {\n\t\tpanic(\"transport is nil\")\n\t}\n\treturn t.roundTrip(req)\n}\n";

    #[test]
    fn the_hook_is_asked_before_the_transport_and_declared_once() {
        let patched = with_round_trip_hook(ROUND_TRIP).unwrap();
        let hook = patched.find("if h := tfwasmRoundTrip; h != nil").unwrap();
        let own = patched.find("return t.roundTrip(req)").unwrap();
        assert!(hook < own, "{patched}");
        assert_eq!(patched.matches("var tfwasmRoundTrip func(").count(), 1);
        // Unhandled requests (other schemes) still reach the Transport.
        assert!(patched.contains("if handled, resp, err := h(t, req); handled {"));
    }

    #[test]
    fn the_scratch_directory_is_new_private_and_unguessable() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("provider.wasm");
        let a = tempdir_beside(&output).unwrap();
        let b = tempdir_beside(&output).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.parent(), Some(dir.path()));
        let mode = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn a_roundtrip_go_of_another_shape_is_refused() {
        assert!(with_round_trip_hook("package http\n").is_none());
        let twice = format!(
            "{ROUND_TRIP}\nfunc x(t *Transport, req *Request) {{\n\treturn t.roundTrip(req)\n}}\n"
        );
        assert!(with_round_trip_hook(&twice).is_none());
        let renamed = ROUND_TRIP.replace("RoundTrip(req *Request)", "RoundTrip(r *Request)");
        assert!(with_round_trip_hook(&renamed).is_none());
    }
}
