//! Acceptance tests with real Terraform, in the spirit of terraform-plugin-testing: steps of
//! HCL configuration applied by `terraform` against the component packaged by `tfwasm
//! package`, each followed by state checks, with plan checks (no changes, will replace) and
//! import verification.
//!
//! ```no_run
//! use serde_json::json;
//! use tfwasm_testing::Harness;
//! use tfwasm_testing::acceptance::{Acceptance, Step};
//!
//! let component = Harness::built_component("tfwasm_sample_random").unwrap();
//! Acceptance::new(component, "registry.terraform.io/tfwasm/random")
//!     .step(
//!         Step::config(r#"resource "random_string" "s" { length = 12 }"#)
//!             .check("random_string.s", "length", json!(12))
//!             .check_with("random_string.s", "result", |v| {
//!                 (v.as_str().map(str::len) == Some(12)).then_some(()).ok_or("12 characters")
//!             }),
//!     )
//!     .step(
//!         Step::config(r#"resource "random_string" "s" { length = 13 }"#)
//!             .expect_replace("random_string.s"),
//!     )
//!     .step(Step::import_verify("random_string.s", &[]))
//!     .run()
//!     .unwrap();
//! ```
//!
//! Each step plans first (its plan checks run on that plan), applies, and then checks that a
//! second plan is empty, as terraform-plugin-testing does: a provider whose applied state
//! does not match its configuration fails here. The test destroys everything at the end and
//! fails if that fails.
//!
//! Terraform is `$TF_ACC_TERRAFORM_PATH`, else `terraform` on `PATH`; tfwasm is
//! `$TFWASM_BIN`, else `release/tfwasm` in the Cargo target directory, else `tfwasm` on
//! `PATH`. The `terraform` block naming the provider is added to every configuration.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use tfwasm_harness::on_path;

/// Why an acceptance test failed: which step, and what happened.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct AcceptanceError(String);

type CheckFn = Box<dyn Fn(&Json) -> Result<(), String>>;

/// Changes the world before a step: given `terraform show -json` of the state so far.
type PreConfigFn = Box<dyn Fn(&Json) -> Result<(), String>>;

/// One state check: an attribute of a resource after the step's apply.
struct Check {
    address: String,
    attribute: String,
    test: CheckFn,
    describe: String,
}

/// What the step's plan must be.
#[derive(Debug, Clone, PartialEq)]
enum PlanExpectation {
    Any,
    NoChanges,
    Replace(String),
    Update(String),
    Create(String),
}

/// One step: a configuration to apply and what must hold, or an import to verify.
pub struct Step {
    config: Option<String>,
    pre_config: Option<PreConfigFn>,
    checks: Vec<Check>,
    plan: PlanExpectation,
    expect_error: Option<String>,
    import: Option<(String, Vec<String>)>,
}

impl Step {
    /// Applies `hcl` (resources, data sources, outputs; the `terraform` block is added).
    pub fn config(hcl: &str) -> Step {
        Step {
            config: Some(hcl.to_owned()),
            pre_config: None,
            checks: Vec::new(),
            plan: PlanExpectation::Any,
            expect_error: None,
            import: None,
        }
    }

    /// Imports `address` by the ID in the current state into a fresh state with the same
    /// configuration, and requires every attribute to equal the applied one, except `ignore`
    /// (attributes an import cannot know, such as write-only inputs).
    pub fn import_verify(address: &str, ignore: &[&str]) -> Step {
        Step {
            config: None,
            pre_config: None,
            checks: Vec::new(),
            plan: PlanExpectation::Any,
            expect_error: None,
            import: Some((
                address.to_owned(),
                ignore.iter().map(|s| (*s).to_owned()).collect(),
            )),
        }
    }

    /// Before this step plans, runs `change` to change the world behind Terraform's back
    /// (drift: delete or edit the remote object, as another tool or a person would), as
    /// terraform-plugin-testing's `PreConfig` does. It gets `terraform show -json` of the
    /// state so far (null before the first apply; [`attribute`] reads it) and says what went
    /// wrong as its error. The step's plan checks then see what the provider made of it.
    pub fn pre_config(mut self, change: impl Fn(&Json) -> Result<(), String> + 'static) -> Step {
        self.pre_config = Some(Box::new(change));
        self
    }

