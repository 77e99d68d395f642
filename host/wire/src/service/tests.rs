//! The gRPC service in process, without a component: every RPC of the table sent as protobuf
//! to a [`Handler`] that notes what reached it and answers with a diagnostic naming the RPC,
//! so each routing and each conversion both ways is exercised, as are the answers to what
//! tfwasm does not serve.

use std::sync::Mutex;

use futures::executor::block_on;
use tfwasm_model::Rpc;
use tfwasm_model::rpc::{Call, Handled, Handler};
use tonic::Request;

use super::ProviderService;
use crate::proto::tfplugin6 as pb;
use crate::proto::tfplugin6::provider_server::Provider as _;

/// What reached the provider: the RPC, its subject and its request's recorded form.
#[derive(Default)]
struct Notes(Mutex<Vec<(Rpc, String, serde_json::Value)>>);

impl Handler for Notes {
    async fn handle<C: Call>(&self, req: C::Request) -> C::Response {
        let form = serde_json::to_value(&req).unwrap();
        (self.0.lock().unwrap()).push((C::RPC, C::subject(&req).to_owned(), form));
        // An answer of the response's own type: its default with a diagnostic (for
        // CallFunction, an error) whose summary names the RPC, so the test sees which
        // conversion carried it back.
        let diagnostic = serde_json::json!({
            "severity": "Error", "summary": C::RPC.name(), "detail": "", "attribute": null
        });
        let mut answer = serde_json::to_value(C::Response::default()).unwrap();
        match &mut answer {
            serde_json::Value::Array(diagnostics) => diagnostics.push(diagnostic),
            serde_json::Value::Object(fields) if C::RPC == Rpc::CallFunction => {
                fields.insert("error".into(), serde_json::json!({ "text": C::RPC.name() }));
            }
            serde_json::Value::Object(fields) => {
                fields.insert("diagnostics".into(), serde_json::json!([diagnostic]));
            }
            other => panic!("{other}"),
        }
        serde_json::from_value(answer).unwrap()
    }

    fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
        Default::default()
    }
}

fn service() -> ProviderService<Handled<Notes>> {
    ProviderService::new(Handled(Notes::default()))
}

fn value(bytes: &[u8]) -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: bytes.to_vec(),
        json: Vec::new(),
    })
}

/// The summaries of a response's diagnostics.
fn summaries(diagnostics: &[pb::Diagnostic]) -> Vec<&str> {
    diagnostics.iter().map(|d| d.summary.as_str()).collect()
}

