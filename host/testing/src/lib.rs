//! # tfwasm-testing
//!
//! Runs a provider component's lifecycle in-process, without Terraform: validate, plan,
//! apply, read, import, upgrade and data-source reads, each through the same runtime and
//! contract checks `tfwasm serve` uses. A test reads like the lifecycle it checks:
//!
//! ```no_run
//! use serde_json::json;
//! use tfwasm_testing::Harness;
//!
//! let h = Harness::load(Harness::built_component("tfwasm_sample_random").unwrap()).unwrap();
//! let state = h.create("random_string", json!({"length": 12})).unwrap();
//! assert_eq!(state.value.get("result").unwrap().as_str().unwrap().len(), 12);
//! let plan = h.plan("random_string", Some(&state), json!({"length": 13})).unwrap();
//! assert!(!plan.requires_replace.is_empty());
//! ```
//!
//! [`acceptance`] runs the same component through real Terraform instead, in steps of HCL.
//!
//! Values are given as JSON objects; attributes left out are null, and `{"$unknown": true}`
//! stands for an unknown value (as in `tfwasm check` files). Every call's response passes the
//! lifecycle contract checks, so a provider that breaks them fails its own tests.
//!
//! Terraform's part of planning is modelled simply: the proposed new state takes configured
//! values and, for computed attributes left null, the prior state's values (Terraform's
//! `ProposedNew` for top-level attributes; nested blocks come from the configuration).

#![deny(missing_docs)]

pub mod acceptance;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tfwasm_contract::{Checked, Mode};
use tfwasm_model::codec;
use tfwasm_model::rpc::prelude::*;
use tfwasm_model::rpc::{
    ApplyResourceChangeRequest, CallFunctionRequest, ClientCapabilities,
    CloseEphemeralResourceRequest, ConfigureProviderRequest, DynamicValue,
    ImportResourceStateRequest, MoveResourceStateRequest, OpenEphemeralResourceRequest,
    PlanResourceChangeRequest, RawState, ReadDataSourceRequest, ReadResourceRequest,
    UpgradeResourceStateRequest, ValidateConfigRequest,
};
use tfwasm_model::{AttributePath, Block, Diagnostic, ProviderSchema, Schema, Type, Value};
use tfwasm_runtime::{CallLimits, GuestLogSink, LoadOptions, WasmProvider, cache};

/// Why a harness call failed.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The component could not be found or loaded.
    #[error("loading the component: {0}")]
    Load(String),
    /// The provider has no such resource or data source type.
    #[error("the provider has no {kind} type {name:?}")]
    UnknownType {
        /// "resource", "data source", "ephemeral resource" or "function".
        kind: &'static str,
        /// The type name asked for.
        name: String,
    },
    /// A value given to the harness does not fit the schema.
    #[error("{what} does not fit the schema: {message}")]
    BadInput {
        /// Which input.
        what: String,
        /// Why.
        message: String,
    },
    /// A function call failed.
    #[error("function {name} failed{}: {text}", .argument.map(|i| format!(" at argument {i}")).unwrap_or_default())]
    Function {
        /// The function.
        name: String,
        /// Its error.
        text: String,
        /// The argument at fault, if any.
        argument: Option<i64>,
    },
    /// The provider answered with error diagnostics.
    #[error("{rpc} failed:\n{}", render_diagnostics(.diagnostics))]
    Diagnostics {
        /// The call.
        rpc: &'static str,
        /// Every diagnostic of the response (warnings included).
        diagnostics: Vec<Diagnostic>,
    },
}

impl HarnessError {
    /// The diagnostics of a failed call (empty for other errors).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            HarnessError::Diagnostics { diagnostics, .. } => diagnostics,
            _ => &[],
        }
    }
}

fn render_diagnostics(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| {
            let at = d
                .attribute
                .as_ref()
                .map(|p| format!(" (at {p})"))
                .unwrap_or_default();
            format!("  {:?}: {}{at}: {}", d.severity, d.summary, d.detail)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One log line the provider wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// `trace`, `debug`, `info`, `warn` or `error`.
    pub level: String,
    /// The message.
    pub message: String,
    /// Structured fields.
    pub fields: Vec<(String, String)>,
}

impl fmt::Display for LogLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.level, self.message)?;
        for (k, v) in &self.fields {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}

