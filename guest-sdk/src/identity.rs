//! Resource identity (Terraform >= 1.12): the few attributes that name a resource's remote
//! object. Terraform stores the identity beside the state, imports by it
//! (`import { to = ..., identity = { id = "42" } }`) and lists objects by it.
//!
//! With the SDK an identity is declared, never maintained by hand: after every read,
//! create, update, import and move the SDK derives it from the new state (each identity
//! attribute from the state attribute of the same name; override
//! [`Resource::identity_of`](crate::Resource::identity_of) otherwise), and a plan that keeps
//! the object keeps its identity. The host checks that an identity never changes for the
//! same object.
//!
//! ```
//! use tfwasm_sdk::prelude::*;
//!
//! fn identity() -> Identity {
//!     Identity::new()
//!         .attr(IdentityAttr::string("id").required_for_import().description("The object's ID."))
//!         .attr(IdentityAttr::string("region").optional_for_import())
//! }
//! ```

use std::collections::BTreeMap;

use tfwasm_model::rpc::{IdentityAttribute, IdentitySchema};
use tfwasm_model::{Diagnostic, Type, Value};

/// Converts a stored identity of an older identity version (as JSON) to the current one.
pub type IdentityUpgrader = fn(&serde_json::Value) -> Result<Value, Diagnostic>;

/// A resource type's identity schema.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    version: i64,
    attributes: Vec<IdentityAttr>,
    upgraders: BTreeMap<i64, IdentityUpgrader>,
}

/// Whether an identity attribute is asked for in an `import` block's `identity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum ForImport {
    #[default]
    No,
    Required,
    Optional,
}

/// One attribute of an identity: a primitive or a list of primitives.
#[derive(Debug, Clone)]
pub struct IdentityAttr {
    name: String,
    ty: Type,
    for_import: ForImport,
    description: String,
}

impl IdentityAttr {
    /// An attribute of type `ty`.
    pub fn new(name: &str, ty: Type) -> IdentityAttr {
        IdentityAttr {
            name: name.to_owned(),
            ty,
            for_import: ForImport::No,
            description: String::new(),
        }
    }
    /// A string attribute.
    pub fn string(name: &str) -> IdentityAttr {
        IdentityAttr::new(name, Type::String)
    }
    /// A number attribute.
    pub fn number(name: &str) -> IdentityAttr {
        IdentityAttr::new(name, Type::Number)
    }
    /// A bool attribute.
    pub fn bool(name: &str) -> IdentityAttr {
        IdentityAttr::new(name, Type::Bool)
    }
    /// Must be given when importing by identity.
    #[must_use]
    pub fn required_for_import(mut self) -> IdentityAttr {
        self.for_import = ForImport::Required;
        self
    }
    /// May be given when importing by identity (null when left out).
    #[must_use]
    pub fn optional_for_import(mut self) -> IdentityAttr {
        self.for_import = ForImport::Optional;
        self
    }
    /// Documentation.
    #[must_use]
    pub fn description(mut self, text: &str) -> IdentityAttr {
        self.description = text.to_owned();
        self
    }
}

impl Identity {
    /// An identity at version 0 with no attributes yet.
    pub fn new() -> Identity {
        Identity::default()
    }

    /// Adds an attribute.
    #[must_use]
    pub fn attr(mut self, attr: IdentityAttr) -> Identity {
        self.attributes.push(attr);
        self
    }

    /// Sets the identity schema version (raise it when attributes change, and add an
    /// [`Identity::upgrade_from`] for each older version).
    #[must_use]
    pub fn version(mut self, version: i64) -> Identity {
        self.version = version;
        self
    }

    /// Upgrades identities stored at `version` (as JSON) to the current version. Identities
    /// at the current version are decoded directly.
    #[must_use]
    pub fn upgrade_from(mut self, version: i64, upgrader: IdentityUpgrader) -> Identity {
        self.upgraders.insert(version, upgrader);
        self
    }

    /// The identity schema version.
    pub fn current_version(&self) -> i64 {
        self.version
    }

    /// The object type of an identity value.
    pub fn value_type(&self) -> Type {
        self.to_wire().implied_type()
    }

    /// The identity schema in protocol form.
    pub fn to_wire(&self) -> IdentitySchema {
        IdentitySchema {
            version: self.version,
            attributes: self
                .attributes
                .iter()
                .map(|a| IdentityAttribute {
                    name: a.name.clone(),
                    ty: a.ty.clone(),
                    required_for_import: a.for_import == ForImport::Required,
                    optional_for_import: a.for_import == ForImport::Optional,
                    description: a.description.clone(),
                })
                .collect(),
        }
    }

    /// The identity of an object with `state`: each attribute from the state attribute of
    /// the same name (null where the state has none). Unknown in a plan where the state is.
    pub fn from_state(&self, state: &Value) -> Value {
        Value::Object(
            self.attributes
                .iter()
                .map(|a| {
                    let value = state.get(&a.name).cloned().unwrap_or(Value::Null);
                    (a.name.as_str().into(), value)
                })
                .collect(),
        )
    }

    /// Attribute names, in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.attributes.iter().map(|a| a.name.as_str())
    }

    /// The upgrader of identities stored at `version`.
    pub(crate) fn upgrader(&self, version: i64) -> Option<IdentityUpgrader> {
        self.upgraders.get(&version).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_comes_from_same_named_state_attributes() {
        let identity = Identity::new()
            .attr(IdentityAttr::string("id").required_for_import())
            .attr(IdentityAttr::string("path").optional_for_import());
        let state = Value::object([
            ("id", Value::from("7")),
            ("path", Value::unknown()),
            ("data", Value::from("{}")),
        ]);
        assert_eq!(
            identity.from_state(&state),
            Value::object([("id", Value::from("7")), ("path", Value::unknown())])
        );
        let wire = identity.to_wire();
        assert!(wire.attributes[0].required_for_import);
        assert!(wire.attributes[1].optional_for_import);
        assert_eq!(
            identity.value_type(),
            Type::object([("id", Type::String), ("path", Type::String)])
        );
    }
}
