//! The one declaration of every RPC the family traits serve, gathered from the families:
//! each family's module (`provider.rs`, `resource.rs`, …) holds its entries beside its
//! messages and trait, so an RPC added to a family is declared in that one file. An entry
//! names the RPC, whether the provider's code answers it, whether the wire derives its gRPC
//! route, the family trait's method, what the call is about (its subject) and what each field
//! of its messages holds.
//!
//! Everything else is derived from the table: [`Rpc`](crate::Rpc) and its names, the
//! [`Call`](super::Call) markers through which a wrapper (recording, replay) handles every
//! RPC with one generic function, [`Handled`](super::Handled)'s family impls, the fields
//! recordings redact by ([`Field`](super::Field)), and the wire's gRPC routes. An RPC missing
//! here is missing everywhere at once; a field missing here is redacted whole (and fails the
//! table's completeness test).
//!
//! StopProvider and GetMetadata are not here: they carry no values and reach no family
//! trait as a request/response pair.

/// Hands the whole table to `$callback`, a `macro_rules!` macro that generates code from it,
/// as `$callback! { [args] Name { family: F, guest: …, wire: …, method: [...], subject: …,
/// request: {...}, response: {...} } … }`; `args` are handed through unchanged. The entries
/// name the model's types unqualified: a callback that uses them has `tfwasm_model::rpc::*`
/// in scope (the wire's uses only names).
///
/// A new family adds its module's `__rpcs_<module>` to the list below.
#[macro_export]
macro_rules! rpc_table {
    ($callback:ident $([$($args:tt)*])?) => {
        $crate::__rpc_gather! { $callback [$($($args)*)?] [
            __rpcs_provider __rpcs_resource __rpcs_data_source __rpcs_function __rpcs_moves
            __rpcs_config_generation __rpcs_identity __rpcs_ephemeral __rpcs_list __rpcs_action
            __rpcs_state_store
        ] }
    };
}

/// Adds the next family's entries to those gathered, or hands them all to the callback.
#[doc(hidden)]
#[macro_export]
macro_rules! __rpc_gather {
    ($cb:ident [$($args:tt)*] [$next:ident $($rest:ident)*] $($gathered:tt)*) => {
        $crate::$next! { gather $cb [$($args)*] [$($rest)*] $($gathered)* }
    };
    ($cb:ident [$($args:tt)*] [] $($gathered:tt)*) => {
        $cb! { [$($args)*] $($gathered)* }
    };
}

/// One family's entries, each given its `family`, either gathered into the table or handed
/// to a callback alone (`each`: as [`Handled`](crate::rpc::Handled)'s impl of that family's trait).
#[doc(hidden)]
#[macro_export]
macro_rules! __rpc_family {
    (
        [gather $cb:ident [$($args:tt)*] [$($rest:ident)*] $($gathered:tt)*]
        $family:ident { $($name:ident { $($entry:tt)* })* }
    ) => {
        $crate::__rpc_gather! {
            $cb [$($args)*] [$($rest)*] $($gathered)* $($name { family: $family, $($entry)* })*
        }
    };
    ([each $cb:ident $($args:tt)*] $family:ident { $($name:ident { $($entry:tt)* })* }) => {
        $cb! { [$($args)*] $($name { family: $family, $($entry)* })* }
    };
}

