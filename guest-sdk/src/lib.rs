//! # tfwasm-sdk
//!
//! Write a Terraform/OpenTofu provider in Rust, compile it to a `wasm32-wasip2` component, and
//! let the `tfwasm` host serve it to Terraform with every call sandboxed.
//!
//! A provider is a value implementing [`Provider`] that lists its [`Resource`]s and
//! [`DataSource`]s; [`export_provider!`] turns it into the component's exports. The SDK does the
//! protocol work: it decodes values against your schema, plans changes (defaults, computed
//! values, requires-replace), and encodes results.
//!
//! ```text
//! use tfwasm_sdk::prelude::*;
//!
//! struct Example;
//! impl Provider for Example {
//!     fn resources(&self) -> Vec<Box<dyn Resource>> { vec![Box::new(Thing)] }
//! }
//! tfwasm_sdk::export_provider!(Example);
//! ```
//!
//! Calls are stateless: each one may run in a fresh instance. Provider configuration reaches
//! every call through [`Context::provider_config`] (or typed, [`Context::provider_config_as`]).
//!
//! Where things are:
//! - [`schema`]: attributes, nested attributes, blocks, plan modifiers, defaults;
//! - [`typed`]: model structs with `#[derive(Serialize, Deserialize)]` and [`Tf`] for
//!   null/unknown/known values;
//! - [`validate`]: attribute and resource validators;
//! - [`expr`]: path expressions (`rule[*].port`, `<.name`) for resource validators and
//!   `modify_plan`;
//! - [`PlanContext`]: the planning rules, and the `modify_plan` hook;
//! - [`StateUpgrader`]: schema-version upgrades;
//! - [`http`]: an HTTP client (wasi:http in a component, native otherwise);
//! - [`log`]: structured logging with secret masking;
//! - [`files`]: files with permission bits under read-write grants (WASI cannot set modes);
//! - `invariants` (feature `invariants`): contract checks the SDK runs in debug builds;
//! - [`allocator`] (default feature `allocator`): the component's allocator, which hands
//!   small blocks freed in a call straight back out; turn the feature off to install your own.
//!
//! The author's guide (`docs/provider-guide.md` in the repository) walks from `cargo new` to a
//! packaged provider.

#![deny(missing_docs)]

/// The component's allocator: small blocks are kept by size in front of wasi-libc's dlmalloc.
/// Only where there are no threads, since its lists have no lock.
#[cfg(all(
    feature = "allocator",
    target_arch = "wasm32",
    not(target_feature = "atomics")
))]
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator::new();

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        world: "tfwasm:provider/tfwasm-provider@0.3.0",
        path: ["../wit/since_v0.2.0", "../wit/since_v0.3.0"],
        generate_all,
        pub_export_macro: true,
        export_macro_name: "export_tfwasm_provider",
        default_bindings_module: "tfwasm_sdk::bindings",
    });
}

pub mod action;
pub mod allocator;
pub mod config_generation;
pub mod custom;
pub mod ephemeral;
pub mod expr;
pub mod files;
pub mod function;
#[doc(hidden)]
pub mod glue;
pub mod http;
pub mod identity;
#[cfg(feature = "invariants")]
pub mod invariants;
pub mod list;
pub mod log;
pub mod moves;
mod place;
mod plan;
mod provider;
pub mod schema;
pub mod semantic;
pub mod state_store;
pub mod typed;
pub mod validate;
mod value_ext;

pub use ephemeral::{EphemeralResource, Opened};
pub use function::{Arguments, Function, FunctionError, Param, Signature};
pub use identity::{Identity, IdentityAttr};
pub use moves::{MoveSource, StateMover};
pub use plan::PlanContext;
pub use provider::{
    Context, DataSource, PriorState, Provider, ProviderData, Resource, StateUpgrader,
};
pub use schema::{Attr, Block, ResourceSchema};
pub use tfwasm_model::rpc::{ClientCapabilities, DeferredReason};
pub use tfwasm_model::{
    AttributePath, Attributes, Diagnostic, Diagnostics, Entries, Name, Number, Refinement,
    Severity, Type, Value,
};
pub use typed::Tf;
pub use value_ext::ValueExt;

/// Checks every schema of `provider` against Terraform's rules for schemas and returns the
/// problems (`type.path: message`). Call it in a unit test, so a bad schema fails your test
/// rather than your users' `terraform plan`:
///
/// ```text
/// #[test]
/// fn schemas_are_valid() {
///     assert_eq!(tfwasm_sdk::check_schemas(&MyProvider), Vec::<String>::new());
/// }
/// ```
pub fn check_schemas(provider: &dyn Provider) -> Vec<String> {
    use tfwasm_model::schema_check::check_schema;
    let mut problems = Vec::new();
    let mut one = |owner: &str, schema: &ResourceSchema| {
        problems.extend(
            check_schema(owner, &schema.to_wire())
                .iter()
                .map(ToString::to_string),
        );
        problems.extend(
            schema::behaviour_problems(schema)
                .into_iter()
                .map(|p| format!("{owner}{p}")),
        );
    };
    one("provider", &provider.schema());
    for resource in provider.resources() {
        one(resource.type_name(), &resource.schema());
    }
    for source in provider.data_sources() {
        one(source.type_name(), &source.schema());
    }
    for ephemeral in provider.ephemeral_resources() {
        one(ephemeral.type_name(), &ephemeral.schema());
    }
    problems
}

