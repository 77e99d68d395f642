//! `tfwasm inspect`: what a component declares.

use std::path::PathBuf;

use tfwasm_model::rpc::prelude::*;
use tfwasm_model::{Block, Schema};
use tfwasm_runtime::limits::{ByteSize, HumanDuration};

/// Arguments of `tfwasm inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider component (`wasm32-wasip2`).
    component: PathBuf,
}

/// Appends a line to the report (written once at the end, so a closed pipe is not a panic),
/// its control characters escaped: names, descriptions and diagnostics are the guest's text,
/// which could otherwise retitle the terminal or rewrite the lines above (the grants).
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!($out, "{}", crate::hclog::escaped(&line));
    }};
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut out = String::new();
    let (provider, report, settings) = super::load_to_read(&args.component)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let schema = runtime.block_on(provider.get_provider_schema());
    let functions = runtime.block_on(provider.get_functions());
    let identities = runtime.block_on(provider.get_resource_identity_schemas());
    outln!(out, "component: {}", args.component.display());
    outln!(
        out,
        "wit:       tfwasm:provider@{}",
        provider.wit_version().as_str()
    );
    outln!(
        out,
        "loaded:    {} in {} ms",
        match report.origin {
            tfwasm_runtime::Origin::Packaged => "from the package's precompiled code",
            tfwasm_runtime::Origin::Cached => "from the compile cache",
            tfwasm_runtime::Origin::Compiled => "compiled now",
        },
        report.elapsed.as_millis()
    );
    outln!(out, "settings:  {}", settings.source);
    outln!(
        out,
        "contracts: violations are {}",
        if settings.mode == tfwasm_contract::Mode::Warn {
            "warnings"
        } else {
            "errors"
        }
    );
    let limits = provider.limits();
    let describe = |l: &tfwasm_runtime::Limits| {
        format!(
            "fuel {}, memory {}, timeout {}",
            l.fuel,
            ByteSize(l.memory_bytes),
            HumanDuration(l.timeout)
        )
    };
    outln!(
        out,
        "limits:    {} per call; wasm stack {}; {}",
        describe(&limits.default),
        ByteSize(limits.max_wasm_stack),
        if limits.reuse_instances {
            "instances reused after successful calls"
        } else {
            "a fresh instance per call"
        }
    );
    for rpc in limits.per_rpc.keys() {
        outln!(out, "           {rpc}: {}", describe(&limits.for_rpc(*rpc)));
    }
    let work = &limits.host_work;
    outln!(
        out,
        "host work: log {} per call, {} per instance; diagnostics {} ({}) per call; journal {} writes ({}) per apply",
        ByteSize(work.log_bytes_per_call),
        ByteSize(work.log_bytes_per_instance),
        work.diagnostics_per_call,
        ByteSize(work.diagnostic_bytes_per_call),
        work.state_reports_per_call,
        ByteSize(work.state_report_bytes_per_call)
    );
    // The operator's grants; the guest ran without them (`load_to_read`).
    let grants = &settings.grants;
    outln!(out, "grants:");
    outln!(
        out,
        "  env:     {}",
        if grants.env.is_empty() {
            "none".to_owned()
        } else {
            grants.env.join(", ")
        }
    );
    outln!(
        out,
        "  dirs:    {}",
        if grants.dirs.is_empty() {
            "none".to_owned()
        } else {
            grants
                .dirs
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    let allowed: Vec<&str> = grants.http.entries().collect();
    outln!(
        out,
        "  http:    {}",
        if allowed.is_empty() {
            "none".to_owned()
        } else {
            allowed.join(", ")
        }
    );
    outln!(
        out,
        "  sockets: none (outgoing HTTP only through wasi:http)"
    );
    outln!(out, "http settings:");
    outln!(
        out,
        "  trusted CAs: the system's{}",
        settings
            .http
            .ca_files
            .iter()
            .map(|f| format!(", {}", f.display()))
            .collect::<String>()
    );
    outln!(
        out,
        "  proxies:     {}",
        match &settings.http.proxy {
            None => "from HTTPS_PROXY/HTTP_PROXY/ALL_PROXY/NO_PROXY in the environment".to_owned(),
            Some(p) => format!(
                "http {}, https {}, no_proxy {}",
                p.http.as_deref().unwrap_or("none"),
                p.https.as_deref().unwrap_or("none"),
                p.no_proxy.as_deref().unwrap_or("none")
            ),
        }
    );
    outln!(out, "imports:");
    for import in provider.imports() {
        outln!(out, "  {import}");
    }
    for diagnostic in &schema.diagnostics {
        outln!(out, "{diagnostic}");
    }
    print_schema(&mut out, "provider", &schema.provider);
    for (name, s) in &schema.resources {
        print_schema(&mut out, &format!("resource {name}"), s);
        if let Some(identity) = identities.identity_schemas.get(name) {
            let attrs: Vec<String> = identity
                .attributes
                .iter()
                .map(|a| {
                    let import = if a.required_for_import {
                        ", required for import"
                    } else if a.optional_for_import {
                        ", optional for import"
                    } else {
                        ""
                    };
                    format!("{} {}{import}", a.name, a.ty.to_json_string())
                })
                .collect();
            outln!(
                out,
                "  identity (version {}): {}",
                identity.version,
                attrs.join("; ")
            );
        }
    }
    for (name, s) in &schema.data_sources {
        print_schema(&mut out, &format!("data source {name}"), s);
    }
    for (name, f) in &functions.functions {
        let params: Vec<String> = f
            .parameters
            .iter()
            .map(|p| format!("{} {}", p.name, p.ty.to_json_string()))
            .chain(
                f.variadic_parameter
                    .iter()
                    .map(|p| format!("{}... {}", p.name, p.ty.to_json_string())),
            )
            .collect();
        outln!(out, "");
        outln!(
            out,
            "function {name}({}) {}",
            params.join(", "),
            f.return_type.to_json_string()
        );
        outln!(out, "  {}", f.summary);
    }
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn print_schema(out: &mut String, title: &str, schema: &Schema) {
    outln!(out, "");
    outln!(out, "{title} (schema version {})", schema.version);
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