/// What an entry's `method` gives: `name(req: Request) -> Response` for a method that takes
/// the request, or `name(args…) -> Response; Request { args… }` for one whose arguments are
/// the request's fields (or none: `NoRequest {}`), listed in the method's order (arguments
/// of one type in another order would be swapped unnoticed: no method takes two).
#[doc(hidden)]
#[macro_export]
macro_rules! __rpc_method {
    // The request type.
    (request: $m:ident($req:ident: $Req:ty) -> $Resp:ty) => { $Req };
    (request: $m:ident($($a:ident: $t:ty),*) -> $Resp:ty; $Req:ident { $($f:ident),* }) => { $Req };
    // The response type.
    (response: $m:ident($($a:ident: $t:ty),*) -> $Resp:ty $(; $($made:tt)*)?) => { $Resp };
    // A call of the family trait's method on `$p` with the request `$r`.
    (call $p:ident $r:ident: $m:ident($req:ident: $Req:ty) -> $Resp:ty) => { $p.$m($r) };
    (call $p:ident $r:ident: $m:ident($($a:ident: $t:ty),*) -> $Resp:ty; $Req:ident { $($f:ident),* }) => {{
        let $Req { $($f),* } = $r;
        $p.$m($($a),*)
    }};
    // The family trait's method for `Handled<H>`: the request to the handler as this RPC.
    (handled $name:ident: $m:ident($req:ident: $Req:ty) -> $Resp:ty) => {
        fn $m(&self, $req: $Req) -> impl ::std::future::Future<Output = $Resp> + Send {
            self.0.handle::<$crate::rpc::calls::$name>($req)
        }
    };
    (handled $name:ident: $m:ident($($a:ident: $t:ty),*) -> $Resp:ty; $Req:ident { $($f:ident),* }) => {
        fn $m(&self, $($a: $t),*) -> impl ::std::future::Future<Output = $Resp> + Send {
            self.0.handle::<$crate::rpc::calls::$name>($Req { $($f),* })
        }
    };
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::Rpc;
    use crate::rpc::{Call, CallVisitor, Field, IMPORTED_FIELDS, ImportedResource};

    /// The field names of a message's recorded form: a message of diagnostics only is
    /// recorded as `{"diagnostics": [...]}`.
    fn keys(message: serde_json::Value) -> BTreeSet<String> {
        match message {
            serde_json::Value::Object(fields) => fields.into_iter().map(|(k, _)| k).collect(),
            serde_json::Value::Array(_) => BTreeSet::from(["diagnostics".to_owned()]),
            other => panic!("a message that is neither an object nor diagnostics: {other}"),
        }
    }

    fn names(fields: &[(&str, Field)]) -> BTreeSet<String> {
        fields.iter().map(|(name, _)| (*name).to_owned()).collect()
    }

    struct Forms;

    impl CallVisitor for Forms {
        type Output = (BTreeSet<String>, BTreeSet<String>);
        fn visit<C: Call>(self) -> Self::Output {
            let request = serde_json::to_value(C::Request::default()).unwrap();
            let response = serde_json::to_value(C::Response::default()).unwrap();
            (keys(request), keys(response))
        }
    }

    /// Every field of every message is declared, and nothing declared is missing: a field
    /// added to a message without saying what it holds fails here (and until then is
    /// redacted whole).
    #[test]
    fn the_table_names_every_field_of_every_message() {
        for &rpc in Rpc::ALL {
            let (request, response) = rpc.visit(Forms);
            assert_eq!(request, names(rpc.request_fields()), "{rpc} request");
            assert_eq!(response, names(rpc.response_fields()), "{rpc} response");
        }
        let imported = keys(serde_json::to_value(ImportedResource::default()).unwrap());
        assert_eq!(imported, names(IMPORTED_FIELDS));
    }

    /// A field that holds a value is declared as one in every message that has it (a
    /// `config` or `state` is never plain).
    #[test]
    fn value_fields_are_never_plain() {
        for &rpc in Rpc::ALL {
            for (name, what) in rpc.request_fields().iter().chain(rpc.response_fields()) {
                let value_like = ["config", "state", "private", "identity", "result", "meta"]
                    .iter()
                    .any(|word| name.contains(word))
                    && !name.ends_with("_version")
                    && !name.ends_with("_schemas")
                    // A state's ID is its name (the workspace), not a value.
                    && !name.ends_with("_id")
                    && !name.ends_with("_ids");
                let schema = matches!(rpc, Rpc::GetProviderSchema);
                assert!(
                    !value_like || schema || *what != Field::Plain,
                    "{rpc}.{name} is declared plain"
                );
            }
        }
    }

    #[test]
    fn each_rpc_is_found_by_name_with_its_fields() {
        assert_eq!(Rpc::ReadResource.field("private"), Some(Field::Private));
        assert_eq!(Rpc::ReadResource.field("new_state"), Some(Field::Object));
        assert_eq!(Rpc::ReadResource.field("no_such_field"), None);
        assert!(!Rpc::GetFunctions.reaches_guest());
        assert!(Rpc::CallFunction.reaches_guest());
    }
}