#[test]
fn every_rpc_is_routed_converted_and_answered() {
    let s = service();
    let t = || "t_x".to_owned();
    let state = || value(&[0x81, 0xa2, b'i', b'd', 0xa1, b'1']);
    block_on(async {
        let r = s
            .get_provider_schema(Request::new(Default::default()))
            .await;
        // The schema carries the functions too, asked of the provider's function family.
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["GetProviderSchema", "GetFunctions"]);
        let r = s
            .validate_provider_config(Request::new(pb::validate_provider_config::Request {
                config: state(),
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["ValidateProviderConfig"]
        );
        let r = s
            .configure_provider(Request::new(pb::configure_provider::Request {
                terraform_version: "1.0.3".into(),
                config: state(),
                ..Default::default()
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["ConfigureProvider"]
        );
        let r = s
            .validate_resource_config(Request::new(pb::validate_resource_config::Request {
                type_name: t(),
                config: state(),
                ..Default::default()
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["ValidateResourceConfig"]
        );
        let r = s
            .validate_data_resource_config(Request::new(
                pb::validate_data_resource_config::Request {
                    type_name: t(),
                    config: state(),
                },
            ))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["ValidateDataResourceConfig"]);
        let r = s
            .upgrade_resource_state(Request::new(pb::upgrade_resource_state::Request {
                type_name: t(),
                version: 1,
                raw_state: Some(pb::RawState {
                    json: br#"{"id":"1"}"#.to_vec(),
                    flatmap: Default::default(),
                }),
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["UpgradeResourceState"]
        );
        let r = s
            .read_resource(Request::new(pb::read_resource::Request {
                type_name: t(),
                current_state: state(),
                private: b"p".to_vec(),
                ..Default::default()
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["ReadResource"]
        );
        let r = s
            .plan_resource_change(Request::new(pb::plan_resource_change::Request {
                type_name: t(),
                prior_state: state(),
                proposed_new_state: state(),
                config: state(),
                ..Default::default()
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["PlanResourceChange"]
        );
        let r = s
            .apply_resource_change(Request::new(pb::apply_resource_change::Request {
                type_name: t(),
                prior_state: state(),
                planned_state: state(),
                config: state(),
                ..Default::default()
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["ApplyResourceChange"]
        );
        let r = s
            .import_resource_state(Request::new(pb::import_resource_state::Request {
                type_name: t(),
                id: "i-1".into(),
                ..Default::default()
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["ImportResourceState"]
        );
        let r = s
            .read_data_source(Request::new(pb::read_data_source::Request {
                type_name: t(),
                config: state(),
                ..Default::default()
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["ReadDataSource"]
        );
        let r = s.get_functions(Request::new(Default::default())).await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["GetFunctions"]
        );
        let r = s
            .call_function(Request::new(pb::call_function::Request {
                name: "f".into(),
                arguments: vec![pb::DynamicValue {
                    msgpack: vec![0x01],
                    json: Vec::new(),
                }],
            }))
            .await;
        let error = r.unwrap().into_inner().error.expect("the error");
        assert_eq!(error.text, "CallFunction");
        let r = s
            .move_resource_state(Request::new(pb::move_resource_state::Request {
                source_type_name: "t_from".into(),
                target_type_name: "t_to".into(),
                ..Default::default()
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["MoveResourceState"]
        );
        let r = s
            .generate_resource_config(Request::new(pb::generate_resource_config::Request {
                type_name: t(),
                state: Some(pb::DynamicValue {
                    msgpack: b"\x81\xa2id\xa11".to_vec(),
                    json: vec![],
                }),
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["GenerateResourceConfig"]
        );
        let r = s
            .get_resource_identity_schemas(Request::new(Default::default()))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["GetResourceIdentitySchemas"]);
        let r = s
            .upgrade_resource_identity(Request::new(pb::upgrade_resource_identity::Request {
                type_name: t(),
                version: 0,
                raw_identity: None,
            }))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["UpgradeResourceIdentity"]);
        let r = s
            .validate_ephemeral_resource_config(Request::new(
                pb::validate_ephemeral_resource_config::Request {
                    type_name: t(),
                    config: state(),
                },
            ))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["ValidateEphemeralResourceConfig"]);
        let r = s
            .open_ephemeral_resource(Request::new(pb::open_ephemeral_resource::Request {
                type_name: t(),
                config: state(),
                ..Default::default()
            }))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["OpenEphemeralResource"]);
        let r = s
            .renew_ephemeral_resource(Request::new(pb::renew_ephemeral_resource::Request {
                type_name: t(),
                private: Some(b"p".to_vec()),
            }))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["RenewEphemeralResource"]);
        let r = s
            .close_ephemeral_resource(Request::new(pb::close_ephemeral_resource::Request {
                type_name: t(),
                private: Some(b"p".to_vec()),
            }))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["CloseEphemeralResource"]);
        let r = s
            .validate_list_resource_config(Request::new(
                pb::validate_list_resource_config::Request {
                    type_name: t(),
                    config: state(),
                    ..Default::default()
                },
            ))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["ValidateListResourceConfig"]);
        let mut events = s
            .list_resource(Request::new(pb::list_resource::Request {
                type_name: t(),
                config: state(),
                include_resource_object: true,
                limit: 5,
            }))
            .await
            .unwrap()
            .into_inner();
        let event = futures::StreamExt::next(&mut events)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(summaries(&event.diagnostic), ["ListResource"]);
        assert!(
            futures::StreamExt::next(&mut events).await.is_none(),
            "an error ends it"
        );
        let r = s
            .validate_action_config(Request::new(pb::validate_action_config::Request {
                type_name: t(),
                config: state(),
            }))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["ValidateActionConfig"]);
        let r = s
            .plan_action(Request::new(pb::plan_action::Request {
                action_type: t(),
                config: state(),
                client_capabilities: None,
            }))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["PlanAction"]);
        let mut events = s
            .invoke_action(Request::new(pb::invoke_action::Request {
                action_type: t(),
                config: state(),
                client_capabilities: None,
            }))
            .await
            .unwrap()
            .into_inner();
        let Some(pb::invoke_action::event::Type::Completed(done)) =
            futures::StreamExt::next(&mut events)
                .await
                .unwrap()
                .unwrap()
                .r#type
        else {
            panic!("a completed event")
        };
        assert_eq!(summaries(&done.diagnostics), ["InvokeAction"]);
        assert!(
            futures::StreamExt::next(&mut events).await.is_none(),
            "it ends"
        );

        let r = s
            .validate_state_store_config(Request::new(pb::validate_state_store::Request {
                type_name: t(),
                config: state(),
            }))
            .await;
        let d = r.unwrap().into_inner().diagnostics;
        assert_eq!(summaries(&d), ["ValidateStateStoreConfig"]);
        let r = s
            .configure_state_store(Request::new(pb::configure_state_store::Request {
                type_name: t(),
                config: state(),
                capabilities: Some(pb::StateStoreClientCapabilities { chunk_size: 4 }),
            }))
            .await;
        let configured = r.unwrap().into_inner();
        assert_eq!(summaries(&configured.diagnostics), ["ConfigureStateStore"]);
        let mut chunks = s
            .read_state_bytes(Request::new(pb::read_state_bytes::Request {
                type_name: t(),
                state_id: "default".into(),
            }))
            .await
            .unwrap()
            .into_inner();
        let only = futures::StreamExt::next(&mut chunks)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(summaries(&only.diagnostics), ["ReadStateBytes"]);
        let chunk = pb::write_state_bytes::RequestChunk {
            meta: Some(pb::RequestChunkMeta {
                type_name: t(),
                state_id: "default".into(),
            }),
            bytes: b"{}".to_vec(),
            total_length: 2,
            range: Some(pb::StateRange { start: 0, end: 1 }),
        };
        let written =
            super::state_store::write_state_bytes(&*s.provider, futures::stream::iter([Ok(chunk)]))
                .await;
        assert_eq!(summaries(&written.diagnostics), ["WriteStateBytes"]);
        let r = s
            .lock_state(Request::new(pb::lock_state::Request {
                type_name: t(),
                state_id: "default".into(),
                operation: "apply".into(),
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["LockState"]
        );
        let r = s
            .unlock_state(Request::new(pb::unlock_state::Request {
                type_name: t(),
                state_id: "default".into(),
                lock_id: "l-1".into(),
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["UnlockState"]
        );
        let r = s
            .get_states(Request::new(pb::get_states::Request { type_name: t() }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["GetStates"]
        );
        let r = s
            .delete_state(Request::new(pb::delete_state::Request {
                type_name: t(),
                state_id: "default".into(),
            }))
            .await;
        assert_eq!(
            summaries(&r.unwrap().into_inner().diagnostics),
            ["DeleteState"]
        );
    });

    let notes = (std::sync::Arc::try_unwrap(s.provider).ok())
        .expect("no listing holds the provider")
        .0
        .0
        .into_inner()
        .unwrap();
    // Each RPC reached the provider, each once (GetProviderSchema with GetFunctions behind
    // it); that each reached it as itself is every answer's summary, checked above. Sorted:
    // this test sends in protocol order, the table lists by family.
    let mut reached: Vec<Rpc> = notes.iter().map(|(rpc, _, _)| *rpc).collect();
    reached.sort();
    let mut sent = Rpc::ALL.to_vec();
    sent.push(Rpc::GetFunctions);
    sent.sort();
    assert_eq!(reached, sent);
    for (rpc, subject, request) in &notes {
        let want = match rpc {
            Rpc::MoveResourceState => "t_to",
            Rpc::CallFunction => "f",
            r if r.family() == tfwasm_model::rpc::Family::Provider => "",
            Rpc::GetFunctions | Rpc::GetResourceIdentitySchemas => "",
            _ => "t_x",
        };
        assert_eq!(subject, want, "{rpc}");
        // Values cross as they came: the state's msgpack, private bytes, the import ID.
        let text = request.to_string();
        match rpc {
            Rpc::ReadResource => {
                assert!(text.contains(r#""private":"p""#), "{text}");
                assert!(
                    text.contains(r#""current_state":{"msgpack":"gaJpZKEx"}"#),
                    "{text}"
                );
            }
            Rpc::ImportResourceState => assert!(text.contains(r#""id":"i-1""#), "{text}"),
            Rpc::UpgradeResourceState => {
                assert!(
                    text.contains(r#""raw_state":{"json":{"id":"1"}}"#),
                    "{text}"
                )
            }
            Rpc::ConfigureProvider => assert!(text.contains("1.0.3"), "{text}"),
            Rpc::GenerateResourceConfig => {
                assert!(text.contains(r#""state":{"msgpack":"gaJpZKEx"}"#), "{text}")
            }
            _ => {}
        }
    }
}

/// StopProvider reaches the provider; GetMetadata of a provider with nothing lists nothing.
#[test]
fn stop_and_metadata_are_answered() {
    let s = service();
    block_on(async {
        let r = s.stop_provider(Request::new(Default::default())).await;
        assert_eq!(r.unwrap().into_inner().error, "");
        let r = s.get_metadata(Request::new(Default::default())).await;
        assert!(r.unwrap().into_inner().resources.is_empty());
    });
}

/// Lists three objects in two pages: after `a` and `b`, the cursor `[1]` leads to `c`.
#[derive(Default)]
struct Pages {
    asked: Mutex<Vec<Option<Vec<u8>>>>,
    /// Answer the cursor it was given instead of advancing.
    stuck: bool,
    /// Answer empty pages with ever new cursors.
    empty: bool,
}

impl Handler for Pages {
    async fn handle<C: Call>(&self, req: C::Request) -> C::Response {
        use tfwasm_model::rpc::{ListResourceEvent, ListResourcePage, ListResourceRequest};
        let mut answer = serde_json::to_value(C::Response::default()).unwrap();
        if C::RPC == Rpc::ListResource {
            let req: ListResourceRequest =
                serde_json::from_value(serde_json::to_value(&req).unwrap()).unwrap();
            self.asked.lock().unwrap().push(req.cursor.clone());
            let event = |name: &str| ListResourceEvent {
                identity: tfwasm_model::rpc::DynamicValue::from_msgpack(vec![
                    0x81,
                    0xa2,
                    b'i',
                    b'd',
                    0xa1,
                    name.as_bytes()[0],
                ]),
                display_name: name.into(),
                ..Default::default()
            };
            let page = match (req.cursor.as_deref(), self.stuck) {
                (cursor, _) if self.empty => {
                    let n = cursor.map_or(0, |c| u32::from_le_bytes(c.try_into().unwrap()));
                    ListResourcePage {
                        next: Some((n + 1).to_le_bytes().to_vec()),
                        ..Default::default()
                    }
                }
                (None, _) => ListResourcePage {
                    events: vec![event("a"), event("b")],
                    next: Some(vec![1]),
                    ..Default::default()
                },
                (Some(_), true) => ListResourcePage {
                    next: req.cursor.clone(),
                    ..Default::default()
                },
                (Some(_), false) => ListResourcePage {
                    events: vec![event("c")],
                    ..Default::default()
                },
            };
            answer = serde_json::to_value(page).unwrap();
        }
        serde_json::from_value(answer).unwrap()
    }

    fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
        Default::default()
    }
}

/// ListResource is served page by page: the next page is asked for with the cursor of the
/// one before, only when the client reads on and not past its limit, and a provider whose
/// cursor does not move is stopped with an error.
#[test]
fn a_listing_is_asked_for_page_by_page_within_the_limit() {
    use futures::StreamExt as _;
    let list = |pages: Pages, limit| {
        let s = ProviderService::new(Handled(pages));
        let events: Vec<pb::list_resource::Event> = block_on(async {
            let stream = s
                .list_resource(Request::new(pb::list_resource::Request {
                    type_name: "t_x".into(),
                    limit,
                    ..Default::default()
                }))
                .await
                .unwrap()
                .into_inner();
            stream.map(Result::unwrap).collect().await
        });
        let asked = s.provider.0.asked.lock().unwrap().clone();
        (events, asked)
    };
    let names = |events: &[pb::list_resource::Event]| -> Vec<String> {
        events.iter().map(|e| e.display_name.clone()).collect()
    };
    let (events, asked) = list(Pages::default(), 100);
    assert_eq!(names(&events), ["a", "b", "c"]);
    assert_eq!(asked, [None, Some(vec![1])]);
    assert!(events.iter().all(|e| e.identity.is_some()));

    let (events, asked) = list(Pages::default(), 2);
    assert_eq!(names(&events), ["a", "b"]);
    assert_eq!(asked, [None], "no page past the limit");

    let (events, asked) = list(
        Pages {
            stuck: true,
            ..Pages::default()
        },
        100,
    );
    assert_eq!(asked.len(), 2);
    let last = events.last().unwrap();
    assert_eq!(summaries(&last.diagnostic), ["Listing stopped"]);

    // The twenty-eighth pass: empty pages with new cursors never reach Terraform's limit.
    let (events, asked) = list(
        Pages {
            empty: true,
            ..Pages::default()
        },
        3,
    );
    assert_eq!(asked.len(), super::list::MAX_EMPTY_PAGES);
    assert_eq!(
        summaries(&events.last().unwrap().diagnostic),
        ["Listing stopped"]
    );
}

/// Reports three progress messages while it runs, then answers.
struct Acting;

impl Handler for Acting {
    async fn handle<C: Call>(&self, req: C::Request) -> C::Response {
        if C::RPC == Rpc::InvokeAction {
            // The request's sink is not part of its recorded form: reach it by type.
            let req: &dyn std::any::Any = &req;
            let req = req
                .downcast_ref::<tfwasm_model::rpc::InvokeActionRequest>()
                .unwrap();
            for step in ["one", "two", "\u{1b}[31mthree"] {
                req.progress.report(step.to_owned());
            }
        }
        serde_json::from_value(serde_json::to_value(C::Response::default()).unwrap()).unwrap()
    }

    fn server_capabilities(&self) -> tfwasm_model::rpc::ServerCapabilities {
        Default::default()
    }
}

/// InvokeAction streams the action's progress as reported, escaped, then one completed event,
/// and ends.
#[test]
fn an_action_streams_its_progress_then_completes() {
    use futures::StreamExt as _;
    use pb::invoke_action::event::Type;
    let s = ProviderService::new(Handled(Acting));
    let events: Vec<Type> = block_on(async {
        let stream = s
            .invoke_action(Request::new(pb::invoke_action::Request {
                action_type: "t_act".into(),
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        stream.map(|e| e.unwrap().r#type.unwrap()).collect().await
    });
    let progress: Vec<&str> = (events.iter())
        .filter_map(|e| match e {
            Type::Progress(p) => Some(p.message.as_str()),
            Type::Completed(_) => None,
        })
        .collect();
    assert_eq!(progress.len(), 3, "{events:?}");
    assert_eq!(&progress[..2], ["one", "two"]);
    assert!(
        !progress[2].contains('\u{1b}'),
        "escaped: {:?}",
        progress[2]
    );
    assert!(
        matches!(events.last(), Some(Type::Completed(_))),
        "{events:?}"
    );
}