#[derive(Default)]
struct Captured(Mutex<Vec<LogLine>>);

impl GuestLogSink for Captured {
    fn log(&self, level: &str, message: &str, fields: &[(String, String)]) {
        if let Ok(mut lines) = self.0.lock() {
            lines.push(LogLine {
                level: level.to_owned(),
                message: message.to_owned(),
                fields: fields.to_vec(),
            });
        }
    }
}

/// A resource instance's state as the harness keeps it between calls.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The resource type.
    pub type_name: String,
    /// The state value.
    pub value: Value,
    /// The private state bytes.
    pub private: Vec<u8>,
    /// The object's identity (resource types with an identity), as Terraform stores it.
    pub identity: Option<Value>,
}

impl State {
    /// The attribute `name` of the state (null when absent).
    pub fn attr(&self, name: &str) -> &Value {
        const NULL: Value = Value::Null;
        self.value.get(name).unwrap_or(&NULL)
    }
    /// The private state as JSON (null when there is none).
    pub fn private_json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.private).unwrap_or(serde_json::Value::Null)
    }
}

/// The result of a plan, ready to apply.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    /// The resource type.
    pub type_name: String,
    /// Prior state (null on create).
    pub prior: Value,
    /// The configuration the plan was made from.
    pub config: Value,
    /// The planned state.
    pub planned: Value,
    /// Attribute paths whose change replaces the resource.
    pub requires_replace: Vec<AttributePath>,
    /// Planned private state.
    pub private: Vec<u8>,
    /// The planned identity (resource types with an identity).
    pub identity: Option<Value>,
    /// Warnings of the plan.
    pub warnings: Vec<Diagnostic>,
}

impl Planned {
    /// True when the planned state equals the prior state (`terraform plan` shows no change).
    pub fn is_no_op(&self) -> bool {
        self.planned == self.prior
    }
    /// The planned attribute `name` (null when absent).
    pub fn attr(&self, name: &str) -> &Value {
        const NULL: Value = Value::Null;
        self.planned.get(name).unwrap_or(&NULL)
    }
}

/// What a component loaded by [`Harness::load_with`] may reach, written as for
/// `tfwasm package` (`--allow-http`, `--allow-dir`, `--allow-env`).
#[derive(Debug, Clone, Default)]
pub struct Grants {
    /// `scheme://host[:port]` entries, e.g. `http://127.0.0.1:*`.
    pub http: Vec<String>,
    /// `HOST_DIR:GUEST_DIR[:ro|rw]` entries.
    pub dirs: Vec<String>,
    /// Environment variable names.
    pub env: Vec<String>,
}

/// A loaded provider component and a runtime to call it.
pub struct Harness {
    runtime: tokio::runtime::Runtime,
    provider: Checked<WasmProvider>,
    schema: ProviderSchema,
    /// Identity types by resource type.
    identities: std::collections::BTreeMap<String, Type>,
    logs: Arc<Captured>,
}

impl Harness {
    /// Loads the component at `path` with default limits and no grants (the compile cache is
    /// tfwasm's usual one, so repeated test runs do not recompile).
    ///
    /// # Errors
    /// The file is missing or not a tfwasm provider component.
    pub fn load(path: impl AsRef<Path>) -> Result<Harness, HarnessError> {
        Harness::load_with(path, &Grants::default())
    }

