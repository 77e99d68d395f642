//! `tfwasm harness`: a component's lifecycle driven over JSON lines on stdin and stdout, for
//! tests. `tfwasm-harness` (what `tfwasm new` crates test with) runs it, so an author's first
//! `cargo test` compiles a small client instead of wasmtime (5 min on 2 cores) and the calls
//! go through the same runtime and contract checks `tfwasm serve` uses
//! (`tfwasm_testing::Harness`, in process here).
//!
//! One request per line, `{"op": "...", ...}`, one answer per line: `{"ok": ...}` or
//! `{"error": "...", "diagnostics": [...]}`. States and plans stay here, named by a handle;
//! answers show their values in Terraform's JSON form (`{"$unknown": true}` for unknowns).

use std::collections::HashMap;
use std::io::{BufRead as _, Write as _};
use std::path::PathBuf;

use anyhow::Context as _;
use serde_json::{Value as Json, json};
use tfwasm_model::{Diagnostic, Type, Value};
use tfwasm_testing::{Grants, Harness, HarnessError, Planned, State};

/// Arguments of `tfwasm harness`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider component (`wasm32-wasip2`).
    component: PathBuf,
    /// What the provider may reach, as `tfwasm package` grants it.
    #[command(flatten)]
    grants: super::grant_flags::GrantFlags,
}

/// Longest request line read: a test's configuration, not a stream.
const MAX_LINE: usize = 64 << 20;

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut settings = crate::config::ProviderConfig::default();
    args.grants.add_to(&mut settings);
    let grants = Grants {
        http: settings.grants.http.clone(),
        dirs: settings.grants.dirs.clone(),
        env: settings.grants.env.clone(),
    };
    let harness = Harness::load_with(&args.component, &grants)
        .with_context(|| format!("loading {}", args.component.display()))?;
    let mut session = Session {
        harness,
        states: HashMap::new(),
        plans: HashMap::new(),
        next: 0,
    };
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut line = String::new();
    loop {
        line.clear();
        let read = std::io::Read::take(&mut stdin, MAX_LINE as u64 + 1)
            .read_line(&mut line)
            .context("reading a request")?;
        if read == 0 {
            return Ok(());
        }
        let answer = if line.len() > MAX_LINE {
            // The rest of that line is part of the same request: skipped, not answered.
            let mut rest = Vec::new();
            while !line.ends_with('\n') && !rest.ends_with(b"\n") {
                rest.clear();
                let read = std::io::Read::take(&mut stdin, 1 << 20)
                    .read_until(b'\n', &mut rest)
                    .context("reading a request")?;
                if read == 0 {
                    break;
                }
            }
            json!({ "error": format!("a request line is at most {MAX_LINE} bytes") })
        } else {
            match serde_json::from_str::<Json>(&line) {
                Ok(request) => session.answer(&request),
                Err(e) => json!({ "error": format!("not a JSON request: {e}") }),
            }
        };
        writeln!(stdout, "{answer}").context("writing an answer")?;
        stdout.flush().context("writing an answer")?;
    }
}

/// The harness and what the test holds handles to.
struct Session {
    harness: Harness,
    states: HashMap<u64, State>,
    plans: HashMap<u64, Planned>,
    next: u64,
}

/// A request that cannot be served, said to the test.
struct Refused(Json);

impl From<HarnessError> for Refused {
    fn from(e: HarnessError) -> Refused {
        let diagnostics: Vec<Json> = e.diagnostics().iter().map(diagnostic_json).collect();
        Refused(json!({ "error": e.to_string(), "diagnostics": diagnostics }))
    }
}

fn refused(message: impl Into<String>) -> Refused {
    Refused(json!({ "error": message.into() }))
}

impl Session {
    fn answer(&mut self, request: &Json) -> Json {
        match self.serve(request) {
            Ok(ok) => json!({ "ok": ok }),
            Err(Refused(error)) => error,
        }
    }