    /// After apply, `address`'s `attribute` (a top-level name) equals `expected`.
    pub fn check(mut self, address: &str, attribute: &str, expected: Json) -> Step {
        let describe = format!("{address}.{attribute} == {expected}");
        self.checks.push(Check {
            address: address.to_owned(),
            attribute: attribute.to_owned(),
            test: Box::new(move |v| {
                if *v == expected {
                    Ok(())
                } else {
                    Err(format!("got {v}"))
                }
            }),
            describe,
        });
        self
    }

    /// After apply, `address`'s `attribute` passes `test` (which says what it expected).
    pub fn check_with(
        mut self,
        address: &str,
        attribute: &str,
        test: impl Fn(&Json) -> Result<(), &'static str> + 'static,
    ) -> Step {
        let describe = format!("{address}.{attribute} passes its check");
        self.checks.push(Check {
            address: address.to_owned(),
            attribute: attribute.to_owned(),
            test: Box::new(move |v| test(v).map_err(|want| format!("expected {want}, got {v}"))),
            describe,
        });
        self
    }

    /// The step's plan changes nothing.
    pub fn expect_no_changes(mut self) -> Step {
        self.plan = PlanExpectation::NoChanges;
        self
    }

    /// The step's plan replaces `address`.
    pub fn expect_replace(mut self, address: &str) -> Step {
        self.plan = PlanExpectation::Replace(address.to_owned());
        self
    }

    /// The step's plan creates `address` (new, or gone from the remote side since the last
    /// step: see [`Step::pre_config`]).
    pub fn expect_create(mut self, address: &str) -> Step {
        self.plan = PlanExpectation::Create(address.to_owned());
        self
    }

    /// The step's plan updates `address` in place.
    pub fn expect_update(mut self, address: &str) -> Step {
        self.plan = PlanExpectation::Update(address.to_owned());
        self
    }

    /// Planning or applying fails with output containing `text` (state checks are skipped).
    pub fn expect_error(mut self, text: &str) -> Step {
        self.expect_error = Some(text.to_owned());
        self
    }
}

/// An acceptance test of one packaged component.
pub struct Acceptance {
    component: PathBuf,
    source: String,
    package_flags: Vec<String>,
    steps: Vec<Step>,
}

/// How long one Terraform command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(300);

impl Acceptance {
    /// A test of `component` installed as `source` (`registry.terraform.io/NS/NAME`).
    pub fn new(component: impl Into<PathBuf>, source: &str) -> Acceptance {
        Acceptance {
            component: component.into(),
            source: source.to_owned(),
            package_flags: Vec::new(),
            steps: Vec::new(),
        }
    }

    /// Extra `tfwasm package` flags (grants, limits), e.g. `["--allow-dir", "/tmp:/data"]`.
    pub fn package_flags(mut self, flags: &[&str]) -> Acceptance {
        self.package_flags
            .extend(flags.iter().map(|f| (*f).to_owned()));
        self
    }

    /// Adds a step.
    pub fn step(mut self, step: Step) -> Acceptance {
        self.steps.push(step);
        self
    }

