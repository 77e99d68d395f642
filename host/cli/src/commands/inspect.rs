//! `tfwasm inspect`: what a component declares.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use tfwasm_model::{Block, Provider as _, Schema};
use tfwasm_runtime::{DiscardLog, Limits, WasmProvider, cache};

/// Arguments of `tfwasm inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider component (`wasm32-wasip2`).
    component: PathBuf,
}

/// Appends a line to the report (written once at the end, so a closed pipe is not a panic).
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut out = String::new();
    let limits = Limits::default();
    let (provider, report) = WasmProvider::load(
        &args.component,
        limits,
        &cache::default_dir(),
        Arc::new(DiscardLog),
    )
    .with_context(|| format!("loading {}", args.component.display()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let schema = runtime.block_on(provider.get_provider_schema());
    outln!(out, "component: {}", args.component.display());
    outln!(
        out,
        "loaded:    {:?} in {} ms",
        report.origin,
        report.elapsed.as_millis()
    );
    outln!(
        out,
        "limits:    fuel {} per call, memory {} MiB per instance, timeout {:?} per call",
        limits.fuel,
        limits.memory_bytes >> 20,
        limits.timeout
    );
    outln!(
        out,
        "grants:    none (no network, no filesystem, no environment variables)"
    );
    for diagnostic in &schema.diagnostics {
        outln!(out, "{diagnostic}");
    }
    print_schema(&mut out, "provider", &schema.provider);
    for (name, s) in &schema.resources {
        print_schema(&mut out, &format!("resource {name}"), s);
    }
    for (name, s) in &schema.data_sources {
        print_schema(&mut out, &format!("data source {name}"), s);
    }
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn print_schema(out: &mut String, title: &str, schema: &Schema) {
    outln!(out, "\n{title} (schema version {})", schema.version);
    print_block(out, &schema.block, 1);
}

fn print_block(out: &mut String, block: &Block, depth: usize) {
    let indent = "  ".repeat(depth);
    for a in &block.attributes {
        let mut flags = Vec::new();
        for (on, name) in [
            (a.required, "required"),
            (a.optional, "optional"),
            (a.computed, "computed"),
            (a.sensitive, "sensitive"),
            (a.deprecated, "deprecated"),
            (a.write_only, "write-only"),
        ] {
            if on {
                flags.push(name);
            }
        }
        outln!(
            out,
            "{indent}{} {} ({})",
            a.name,
            a.implied_type(),
            flags.join(", ")
        );
    }
    for nested in &block.block_types {
        outln!(
            out,
            "{indent}{} block ({:?})",
            nested.type_name,
            nested.nesting
        );
        print_block(out, &nested.block, depth + 1);
    }
}
