//! # tfwasm-sample-hostile
//!
//! A provider that attacks its sandbox on demand (see README.md): tfwasm must stop every
//! attack with a diagnostic and keep serving, and grant exactly what the operator allowed.

mod http;

use tfwasm_sdk::glue::{RawHook, wit};
use tfwasm_sdk::prelude::*;
use tfwasm_sdk::validate::one_of;

/// Every behaviour `hostile_act` knows.
pub const BEHAVIORS: &[&str] = &[
    "ok",
    "spin",
    "recurse",
    "grow_memory",
    "panic",
    "huge_output",
    "bad_msgpack",
    "sleep",
    "read_file",
    "read_env",
    "http_get",
    "create_then_panic",
    "create_then_hang",
    "write_file",
    "link_file",
    "log_flood",
    "huge_diagnostic",
    "stderr_then_panic",
    "report_flood",
    "http_leave",
    "fields_hoard",
    "long_request_parts",
    "huge_private",
];

/// The provider.
pub struct Hostile;

impl Provider for Hostile {
    fn resources(&self) -> Vec<Box<dyn Resource>> {
        vec![Box::new(Act)]
    }
}

struct Act;

fn field(value: &Value, name: &str) -> String {
    value.get_string(name).ok().flatten().unwrap_or_default()
}

/// Recursion the optimiser cannot turn into a loop.
#[inline(never)]
fn recurse(depth: u64) -> u64 {
    // Never true in practice; keeps the recursion formally finite.
    if depth == u64::MAX {
        return 0;
    }
    let local = [depth; 16];
    std::hint::black_box(&local);
    recurse(depth + 1) + local[depth as usize % 16]
}

/// Does `behavior`; returns the `result` text or a diagnostic.
fn act(value: &Value) -> Result<String, Diagnostic> {
    let behavior = field(value, "behavior");
    let target = field(value, "target");
    let fail = |summary: &str, detail: String| {
        Err(Diagnostic::error(summary, detail).at(AttributePath::attribute("target")))
    };
    match behavior.as_str() {
        "spin" => {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
        "recurse" => Ok(recurse(0).to_string()),
        "grow_memory" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 8 << 20]);
                std::hint::black_box(&hoard);
            }
        }
        "panic" => panic!("hostile provider panicked on purpose (target {target:?})"),
        "huge_output" => {
            let mib: usize = target.parse().unwrap_or(32);
            Ok("x".repeat(mib << 20))
        }
        "sleep" => {
            let ms: u64 = target.parse().unwrap_or(0);
            std::thread::sleep(std::time::Duration::from_millis(ms));
            Ok(format!("slept {ms} ms"))
        }
        "read_file" => match std::fs::read_to_string(&target) {
            Ok(text) => Ok(text),
            Err(e) => fail(
                "Cannot read file",
                format!("reading {target:?} failed: {e}"),
            ),
        },
        "write_file" => match std::fs::write(&target, "written by the provider") {
            Ok(()) => Ok(format!("wrote {target}")),
            Err(e) => fail(
                "Cannot write file",
                format!("writing {target:?} failed: {e}"),
            ),
        },
        // A hard link at /out/link to `target`: to a file outside every grant, or to one in
        // a read-only grant (which would make it writable through /out).
        "link_file" => match std::fs::hard_link(&target, "/out/link") {
            Ok(()) => Ok(format!("linked {target}")),
            Err(e) => fail(
                "Cannot link file",
                format!("linking /out/link to {target:?} failed: {e}"),
            ),
        },
        // `target` MiB of 1 KiB log lines: the host's log budget ends it, not the guest.
        "log_flood" => {
            let mib: usize = target.parse().unwrap_or(64);
            let line = "flood ".repeat(170);
            for _ in 0..mib * 1024 {
                tfwasm_sdk::log::warn(&line, &[]);
            }
            Ok(format!("logged {mib} MiB"))
        }
        // One error diagnostic of `target` MiB.
        "huge_diagnostic" => fail(
            "Huge diagnostic",
            "x".repeat(target.parse().unwrap_or(32) << 20),
        ),
        // Fills the host's stderr capture, then panics: the crash report still names the panic.
        "stderr_then_panic" => {
            for _ in 0..1024 {
                eprintln!("{}", "noise ".repeat(40));
            }
            panic!("hostile provider panicked after filling stderr");
        }
        "read_env" => match std::env::var(&target) {
            Ok(value) => Ok(value),
            Err(_) => fail(
                "Environment variable not available",
                format!("{target:?} is not set for this provider"),
            ),
        },
        "fields_hoard" => match http::hoard_fields(target.parse().unwrap_or(6000)) {
            Ok(n) => Ok(format!("hoarded {n} header blocks")),
            Err(e) => fail("Header blocks refused", e),
        },
        // A request whose authority and method are megabytes long, kept unsent.
        "long_request_parts" => match http::long_parts(target.parse().unwrap_or(1 << 20)) {
            Ok(said) => Ok(said),
            Err(e) => fail("Request parts refused", e),
        },
        // Leaves a request in flight when the call answers: the host must cancel it then.
        "http_leave" => match http::leave(&target) {
            Ok(()) => Ok("left a request in flight".into()),
            Err(e) => fail("HTTP request failed", e),
        },
        "http_get" => match http::get(&target) {
            Ok(body) => Ok(body),
            Err(e) => fail("HTTP request failed", e),
        },
        _ => Ok("ok".into()),
    }
}