    /// Packages the component, runs every step in a fresh workspace, then destroys.
    ///
    /// # Errors
    /// The first failure, naming the step and quoting Terraform's output.
    pub fn run(self) -> Result<(), AcceptanceError> {
        let terraform = terraform()?;
        let tfwasm = tfwasm()?;
        let local = self
            .source
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned();
        let root = tempfile::tempdir().map_err(|e| fail(format!("temp dir: {e}")))?;
        let mirror = root.path().join("mirror");
        let out = Command::new(&tfwasm)
            .arg("package")
            .arg(&self.component)
            .args(["--source", &self.source, "--version", "0.0.1", "--out"])
            .arg(&mirror)
            .args(&self.package_flags)
            .output()
            .map_err(|e| fail(format!("running {}: {e}", tfwasm.display())))?;
        if !out.status.success() {
            return Err(fail(format!(
                "tfwasm package failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        let tf = Workspace {
            terraform,
            dir: root.path().join("work"),
            rc: root.path().join("cli.tfrc"),
            header: format!(
                "terraform {{\n  required_providers {{\n    {local} = {{ source = \"{}\" }}\n  }}\n}}\n\n",
                self.source
            ),
        };
        std::fs::create_dir_all(&tf.dir).map_err(|e| fail(e.to_string()))?;
        std::fs::write(
            &tf.rc,
            format!(
                "provider_installation {{\n  filesystem_mirror {{\n    path = {:?}\n  }}\n}}\n",
                mirror.display().to_string()
            ),
        )
        .map_err(|e| fail(e.to_string()))?;
        let mut config = String::new();
        // Destroy (and import) with the last configuration that applied, as a failed step's
        // configuration may not even validate.
        let mut applied = String::new();
        let mut initialized = false;
        let mut result = Ok(());
        for (i, step) in self.steps.iter().enumerate() {
            let n = i + 1;
            if let Some(hcl) = &step.config {
                config = hcl.clone();
                tf.write(&tf.dir, &config)?;
                if !initialized {
                    tf.ok(&tf.dir, &["init", "-no-color"], n)?;
                    initialized = true;
                }
            }
            if let Some(change) = &step.pre_config {
                let state = if applied.is_empty() {
                    Json::Null
                } else {
                    tf.show(&tf.dir, None, n)?
                };
                if let Err(e) = change(&state) {
                    result = Err(fail(format!("step {n}: its pre_config failed: {e}")));
                    break;
                }
            }
            result = match &step.import {
                Some((address, ignore)) => tf.import_verify(&applied, address, ignore, n),
                None => tf.apply_step(step, n),
            };
            if result.is_err() {
                break;
            }
            if step.config.is_some() && step.expect_error.is_none() {
                applied.clone_from(&config);
            }
        }
        if initialized {
            tf.write(&tf.dir, &applied)?;
            let destroy = tf.run(&tf.dir, &["destroy", "-auto-approve", "-no-color"]);
            if result.is_ok() && destroy.0 != 0 {
                result = Err(fail(format!("destroy at the end failed:\n{}", destroy.1)));
            }
        }
        result
    }
}

fn fail(message: String) -> AcceptanceError {
    AcceptanceError(message)
}

/// A Terraform working directory and how to run Terraform in it.
struct Workspace {
    terraform: PathBuf,
    dir: PathBuf,
    rc: PathBuf,
    header: String,
}

impl Workspace {
    fn write(&self, dir: &Path, config: &str) -> Result<(), AcceptanceError> {
        std::fs::write(dir.join("main.tf"), format!("{}{config}", self.header))
            .map_err(|e| fail(format!("writing main.tf: {e}")))
    }

    /// Runs Terraform; (exit code, stdout and stderr).
    fn run(&self, dir: &Path, args: &[&str]) -> (i32, String) {
        let out_path = dir.join(".tf-output");
        let Ok(file) = std::fs::File::create(&out_path) else {
            return (-1, "cannot create the output file".into());
        };
        let Ok(err_file) = file.try_clone() else {
            return (-1, "cannot clone the output file".into());
        };
        let child = Command::new(&self.terraform)
            .args(args)
            .current_dir(dir)
            .env("TF_CLI_CONFIG_FILE", &self.rc)
            .env("TF_IN_AUTOMATION", "1")
            .env("TF_INPUT", "0")
            .env("CHECKPOINT_DISABLE", "1")
            .stdin(std::process::Stdio::null())
            .stdout(file)
            .stderr(err_file)
            .spawn();
        let mut child = match child {
            Ok(child) => child,
            Err(e) => return (-1, format!("running {}: {e}", self.terraform.display())),
        };
        let started = Instant::now();
        let code = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status.code().unwrap_or(-1),
                Ok(None) if started.elapsed() > COMMAND_TIMEOUT => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break -1;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(_) => break -1,
            }
        };
        (code, std::fs::read_to_string(&out_path).unwrap_or_default())
    }

    fn ok(&self, dir: &Path, args: &[&str], step: usize) -> Result<String, AcceptanceError> {
        let (code, output) = self.run(dir, args);
        if code == 0 {
            Ok(output)
        } else {
            Err(fail(format!(
                "step {step}: terraform {} failed:\n{output}",
                args.join(" ")
            )))
        }
    }

    fn show(&self, dir: &Path, plan: Option<&str>, step: usize) -> Result<Json, AcceptanceError> {
        let mut args = vec!["show", "-json", "-no-color"];
        args.extend(plan);
        let text = self.ok(dir, &args, step)?;
        let start = text.find('{').unwrap_or(0);
        serde_json::from_str(&text[start..])
            .map_err(|e| fail(format!("step {step}: terraform show -json: {e}")))
    }

    fn apply_step(&self, step: &Step, n: usize) -> Result<(), AcceptanceError> {
        let (code, output) = self.run(&self.dir, &["plan", "-no-color", "-out", "step.plan"]);
        if let Some(text) = &step.expect_error {
            let output = if code == 0 {
                self.run(&self.dir, &["apply", "-no-color", "step.plan"]).1
            } else {
                output
            };
            let flat = output.split_whitespace().collect::<Vec<_>>().join(" ");
            return if flat.contains(text) {
                Ok(())
            } else {
                Err(fail(format!(
                    "step {n}: expected an error containing {text:?}:\n{output}"
                )))
            };
        }
        if code != 0 {
            return Err(fail(format!("step {n}: terraform plan failed:\n{output}")));
        }
        let plan = self.show(&self.dir, Some("step.plan"), n)?;
        check_plan(&plan, &step.plan).map_err(|e| fail(format!("step {n}: {e}")))?;
        self.ok(&self.dir, &["apply", "-no-color", "step.plan"], n)?;
        let state = self.show(&self.dir, None, n)?;
        for check in &step.checks {
            let value = attribute(&state, &check.address, &check.attribute)
                .ok_or_else(|| fail(format!("step {n}: {} is not in the state", check.address)))?;
            (check.test)(&value).map_err(|e| fail(format!("step {n}: {}: {e}", check.describe)))?;
        }
        let (code, output) = self.run(&self.dir, &["plan", "-no-color", "-detailed-exitcode"]);
        match code {
            0 => Ok(()),
            2 => Err(fail(format!(
                "step {n}: after applying this step, the plan was not empty:\n{output}"
            ))),
            _ => Err(fail(format!(
                "step {n}: the plan after apply failed:\n{output}"
            ))),
        }
    }

    fn import_verify(
        &self,
        config: &str,
        address: &str,
        ignore: &[String],
        n: usize,
    ) -> Result<(), AcceptanceError> {
        let state = self.show(&self.dir, None, n)?;
        let applied = resource(&state, address)
            .ok_or_else(|| fail(format!("step {n}: {address} is not in the state")))?;
        let id = applied["values"]["id"]
            .as_str()
            .ok_or_else(|| fail(format!("step {n}: {address} has no string id to import")))?
            .to_owned();
        let dir = self.dir.with_file_name(format!("import-{n}"));
        std::fs::create_dir_all(&dir).map_err(|e| fail(e.to_string()))?;
        self.write(&dir, config)?;
        self.ok(&dir, &["init", "-no-color"], n)?;
        self.ok(&dir, &["import", "-no-color", address, &id], n)?;
        let imported_state = self.show(&dir, None, n)?;
        let imported = resource(&imported_state, address)
            .ok_or_else(|| fail(format!("step {n}: the import did not record {address}")))?;
        let mut differences = Vec::new();
        if let (Some(a), Some(b)) = (
            applied["values"].as_object(),
            imported["values"].as_object(),
        ) {
            for (name, value) in a {
                if ignore.iter().any(|i| i == name) {
                    continue;
                }
                let other = b.get(name).unwrap_or(&Json::Null);
                if other != value {
                    differences.push(format!("  {name}: applied {value}, imported {other}"));
                }
            }
        }
        if differences.is_empty() {
            Ok(())
        } else {
            Err(fail(format!(
                "step {n}: importing {address} by ID {id:?} gave different attributes:\n{}",
                differences.join("\n")
            )))
        }
    }
}

/// The resource at `address` in `terraform show -json` output (root module).
fn resource<'a>(state: &'a Json, address: &str) -> Option<&'a Json> {
    state["values"]["root_module"]["resources"]
        .as_array()?
        .iter()
        .find(|r| r["address"] == address)
}