    /// Loads the component with `grants`, for providers that reach HTTP servers, directories
    /// or environment variables (as the operator would grant them with `tfwasm package`).
    ///
    /// # Errors
    /// A grant is malformed, or the component cannot be loaded.
    pub fn load_with(path: impl AsRef<Path>, grants: &Grants) -> Result<Harness, HarnessError> {
        let path = path.as_ref();
        let logs = Arc::new(Captured::default());
        let invalid = |e: &dyn std::fmt::Display| HarnessError::Load(format!("invalid grant: {e}"));
        let grants = tfwasm_runtime::Grants {
            env: grants.env.clone(),
            dirs: grants
                .dirs
                .iter()
                .map(|d| d.parse::<tfwasm_runtime::DirGrant>())
                .collect::<Result<_, _>>()
                .map_err(|e| invalid(&e))?,
            http: tfwasm_runtime::HttpAllowList::parse(&grants.http).map_err(|e| invalid(&e))?,
        };
        let options = LoadOptions {
            limits: CallLimits::default(),
            grants,
            cache_dir: cache::default_dir(),
            precompiled: None,
            log_sink: logs.clone(),
            settings_hint: "the harness (tfwasm_testing::Harness)".to_owned(),
            display_name: None,
            http: Default::default(),
            journal: None,
            protected: Vec::new(),
        };
        let (provider, _) =
            WasmProvider::load(path, options).map_err(|e| HarnessError::Load(e.to_string()))?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let provider = Checked::new(provider, name, Mode::Enforce);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| HarnessError::Load(format!("starting a tokio runtime: {e}")))?;
        let schema = runtime.block_on(provider.get_provider_schema());
        if let Some(d) = schema.diagnostics.iter().find(|d| d.is_error()) {
            return Err(HarnessError::Load(format!(
                "GetProviderSchema: {}: {}",
                d.summary, d.detail
            )));
        }
        let identities = runtime
            .block_on(provider.get_resource_identity_schemas())
            .identity_schemas
            .iter()
            .map(|(name, s)| (name.clone(), s.implied_type()))
            .collect();
        Ok(Harness {
            runtime,
            provider,
            schema,
            identities,
            logs,
        })
    }

    /// Where `cargo build --release --target wasm32-wasip2` put the component of the crate
    /// whose library is named `lib_name` (e.g. `tfwasm_sample_random`): `$TFWASM_COMPONENT`
    /// if set, else `wasm32-wasip2/release/<lib_name>.wasm` under `$CARGO_TARGET_DIR` or the
    /// nearest `target/` above the crate being tested; refused when older than the crate's
    /// sources ([`tfwasm_harness::Harness::built_component`]).
    ///
    /// # Errors
    /// The component has not been built, or is stale; the message says how to build it.
    pub fn built_component(lib_name: &str) -> Result<PathBuf, HarnessError> {
        tfwasm_harness::built_component(lib_name).map_err(HarnessError::Load)
    }

    /// The provider's schemas.
    pub fn schema(&self) -> &ProviderSchema {
        &self.schema
    }

    /// Every line the provider logged so far.
    pub fn logs(&self) -> Vec<LogLine> {
        self.logs.0.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// An identity for a request, encoded against `type_name`'s identity type.
    fn encode_identity(
        &self,
        type_name: &str,
        identity: Option<&Value>,
    ) -> Result<Option<DynamicValue>, HarnessError> {
        match (self.identities.get(type_name), identity) {
            (Some(ty), Some(value)) => Self::encode(value, ty).map(Some),
            _ => Ok(None),
        }
    }

    /// An identity from a response.
    fn decode_identity(
        &self,
        rpc: &'static str,
        type_name: &str,
        identity: Option<&DynamicValue>,
    ) -> Result<Option<Value>, HarnessError> {
        match (self.identities.get(type_name), identity) {
            (Some(ty), Some(value)) => Self::decode(rpc, value, ty).map(Some),
            _ => Ok(None),
        }
    }

    fn resource(&self, type_name: &str) -> Result<&Schema, HarnessError> {
        self.schema
            .resources
            .get(type_name)
            .ok_or_else(|| HarnessError::UnknownType {
                kind: "resource",
                name: type_name.to_owned(),
            })
    }

    fn input(
        &self,
        what: &str,
        json: &serde_json::Value,
        ty: &Type,
    ) -> Result<Value, HarnessError> {
        let filled = fill_nulls(json, ty);
        codec::json::decode_with_unknowns(&filled, ty).map_err(|e| HarnessError::BadInput {
            what: what.to_owned(),
            message: e.to_string(),
        })
    }

    fn encode(value: &Value, ty: &Type) -> Result<DynamicValue, HarnessError> {
        DynamicValue::encode(value, ty).map_err(|e| HarnessError::BadInput {
            what: "value".to_owned(),
            message: e.to_string(),
        })
    }

    fn decode(rpc: &'static str, value: &DynamicValue, ty: &Type) -> Result<Value, HarnessError> {
        value.decode(ty).map_err(|e| HarnessError::Diagnostics {
            rpc,
            diagnostics: vec![Diagnostic::error("Undecodable response", e.to_string())],
        })
    }

    fn check(
        rpc: &'static str,
        diagnostics: Vec<Diagnostic>,
    ) -> Result<Vec<Diagnostic>, HarnessError> {
        if diagnostics.iter().any(Diagnostic::is_error) {
            Err(HarnessError::Diagnostics { rpc, diagnostics })
        } else {
            Ok(diagnostics)
        }
    }

    /// ConfigureProvider with `config` (a JSON object of the provider schema).
    ///
    /// # Errors
    /// Invalid input or error diagnostics from the provider.
    pub fn configure(&self, config: serde_json::Value) -> Result<(), HarnessError> {
        let ty = self.schema.provider.block.implied_type();
        let value = self.input("provider configuration", &config, &ty)?;
        let config = Self::encode(&value, &ty)?;
        let diagnostics = self
            .runtime
            .block_on(self.provider.validate_provider_config(config.clone()));
        Self::check("ValidateProviderConfig", diagnostics)?;
        let diagnostics =
            self.runtime
                .block_on(self.provider.configure_provider(ConfigureProviderRequest {
                    terraform_version: "harness".to_owned(),
                    config,
                    client_capabilities: CLIENT,
                }));
        Self::check("ConfigureProvider", diagnostics).map(drop)
    }

    /// ValidateResourceConfig: every diagnostic, errors and warnings.
    ///
    /// # Errors
    /// Only for an unknown type or input that does not fit the schema.
    pub fn validate(
        &self,
        type_name: &str,
        config: serde_json::Value,
    ) -> Result<Vec<Diagnostic>, HarnessError> {
        let ty = self.resource(type_name)?.block.implied_type();
        let value = self.input("configuration", &config, &ty)?;
        Ok(self.runtime.block_on(
            self.provider
                .validate_resource_config(ValidateConfigRequest {
                    type_name: type_name.to_owned(),
                    config: Self::encode(&value, &ty)?,
                    client_capabilities: CLIENT,
                }),
        ))
    }

    /// Validates, then plans `config` against `prior` (`None` to create).
    ///
    /// # Errors
    /// Validation or planning errors.
    pub fn plan(
        &self,
        type_name: &str,
        prior: Option<&State>,
        config: serde_json::Value,
    ) -> Result<Planned, HarnessError> {
        let schema = self.resource(type_name)?;
        let ty = schema.block.implied_type();
        let config_value = self.input("configuration", &config, &ty)?;
        let validation = self.validate(type_name, config)?;
        let mut warnings = Self::check("ValidateResourceConfig", validation)?;
        let prior_value = prior.map_or(Value::Null, |s| s.value.clone());
        let proposed = proposed_new(&schema.block, &prior_value, &config_value);
        let resp = self.runtime.block_on(self.provider.plan_resource_change(
            PlanResourceChangeRequest {
                client_capabilities: CLIENT,
                type_name: type_name.to_owned(),
                prior_state: Self::encode(&prior_value, &ty)?,
                proposed_new_state: Self::encode(&proposed, &ty)?,
                config: Self::encode(&config_value, &ty)?,
                prior_private: prior.map(|s| s.private.clone()).unwrap_or_default(),
                provider_meta: DynamicValue::null(),
                prior_identity:
                    self.encode_identity(type_name, prior.and_then(|s| s.identity.as_ref()))?,
                planned_private: Vec::new(),
            },
        ));
        warnings.extend(Self::check("PlanResourceChange", resp.diagnostics)?);
        Ok(Planned {
            type_name: type_name.to_owned(),
            planned: Self::decode("PlanResourceChange", &resp.planned_state, &ty)?,
            prior: prior_value,
            config: config_value,
            requires_replace: resp.requires_replace,
            private: resp.planned_private,
            identity: self.decode_identity(
                "PlanResourceChange",
                type_name,
                resp.planned_identity.as_ref(),
            )?,
            warnings,
        })
    }

    /// Applies a plan; returns the new state (`None` after a destroy).
    ///
    /// # Errors
    /// Error diagnostics from the provider or the contract checks.
    pub fn apply(&self, plan: &Planned) -> Result<Option<State>, HarnessError> {
        let ty = self.resource(&plan.type_name)?.block.implied_type();
        let resp = self.runtime.block_on(self.provider.apply_resource_change(
            ApplyResourceChangeRequest {
                type_name: plan.type_name.clone(),
                prior_state: Self::encode(&plan.prior, &ty)?,
                planned_state: Self::encode(&plan.planned, &ty)?,
                config: Self::encode(&plan.config, &ty)?,
                planned_private: plan.private.clone(),
                provider_meta: DynamicValue::null(),
                planned_identity: self.encode_identity(&plan.type_name, plan.identity.as_ref())?,
            },
        ));
        Self::check("ApplyResourceChange", resp.diagnostics)?;
        let value = Self::decode("ApplyResourceChange", &resp.new_state, &ty)?;
        let identity = self.decode_identity(
            "ApplyResourceChange",
            &plan.type_name,
            resp.new_identity.as_ref(),
        )?;
        Ok((!value.is_null()).then(|| State {
            type_name: plan.type_name.clone(),
            value,
            private: resp.private,
            identity,
        }))
    }

    /// Plans and applies a create.
    ///
    /// # Errors
    /// As [`Harness::plan`] and [`Harness::apply`].
    pub fn create(
        &self,
        type_name: &str,
        config: serde_json::Value,
    ) -> Result<State, HarnessError> {
        let plan = self.plan(type_name, None, config)?;
        self.apply(&plan)?.ok_or_else(|| HarnessError::Diagnostics {
            rpc: "ApplyResourceChange",
            diagnostics: vec![Diagnostic::error(
                "Create returned null",
                "the provider returned no state for a create",
            )],
        })
    }

    /// Plans and applies a destroy.
    ///
    /// # Errors
    /// Error diagnostics from the provider.
    pub fn destroy(&self, state: &State) -> Result<(), HarnessError> {
        let ty = self.resource(&state.type_name)?.block.implied_type();
        let resp = self.runtime.block_on(self.provider.plan_resource_change(
            PlanResourceChangeRequest {
                client_capabilities: CLIENT,
                type_name: state.type_name.clone(),
                prior_state: Self::encode(&state.value, &ty)?,
                proposed_new_state: DynamicValue::null(),
                config: DynamicValue::null(),
                prior_private: state.private.clone(),
                provider_meta: DynamicValue::null(),
                prior_identity: self.encode_identity(&state.type_name, state.identity.as_ref())?,
                planned_private: Vec::new(),
            },
        ));
        Self::check("PlanResourceChange (destroy)", resp.diagnostics)?;
        let plan = Planned {
            type_name: state.type_name.clone(),
            prior: state.value.clone(),
            config: Value::Null,
            planned: Value::Null,
            requires_replace: Vec::new(),
            private: resp.planned_private,
            identity: None,
            warnings: Vec::new(),
        };
        self.apply(&plan).map(drop)
    }

    /// ReadResource; `None` when the provider says the object is gone.
    ///
    /// # Errors
    /// Error diagnostics from the provider.
    pub fn read(&self, state: &State) -> Result<Option<State>, HarnessError> {
        let ty = self.resource(&state.type_name)?.block.implied_type();
        let resp = self
            .runtime
            .block_on(self.provider.read_resource(ReadResourceRequest {
                client_capabilities: CLIENT,
                type_name: state.type_name.clone(),
                current_state: Self::encode(&state.value, &ty)?,
                private: state.private.clone(),
                provider_meta: DynamicValue::null(),
                current_identity:
                    self.encode_identity(&state.type_name, state.identity.as_ref())?,
            }));
        Self::check("ReadResource", resp.diagnostics)?;
        let value = Self::decode("ReadResource", &resp.new_state, &ty)?;
        let identity =
            self.decode_identity("ReadResource", &state.type_name, resp.new_identity.as_ref())?;
        Ok((!value.is_null()).then(|| State {
            type_name: state.type_name.clone(),
            value,
            private: resp.private,
            identity,
        }))
    }

    /// ImportResourceState, then ReadResource on the result (as `terraform import` does).
    ///
    /// # Errors
    /// Error diagnostics from the provider, or an import that returns nothing.
    pub fn import(&self, type_name: &str, id: &str) -> Result<State, HarnessError> {
        self.import_with(type_name, id, None)
    }

    /// Imports by identity (an `import` block with `identity`, Terraform >= 1.12), then
    /// reads. Identity attributes `identity` leaves out are null.
    ///
    /// # Errors
    /// The type has no identity, the identity does not fit it, or as [`Harness::import`].
    pub fn import_by_identity(
        &self,
        type_name: &str,
        identity: serde_json::Value,
    ) -> Result<State, HarnessError> {
        let ty = self
            .identities
            .get(type_name)
            .ok_or_else(|| HarnessError::UnknownType {
                kind: "resource identity",
                name: type_name.to_owned(),
            })?;
        let value = self.input("identity", &identity, ty)?;
        self.import_with(type_name, "", Some(&value))
    }

    fn import_with(
        &self,
        type_name: &str,
        id: &str,
        identity: Option<&Value>,
    ) -> Result<State, HarnessError> {
        let ty = self.resource(type_name)?.block.implied_type();
        let resp = self.runtime.block_on(self.provider.import_resource_state(
            ImportResourceStateRequest {
                client_capabilities: CLIENT,
                type_name: type_name.to_owned(),
                id: id.to_owned(),
                identity: self.encode_identity(type_name, identity)?,
            },
        ));
        Self::check("ImportResourceState", resp.diagnostics)?;
        let imported = resp.imported_resources.into_iter().next().ok_or_else(|| {
            HarnessError::Diagnostics {
                rpc: "ImportResourceState",
                diagnostics: vec![Diagnostic::error(
                    "Nothing imported",
                    "no resource returned",
                )],
            }
        })?;
        let state = State {
            identity: self.decode_identity(
                "ImportResourceState",
                &imported.type_name,
                imported.identity.as_ref(),
            )?,
            type_name: imported.type_name,
            value: Self::decode("ImportResourceState", &imported.state, &ty)?,
            private: imported.private,
        };
        self.read(&state)?.ok_or_else(|| HarnessError::Diagnostics {
            rpc: "ReadResource",
            diagnostics: vec![Diagnostic::error(
                "Imported object not found",
                "ReadResource after import said the object does not exist",
            )],
        })
    }

    /// UpgradeResourceState of `raw` (a state file's `attributes` object) stored at schema
    /// `version`.
    ///
    /// # Errors
    /// Error diagnostics from the provider.
    pub fn upgrade(
        &self,
        type_name: &str,
        version: i64,
        raw: serde_json::Value,
    ) -> Result<State, HarnessError> {
        let ty = self.resource(type_name)?.block.implied_type();
        let resp = self.runtime.block_on(self.provider.upgrade_resource_state(
            UpgradeResourceStateRequest {
                type_name: type_name.to_owned(),
                version,
                raw_state: RawState {
                    json: raw.to_string().into_bytes(),
                    ..Default::default()
                },
            },
        ));
        Self::check("UpgradeResourceState", resp.diagnostics)?;
        Ok(State {
            type_name: type_name.to_owned(),
            value: Self::decode("UpgradeResourceState", &resp.upgraded_state, &ty)?,
            private: Vec::new(),
            identity: None,
        })
    }

    /// ReadDataSource with `config`.
    ///
    /// # Errors
    /// Unknown type, bad input, or error diagnostics from the provider.
    pub fn read_data(
        &self,
        type_name: &str,
        config: serde_json::Value,
    ) -> Result<Value, HarnessError> {
        let schema =
            self.schema
                .data_sources
                .get(type_name)
                .ok_or_else(|| HarnessError::UnknownType {
                    kind: "data source",
                    name: type_name.to_owned(),
                })?;
        let ty = schema.block.implied_type();
        let value = self.input("configuration", &config, &ty)?;
        let diagnostics = self
            .runtime
            .block_on(
                self.provider
                    .validate_data_resource_config(ValidateConfigRequest {
                        type_name: type_name.to_owned(),
                        config: Self::encode(&value, &ty)?,
                        client_capabilities: CLIENT,
                    }),
            );
        Self::check("ValidateDataResourceConfig", diagnostics)?;
        let resp = self
            .runtime
            .block_on(self.provider.read_data_source(ReadDataSourceRequest {
                client_capabilities: CLIENT,
                type_name: type_name.to_owned(),
                config: Self::encode(&value, &ty)?,
                provider_meta: DynamicValue::null(),
            }));
        Self::check("ReadDataSource", resp.diagnostics)?;
        Self::decode("ReadDataSource", &resp.state, &ty)
    }

    /// CallFunction `name` with arguments given as JSON (each converted to its parameter's
    /// type), as Terraform calls it: before any ConfigureProvider if the harness has not
    /// configured the provider.
    ///
    /// # Errors
    /// Unknown function, bad input, or the function's error.
    pub fn call_function(
        &self,
        name: &str,
        arguments: &[serde_json::Value],
    ) -> Result<Value, HarnessError> {
        let functions = self.runtime.block_on(self.provider.get_functions());
        let function = functions
            .functions
            .get(name)
            .ok_or_else(|| HarnessError::UnknownType {
                kind: "function",
                name: name.to_owned(),
            })?;
        let mut encoded = Vec::with_capacity(arguments.len());
        for (i, json) in arguments.iter().enumerate() {
            let ty = &function
                .parameter(i)
                .ok_or_else(|| HarnessError::BadInput {
                    what: format!("argument {i}"),
                    message: format!("{name} takes fewer arguments"),
                })?
                .ty;
            let value = self.input(&format!("argument {i}"), json, ty)?;
            encoded.push(Self::encode(&value, ty)?);
        }
        let resp = self
            .runtime
            .block_on(self.provider.call_function(CallFunctionRequest {
                name: name.to_owned(),
                arguments: encoded,
            }));
        if let Some(error) = resp.error {
            return Err(HarnessError::Function {
                name: name.to_owned(),
                text: error.text,
                argument: error.function_argument,
            });
        }
        Self::decode("CallFunction", &resp.result, &function.return_type)
    }

    /// Validates and opens the ephemeral resource `type_name`, then closes it, as one
    /// Terraform run does; returns the opened value.
    ///
    /// # Errors
    /// Unknown type, bad input, or error diagnostics from the provider.
    pub fn open_ephemeral(
        &self,
        type_name: &str,
        config: serde_json::Value,
    ) -> Result<Value, HarnessError> {
        let schema = self
            .schema
            .ephemeral_resources
            .get(type_name)
            .ok_or_else(|| HarnessError::UnknownType {
                kind: "ephemeral resource",
                name: type_name.to_owned(),
            })?;
        let ty = schema.block.implied_type();
        let value = self.input("configuration", &config, &ty)?;
        let diagnostics =
            self.runtime
                .block_on(self.provider.validate_ephemeral_resource_config(
                    ValidateConfigRequest {
                        type_name: type_name.to_owned(),
                        config: Self::encode(&value, &ty)?,
                        client_capabilities: CLIENT,
                    },
                ));
        Self::check("ValidateEphemeralResourceConfig", diagnostics)?;
        let opened = self.runtime.block_on(self.provider.open_ephemeral_resource(
            OpenEphemeralResourceRequest {
                type_name: type_name.to_owned(),
                config: Self::encode(&value, &ty)?,
                client_capabilities: CLIENT,
            },
        ));
        Self::check("OpenEphemeralResource", opened.diagnostics)?;
        let result = Self::decode("OpenEphemeralResource", &opened.result, &ty)?;
        let diagnostics = self
            .runtime
            .block_on(
                self.provider
                    .close_ephemeral_resource(CloseEphemeralResourceRequest {
                        type_name: type_name.to_owned(),
                        private: opened.private,
                    }),
            );
        Self::check("CloseEphemeralResource", diagnostics)?;
        Ok(result)
    }

    /// `state` as a state file stores it (its `attributes` object), e.g. the source of a
    /// [`Harness::move_state`].
    ///
    /// # Errors
    /// Unknown type, or a value that does not fit its schema.
    pub fn stored(&self, state: &State) -> Result<serde_json::Value, HarnessError> {
        let ty = self.resource(&state.type_name)?.block.implied_type();
        codec::json::encode(&state.value, &ty).map_err(|e| HarnessError::BadInput {
            what: "state".to_owned(),
            message: e.to_string(),
        })
    }

    /// MoveResourceState of `source_state` (a state file's `attributes` object) of
    /// `source_type` at `source_version` into `target_type`, as a `moved` block does.
    ///
    /// # Errors
    /// Unknown type, or error diagnostics from the provider.
    pub fn move_state(
        &self,
        source_type: &str,
        source_version: i64,
        source_state: serde_json::Value,
        target_type: &str,
    ) -> Result<State, HarnessError> {
        let ty = self.resource(target_type)?.block.implied_type();
        let resp =
            self.runtime
                .block_on(self.provider.move_resource_state(MoveResourceStateRequest {
                    source_provider_address: "registry.terraform.io/harness/harness".to_owned(),
                    source_type_name: source_type.to_owned(),
                    source_schema_version: source_version,
                    source_state: RawState {
                        json: source_state.to_string().into_bytes(),
                        ..RawState::default()
                    },
                    target_type_name: target_type.to_owned(),
                    source_private: Vec::new(),
                    source_identity: None,
                    source_identity_schema_version: 0,
                }));
        Self::check("MoveResourceState", resp.diagnostics)?;
        Ok(State {
            type_name: target_type.to_owned(),
            value: Self::decode("MoveResourceState", &resp.target_state, &ty)?,
            private: resp.target_private,
            identity: self.decode_identity(
                "MoveResourceState",
                target_type,
                resp.target_identity.as_ref(),
            )?,
        })
    }
}

