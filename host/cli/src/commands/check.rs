//! `tfwasm check plan|apply FILE`: the contract checker on hand-written files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value as Json;
use tfwasm_contract::{Violations, check_apply, check_plan, check_requires_replace};
use tfwasm_model::codec::json::decode_with_unknowns;
use tfwasm_model::schema_json::block_from_json;
use tfwasm_model::{AttributePath, Block, Type, Value};

/// What to check. Values are JSON of the schema's implied type (missing attributes are
/// null), with an unknown written as `{"$unknown": true}`; the schema is a block in the
/// `terraform providers schema -json` format.
///
/// Exit status: 0 when valid; 1 with one line per violation, starting with the attribute
/// path (e.g. `.a.b[0]["k"]: ...`); 2 when the input is malformed.
#[derive(Debug, clap::Subcommand)]
pub enum Check {
    /// A PlanResourceChange result: `{"schema": BLOCK, "prior": V, "config": V, "planned": V}`,
    /// optionally `"proposed": V` and `"requires_replace": [".path", ...]`. A null prior is
    /// a create; a null config is a destroy.
    Plan {
        /// The JSON file (`-` for standard input).
        file: PathBuf,
    },
    /// An ApplyResourceChange result: `{"schema": BLOCK, "planned": V, "new": V}`. A null
    /// planned value is a delete.
    Apply {
        /// The JSON file (`-` for standard input).
        file: PathBuf,
    },
}

/// Malformed input: message for stderr, exit code 2.
struct Malformed(String);

pub fn run(check: Check) -> ExitCode {
    let result = match &check {
        Check::Plan { file } => plan(file),
        Check::Apply { file } => apply(file),
    };
    match result {
        Ok(violations) if violations.is_empty() => ExitCode::SUCCESS,
        Ok(violations) => {
            let more = violations.more();
            // One violation a line, whatever the input's keys and values hold.
            for v in violations {
                println!("{}", crate::hclog::escaped(&v.to_string()));
            }
            if more > 0 {
                println!("… and {more} more");
            }
            ExitCode::from(1)
        }
        Err(Malformed(message)) => {
            eprintln!("error: {}", crate::hclog::escaped(&message));
            ExitCode::from(2)
        }
    }
}

fn read(file: &Path) -> Result<serde_json::Map<String, Json>, Malformed> {
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| Malformed(format!("cannot read standard input: {e}")))?
    } else {
        std::fs::read_to_string(file)
            .map_err(|e| Malformed(format!("cannot read {}: {e}", file.display())))?
    };
    match serde_json::from_str(&text) {
        Ok(Json::Object(doc)) => Ok(doc),
        Ok(_) => Err(Malformed(format!(
            "{}: expected a JSON object",
            file.display()
        ))),
        Err(e) => Err(Malformed(format!(
            "{}: not valid JSON: {e}",
            file.display()
        ))),
    }
}

fn schema(
    doc: &serde_json::Map<String, Json>,
    file: &Path,
    allowed: &[&str],
) -> Result<Block, Malformed> {
    if let Some(extra) = doc.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(Malformed(format!(
            "{}: unexpected key {extra:?} (expected {allowed:?})",
            file.display()
        )));
    }
    let json = doc
        .get("schema")
        .ok_or_else(|| Malformed(format!("{}: missing \"schema\"", file.display())))?;
    block_from_json(json).map_err(|e| Malformed(format!("{}: {e}", file.display())))
}

fn value(
    doc: &serde_json::Map<String, Json>,
    key: &str,
    ty: &Type,
    file: &Path,
    required: bool,
) -> Result<Value, Malformed> {
    match doc.get(key) {
        None if required => Err(Malformed(format!("{}: missing {key:?}", file.display()))),
        None => Ok(Value::Null),
        Some(json) => decode_with_unknowns(json, ty).map_err(|e| {
            let at = if e.path.is_root() {
                String::new()
            } else {
                format!(" at {}", e.path)
            };
            Malformed(format!("{}: {key}{at}: {}", file.display(), e.message))
        }),
    }
}

fn plan(file: &Path) -> Result<Violations, Malformed> {
    let doc = read(file)?;
    let block = schema(
        &doc,
        file,
        &[
            "schema",
            "prior",
            "config",
            "planned",
            "proposed",
            "requires_replace",
        ],
    )?;
    let ty = block.implied_type();
    let prior = value(&doc, "prior", &ty, file, true)?;
    let config = value(&doc, "config", &ty, file, true)?;
    let planned = value(&doc, "planned", &ty, file, true)?;
    value(&doc, "proposed", &ty, file, false)?;
    let paths = match doc.get("requires_replace") {
        None => Vec::new(),
        Some(Json::Array(list)) => list
            .iter()
            .map(|p| {
                p.as_str()
                    .ok_or_else(|| {
                        Malformed(format!(
                            "{}: requires_replace entries are path strings",
                            file.display()
                        ))
                    })?
                    .parse::<AttributePath>()
                    .map_err(|e| Malformed(format!("{}: {e}", file.display())))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(Malformed(format!(
                "{}: requires_replace must be a list",
                file.display()
            )));
        }
    };
    let mut violations = check_plan(&block, &prior, &config, &planned);
    violations.extend(check_requires_replace(&block, &prior, &paths));
    Ok(violations)
}

fn apply(file: &Path) -> Result<Violations, Malformed> {
    let doc = read(file)?;
    let block = schema(&doc, file, &["schema", "planned", "new"])?;
    let ty = block.implied_type();
    let planned = value(&doc, "planned", &ty, file, true)?;
    let new = value(&doc, "new", &ty, file, true)?;
    Ok(check_apply(&block, &planned, &new))
}
