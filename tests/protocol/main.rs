//! Tests of the built `tfwasm` binary without Terraform: `tfwasm serve` driven by our own gRPC
//! client, the way go-plugin's client drives it (AutoMTLS with a Terraform-style P-521 CA
//! client certificate included), by outside clients, and in its sandbox; and its other
//! commands (`check`, `scaffold`, `docs`) and the scripts that fetch the tests' clients
//! (`tool_scripts`). One test binary, so the suite links it once.

mod arm64;
mod check_cli;
mod config_generation;
mod cpu_features;
mod deferral;
mod docs;
mod faults;
mod identity;
mod outgoing;
mod outside_clients;
mod python_sdk;
mod sandbox;
mod scaffold;
mod tool_scripts;
mod versions;

use std::time::{Duration, Instant};

use tfwasm_tests::plugin::{Server, TlsClient};
use tfwasm_wire::proto::plugin as go_plugin;
use tfwasm_wire::proto::tfplugin6 as pb;

#[tokio::test]
async fn handshake_schema_metadata_and_shutdown_over_a_unix_socket() {
    let mut server = Server::start(None);
    let line = server.handshake.clone();
    let parts: Vec<&str> = line.split('|').collect();
    assert_eq!(parts.len(), 6, "{line}");
    assert_eq!(&parts[..3], ["1", "6", "unix"]);
    assert_eq!(parts[4], "grpc");
    assert_eq!(parts[5], "", "no certificate without AutoMTLS");

    let channel = server.channel(None).await;
    let mut provider = pb::provider_client::ProviderClient::new(channel.clone());
    let schema = provider
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(
        schema
            .provider
            .as_ref()
            .and_then(|p| p.block.as_ref())
            .is_some(),
        "provider schema with a block"
    );
    let mut names: Vec<&String> = schema.resource_schemas.keys().collect();
    names.sort();
    assert_eq!(
        names,
        [
            "random_bytes",
            "random_id",
            "random_integer",
            "random_password",
            "random_pet",
            "random_shuffle",
            "random_string",
            "random_uuid"
        ]
    );
    let length = schema.resource_schemas["random_string"]
        .block
        .as_ref()
        .unwrap()
        .attributes
        .iter()
        .find(|a| a.name == "length")
        .unwrap();
    assert_eq!(length.r#type, b"\"number\"");
    assert!(length.required);
    // A deprecated attribute says what to use instead (shown by Terraform >= 1.15).
    let number = schema.resource_schemas["random_password"]
        .block
        .as_ref()
        .unwrap()
        .attributes
        .iter()
        .find(|a| a.name == "number")
        .unwrap();
    assert!(number.deprecated);
    assert!(
        number
            .deprecation_message
            .starts_with("Use numeric instead"),
        "{:?}",
        number.deprecation_message
    );
    // Derived from what the provider implements (a WIT 0.2.0 component moves state); every
    // layer works its schema out lazily, so a client may skip GetProviderSchema.
    assert_eq!(
        schema.server_capabilities,
        Some(pb::ServerCapabilities {
            plan_destroy: true,
            get_provider_schema_optional: true,
            move_resource_state: true,
            // WIT 0.3.0's `config-generation`, which every component of the Rust SDK exports.
            generate_resource_config: true,
        })
    );

    let metadata = provider
        .get_metadata(pb::get_metadata::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(metadata.resources.len(), 8);

    let functions = provider
        .get_functions(pb::get_functions::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(functions.functions.is_empty() && functions.diagnostics.is_empty());

    // A move to a type the provider lacks is a diagnostic, not a failed RPC.
    let moved = provider
        .move_resource_state(pb::move_resource_state::Request {
            source_type_name: "random_string".into(),
            target_type_name: "random_nope".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(moved.diagnostics.len(), 1, "{:?}", moved.diagnostics);
    assert!(
        moved.diagnostics[0].detail.contains("random_nope"),
        "{:?}",
        moved.diagnostics
    );

    // So is opening an ephemeral resource type the provider lacks.
    let opened = provider
        .open_ephemeral_resource(pb::open_ephemeral_resource::Request {
            type_name: "random_nope".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(opened.diagnostics.len(), 1, "{:?}", opened.diagnostics);
    assert!(
        opened.diagnostics[0]
            .detail
            .contains("no ephemeral resource type \"random_nope\""),
        "{:?}",
        opened.diagnostics
    );
    let ephemeral: Vec<&String> = schema.ephemeral_resource_schemas.keys().collect();
    assert_eq!(ephemeral, ["random_password"]);

    // A family the provider has no type of answers an error diagnostic naming what was asked,
    // over the wire as in process, the client streams of state stores too: the chunks put
    // back together, then refused by the runtime (no store of that name was configured).
    let answer = provider
        .validate_list_resource_config(pb::validate_list_resource_config::Request {
            type_name: "random_items".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.diagnostics.len(), 1);
    assert!(
        answer.diagnostics[0].detail.contains("\"random_items\""),
        "{:?}",
        answer.diagnostics
    );
    let chunks = futures::stream::iter([pb::write_state_bytes::RequestChunk {
        meta: Some(pb::RequestChunkMeta {
            type_name: "random_store".into(),
            state_id: "default".into(),
        }),
        bytes: b"{}".to_vec(),
        total_length: 2,
        range: Some(pb::StateRange { start: 0, end: 1 }),
    }]);
    let written = provider
        .write_state_bytes(chunks)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(written.diagnostics[0].summary, "State store not configured");
    assert!(written.diagnostics[0].detail.contains("\"random_store\""));

    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let serving = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "plugin".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        serving.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );

    let stop = provider
        .stop_provider(pb::stop_provider::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(stop.error, "");

    let mut controller = go_plugin::grpc_controller_client::GrpcControllerClient::new(channel);
    controller.shutdown(go_plugin::Empty {}).await.unwrap();
    let started = Instant::now();
    let status = server
        .wait(Duration::from_secs(2))
        .expect("the process exits after Shutdown");
    assert!(status.success(), "clean exit: {status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "go-plugin kills after 2 s"
    );
    assert!(!server.socket_path().exists(), "socket removed on exit");
}

#[tokio::test]
async fn a_call_with_a_bad_type_name_is_a_diagnostic_not_a_crash() {
    let server = Server::start(None);
    let mut provider = pb::provider_client::ProviderClient::new(server.channel(None).await);
    let resp = provider
        .validate_resource_config(pb::validate_resource_config::Request {
            type_name: "random_nope".into(),
            config: Some(pb::DynamicValue {
                msgpack: vec![0xc0],
                json: vec![],
            }),
            client_capabilities: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1);
    assert!(
        resp.diagnostics[0].detail.contains("random_nope"),
        "{:?}",
        resp.diagnostics
    );

    // Garbage msgpack from the client: an error diagnostic naming the problem.
    let resp = provider
        .plan_resource_change(pb::plan_resource_change::Request {
            type_name: "random_string".into(),
            proposed_new_state: Some(pb::DynamicValue {
                msgpack: vec![0x93, 0x01],
                json: vec![],
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
    assert_eq!(
        resp.diagnostics[0].severity,
        pb::diagnostic::Severity::Error as i32
    );

    // And the server still serves.
    let schema = provider
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(schema.resource_schemas.len(), 8);
}

#[tokio::test]
async fn automtls_accepts_exactly_the_announced_p521_client_certificate() {
    let announced = TlsClient::generate();
    let server = Server::start(Some(&announced));
    let parts: Vec<&str> = server.handshake.split('|').collect();
    assert!(
        parts[5].len() > 50,
        "server certificate in the handshake: {}",
        server.handshake
    );
    assert!(!parts[5].contains('='), "base64 without padding");

    let channel = server.channel(Some(&announced)).await;
    let mut provider = pb::provider_client::ProviderClient::new(channel);
    let schema = provider
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(schema.resource_schemas.len(), 8);

    // Another certificate (same shape, different key) must be refused.
    let stranger = TlsClient::generate();
    assert!(
        server.try_channel(Some(&stranger)).await.is_err(),
        "a different client certificate is rejected"
    );
    assert!(
        server.try_tls_channel_without_client_cert().await.is_err(),
        "TLS without a client certificate is rejected"
    );
    assert!(
        server.try_channel(None).await.is_err(),
        "plaintext is rejected when Terraform asked for AutoMTLS"
    );
    let mut health =
        tonic_health::pb::health_client::HealthClient::new(server.channel(Some(&announced)).await);
    assert!(
        health
            .check(tonic_health::pb::HealthCheckRequest {
                service: "plugin".into()
            })
            .await
            .is_ok(),
        "the refused clients did not disturb the server"
    );
}

#[test]
fn the_server_exits_when_its_client_process_dies() {
    // A shell starts the server in the background and exits a second later, orphaning it,
    // as a crashing Terraform would.
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "TF_PLUGIN_MAGIC_COOKIE={} TFWASM_CACHE_DIR={:?} {:?} serve --component {:?} >{:?} 2>&1 </dev/null & echo $!; sleep 1",
        tfwasm_wire::handshake::MAGIC_COOKIE_VALUE,
        tfwasm_tests::cache_dir(),
        tfwasm_tests::tfwasm_bin(),
        tfwasm_tests::component("random"),
        dir.path().join("out"),
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .output()
        .unwrap();
    let pid: i32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let alive = |pid: i32| {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
            && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_default()
                .contains(") Z ")
    };
    let started = Instant::now();
    while alive(pid) && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !alive(pid),
        "the orphaned server is still running after 10 s"
    );
}