    fn serve(&mut self, request: &Json) -> Result<Json, Refused> {
        let text = |name: &str| {
            request[name]
                .as_str()
                .ok_or_else(|| refused(format!("the request has no string {name:?}")))
        };
        let config = || request["config"].clone();
        match text("op")? {
            "schema" => serde_json::to_value(self.harness.schema())
                .map_err(|e| refused(format!("the schema as JSON: {e}"))),
            "configure" => {
                self.harness.configure(config())?;
                Ok(Json::Null)
            }
            "validate" => {
                let diagnostics = self.harness.validate(text("type")?, config())?;
                Ok(diagnostics.iter().map(diagnostic_json).collect())
            }
            "create" => {
                let state = self.harness.create(text("type")?, config())?;
                self.keep_state(state)
            }
            "plan" => {
                let prior = match &request["prior"] {
                    Json::Null => None,
                    handle => Some(self.state(handle)?.clone()),
                };
                let plan = self.harness.plan(text("type")?, prior.as_ref(), config())?;
                self.keep_plan(plan)
            }
            "apply" => {
                let plan = self.plan(&request["plan"])?.clone();
                match self.harness.apply(&plan)? {
                    Some(state) => self.keep_state(state),
                    None => Ok(Json::Null),
                }
            }
            "read" => {
                let state = self.state(&request["state"])?.clone();
                match self.harness.read(&state)? {
                    Some(state) => self.keep_state(state),
                    None => Ok(Json::Null),
                }
            }
            "destroy" => {
                let state = self.state(&request["state"])?.clone();
                self.harness.destroy(&state)?;
                Ok(Json::Null)
            }
            "import" => {
                let state = self.harness.import(text("type")?, text("id")?)?;
                self.keep_state(state)
            }
            "logs" => Ok(self
                .harness
                .logs()
                .iter()
                .map(|l| json!({ "level": l.level, "message": l.message, "fields": l.fields }))
                .collect()),
            other => Err(refused(format!(
                "unknown op {other:?}: schema, configure, validate, create, plan, apply, read, destroy, import or logs"
            ))),
        }
    }

    fn handle(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    fn state(&self, handle: &Json) -> Result<&State, Refused> {
        handle
            .as_u64()
            .and_then(|h| self.states.get(&h))
            .ok_or_else(|| refused(format!("no state with handle {handle}")))
    }

    fn plan(&self, handle: &Json) -> Result<&Planned, Refused> {
        handle
            .as_u64()
            .and_then(|h| self.plans.get(&h))
            .ok_or_else(|| refused(format!("no plan with handle {handle}")))
    }

    fn keep_state(&mut self, state: State) -> Result<Json, Refused> {
        let handle = self.handle();
        let ty = self.type_of(&state.type_name)?;
        let answer = json!({
            "handle": handle,
            "type": state.type_name,
            "value": readable(&state.value, &ty)?,
            "private": state.private_json(),
        });
        self.states.insert(handle, state);
        Ok(answer)
    }

    fn keep_plan(&mut self, plan: Planned) -> Result<Json, Refused> {
        let handle = self.handle();
        let ty = self.type_of(&plan.type_name)?;
        let answer = json!({
            "handle": handle,
            "type": plan.type_name,
            "planned": readable(&plan.planned, &ty)?,
            "no_op": plan.is_no_op(),
            "requires_replace": plan.requires_replace.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "warnings": plan.warnings.iter().map(diagnostic_json).collect::<Vec<_>>(),
        });
        self.plans.insert(handle, plan);
        Ok(answer)
    }

    fn type_of(&self, type_name: &str) -> Result<Type, Refused> {
        (self.harness.schema().resources.get(type_name))
            .map(|s| s.block.implied_type())
            .ok_or_else(|| refused(format!("no resource type {type_name:?}")))
    }
}

/// A value in Terraform's JSON form, unknowns marked.
fn readable(value: &Value, ty: &Type) -> Result<Json, Refused> {
    tfwasm_model::codec::json::encode_with_unknowns(value, ty)
        .map_err(|e| refused(format!("a value as JSON: {e}")))
}

fn diagnostic_json(d: &Diagnostic) -> Json {
    json!({
        "severity": if d.severity == tfwasm_model::Severity::Error { "error" } else { "warning" },
        "summary": d.summary,
        "detail": d.detail,
        "attribute": d.attribute.as_ref().map(ToString::to_string),
    })
}
