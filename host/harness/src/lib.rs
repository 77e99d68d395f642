//! # tfwasm-harness
//!
//! A provider component's lifecycle in tests, without Terraform, driven through the
//! installed `tfwasm` (`tfwasm harness`): create, plan, apply, read, import, destroy and
//! validate, through the same runtime and lifecycle-contract checks `tfwasm serve` uses. It
//! is a small client (one dependency, `serde_json`), so a provider crate's first `cargo
//! test` compiles in seconds; `tfwasm-testing` is the same harness in process, for tests
//! that need more (upgrades, functions, ephemeral resources) and can wait for wasmtime to
//! compile.
//!
//! ```no_run
//! use serde_json::json;
//! use tfwasm_harness::Harness;
//!
//! let h = Harness::load(Harness::built_component("terraform_provider_acme").unwrap()).unwrap();
//! let state = h.create("acme_note", json!({"text": "hello"})).unwrap();
//! assert_eq!(state.attr("length").as_i64(), Some(5));
//! let plan = h.plan("acme_note", Some(&state), json!({"text": "hello"})).unwrap();
//! assert!(plan.is_no_op());
//! h.destroy(&state).unwrap();
//! ```
//!
//! Inputs are JSON objects (missing attributes are null; `{"$unknown": true}` is an unknown),
//! and values come back in the same form. `tfwasm` is `$TFWASM_BIN`, else `tfwasm` on `PATH`.

use std::cell::RefCell;
use std::fmt;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value as Json, json};

/// Why a harness call failed: the provider's diagnostics, or the harness itself.
#[derive(Debug, Clone)]
pub struct Error {
    message: String,
    diagnostics: Vec<Diagnostic>,
}

impl Error {
    fn new(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            diagnostics: Vec::new(),
        }
    }

    /// The provider's diagnostics, when it answered with errors (empty otherwise).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// One diagnostic of the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// `error` or `warning`.
    pub severity: String,
    /// One line saying what happened.
    pub summary: String,
    /// Where, why, and who should act.
    pub detail: String,
    /// The attribute it is about, e.g. `size` or `tags["a"]`.
    pub attribute: Option<String>,
}

impl Diagnostic {
    fn from_json(d: &Json) -> Diagnostic {
        let text = |name: &str| d[name].as_str().unwrap_or_default().to_owned();
        Diagnostic {
            severity: text("severity"),
            summary: text("summary"),
            detail: text("detail"),
            attribute: d["attribute"].as_str().map(str::to_owned),
        }
    }
}

/// What a component may reach, as the operator grants it with `tfwasm package`.
#[derive(Debug, Clone, Default)]
pub struct Grants {
    /// `scheme://host[:port]` entries, e.g. `http://127.0.0.1:*`.
    pub http: Vec<String>,
    /// `HOST_DIR:GUEST_DIR[:ro|rw]` entries.
    pub dirs: Vec<String>,
    /// Environment variable names.
    pub env: Vec<String>,
}

/// A resource instance's state, held by the harness between calls.
#[derive(Debug, Clone)]
pub struct State {
    handle: u64,
    /// The resource type.
    pub type_name: String,
    /// The state value.
    pub value: Json,
    /// The private state (null when there is none).
    pub private: Json,
}

impl State {
    /// The attribute `name` (null when absent).
    pub fn attr(&self, name: &str) -> &Json {
        self.value.get(name).unwrap_or(&Json::Null)
    }
}

/// A plan, ready to apply.
#[derive(Debug, Clone)]
pub struct Planned {
    handle: u64,
    /// The resource type.
    pub type_name: String,
    /// The planned state.
    pub planned: Json,
    /// Attribute paths whose change replaces the resource.
    pub requires_replace: Vec<String>,
    /// Warnings of the plan.
    pub warnings: Vec<Diagnostic>,
    no_op: bool,
}

impl Planned {
    /// True when the plan changes nothing (`terraform plan` shows no change).
    pub fn is_no_op(&self) -> bool {
        self.no_op
    }
    /// The planned attribute `name` (null when absent).
    pub fn attr(&self, name: &str) -> &Json {
        self.planned.get(name).unwrap_or(&Json::Null)
    }
}

