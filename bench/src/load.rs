//! `make load`: sustained traffic through the real handshake with AutoMTLS, as one Terraform
//! connection carries it (many streams on one HTTP/2 connection), with hostile calls mixed
//! in. Passes when nothing fails unexpectedly; reports throughput and the server's memory
//! over time.
//!
//! The hostile sample serves both kinds: `behavior = "ok"` is an ordinary resource (validate,
//! plan, apply, read), and `spin`, `grow_memory`, `panic` and `sleep` in the plan phase hit
//! the fuel, memory, crash and deadline limits. Each hostile call must come back as an error
//! diagnostic naming its limit; each ordinary call must succeed without one.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use tfwasm_model::{Type, Value, codec};
use tfwasm_tests::plugin::{Server, TlsClient};
use tfwasm_wire::proto::tfplugin6 as pb;
use tonic::transport::Channel;

/// Checks that what the load starts exists, so a missing build is an error naming the file
/// and the fix, not a panic inside the test harness's server start.
fn built(tfwasm: &std::path::Path, component: &std::path::Path) -> anyhow::Result<()> {
    tfwasm_tests::built(tfwasm.to_path_buf()).map_err(anyhow::Error::msg)?;
    if !component.is_file() {
        bail!(
            "the component {} is missing: --component takes the hostile sample's .wasm, \
             which `make build` builds",
            component.display()
        );
    }
    Ok(())
}

/// What to run.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Calls in total.
    pub calls: usize,
    /// Calls in flight at once.
    pub concurrency: usize,
    /// Hostile calls per thousand.
    pub hostile_per_mille: usize,
    /// Each call's memory limit, as `TFWASM_MEMORY` takes it.
    pub memory: String,
}

/// What happened.
#[derive(Debug)]
pub struct LoadReport {
    /// Calls made.
    pub calls: usize,
    /// Ordinary calls that succeeded.
    pub ordinary_ok: u64,
    /// Hostile calls answered with the expected diagnostic.
    pub hostile_ok: u64,
    /// Everything else, with the first few explained.
    pub unexpected: u64,
    /// Up to 10 unexpected outcomes.
    pub examples: Vec<String>,
    /// Wall time.
    pub elapsed: Duration,
    /// (seconds since start, RSS in KiB) every 250 ms.
    pub rss: Vec<(f64, u64)>,
}

const TYPE_NAME: &str = "hostile_act";

/// The hostile behaviours and what their diagnostic must say.
const HOSTILE: &[(&str, &str, &str)] = &[
    ("spin", "", "Provider exceeded its fuel budget"),
    ("grow_memory", "", "Provider exceeded its memory limit"),
    ("panic", "load", "Provider crashed"),
    ("sleep", "5000", "Provider exceeded its time limit"),
];

fn act_type() -> Type {
    Type::object([
        ("behavior", Type::String),
        ("target", Type::String),
        ("phase", Type::String),
        ("result", Type::String),
        ("id", Type::String),
    ])
}

fn act(behavior: &str, target: &str, phase: &str) -> Value {
    let text = |s: &str| {
        if s.is_empty() {
            Value::Null
        } else {
            Value::String(s.into())
        }
    };
    Value::object([
        ("behavior", text(behavior)),
        ("target", text(target)),
        ("phase", text(phase)),
        ("result", Value::Null),
        ("id", Value::Null),
    ])
}

fn dv(value: &Value) -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: codec::msgpack::encode(value, &act_type()).expect("a hostile_act value"),
        json: Vec::new(),
    })
}

fn errors(diagnostics: &[pb::Diagnostic]) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d.severity == pb::diagnostic::Severity::Error as i32)
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect()
}

/// The requests every ordinary call reuses: a planned create and the state it applied to.
struct Prepared {
    config: Option<pb::DynamicValue>,
    planned: Option<pb::DynamicValue>,
    state: Option<pb::DynamicValue>,
}

