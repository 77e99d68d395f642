//! The sandbox at the protocol level, with the hostile sample: the host keeps serving after
//! every attack and its memory comes back, StopProvider interrupts calls promptly whether the
//! guest is running or waiting, and slow calls run side by side.

use std::time::{Duration, Instant};

use tfwasm_model::rpc::DynamicValue;
use tfwasm_model::{Type, Value};
use tfwasm_wire::proto::tfplugin6 as pb;
use tonic::transport::Channel;

use tfwasm_tests::plugin::Server;

type Client = pb::provider_client::ProviderClient<Channel>;

fn act_type() -> Type {
    Type::object(["behavior", "id", "phase", "result", "target"].map(|n| (n, Type::String)))
}

fn act(behavior: &str, target: &str, unknown_result: bool) -> pb::DynamicValue {
    let mut v = Value::object([
        ("behavior", Value::from(behavior)),
        ("target", Value::from(target)),
        ("phase", Value::Null),
        (
            "result",
            if unknown_result {
                Value::unknown()
            } else {
                Value::Null
            },
        ),
        (
            "id",
            if unknown_result {
                Value::unknown()
            } else {
                Value::Null
            },
        ),
    ]);
    if !unknown_result {
        v.set("result", Value::Null);
    }
    pb::DynamicValue {
        msgpack: DynamicValue::encode(&v, &act_type()).unwrap().msgpack,
        json: vec![],
    }
}

/// Plans nothing: applies `behavior` directly as a create.
pub(crate) async fn apply(
    client: &mut Client,
    behavior: &str,
    target: &str,
) -> pb::apply_resource_change::Response {
    client
        .apply_resource_change(pb::apply_resource_change::Request {
            type_name: "hostile_act".into(),
            prior_state: Some(pb::DynamicValue {
                msgpack: vec![0xc0],
                json: vec![],
            }),
            planned_state: Some(act(behavior, target, true)),
            config: Some(act(behavior, target, false)),
            ..Default::default()
        })
        .await
        .expect("the call itself succeeds; failures are diagnostics")
        .into_inner()
}

pub(crate) async fn connect(server: &Server) -> Client {
    let mut client = pb::provider_client::ProviderClient::new(server.channel(None).await);
    client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap();
    client
        .configure_provider(pb::configure_provider::Request {
            terraform_version: "test".into(),
            config: Some(pb::DynamicValue {
                msgpack: vec![0x80],
                json: vec![],
            }),
            client_capabilities: None,
        })
        .await
        .unwrap();
    client
}

pub(crate) fn settings(text: &str) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), text).unwrap();
    file
}

/// The `result` an apply returned (the body, for `http_get`), if it succeeded.
pub(crate) fn result_of(resp: &pb::apply_resource_change::Response) -> Option<String> {
    let state = resp.new_state.as_ref()?;
    let value = DynamicValue {
        msgpack: state.msgpack.clone(),
        json: Vec::new(),
    }
    .decode(&act_type())
    .ok()?;
    value.get("result")?.as_str().map(str::to_owned)
}

#[track_caller]
fn assert_ok(resp: &pb::apply_resource_change::Response) {
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert!(resp.new_state.is_some());
}

#[tokio::test]
async fn attacks_leave_the_host_serving_and_its_memory_returns() {
    let config = settings("[limits]\nfuel = 2000000000\nmemory = \"128MiB\"\ntimeout = \"5s\"\n");
    let path = config.path().display().to_string();
    let server = Server::start_with("hostile", &[("TFWASM_CONFIG", path.as_str())], None);
    let mut client = connect(&server).await;
    for _ in 0..3 {
        assert_ok(&apply(&mut client, "ok", "").await);
    }
    let baseline = server.rss_kib();
    let mut peak = baseline;
    for round in 0..3 {
        for (behavior, target, summary) in [
            ("spin", "", "Provider exceeded its fuel budget"),
            ("recurse", "", "Provider crashed"),
            ("grow_memory", "", "Provider exceeded its memory limit"),
            ("panic", "x", "Provider crashed"),
            (
                "huge_output",
                "17",
                "Provider returned a value that is too large",
            ),
        ] {
            let resp = apply(&mut client, behavior, target).await;
            assert_eq!(
                resp.diagnostics.len(),
                1,
                "round {round} {behavior}: {:?}",
                resp.diagnostics
            );
            assert_eq!(resp.diagnostics[0].summary, summary, "{behavior}");
            peak = peak.max(server.rss_kib());
            // The very next call runs in a fresh instance and succeeds.
            assert_ok(&apply(&mut client, "ok", "").await);
        }
    }
    let after = server.rss_kib();
    eprintln!("host RSS: baseline {baseline} KiB, peak {peak} KiB, after 15 attacks {after} KiB");
    assert!(
        after < baseline + 64 * 1024,
        "memory returns near baseline: {baseline} KiB -> {after} KiB"
    );
}

