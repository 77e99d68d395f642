//! `tfwasm docs`: provider documentation from a component, in tfplugindocs' layout.

use anyhow::bail;
use std::path::PathBuf;
use tfwasm_model::rpc::prelude::*;

use crate::docs::{Sources, render};

/// Arguments of `tfwasm docs`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider component (`wasm32-wasip2`).
    component: PathBuf,
    /// Where to write the pages (`index.md`, `resources/`, `data-sources/`, ...).
    #[arg(long, value_name = "DIR", default_value = "docs")]
    out: PathBuf,
    /// Example configurations laid out as tfplugindocs expects
    /// (`resources/TYPE/resource.tf`, `resources/TYPE/import.sh`, `provider/provider.tf`, ...).
    #[arg(long, value_name = "DIR")]
    examples: Option<PathBuf>,
    /// The provider's local name, the prefix of its type names [default: the common prefix
    /// of the type names, else the component's file name].
    #[arg(long)]
    name: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(examples) = &args.examples
        && !examples.is_dir()
    {
        bail!("--examples {}: not a directory", examples.display());
    }
    let (provider, _, settings) = super::load_to_read(&args.component)?;
    super::refuse_output_in_writable_grants(&args.out, &settings.grants.dirs)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let schema = runtime.block_on(provider.get_provider_schema());
    if tfwasm_model::has_error(&schema.diagnostics) {
        // One problem a line: the guest's text may not start lines of its own.
        let problems: Vec<String> = (schema.diagnostics.iter())
            .map(|d| crate::hclog::escaped(&d.to_string()).into_owned())
            .collect();
        bail!(
            "the component's schema has errors:\n{}",
            problems.join("\n")
        );
    }
    let functions = runtime.block_on(provider.get_functions()).functions;
    let name = args.name.clone().unwrap_or_else(|| {
        local_name(&schema).unwrap_or_else(|| {
            args.component.file_stem().map_or_else(
                || "provider".to_owned(),
                |s| s.to_string_lossy().into_owned(),
            )
        })
    });
    let pages = render(&Sources {
        name: &name,
        schema: &schema,
        functions: &functions,
        examples: args.examples.as_deref(),
    });
    for (relative, text) in &pages {
        // Pages are named after the guest's types and functions: never outside `--out`.
        let inside = std::path::Path::new(relative)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            anyhow::bail!("the provider names a page {relative:?} outside the output directory");
        }
        let path = args.out.join(relative);
        if let Some(dir) = path.parent() {
            crate::files::create_dirs(&args.out, dir.strip_prefix(&args.out).unwrap_or(dir))?;
        }
        crate::files::replace(&path, text.as_bytes(), 0o644)?;
    }
    println!(
        "wrote {} pages for provider {name:?} to {}",
        pages.len(),
        args.out.display()
    );
    Ok(())
}

/// The prefix every type name shares before its first `_` (`random` for `random_pet`,
/// `random_string`), when they agree.
fn local_name(schema: &tfwasm_model::ProviderSchema) -> Option<String> {
    let mut names = schema
        .resources
        .keys()
        .chain(schema.data_sources.keys())
        .chain(schema.ephemeral_resources.keys())
        .map(|n| n.split_once('_').map_or(n.as_str(), |(prefix, _)| prefix));
    let first = names.next()?;
    names.all(|n| n == first).then(|| first.to_owned())
}
