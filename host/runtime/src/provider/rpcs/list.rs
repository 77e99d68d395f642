//! The list resource family: ListResource a page at a time and ValidateListResourceConfig,
//! for components that export WIT 0.3.0's `list-resource` (only they declare list resource
//! schemas, so Terraform asks no other).

use tfwasm_model::rpc::{
    DynamicValue, ListResourceEvent, ListResourcePage, ListResourceRequest, ListServer,
    ValidateListResourceConfigRequest,
};
use tfwasm_model::{Diagnostics, Rpc};

use super::super::WasmProvider;
use super::super::call::ReturnedValues;
use super::{bytes, diagnostics};
use crate::bindings::list_resource::ListRequest;

/// The error of a call to a component without the export (Terraform only lists types the
/// schema declares, so only a client that ignores the schema gets it).
fn not_exported() -> wasmtime::Error {
    wasmtime::Error::msg("the component does not export tfwasm:provider/list-resource@0.3.0")
}

impl ListServer for WasmProvider {
    async fn validate_list_resource_config(
        &self,
        req: ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        let subject = req.type_name.clone();
        let config = bytes(req.config);
        let type_name = req.type_name;
        self.call(
            Rpc::ValidateListResourceConfig,
            &subject,
            move |store, guest| {
                Box::pin(async move {
                    match guest.list_resource() {
                        Some(export) => {
                            (export.call_validate_list_resource_config(store, &type_name, &config))
                                .await
                        }
                        None => Err(not_exported()),
                    }
                })
            },
        )
        .await
        .map_or_else(
            |e| vec![self.call_diagnostic(&e.error, &subject)],
            diagnostics,
        )
    }

    async fn list_resource(&self, req: ListResourceRequest) -> ListResourcePage {
        let ctx = self.context();
        let subject = req.type_name.clone();
        let wreq = ListRequest {
            type_name: req.type_name,
            config: bytes(req.config),
            include_resource_object: req.include_resource_object,
            limit: req.limit,
            cursor: req.cursor,
        };
        match self
            .call(Rpc::ListResource, &subject, move |store, guest| {
                Box::pin(async move {
                    match guest.list_resource() {
                        Some(export) => export.call_list_resource(store, &ctx, &wreq).await,
                        None => Err(not_exported()),
                    }
                })
            })
            .await
        {
            Ok(page) => ListResourcePage {
                events: (page.objects.into_iter())
                    .map(|listed| ListResourceEvent {
                        identity: DynamicValue::from_msgpack(listed.identity),
                        display_name: listed.display_name,
                        resource_object: listed.resource_object.map(DynamicValue::from_msgpack),
                        diagnostics: diagnostics(listed.diagnostics),
                    })
                    .collect(),
                next: page.next,
                diagnostics: diagnostics(page.diagnostics),
            },
            Err(e) => ListResourcePage {
                diagnostics: vec![self.call_diagnostic(&e.error, &subject)],
                ..ListResourcePage::default()
            },
        }
    }
}

// What the host checks and caps in this family's answers (`ReturnedValues`): a forgotten
// `largest_value` is found by `tests/fake_guest.rs`.
impl ReturnedValues for crate::bindings::list_resource::ListPage {
    fn largest_value(&self) -> usize {
        (self.objects.iter())
            .map(|o| {
                o.identity
                    .len()
                    .max(o.resource_object.as_ref().map_or(0, Vec::len))
            })
            .max()
            .unwrap_or(0)
    }
    fn cap_lists(&mut self) {
        use crate::answer_caps::{MAX_DISPLAY_NAME_BYTES, MAX_LIST_CURSOR_BYTES, MAX_LISTED};
        let mut problems = Vec::new();
        if self.objects.len() > MAX_LISTED {
            problems.push(format!(
                "listed {} objects in one page; tfwasm passes on at most {MAX_LISTED} a page",
                self.objects.len()
            ));
            self.objects.truncate(MAX_LISTED);
        }
        if self
            .next
            .as_ref()
            .is_some_and(|n| n.len() > MAX_LIST_CURSOR_BYTES)
        {
            problems.push(format!(
                "answered a next-page cursor of more than {MAX_LIST_CURSOR_BYTES} bytes"
            ));
            self.next = None;
        }
        for listed in &mut self.objects {
            crate::answer_caps::truncate(&mut listed.display_name, MAX_DISPLAY_NAME_BYTES);
        }
        for problem in problems {
            self.diagnostics.push(crate::bindings::wit::Diagnostic {
                severity: crate::bindings::wit::Severity::Error,
                summary: "Provider listed too much".into(),
                detail: format!("The provider {problem}. This is a provider bug."),
                attribute: Vec::new(),
            });
        }
    }
    fn diagnostics(&mut self) -> Option<&mut Vec<crate::bindings::wit::Diagnostic>> {
        Some(&mut self.diagnostics)
    }
    /// The page's own diagnostics first, then each object's from what is left: one budget
    /// for the whole answer, as for any other.
    fn cap_diagnostics(&mut self, work: &crate::HostWork) {
        use crate::answer_caps::{cap_diagnostics, diagnostic_bytes};
        let (mut most, mut bytes) = (work.diagnostics_per_call, work.diagnostic_bytes_per_call);
        let mut spend = |list: &mut Vec<crate::bindings::wit::Diagnostic>| {
            if list.is_empty() {
                return;
            }
            cap_diagnostics(list, most, bytes);
            most = most.saturating_sub(list.len());
            bytes = bytes.saturating_sub(list.iter().map(diagnostic_bytes).sum());
        };
        spend(&mut self.diagnostics);
        for listed in &mut self.objects {
            spend(&mut listed.diagnostics);
        }
    }
}