/// `address`'s top-level attribute `name` in `terraform show -json` output (root module),
/// e.g. in a [`Step::pre_config`] to find the remote object to change.
pub fn attribute(state: &Json, address: &str, name: &str) -> Option<Json> {
    resource(state, address).map(|r| r["values"][name].clone())
}

fn check_plan(plan: &Json, expected: &PlanExpectation) -> Result<(), String> {
    let changes = plan["resource_changes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let actions = |address: &str| -> Vec<String> {
        changes
            .iter()
            .find(|c| c["address"] == address)
            .and_then(|c| c["change"]["actions"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|a| a.as_str().map(str::to_owned))
            .collect()
    };
    match expected {
        PlanExpectation::Any => Ok(()),
        PlanExpectation::NoChanges => {
            let changing: Vec<String> = changes
                .iter()
                .filter(|c| c["change"]["actions"] != serde_json::json!(["no-op"]))
                .filter_map(|c| c["address"].as_str().map(str::to_owned))
                .collect();
            if changing.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "expected no changes, but the plan changes {changing:?}"
                ))
            }
        }
        PlanExpectation::Replace(address) => {
            let got = actions(address);
            if got.iter().any(|a| a == "delete") && got.iter().any(|a| a == "create") {
                Ok(())
            } else {
                Err(format!(
                    "expected {address} to be replaced, planned {got:?}"
                ))
            }
        }
        PlanExpectation::Create(address) => {
            let got = actions(address);
            if got == ["create"] {
                Ok(())
            } else {
                Err(format!("expected {address} to be created, planned {got:?}"))
            }
        }
        PlanExpectation::Update(address) => {
            let got = actions(address);
            if got == ["update"] {
                Ok(())
            } else {
                Err(format!(
                    "expected {address} to be updated in place, planned {got:?}"
                ))
            }
        }
    }
}