fn phase(value: &Value) -> String {
    value
        .get_string("phase")
        .ok()
        .flatten()
        .unwrap_or_else(|| "apply".into())
}

impl Resource for Act {
    fn type_name(&self) -> &'static str {
        "hostile_act"
    }

    fn schema(&self) -> ResourceSchema {
        ResourceSchema::new()
            .description("Attacks the sandbox as `behavior` says.")
            .attr(
                Attr::string("behavior")
                    .required()
                    .requires_replace()
                    .validate(one_of(BEHAVIORS)),
            )
            .attr(Attr::string("target").optional().requires_replace())
            .attr(
                Attr::string("phase")
                    .optional()
                    .requires_replace()
                    .validate(one_of(&["plan", "apply", "read"]))
                    .description("plan, apply (default) or read."),
            )
            .attr(Attr::string("result").computed())
            .attr(Attr::string("id").computed().use_state_for_unknown())
    }

    fn modify_plan(&self, _ctx: &Context, plan: &mut PlanContext) -> Result<(), Diagnostic> {
        if phase(&plan.planned) == "plan" {
            let result = act(&plan.planned)?;
            plan.planned.set("result", result.into());
        }
        Ok(())
    }

    fn create(&self, ctx: &Context, planned: &Value, _config: &Value) -> Result<Value, Diagnostic> {
        if field(planned, "behavior") == "create_then_panic" {
            // The remote object exists from here on; then the provider crashes.
            ctx.report_state(&planned.clone().with("result", "created").with("id", "act"))?;
            panic!("hostile provider crashed after creating its object");
        }
        if field(planned, "behavior") == "huge_private" {
            // Private state ends up in Terraform's state as much as the state does.
            let mib: usize = field(planned, "target").parse().unwrap_or(20);
            ctx.set_private("hoard", Some("p".repeat(mib << 20).into()))?;
            return Ok(planned.clone().with("result", "ok").with("id", "act"));
        }
        if field(planned, "behavior") == "report_flood" {
            // Every report is a journal write in the host: `target` of them, 64 KiB each.
            let times: usize = field(planned, "target").parse().unwrap_or(1000);
            let filler = "r".repeat(64 << 10);
            for _ in 0..times {
                ctx.report_state(
                    &planned
                        .clone()
                        .with("result", filler.as_str())
                        .with("id", "act"),
                )?;
            }
            return Ok(planned
                .clone()
                .with("result", format!("reported {times} times"))
                .with("id", "act"));
        }
        if field(planned, "behavior") == "create_then_hang" {
            // The remote object (named by `target`) exists from here on; then the provider
            // stops answering until its deadline, long enough to be killed mid-apply.
            let id = field(planned, "target");
            ctx.report_state(&planned.clone().with("result", "created").with("id", id))?;
            std::thread::sleep(std::time::Duration::from_secs(600));
        }
        let result = match phase(planned).as_str() {
            "apply" => act(planned)?,
            "plan" => field(planned, "result"),
            _ => "ok".into(),
        };
        Ok(planned.clone().with("result", result).with("id", "act"))
    }

    /// Any id imports as an object that did nothing (`behavior = "ok"`).
    fn import(&self, _ctx: &Context, id: &str) -> Result<Value, Diagnostic> {
        Ok(self
            .schema()
            .null_object()
            .with("id", id)
            .with("behavior", "ok")
            .with("result", "imported"))
    }

    fn read(&self, _ctx: &Context, state: &Value) -> Result<Option<Value>, Diagnostic> {
        if phase(state) == "read" {
            act(state)?;
        }
        Ok(Some(state.clone()))
    }
}

/// `bad_msgpack` replaces the new state with bytes that are no msgpack value at all.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
struct Corrupt;

impl RawHook for Corrupt {
    fn apply(_req: &wit::ApplyRequest, resp: &mut wit::ApplyResponse) {
        if resp.new_state.windows(11).any(|w| w == b"bad_msgpack") {
            resp.new_state = vec![0xc1, 0xff, 0x00];
        }
    }
}

tfwasm_sdk::export_provider!(Hostile, hook = Corrupt);