/// Helpers for [`Resource::import`].
pub mod import {
    use crate::ResourceSchema;
    use tfwasm_model::Value;

    /// The state an import starts from when the ID is all a read needs
    /// (`ImportStatePassthroughID`): every attribute null except `attribute`, set to `id`.
    /// Return it from `import`; Terraform then calls `read`, which fills in the rest.
    pub fn passthrough_id(schema: &ResourceSchema, attribute: &str, id: &str) -> Value {
        let mut state = schema.null_object();
        state.set(attribute, Value::from(id));
        state
    }
}

/// Fills `buf` with cryptographically secure random bytes from the host (`wasi:random`).
///
/// # Panics
/// Only if the host denies randomness, which tfwasm never does.
pub fn random_bytes(buf: &mut [u8]) {
    // In a component, one host call per chunk: `getrandom` makes one per 8 bytes (to spare
    // an allocation), and each crossing of the component boundary costs more than the bytes.
    #[cfg(target_arch = "wasm32")]
    for chunk in buf.chunks_mut(RANDOM_CHUNK) {
        let bytes = wasip2::random::random::get_random_bytes(chunk.len() as u64);
        match bytes.get(..chunk.len()) {
            Some(bytes) => chunk.copy_from_slice(bytes),
            // A host that answers short: the slow way, rather than fewer random bytes.
            None => getrandom::fill(chunk).expect("wasi:random is always available"),
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    getrandom::fill(buf).expect("wasi:random is always available");
}

/// Bytes asked of the host at once: well under what it grants one request (`wasi:random`'s
/// 64 MiB in wasmtime), so a large `random_bytes` is never refused, and a bounded allocation.
#[cfg(target_arch = "wasm32")]
const RANDOM_CHUNK: usize = 4096;

/// Everything a provider module usually needs.
pub mod prelude {
    pub use crate::{
        Arguments, Attr, AttributePath, Block, Context, DataSource, DeferredReason, Diagnostic,
        Diagnostics, EphemeralResource, Function, FunctionError, Identity, IdentityAttr,
        MoveSource, Opened, Param, PlanContext, PriorState, Provider, ProviderData, Resource,
        ResourceSchema, Signature, StateMover, StateUpgrader, Tf, Type, Value, ValueExt,
    };
    pub use serde::{Deserialize, Serialize};
}

/// Exports a provider as the component's implementation of the tfwasm WIT world.
///
/// The argument is an expression building the provider; it runs at most once per instance,
/// and the provider's resources and schemas are built once with it (an instance may serve
/// many calls).
/// Test providers may add `hook = Type` naming a [`glue::RawHook`] that post-processes raw
/// responses.
#[macro_export]
macro_rules! export_provider {
    ($make:expr) => {
        $crate::export_provider!($make, hook = $crate::glue::NoHook);
    };
    ($make:expr, hook = $hook:ty) => {
        struct __TfwasmExport;

        fn __tfwasm_provider() -> &'static $crate::glue::Catalog {
            static CATALOG: ::std::sync::OnceLock<$crate::glue::Catalog> =
                ::std::sync::OnceLock::new();
            CATALOG.get_or_init(|| $crate::glue::Catalog::new(::std::boxed::Box::new($make)))
        }

        impl $crate::bindings::exports::tfwasm::provider0_2_0::provider::Guest for __TfwasmExport {
            fn get_schema() -> $crate::glue::wit::ProviderSchema {
                let mut schema = $crate::glue::get_schema(__tfwasm_provider());
                // A hook may rewrite upgrades, so the host must ask the guest for every one.
                schema.host_decodes_current_state = !<$hook as $crate::glue::RawHook>::ACTIVE;
                schema
            }
            fn validate_provider_config(config: ::std::vec::Vec<u8>) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::validate_provider_config(__tfwasm_provider(), config)
            }
            fn configure_provider(ctx: $crate::glue::wit::ProviderContext) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::configure_provider(__tfwasm_provider(), ctx)
            }
        }

        impl $crate::bindings::exports::tfwasm::provider0_2_0::resource::Guest for __TfwasmExport {
            fn validate_resource_config(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::ValidateRequest,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::validate_resource_config(__tfwasm_provider(), ctx, req)
            }
            fn upgrade_resource_state(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::UpgradeRequest,
            ) -> $crate::glue::wit::UpgradeResponse {
                $crate::glue::hooked(
                    req,
                    |req| $crate::glue::upgrade_resource_state(__tfwasm_provider(), ctx, req),
                    <$hook as $crate::glue::RawHook>::upgrade,
                    <$hook as $crate::glue::RawHook>::ACTIVE,
                )
            }
            fn read_resource(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::ReadRequest,
            ) -> $crate::glue::wit::ReadResponse {
                $crate::glue::read_resource(__tfwasm_provider(), ctx, req)
            }
            fn plan_resource_change(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::PlanRequest,
            ) -> $crate::glue::wit::PlanResponse {
                $crate::glue::hooked(
                    req,
                    |req| $crate::glue::plan_resource_change(__tfwasm_provider(), ctx, req),
                    <$hook as $crate::glue::RawHook>::plan,
                    <$hook as $crate::glue::RawHook>::ACTIVE,
                )
            }
            fn apply_resource_change(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::ApplyRequest,
            ) -> $crate::glue::wit::ApplyResponse {
                $crate::glue::hooked(
                    req,
                    |req| $crate::glue::apply_resource_change(__tfwasm_provider(), ctx, req),
                    <$hook as $crate::glue::RawHook>::apply,
                    <$hook as $crate::glue::RawHook>::ACTIVE,
                )
            }
            fn move_resource_state(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::MoveRequest,
            ) -> $crate::glue::wit::MoveResponse {
                $crate::glue::move_resource_state(__tfwasm_provider(), ctx, req)
            }
            fn upgrade_resource_identity(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::UpgradeIdentityRequest,
            ) -> $crate::glue::wit::UpgradeIdentityResponse {
                $crate::glue::upgrade_resource_identity(__tfwasm_provider(), ctx, req)
            }
            fn import_resource_state(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::ImportRequest,
            ) -> $crate::glue::wit::ImportResponse {
                $crate::glue::hooked(
                    req,
                    |req| $crate::glue::import_resource_state(__tfwasm_provider(), ctx, req),
                    <$hook as $crate::glue::RawHook>::import,
                    <$hook as $crate::glue::RawHook>::ACTIVE,
                )
            }
        }

        impl $crate::bindings::exports::tfwasm::provider0_2_0::data_source::Guest for __TfwasmExport {
            fn validate_data_resource_config(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::ValidateRequest,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::validate_data_resource_config(__tfwasm_provider(), ctx, req)
            }
            fn read_data_source(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::ReadDataRequest,
            ) -> $crate::glue::wit::ReadDataResponse {
                $crate::glue::read_data_source(__tfwasm_provider(), ctx, req)
            }
        }

        impl $crate::bindings::exports::tfwasm::provider0_2_0::ephemeral::Guest for __TfwasmExport {
            fn validate_ephemeral_resource_config(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::ValidateRequest,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::validate_ephemeral_resource_config(__tfwasm_provider(), ctx, req)
            }
            fn open_ephemeral_resource(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::OpenRequest,
            ) -> $crate::glue::wit::OpenResponse {
                $crate::glue::open_ephemeral_resource(__tfwasm_provider(), ctx, req)
            }
            fn renew_ephemeral_resource(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::PrivateRequest,
            ) -> $crate::glue::wit::RenewResponse {
                $crate::glue::renew_ephemeral_resource(__tfwasm_provider(), ctx, req)
            }
            fn close_ephemeral_resource(
                ctx: $crate::glue::wit::ProviderContext,
                req: $crate::glue::wit::PrivateRequest,
            ) -> ::std::vec::Vec<$crate::glue::wit::Diagnostic> {
                $crate::glue::close_ephemeral_resource(__tfwasm_provider(), ctx, req)
            }
        }

        impl $crate::bindings::exports::tfwasm::provider0_2_0::function::Guest for __TfwasmExport {
            fn call_function(
                ctx: $crate::glue::wit::ProviderContext,
                name: ::std::string::String,
                arguments: ::std::vec::Vec<::std::vec::Vec<u8>>,
            ) -> ::std::result::Result<::std::vec::Vec<u8>, $crate::glue::wit::FunctionError> {
                $crate::glue::call_function(__tfwasm_provider(), ctx, name, arguments)
            }
        }

        $crate::__tfwasm_export_list_resource!(__TfwasmExport, __tfwasm_provider);

        $crate::__tfwasm_export_action!(__TfwasmExport, __tfwasm_provider);

        $crate::__tfwasm_export_state_store!(__TfwasmExport, __tfwasm_provider);

        $crate::__tfwasm_export_config_generation!(__TfwasmExport, __tfwasm_provider);

        // Exports only exist in the component; native builds (the author's unit tests) skip them.
        #[cfg(target_arch = "wasm32")]
        $crate::bindings::export_tfwasm_provider!(__TfwasmExport with_types_in $crate::bindings);
    };
}