fn terraform() -> Result<PathBuf, AcceptanceError> {
    if let Some(path) = std::env::var_os("TF_ACC_TERRAFORM_PATH").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    on_path("terraform").ok_or_else(|| {
        fail("no Terraform: set TF_ACC_TERRAFORM_PATH or put terraform on PATH".into())
    })
}

fn tfwasm() -> Result<PathBuf, AcceptanceError> {
    if let Some(path) = std::env::var_os("TFWASM_BIN").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let mut candidates = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        candidates.push(PathBuf::from(dir).join("release/tfwasm"));
    }
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    for dir in start.ancestors() {
        candidates.push(dir.join("target/release/tfwasm"));
    }
    candidates
        .into_iter()
        .find(|p| p.is_file())
        .or_else(|| on_path("tfwasm"))
        .ok_or_else(|| {
            fail("no tfwasm: set TFWASM_BIN, build it (`make build`), or put it on PATH".into())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_expectations_read_terraforms_actions() {
        let plan = serde_json::json!({"resource_changes": [
            {"address": "a.x", "change": {"actions": ["delete", "create"]}},
            {"address": "a.y", "change": {"actions": ["update"]}},
            {"address": "a.z", "change": {"actions": ["no-op"]}},
        ]});
        assert!(check_plan(&plan, &PlanExpectation::Replace("a.x".into())).is_ok());
        assert!(check_plan(&plan, &PlanExpectation::Replace("a.y".into())).is_err());
        assert!(check_plan(&plan, &PlanExpectation::Update("a.y".into())).is_ok());
        let err = check_plan(&plan, &PlanExpectation::NoChanges).unwrap_err();
        assert!(
            err.contains("a.x") && err.contains("a.y") && !err.contains("a.z"),
            "{err}"
        );
    }
}