async fn prepare(
    client: &mut pb::provider_client::ProviderClient<Channel>,
) -> anyhow::Result<Prepared> {
    client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await?;
    client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "load".into(),
            config: Some(pb::DynamicValue {
                msgpack: vec![0x80],
                json: Vec::new(),
            }),
            client_capabilities: None,
        })
        .await?;
    let config = dv(&act("ok", "", ""));
    let plan = client
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: TYPE_NAME.into(),
            prior_state: dv(&Value::Null),
            proposed_new_state: config.clone(),
            config: config.clone(),
            ..Default::default()
        })
        .await?
        .into_inner();
    if !errors(&plan.diagnostics).is_empty() {
        bail!("the first plan failed: {:?}", errors(&plan.diagnostics));
    }
    let apply = client
        .apply_resource_change(pb::apply_resource_change::Request {
            type_name: TYPE_NAME.into(),
            prior_state: dv(&Value::Null),
            planned_state: plan.planned_state.clone(),
            config: config.clone(),
            ..Default::default()
        })
        .await?
        .into_inner();
    if !errors(&apply.diagnostics).is_empty() {
        bail!("the first apply failed: {:?}", errors(&apply.diagnostics));
    }
    Ok(Prepared {
        config,
        planned: plan.planned_state,
        state: apply.new_state,
    })
}

/// One call: `Ok(true)` ordinary success, `Ok(false)` expected hostile diagnostic,
/// `Err(why)` unexpected.
async fn call(
    client: &mut pb::provider_client::ProviderClient<Channel>,
    prepared: &Prepared,
    i: usize,
    hostile_per_mille: usize,
) -> Result<bool, String> {
    // Spread hostile calls evenly rather than in bursts.
    if (i * 389) % 1000 < hostile_per_mille {
        let (behavior, target, expect) = HOSTILE[(i / 7) % HOSTILE.len()];
        let config = dv(&act(behavior, target, "plan"));
        let resp = client
            .plan_resource_change(pb::plan_resource_change::Request {
                type_name: TYPE_NAME.into(),
                prior_state: dv(&Value::Null),
                proposed_new_state: config.clone(),
                config,
                ..Default::default()
            })
            .await
            .map_err(|s| format!("{behavior}: gRPC {s}"))?
            .into_inner();
        let errors = errors(&resp.diagnostics);
        return if errors.iter().any(|e| e.contains(expect)) {
            Ok(false)
        } else {
            Err(format!("{behavior}: expected {expect:?}, got {errors:?}"))
        };
    }
    let diagnostics = match i % 4 {
        0 => {
            client
                .validate_resource_config(pb::validate_resource_config::Request {
                    type_name: TYPE_NAME.into(),
                    config: prepared.config.clone(),
                    client_capabilities: None,
                })
                .await
                .map_err(|s| format!("validate: gRPC {s}"))?
                .into_inner()
                .diagnostics
        }
        1 => {
            client
                .plan_resource_change(pb::plan_resource_change::Request {
                    type_name: TYPE_NAME.into(),
                    prior_state: dv(&Value::Null),
                    proposed_new_state: prepared.config.clone(),
                    config: prepared.config.clone(),
                    ..Default::default()
                })
                .await
                .map_err(|s| format!("plan: gRPC {s}"))?
                .into_inner()
                .diagnostics
        }
        2 => {
            client
                .apply_resource_change(pb::apply_resource_change::Request {
                    type_name: TYPE_NAME.into(),
                    prior_state: dv(&Value::Null),
                    planned_state: prepared.planned.clone(),
                    config: prepared.config.clone(),
                    ..Default::default()
                })
                .await
                .map_err(|s| format!("apply: gRPC {s}"))?
                .into_inner()
                .diagnostics
        }
        _ => {
            client
                .read_resource(pb::read_resource::Request {
                    type_name: TYPE_NAME.into(),
                    current_state: prepared.state.clone(),
                    ..Default::default()
                })
                .await
                .map_err(|s| format!("read: gRPC {s}"))?
                .into_inner()
                .diagnostics
        }
    };
    let errors = errors(&diagnostics);
    if errors.is_empty() {
        Ok(true)
    } else {
        Err(format!("ordinary call {i}: {errors:?}"))
    }
}