#[tokio::test]
async fn stop_provider_interrupts_waiting_and_running_calls() {
    let config = settings("[limits]\nfuel = 1000000000000\ntimeout = \"60s\"\n");
    let path = config.path().display().to_string();
    let server = Server::start_with("hostile", &[("TFWASM_CONFIG", path.as_str())], None);
    let client = connect(&server).await;
    for (behavior, target) in [("sleep", "30000"), ("spin", "")] {
        let mut in_flight = client.clone();
        let call = tokio::spawn(async move {
            let resp = apply(&mut in_flight, behavior, target).await;
            (resp, Instant::now())
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        let stopped_at = Instant::now();
        let stop = client
            .clone()
            .stop_provider(pb::stop_provider::Request {})
            .await
            .unwrap()
            .into_inner();
        assert_eq!(stop.error, "");
        let (resp, finished_at) = call.await.unwrap();
        let latency = finished_at.saturating_duration_since(stopped_at);
        eprintln!("StopProvider during {behavior}: the call returned {latency:?} after the stop");
        assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
        assert_eq!(resp.diagnostics[0].summary, "Provider call cancelled");
        assert!(
            latency < Duration::from_secs(1),
            "{behavior}: cancelled promptly ({latency:?})"
        );
        // Calls after the stop run normally.
        assert_ok(&apply(&mut client.clone(), "ok", "").await);
    }
}

#[tokio::test]
async fn slow_calls_overlap() {
    let server = Server::start_with("hostile", &[], None);
    let client = connect(&server).await;
    let single = {
        let started = Instant::now();
        assert_ok(&apply(&mut client.clone(), "sleep", "500").await);
        started.elapsed()
    };
    const N: usize = 8;
    let started = Instant::now();
    let calls: Vec<_> = (0..N)
        .map(|_| {
            let mut c = client.clone();
            tokio::spawn(async move { apply(&mut c, "sleep", "500").await })
        })
        .collect();
    for call in calls {
        assert_ok(&call.await.unwrap());
    }
    let total = started.elapsed();
    eprintln!("{N} calls sleeping 500 ms: {total:?} together, {single:?} alone");
    assert!(
        total < single * 3,
        "{N} slow calls overlap: {total:?} vs {single:?} for one"
    );
}

/// `concurrent_calls` bounds the calls (and so the instances and their memory) in use at
/// once: with 2, six calls sleeping 400 ms take at least three rounds, where unbounded they
/// overlap (`slow_calls_overlap`); the waiting ones still succeed.
#[tokio::test]
async fn the_operator_bounds_the_calls_running_at_once() {
    let server = Server::start_with("hostile", &[("TFWASM_CONCURRENT_CALLS", "2")], None);
    let client = connect(&server).await;
    assert_ok(&apply(&mut client.clone(), "ok", "").await);
    let started = Instant::now();
    let calls: Vec<_> = (0..6)
        .map(|_| {
            let mut c = client.clone();
            tokio::spawn(async move { apply(&mut c, "sleep", "400").await })
        })
        .collect();
    for call in calls {
        assert_ok(&call.await.unwrap());
    }
    let total = started.elapsed();
    eprintln!("6 calls sleeping 400 ms, 2 at a time: {total:?}");
    // A lower bound only: no machine runs three rounds of 400 ms in less than 1.2 s.
    assert!(
        total >= Duration::from_millis(1200),
        "at most 2 calls at once: {total:?}"
    );
}

/// Instances are reused after successful calls, so whatever a call counts must start afresh:
/// more successful HTTP calls than the per-call request cap (64) all succeed, a failed call's
/// instance is dropped, and a denial in one call is not reported again by the next.
#[tokio::test]
async fn reused_instances_start_every_call_afresh() {
    let (allowed, forbidden) = tfwasm_tests::http_fixture();
    let config = settings(&format!(
        "[grants]\nhttp = [\"http://127.0.0.1:{allowed}\"]\n"
    ));
    let path = config.path().display().to_string();
    let server = Server::start_with("hostile", &[("TFWASM_CONFIG", path.as_str())], None);
    let mut client = connect(&server).await;
    let hello = format!("http://127.0.0.1:{allowed}/hello");
    for i in 0..80 {
        let resp = apply(&mut client, "http_get", &hello).await;
        assert!(
            resp.diagnostics.is_empty(),
            "call {i}: {:?}",
            resp.diagnostics
        );
    }
    let denied = apply(
        &mut client,
        "http_get",
        &format!("http://127.0.0.1:{forbidden}/secret"),
    )
    .await;
    assert!(
        denied
            .diagnostics
            .iter()
            .any(|d| d.summary == "Outgoing HTTP request denied"),
        "{:?}",
        denied.diagnostics
    );
    let after = apply(&mut client, "http_get", &hello).await;
    assert!(after.diagnostics.is_empty(), "{:?}", after.diagnostics);
    // A panic drops its instance; the next call still works.
    let crashed = apply(&mut client, "panic", "").await;
    assert!(
        crashed
            .diagnostics
            .iter()
            .any(|d| d.summary == "Provider crashed")
    );
    assert_ok(&apply(&mut client, "ok", "").await);
}

/// A Go call in a busy loop (go-fixture, a terraform-plugin-framework provider) is ended by
/// StopProvider as promptly as a Rust one, and by its fuel budget; the provider then serves
/// the next call.
#[tokio::test]
async fn stop_provider_and_fuel_end_a_go_call_in_a_busy_loop() {
    let ty = Type::object(["behavior", "result", "target"].map(|n| (n, Type::String)));
    let value = |behavior: &str, result: Value| pb::DynamicValue {
        msgpack: DynamicValue::encode(
            &Value::object([
                ("behavior", Value::from(behavior)),
                ("result", result),
                ("target", Value::Null),
            ]),
            &ty,
        )
        .unwrap()
        .msgpack,
        json: vec![],
    };
    let apply = |client: &mut Client, behavior: &str| {
        let request = pb::apply_resource_change::Request {
            type_name: "gofixture_act".into(),
            prior_state: Some(pb::DynamicValue {
                msgpack: vec![0xc0],
                json: vec![],
            }),
            planned_state: Some(value(behavior, Value::unknown())),
            config: Some(value(behavior, Value::Null)),
            ..Default::default()
        };
        let mut client = client.clone();
        async move {
            client
                .apply_resource_change(request)
                .await
                .expect("failures are diagnostics")
                .into_inner()
        }
    };
    for (limits, stop) in [
        ("fuel = 1000000000000\ntimeout = \"60s\"\n", true),
        ("fuel = 200000000\ntimeout = \"60s\"\n", false),
    ] {
        let config = settings(&format!("[limits]\n{limits}"));
        let path = config.path().display().to_string();
        let server = Server::start_with("gofixture", &[("TFWASM_CONFIG", path.as_str())], None);
        let mut client = connect(&server).await;
        let call = tokio::spawn(apply(&mut client, "spin"));
        let summary = if stop {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let stopped_at = Instant::now();
            client
                .clone()
                .stop_provider(pb::stop_provider::Request {})
                .await
                .unwrap();
            let resp = call.await.unwrap();
            let latency = stopped_at.elapsed();
            assert!(
                latency < Duration::from_secs(1),
                "cancelled promptly ({latency:?})"
            );
            resp.diagnostics[0].summary.clone()
        } else {
            call.await.unwrap().diagnostics[0].summary.clone()
        };
        let expected = if stop {
            "Provider call cancelled"
        } else {
            "Provider exceeded its fuel budget"
        };
        assert_eq!(summary, expected);
        let ok = apply(&mut client, "log").await;
        assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
    }
}

/// The Go runtime may collect garbage while the host writes a call's arguments into the
/// guest (`cabi_realloc`), where the component model forbids calling out, and a collection
/// reads the wall clock: applies of hashicorp/random in tfwasm crashed ("cannot leave
/// component instance") a few hundred calls in. Calls with megabyte arguments, many times
/// over, all succeed.
#[tokio::test]
async fn go_calls_with_large_arguments_never_collect_inside_the_allocator() {
    let ty = Type::object(["behavior", "result", "target"].map(|n| (n, Type::String)));
    let big = "x".repeat(1 << 20);
    let value = |result: Value| pb::DynamicValue {
        msgpack: DynamicValue::encode(
            &Value::object([
                ("behavior", Value::from("log")),
                ("result", result),
                ("target", Value::from(big.as_str())),
            ]),
            &ty,
        )
        .unwrap()
        .msgpack,
        json: vec![],
    };
    let server = Server::start_with("gofixture", &[], None);
    let client = connect(&server).await;
    for i in 0..300 {
        let resp = client
            .clone()
            .apply_resource_change(pb::apply_resource_change::Request {
                type_name: "gofixture_act".into(),
                prior_state: Some(pb::DynamicValue {
                    msgpack: vec![0xc0],
                    json: vec![],
                }),
                planned_state: Some(value(Value::unknown())),
                config: Some(value(Value::Null)),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(
            resp.diagnostics.is_empty(),
            "call {i}: {:?}",
            resp.diagnostics
        );
    }
}