/// A component loaded by `tfwasm harness`, answering one call at a time.
pub struct Harness {
    child: Child,
    io: RefCell<(ChildStdin, BufReader<ChildStdout>)>,
}

impl Harness {
    /// Loads the component at `path` with no grants.
    ///
    /// # Errors
    /// `tfwasm` cannot be run, or the component cannot be loaded.
    pub fn load(path: impl AsRef<Path>) -> Result<Harness, Error> {
        Harness::load_with(path, &Grants::default())
    }

    /// Loads the component at `path` with the directories, hosts and environment variables
    /// in `grants`.
    ///
    /// # Errors
    /// `tfwasm` cannot be run, or the component cannot be loaded.
    pub fn load_with(path: impl AsRef<Path>, grants: &Grants) -> Result<Harness, Error> {
        let tfwasm = tfwasm()?;
        let mut cmd = Command::new(&tfwasm);
        cmd.arg("harness").arg(path.as_ref());
        for (flag, values) in [
            ("--allow-http", &grants.http),
            ("--allow-dir", &grants.dirs),
            ("--allow-env", &grants.env),
        ] {
            for value in values {
                cmd.arg(flag).arg(value);
            }
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| Error::new(format!("cannot run {}: {e}", tfwasm.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::new("tfwasm harness has no stdin or stdout"));
        };
        let harness = Harness {
            child,
            io: RefCell::new((stdin, BufReader::new(stdout))),
        };
        // The first answer says whether the component loaded.
        harness.call(json!({ "op": "schema" }))?;
        Ok(harness)
    }

    /// Where `cargo build --release --target wasm32-wasip2` put the component of the crate
    /// whose library is named `lib_name` (e.g. `terraform_provider_acme`):
    /// `$TFWASM_COMPONENT` if set, else `wasm32-wasip2/release/<lib_name>.wasm` under
    /// `$CARGO_TARGET_DIR` or the nearest `target/` above the crate being tested. A component
    /// older than the crate's sources is refused, naming the changed file, so a test never
    /// runs yesterday's code.
    ///
    /// # Errors
    /// The component has not been built, or was built before the sources last changed.
    pub fn built_component(lib_name: &str) -> Result<PathBuf, Error> {
        built_component(lib_name).map_err(Error::new)
    }

    /// The provider's schemas, as `tfwasm` models them (JSON).
    ///
    /// # Errors
    /// The harness stopped.
    pub fn schema(&self) -> Result<Json, Error> {
        self.call(json!({ "op": "schema" }))
    }

    /// ValidateProviderConfig, then ConfigureProvider.
    ///
    /// # Errors
    /// Either answered with an error.
    pub fn configure(&self, config: Json) -> Result<(), Error> {
        self.call(json!({ "op": "configure", "config": config }))
            .map(drop)
    }

    /// ValidateResourceConfig: the diagnostics (an error diagnostic is an answer, not a
    /// failure).
    ///
    /// # Errors
    /// The configuration does not fit the schema.
    pub fn validate(&self, type_name: &str, config: Json) -> Result<Vec<Diagnostic>, Error> {
        let answer = self.call(json!({ "op": "validate", "type": type_name, "config": config }))?;
        Ok(answer
            .as_array()
            .map(|ds| ds.iter().map(Diagnostic::from_json).collect())
            .unwrap_or_default())
    }

    /// Plans and applies a create.
    ///
    /// # Errors
    /// The plan or the apply answered with an error.
    pub fn create(&self, type_name: &str, config: Json) -> Result<State, Error> {
        let answer = self.call(json!({ "op": "create", "type": type_name, "config": config }))?;
        state(&answer)
    }

    /// PlanResourceChange from `prior` (none: a create) to `config`.
    ///
    /// # Errors
    /// The plan answered with an error.
    pub fn plan(
        &self,
        type_name: &str,
        prior: Option<&State>,
        config: Json,
    ) -> Result<Planned, Error> {
        let answer = self.call(json!({
            "op": "plan",
            "type": type_name,
            "prior": prior.map(|s| s.handle),
            "config": config,
        }))?;
        Ok(Planned {
            handle: handle(&answer)?,
            type_name: answer["type"].as_str().unwrap_or_default().to_owned(),
            planned: answer["planned"].clone(),
            requires_replace: (answer["requires_replace"].as_array())
                .map(|paths| {
                    paths
                        .iter()
                        .filter_map(|p| p.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            warnings: (answer["warnings"].as_array())
                .map(|ds| ds.iter().map(Diagnostic::from_json).collect())
                .unwrap_or_default(),
            no_op: answer["no_op"].as_bool().unwrap_or(false),
        })
    }

    /// ApplyResourceChange of `plan`: the new state (none after a destroy).
    ///
    /// # Errors
    /// The apply answered with an error.
    pub fn apply(&self, plan: &Planned) -> Result<Option<State>, Error> {
        let answer = self.call(json!({ "op": "apply", "plan": plan.handle }))?;
        optional_state(&answer)
    }

    /// ReadResource: the refreshed state, or none when the object is gone.
    ///
    /// # Errors
    /// The read answered with an error.
    pub fn read(&self, state: &State) -> Result<Option<State>, Error> {
        let answer = self.call(json!({ "op": "read", "state": state.handle }))?;
        optional_state(&answer)
    }

    /// Plans and applies a destroy.
    ///
    /// # Errors
    /// The plan or the apply answered with an error.
    pub fn destroy(&self, state: &State) -> Result<(), Error> {
        self.call(json!({ "op": "destroy", "state": state.handle }))
            .map(drop)
    }

    /// ImportResourceState by `id`, then ReadResource.
    ///
    /// # Errors
    /// Either answered with an error.
    pub fn import(&self, type_name: &str, id: &str) -> Result<State, Error> {
        let answer = self.call(json!({ "op": "import", "type": type_name, "id": id }))?;
        state(&answer)
    }

    /// The provider's log lines so far, as `[level] message key=value`.
    ///
    /// # Errors
    /// The harness stopped.
    pub fn logs(&self) -> Result<Vec<String>, Error> {
        let answer = self.call(json!({ "op": "logs" }))?;
        Ok((answer.as_array().into_iter().flatten())
            .map(|l| {
                let mut line = format!(
                    "[{}] {}",
                    l["level"].as_str().unwrap_or_default(),
                    l["message"].as_str().unwrap_or_default()
                );
                for pair in l["fields"].as_array().into_iter().flatten() {
                    line.push_str(&format!(
                        " {}={}",
                        pair[0].as_str().unwrap_or_default(),
                        pair[1].as_str().unwrap_or_default()
                    ));
                }
                line
            })
            .collect())
    }

    /// Sends one request and reads its answer.
    fn call(&self, request: Json) -> Result<Json, Error> {
        let mut io = self.io.borrow_mut();
        let (stdin, stdout) = &mut *io;
        let stopped = |e: std::io::Error| {
            Error::new(format!(
                "tfwasm harness stopped ({e}); its error is above in the test's output"
            ))
        };
        writeln!(stdin, "{request}").map_err(stopped)?;
        stdin.flush().map_err(stopped)?;
        let mut line = String::new();
        if stdout.read_line(&mut line).map_err(stopped)? == 0 {
            return Err(stopped(std::io::ErrorKind::UnexpectedEof.into()));
        }
        let mut answer: Json = serde_json::from_str(&line)
            .map_err(|e| Error::new(format!("tfwasm harness answered {line:?}: {e}")))?;
        if let Some(message) = answer["error"].as_str() {
            return Err(Error {
                message: message.to_owned(),
                diagnostics: (answer["diagnostics"].as_array())
                    .map(|ds| ds.iter().map(Diagnostic::from_json).collect())
                    .unwrap_or_default(),
            });
        }
        Ok(answer["ok"].take())
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        // Closing stdin ends it; a stuck one is stopped.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn handle(answer: &Json) -> Result<u64, Error> {
    answer["handle"].as_u64().ok_or_else(|| {
        Error::new(format!(
            "tfwasm harness answered without a handle: {answer}"
        ))
    })
}

fn state(answer: &Json) -> Result<State, Error> {
    Ok(State {
        handle: handle(answer)?,
        type_name: answer["type"].as_str().unwrap_or_default().to_owned(),
        value: answer["value"].clone(),
        private: answer["private"].clone(),
    })
}

fn optional_state(answer: &Json) -> Result<Option<State>, Error> {
    match answer {
        Json::Null => Ok(None),
        answer => state(answer).map(Some),
    }
}

/// `$TFWASM_BIN`, else `tfwasm` on `PATH`.
fn tfwasm() -> Result<PathBuf, Error> {
    if let Some(path) = std::env::var_os("TFWASM_BIN").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    on_path("tfwasm").ok_or_else(|| {
        Error::new("tfwasm is not on PATH: install it, or set TFWASM_BIN to its path")
    })
}

/// `name` in a directory of `PATH`; shared with `tfwasm-testing`.
#[doc(hidden)]
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// See [`Harness::built_component`]; shared with `tfwasm-testing`.
#[doc(hidden)]
pub fn built_component(lib_name: &str) -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("TFWASM_COMPONENT") {
        return Ok(PathBuf::from(path));
    }
    let file = format!("wasm32-wasip2/release/{lib_name}.wasm");
    let mut candidates = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        candidates.push(PathBuf::from(dir).join(&file));
    }
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    for dir in start.ancestors() {
        candidates.push(dir.join("target").join(&file));
    }
    let found = candidates.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        format!(
            "no built component {file}; build it first with `cargo build --release --target wasm32-wasip2` (or `make build`), or set TFWASM_COMPONENT"
        )
    })?;
    // Testing a crate: its component must be built from what its sources say now.
    if let Some(crate_dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        refuse_stale(&found, Path::new(&crate_dir))?;
    }
    Ok(found)
}

/// Refuses `component` when a source of the crate in `crate_dir` (`Cargo.toml`, `build.rs`,
/// anything under `src/` or `wit/`) changed after it was built: a test would otherwise pass or
/// fail on yesterday's code, silently.
fn refuse_stale(component: &Path, crate_dir: &Path) -> Result<(), String> {
    let built = std::fs::metadata(component)
        .and_then(|m| m.modified())
        .map_err(|e| format!("{}: {e}", component.display()))?;
    let mut pending: Vec<PathBuf> = ["Cargo.toml", "build.rs", "src", "wit"]
        .iter()
        .map(|name| crate_dir.join(name))
        .collect();
    // A crate's sources, not a whole disk: a bounded walk.
    let mut budget = 100_000u32;
    while let Some(path) = pending.pop() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                pending.extend(entries.flatten().map(|e| e.path()));
            }
        } else if meta.modified().is_ok_and(|m| m > built) {
            return Err(format!(
                "{} is older than {} (changed after the last build): build it again with `cargo build --release --target wasm32-wasip2` before `cargo test`, or set TFWASM_COMPONENT to test a component as it is",
                component.display(),
                path.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_component_older_than_its_crates_sources_is_refused_naming_the_source() {
        let krate = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(krate.path().join("src/resources")).unwrap();
        std::fs::write(krate.path().join("Cargo.toml"), "").unwrap();
        std::fs::write(krate.path().join("src/resources/note.rs"), "").unwrap();
        let component = krate.path().join("built.wasm");
        std::fs::write(&component, b"\0asm").unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        for file in ["Cargo.toml", "src/resources/note.rs"] {
            let f = std::fs::File::options()
                .write(true)
                .open(krate.path().join(file))
                .unwrap();
            f.set_modified(old).unwrap();
        }
        refuse_stale(&component, krate.path()).unwrap();
        std::fs::write(krate.path().join("src/resources/note.rs"), "// edited").unwrap();
        let f = std::fs::File::options()
            .write(true)
            .open(&component)
            .unwrap();
        f.set_modified(old - std::time::Duration::from_secs(60))
            .unwrap();
        let error = refuse_stale(&component, krate.path()).unwrap_err();
        assert!(
            error.contains("note.rs") && error.contains("build it again"),
            "{error}"
        );
    }
}