/// Runs the load against the hostile component at `component`.
///
/// # Errors
/// When the server cannot be started or prepared; failures during the run are counted.
pub async fn run(component: &std::path::Path, options: &LoadOptions) -> anyhow::Result<LoadReport> {
    built(&tfwasm_tests::tfwasm_path(), component)?;
    let tls = TlsClient::generate();
    // Limits low enough that a hostile call costs a fraction of a second.
    let server = Server::start_component(
        component,
        &[
            ("TFWASM_FUEL", "200000000"),
            ("TFWASM_MEMORY", &options.memory),
            ("TFWASM_TIMEOUT", "1s"),
            ("TF_LOG", "error"),
        ],
        Some(&tls),
    );
    let channel = server
        .try_channel(Some(&tls))
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("connecting with AutoMTLS")?;
    let mut client = pb::provider_client::ProviderClient::new(channel.clone());
    let prepared = Arc::new(prepare(&mut client).await?);

    let pid = server.pid();
    let started = Instant::now();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        tokio::spawn(async move {
            let mut samples = Vec::new();
            while !done.load(Ordering::Relaxed) {
                samples.push((
                    started.elapsed().as_secs_f64(),
                    crate::terraform::vm_rss_kib(pid),
                ));
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            samples.push((
                started.elapsed().as_secs_f64(),
                crate::terraform::vm_rss_kib(pid),
            ));
            samples
        })
    };

    let next = Arc::new(AtomicUsize::new(0));
    let ordinary_ok = Arc::new(AtomicU64::new(0));
    let hostile_ok = Arc::new(AtomicU64::new(0));
    let unexpected = Arc::new(AtomicU64::new(0));
    let examples = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut workers = Vec::new();
    for _ in 0..options.concurrency {
        let mut client = pb::provider_client::ProviderClient::new(channel.clone());
        let (next, prepared) = (next.clone(), prepared.clone());
        let (ordinary_ok, hostile_ok, unexpected, examples) = (
            ordinary_ok.clone(),
            hostile_ok.clone(),
            unexpected.clone(),
            examples.clone(),
        );
        let options = options.clone();
        workers.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= options.calls {
                    return;
                }
                match call(&mut client, &prepared, i, options.hostile_per_mille).await {
                    Ok(true) => ordinary_ok.fetch_add(1, Ordering::Relaxed),
                    Ok(false) => hostile_ok.fetch_add(1, Ordering::Relaxed),
                    Err(why) => {
                        if let Ok(mut list) = examples.lock()
                            && list.len() < 10
                        {
                            list.push(why);
                        }
                        unexpected.fetch_add(1, Ordering::Relaxed)
                    }
                };
            }
        }));
    }
    for worker in workers {
        worker.await?;
    }
    let elapsed = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let rss = sampler.await?;
    let examples = examples.lock().map(|l| l.clone()).unwrap_or_default();
    Ok(LoadReport {
        calls: options.calls,
        ordinary_ok: ordinary_ok.load(Ordering::Relaxed),
        hostile_ok: hostile_ok.load(Ordering::Relaxed),
        unexpected: unexpected.load(Ordering::Relaxed),
        examples,
        elapsed,
        rss,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing build or component is an error naming the file, before any server starts.
    #[test]
    fn a_missing_binary_or_component_is_named_before_the_load_starts() {
        let dir = tempfile::tempdir().unwrap();
        let (tfwasm, component) = (dir.path().join("tfwasm"), dir.path().join("hostile.wasm"));
        let error = built(&tfwasm, &component).unwrap_err().to_string();
        assert!(error.contains(&*tfwasm.to_string_lossy()), "{error}");
        assert!(error.contains("make build"), "{error}");

        std::fs::write(&tfwasm, b"").unwrap();
        let error = built(&tfwasm, &component).unwrap_err().to_string();
        assert!(error.contains(&*component.to_string_lossy()), "{error}");
        assert!(error.contains("--component"), "{error}");

        std::fs::write(&component, b"").unwrap();
        built(&tfwasm, &component).unwrap();
    }
}
