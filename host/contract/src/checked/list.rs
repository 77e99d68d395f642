//! The list resource family: every listed object has a wholly known identity of its type's
//! identity schema, and a state (of the resource's schema, wholly known) only when the
//! request asked for one. Terraform stops a listing at the first error it reads, so a bad
//! object's violations go into its own event.

use tfwasm_model::Provider;
use tfwasm_model::rpc::{
    ListResourceEvent, ListResourcePage, ListResourceRequest, ListServer,
    ValidateListResourceConfigRequest,
};
use tfwasm_model::{Diagnostics, Type};

use super::{Checked, decode_result};
use crate::{IdentityRole, Violation, Violations};

impl<P: Provider> ListServer for Checked<P> {
    async fn validate_list_resource_config(
        &self,
        req: ValidateListResourceConfigRequest,
    ) -> Diagnostics {
        self.inner.validate_list_resource_config(req).await
    }

    async fn list_resource(&self, req: ListResourceRequest) -> ListResourcePage {
        let type_name = req.type_name.clone();
        let include = req.include_resource_object;
        let mut page = self.inner.list_resource(req).await;
        // Borrowed from the schema index, built once per process: nothing copied per page.
        let identity = self.identity_type(&type_name).await;
        let object = self.resource(&type_name).await.map(|(_, ty)| ty);
        // One budget for the page, as for any answer: a page of 4,096 objects each with a
        // hundred violations would otherwise be built in full. Terraform stops at the first
        // error, so in enforce mode the first bad object ends the checking.
        let mut left = crate::MAX_VIOLATIONS;
        for event in &mut page.events {
            if left == 0 {
                break;
            }
            let violations = check_event(event, identity, object, include);
            if violations.is_empty() {
                continue;
            }
            left = match self.mode {
                super::Mode::Enforce => 0,
                super::Mode::Warn => left.saturating_sub(violations.len() + violations.more()),
            };
            event.diagnostics.extend(self.diagnostics(
                "Provider listed an invalid object",
                "ListResource",
                &type_name,
                violations,
            ));
        }
        page
    }
}

/// What is wrong with one listed object. An event of diagnostics only (no identity) is the
/// provider reporting a problem, not an object.
fn check_event(
    event: &mut ListResourceEvent,
    identity: Option<&Type>,
    object: Option<&Type>,
    include_object: bool,
) -> Violations {
    let mut found = Violations::new();
    let root = tfwasm_model::AttributePath::root();
    if event.identity.is_null() && event.resource_object.is_none() {
        return found;
    }
    match identity {
        None => found.push(Violation {
            path: root.clone(),
            message: "listed an object of a resource type that declares no identity; Terraform names listed objects by identity".into(),
        }),
        Some(ty) => match decode_result(&event.identity, ty) {
            Ok(value) => found.extend(crate::check_identity(
                true,
                Some(&value),
                IdentityRole::Final,
            )),
            Err(mut v) => {
                v.message = format!("the identity {}", v.message);
                found.push(v);
            }
        },
    }
    if include_object && event.resource_object.is_none() {
        found.push(Violation {
            path: root.clone(),
            message: "listed an object without its state, which the request asked for".into(),
        });
    }
    if let Some(state) = &event.resource_object {
        if !include_object {
            found.push(Violation {
                path: root,
                message: "listed an object with its state, which the request did not ask for"
                    .into(),
            });
            event.resource_object = None;
        } else if let Some(ty) = object {
            match decode_result(state, ty) {
                Ok(value) => found.extend(crate::check_wholly_known(&value)),
                Err(v) => found.push(v),
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use tfwasm_model::rpc::DynamicValue;
    use tfwasm_model::{Type, Value};

    use super::*;

    fn id_type() -> Type {
        Type::Object([("id".into(), Type::String)].into())
    }

    fn encoded(value: Value, ty: &Type) -> DynamicValue {
        DynamicValue::encode(&value, ty).unwrap()
    }

    fn event(identity: Value) -> ListResourceEvent {
        ListResourceEvent {
            identity: encoded(identity, &id_type()),
            display_name: "one".into(),
            ..ListResourceEvent::default()
        }
    }

    fn object(id: &str) -> Value {
        Value::Object([("id".into(), Value::String(id.into()))].into())
    }

    #[test]
    fn a_listed_object_has_a_known_identity_and_a_state_only_when_asked() {
        let ty = id_type();
        let mut good = event(object("1"));
        good.resource_object = Some(encoded(object("1"), &ty));
        assert!(check_event(&mut good, Some(&ty), Some(&ty), true).is_empty());

        let mut unasked = good.clone();
        let found = check_event(&mut unasked, Some(&ty), Some(&ty), false);
        assert!(
            found.iter().any(|v| v.message.contains("did not ask")),
            "{found:?}"
        );
        assert_eq!(
            unasked.resource_object, None,
            "the unasked state is not passed on"
        );

        let unknown = Value::Object([("id".into(), Value::unknown())].into());
        let found = check_event(&mut event(unknown), Some(&ty), Some(&ty), false);
        assert!(
            found.iter().any(|v| v.message.contains("unknown")),
            "{found:?}"
        );

        let found = check_event(&mut event(object("1")), Some(&ty), Some(&ty), true);
        assert!(
            found
                .iter()
                .any(|v| v.message.contains("without its state")),
            "{found:?}"
        );

        let found = check_event(&mut event(object("1")), None, Some(&ty), false);
        assert!(
            found
                .iter()
                .any(|v| v.message.contains("declares no identity")),
            "{found:?}"
        );

        let mut wrong = event(object("1"));
        wrong.identity = DynamicValue::from_msgpack(vec![0xc3]);
        assert!(!check_event(&mut wrong, Some(&ty), Some(&ty), false).is_empty());

        let mut problem_only = ListResourceEvent {
            diagnostics: vec![tfwasm_model::Diagnostic::error("API down", "")],
            ..ListResourceEvent::default()
        };
        assert!(check_event(&mut problem_only, Some(&ty), Some(&ty), false).is_empty());
    }
}