/// What the harness announces as a client: write-only attributes, as Terraform >= 1.11.
const CLIENT: ClientCapabilities = ClientCapabilities {
    deferral_allowed: false,
    write_only_attributes_allowed: true,
    store_planned_private: false,
    computed_blocks_allowed: false,
};

/// `json` with every attribute the object types name but the JSON leaves out set to null.
fn fill_nulls(json: &serde_json::Value, ty: &Type) -> serde_json::Value {
    use serde_json::Value as J;
    match (json, ty) {
        (J::Object(map), Type::Object(attrs)) if !map.contains_key("$unknown") => {
            let mut out = map.clone();
            for (name, attr_ty) in attrs {
                let filled = map.get(name).map_or(J::Null, |v| fill_nulls(v, attr_ty));
                out.insert(name.clone(), filled);
            }
            J::Object(out)
        }
        (J::Array(items), Type::List(e) | Type::Set(e)) => {
            J::Array(items.iter().map(|v| fill_nulls(v, e)).collect())
        }
        (J::Object(map), Type::Map(e)) if !map.contains_key("$unknown") => J::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), fill_nulls(v, e)))
                .collect(),
        ),
        _ => json.clone(),
    }
}

/// Terraform's proposed new state, for top-level attributes: the configured value, or for a
/// computed attribute left null the prior value. Nested blocks come from configuration.
fn proposed_new(block: &Block, prior: &Value, config: &Value) -> Value {
    if config.is_null() {
        return Value::Null;
    }
    let mut out = config.clone();
    for attr in &block.attributes {
        let configured = config.get(&attr.name).unwrap_or(&Value::Null);
        if attr.computed && configured.is_null() {
            out.set(
                &attr.name,
                prior.get(&attr.name).cloned().unwrap_or(Value::Null),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn missing_attributes_are_null() {
        let ty = Type::Object(
            [
                ("a".to_owned(), Type::String),
                (
                    "b".to_owned(),
                    Type::list(Type::Object([("c".to_owned(), Type::Number)].into())),
                ),
            ]
            .into(),
        );
        let filled = fill_nulls(&json!({"b": [{}]}), &ty);
        assert_eq!(filled, json!({"a": null, "b": [{"c": null}]}));
        assert_eq!(
            fill_nulls(&json!({"$unknown": true}), &ty),
            json!({"$unknown": true})
        );
    }

    #[test]
    fn proposal_keeps_prior_computed_values() {
        let mut id = tfwasm_model::Attribute::new("id", Type::String);
        id.computed = true;
        let mut name = tfwasm_model::Attribute::new("name", Type::String);
        name.optional = true;
        let block = Block {
            attributes: vec![id, name],
            ..Default::default()
        };
        let prior = Value::object([("id", Value::from("x")), ("name", Value::from("a"))]);
        let config = Value::object([("id", Value::Null), ("name", Value::Null)]);
        let proposed = proposed_new(&block, &prior, &config);
        assert_eq!(
            proposed,
            Value::object([("id", Value::from("x")), ("name", Value::Null)])
        );
        assert!(proposed_new(&block, &prior, &Value::Null).is_null());
    }

    #[test]
    fn missing_component_error_says_how_to_build() {
        let err = Harness::built_component("no_such_component_xyz").unwrap_err();
        assert!(
            err.to_string()
                .contains("cargo build --release --target wasm32-wasip2"),
            "{err}"
        );
    }
}
