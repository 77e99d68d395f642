//! The schema-aware pass over a recorded message: encoded values become readable JSON,
//! redacted as the recording's [`Policy`] says, and back again for replay.
//!
//! A message is first turned into JSON by serde (values as `{"msgpack": BASE64}`, see
//! `tfwasm_model::rpc::forms`); this pass then finds each value by its field name, decodes it
//! against the schema that field belongs to, redacts it and writes `{"value": JSON}` in
//! go-cty's JSON encoding (unknowns as `{"$unknown": true}`, secrets as `{"$redacted": true}`).
//!
//! Whatever the policy, a recording holds no private state, no function argument or result,
//! no ephemeral resource's result, no raw state it cannot redact by a schema, and no value it
//! could not decode (and so could not redact in part): of those it keeps the shape at most.
//! Nor a value whose readable form would pass [`MAX_READABLE_BYTES`]: a guest chooses its
//! answers, and a few bytes of msgpack can be kilobytes of indented, redacted JSON.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value as Json, json};
use tfwasm_contract::decodings::{Decodings, Of};
use tfwasm_model::codec::json::{decode_with_unknowns, encode_with_unknowns};
use tfwasm_model::codec::redact::{is_redacted, redacted};
use tfwasm_model::rpc::{
    Family, Field, GetFunctionsResponse, GetResourceIdentitySchemasResponse, IMPORTED_FIELDS,
};
use tfwasm_model::{Block, ProviderSchema, Rpc, SchemaIndex, Type, Value};

use super::Values;
use super::redact::{is_encoded, leaves, unrefine};
use super::sensitive::{Object, Sensitive};

/// The schemas a recording is read with: the process's one index, shared with the checks
/// and the runtime (see [`SchemaIndex`]).
#[derive(Debug, Default, Clone)]
pub struct Schemas(pub Arc<SchemaIndex>);

impl std::ops::Deref for Schemas {
    type Target = SchemaIndex;

    fn deref(&self) -> &SchemaIndex {
        &self.0
    }
}

impl Schemas {
    /// Indexes schemas read from elsewhere (a recording's own files).
    pub fn new(
        provider: ProviderSchema,
        functions: GetFunctionsResponse,
        identities: GetResourceIdentitySchemasResponse,
    ) -> Schemas {
        Schemas(Arc::new(SchemaIndex::new(
            provider,
            functions.functions,
            identities.identity_schemas,
        )))
    }
}

/// What a recording keeps of values.
pub struct Policy<'a> {
    /// Every value's leaves redacted, or only secrets.
    pub values: Values,
    /// The secrets of every process of the run.
    pub sensitive: &'a Sensitive,
    /// Readable bytes the values of one recorded call may still take: one answer of many
    /// values, each within [`MAX_READABLE_BYTES`], would otherwise write and hold many times
    /// that (4,096 imported objects). Past it, a value is redacted whole.
    readable_left: std::cell::Cell<usize>,
    /// Trees already decoded in this call, by the checks or by this pass for an earlier
    /// field (a plan's prior state is often its planned one): found again by their bytes
    /// instead of decoded again (`tfwasm_contract::decodings`).
    decodings: RefCell<Decodings>,
    /// How many values were read from a tree decoded before, rather than decoded.
    reused: std::cell::Cell<usize>,
}

impl<'a> Policy<'a> {
    /// The policy of one recorded call (its request and response share the budget).
    pub fn new(values: Values, sensitive: &'a Sensitive) -> Policy<'a> {
        Policy {
            values,
            sensitive,
            readable_left: std::cell::Cell::new(MAX_READABLE_BYTES),
            decodings: RefCell::default(),
            reused: std::cell::Cell::new(0),
        }
    }

    /// The trees the call kept, to be freed where the caller chooses, and how many values
    /// were read from a tree rather than decoded.
    pub fn finish(self) -> (Decodings, usize) {
        (self.decodings.into_inner(), self.reused.get())
    }

    /// The policy, reading the trees in `decodings` (the checks' of the call) rather than
    /// decoding their bytes again.
    pub fn reusing(self, decodings: Decodings) -> Policy<'a> {
        Policy {
            decodings: RefCell::new(decodings),
            ..self
        }
    }

    /// `read` of the tree `msgpack` decodes to as a value of `ty`: the one decoded already
    /// in this call when it is `of`'s (of the schema index `index`), else decoded now and
    /// kept for the rest of the call. `None` when it does not decode or `read` gives none.
    fn with_tree<T>(
        &self,
        at: Option<(&Arc<SchemaIndex>, Of<'_>)>,
        msgpack: &[u8],
        ty: &Type,
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Option<T> {
        let Some((index, of)) = at else {
            return read(&tfwasm_model::codec::msgpack::decode(msgpack, ty).ok()?);
        };
        let mut decodings = self.decodings.borrow_mut();
        if let Some(tree) = decodings.get(index, of, msgpack) {
            self.reused.set(self.reused.get() + 1);
            return read(tree);
        }
        let tree = tfwasm_model::codec::msgpack::decode(msgpack, ty).ok()?;
        let read = read(&tree);
        decodings.keep(index, of, msgpack, tree);
        read
    }

    /// Takes `bytes` from the call's budget; false (and nothing taken) past it.
    fn take_readable(&self, bytes: usize) -> bool {
        let left = self.readable_left.get();
        if bytes > left {
            return false;
        }
        self.readable_left.set(left - bytes);
        true
    }
}

/// What the field `field` of the RPC named `rpc` holds, as the RPC table declares it.
/// StopProvider's error is text; a field of no RPC or unknown to the table is `None`, and
/// kept of it is nothing (redaction by default).
fn declared(rpc: Option<Rpc>, name: &str, field: &str) -> Option<Field> {
    match rpc {
        Some(rpc) => rpc.field(field),
        None => (name == "StopProvider" && field == "error").then_some(Field::Plain),
    }
}

/// What an imported object's field holds.
fn imported(field: &str) -> Option<Field> {
    (IMPORTED_FIELDS.iter())
        .find(|(name, _)| *name == field)
        .map(|&(_, what)| what)
}

/// Which object a value of `what` is, by the RPC's family: the schema of another process
/// names its objects the same way.
fn object_of(family: Option<Family>, subject: &str, what: Field) -> Option<Object<'_>> {
    match what {
        Field::ProviderMeta => Some(Object::ProviderMeta),
        Field::Object | Field::EphemeralResult => match family? {
            Family::Provider => Some(Object::Provider),
            Family::Resource | Family::Move | Family::Identity | Family::ConfigGeneration => {
                Some(Object::Resource(subject))
            }
            Family::DataSource => Some(Object::DataSource(subject)),
            Family::Ephemeral => Some(Object::EphemeralResource(subject)),
            // A list block's or an action's config has a schema of its own, which recordings
            // do not keep: redacted whole.
            Family::Function | Family::List | Family::Action | Family::StateStore => None,
        },
        _ => None,
    }
}

/// The RPC named `rpc`, if it is one.
fn rpc_named(rpc: &str) -> Option<Rpc> {
    rpc.parse().ok()
}

impl Schemas {
    /// Encoded → readable, redacted by `policy` (recording, and replayed responses).
    /// `subject` is the request's type or function name (for MoveResourceState, the target
    /// type).
    pub fn decode(&self, rpc: &str, subject: &str, message: &mut Json, policy: &Policy<'_>) {
        let known = rpc_named(rpc);
        let family = known.map(Rpc::family);
        let Some(fields) = message.as_object_mut() else {
            return;
        };
        for (field, value) in fields.iter_mut() {
            let what = declared(known, rpc, field);
            self.decode_field(family, subject, what, value, policy);
        }
    }

    fn decode_field(
        &self,
        family: Option<Family>,
        subject: &str,
        what: Option<Field>,
        value: &mut Json,
        policy: &Policy<'_>,
    ) {
        if value.is_null() {
            return;
        }
        let Some(what) = what else {
            // A field the table does not declare: whatever it holds, none of it is kept.
            *value = redacted();
            return;
        };
        match what {
            // A value where the table says there is none is still a value.
            Field::Plain if is_encoded(value) => *value = redacted(),
            Field::Plain => {}
            Field::Imported => {
                let Some(items) = value.as_array_mut() else {
                    *value = redacted();
                    return;
                };
                // Each imported object names its own type.
                for item in items {
                    let type_name = item["type_name"].as_str().unwrap_or(subject).to_owned();
                    let Some(fields) = item.as_object_mut() else {
                        *item = redacted();
                        continue;
                    };
                    for (field, value) in fields.iter_mut() {
                        self.decode_field(family, &type_name, imported(field), value, policy);
                    }
                }
            }
            Field::Private => {
                if value.as_str() != Some("") {
                    *value = redacted();
                }
            }
            Field::RawState => {
                // Stored under an older schema version: names the current one does not have
                // (a renamed secret) are kept of nothing.
                let declared = self.resource_type(subject);
                raw(value, Some((Object::Resource(subject), declared)), policy)
            }
            // Identity attributes cannot be marked sensitive.
            Field::RawIdentity => raw(value, None, policy),
            Field::Diagnostics | Field::Paths => {
                let Some(items) = value.as_array_mut() else {
                    *value = redacted();
                    return;
                };
                let block = (object_of(family, subject, Field::Object))
                    .and_then(|object| self.object_block(object));
                // Names looked up in the schema for this field's paths: thousands of paths
                // through a schema of a million names cost seconds (the seventeenth pass);
                // past the budget a path is redacted as if a secret began where it ran out.
                let mut budget = MAX_PATH_LOOKUPS;
                for item in items {
                    match what {
                        Field::Diagnostics => {
                            redact_diagnostic(item, block, policy.values, &mut budget)
                        }
                        _ => redact_path(item, block, policy.values, &mut budget),
                    }
                }
            }
            Field::FunctionError => {
                // Which argument it names is kept; its text, which may quote the arguments
                // or the result (never kept), is not.
                let Some(error) = value.as_object_mut() else {
                    *value = redacted();
                    return;
                };
                if let Some(text) = error.get_mut("text")
                    && let Some(len) = text.as_str().map(str::len)
                {
                    *text = Json::String(format!("(not recorded: {len} bytes)"));
                }
                error.retain(|k, _| k == "text" || k == "function_argument");
            }
            // State of a type, perhaps of another provider, no schema here describes.
            Field::Foreign => *value = redacted(),
            // Listed objects: how many, nothing of them.
            Field::ListEvents => {
                let count = value.as_array().map_or(0, Vec::len);
                *value = Json::String(format!("(not recorded: {count} objects)"));
            }
            Field::ImportId => {
                // The operator's import ID, in no mode: for some resources it is the secret
                // itself (random_password's is the password), and Terraform refuses a
                // sensitive one, so nothing marks it.
                if value.as_str().is_none_or(|id| !id.is_empty()) {
                    *value = redacted();
                }
            }
            Field::Arguments => {
                let Some(arguments) = value.as_array_mut() else {
                    *value = redacted();
                    return;
                };
                let function = self.functions.get(subject);
                for (i, arg) in arguments.iter_mut().enumerate() {
                    let ty = function.and_then(|f| f.parameter(i)).map(|p| p.ty.clone());
                    decode_value(arg, ty.as_ref(), None, None, true, policy);
                }
            }
            Field::Object
            | Field::ProviderMeta
            | Field::Identity
            | Field::FunctionResult
            | Field::EphemeralResult => {
                let ty = is_encoded(value)
                    .then(|| self.value_type(family, subject, what))
                    .flatten();
                let whole = matches!(what, Field::FunctionResult | Field::EphemeralResult)
                    || policy.values == Values::Redacted;
                let object = object_of(family, subject, what);
                // What the checks would have decoded it as, to read their tree.
                let of = match (what, object) {
                    (Field::Identity, _) => Some(Of::Identity(subject)),
                    (_, Some(Object::Resource(name))) => Some(Of::Resource(name)),
                    (_, Some(Object::DataSource(name))) => Some(Of::DataSource(name)),
                    (_, Some(Object::EphemeralResource(name))) => Some(Of::EphemeralResource(name)),
                    _ => None,
                };
                let reuse = of.map(|of| (&self.0, of));
                // A value of a type this schema does not describe is redacted whole.
                decode_value(value, ty.as_deref(), reuse, object, whole, policy);
            }
        }
    }

    /// Readable → encoded, redacted values replaced by placeholders of their type: `""` for
    /// private state, `"(redacted)"`, 0, false, empty collections for values (replay). What
    /// has no placeholder (a redacted raw state, function arguments) stays redacted.
    pub fn encode(&self, rpc: &str, subject: &str, message: &mut Json) {
        let known = rpc_named(rpc);
        let family = known.map(Rpc::family);
        let Some(fields) = message.as_object_mut() else {
            return;
        };
        for (field, value) in fields.iter_mut() {
            let what = declared(known, rpc, field);
            self.encode_field(family, subject, what, value);
        }
    }

    fn encode_field(
        &self,
        family: Option<Family>,
        subject: &str,
        what: Option<Field>,
        value: &mut Json,
    ) {
        match what {
            Some(Field::Imported) => {
                for item in value.as_array_mut().into_iter().flatten() {
                    let type_name = item["type_name"].as_str().unwrap_or(subject).to_owned();
                    for (field, value) in item.as_object_mut().into_iter().flatten() {
                        self.encode_field(family, &type_name, imported(field), value);
                    }
                }
            }
            Some(Field::Private) => {
                if is_redacted(value) {
                    *value = Json::String(String::new());
                }
            }
            Some(Field::RawState) => {
                // Stored JSON of some schema version: filled by the current schema's
                // attribute names, as far as they match.
                if let Some(ty) = self.resource_type(subject)
                    && let Some(json) = value.get_mut("json")
                {
                    fill_redacted(json, ty);
                }
            }
            Some(Field::Arguments) => {
                let function = self.functions.get(subject);
                for (i, arg) in value.as_array_mut().into_iter().flatten().enumerate() {
                    if let Some(p) = function.and_then(|f| f.parameter(i)) {
                        encode_value(arg, &p.ty);
                    }
                }
            }
            Some(
                what @ (Field::Object
                | Field::ProviderMeta
                | Field::Identity
                | Field::FunctionResult
                | Field::EphemeralResult),
            ) => {
                if let Some(ty) = self.value_type(family, subject, what) {
                    encode_value(value, &ty);
                }
            }
            Some(
                Field::Plain
                | Field::RawIdentity
                | Field::Foreign
                | Field::ImportId
                | Field::Diagnostics
                | Field::Paths
                | Field::FunctionError
                | Field::ListEvents,
            )
            | None => {}
        }
    }

    /// The type of a value of `what`, when this schema describes it: the index's, worked out
    /// once, except for the provider's own blocks, which are recorded a few times a run.
    fn value_type(
        &self,
        family: Option<Family>,
        subject: &str,
        what: Field,
    ) -> Option<Cow<'_, Type>> {
        if let Some(object) = object_of(family, subject, what) {
            return match object {
                Object::Resource(name) => self.resource_type(name).map(Cow::Borrowed),
                Object::DataSource(name) => self.data_source_type(name).map(Cow::Borrowed),
                Object::EphemeralResource(name) => self.ephemeral_type(name).map(Cow::Borrowed),
                Object::Provider | Object::ProviderMeta => self
                    .object_block(object)
                    .map(|b| Cow::Owned(b.implied_type())),
            };
        }
        match what {
            Field::Identity => self.identity_type(subject).map(Cow::Borrowed),
            Field::FunctionResult => Some(Cow::Borrowed(&self.functions.get(subject)?.return_type)),
            _ => None,
        }
    }

    fn object_block(&self, object: Object<'_>) -> Option<&Block> {
        let p = &self.provider;
        let schema = match object {
            Object::Provider => Some(&p.provider),
            Object::ProviderMeta => p.provider_meta.as_ref(),
            Object::Resource(name) => p.resources.get(name),
            Object::DataSource(name) => p.data_sources.get(name),
            Object::EphemeralResource(name) => p.ephemeral_resources.get(name),
        };
        schema.map(|s| &s.block)
    }
}

/// Redacts by `sensitive` again a message recorded earlier (values already readable), for
/// secrets another process of the run made known since. Returns whether anything changed.
pub fn redact_again(rpc: &str, subject: &str, message: &mut Json, sensitive: &Sensitive) -> bool {
    let known = rpc_named(rpc);
    let family = known.map(Rpc::family);
    let before = message.clone();
    if let Some(fields) = message.as_object_mut() {
        for (field, value) in fields.iter_mut() {
            redact_field_again(
                family,
                subject,
                declared(known, rpc, field),
                value,
                sensitive,
            );
        }
    }
    *message != before
}

fn redact_field_again(
    family: Option<Family>,
    subject: &str,
    what: Option<Field>,
    value: &mut Json,
    sensitive: &Sensitive,
) {
    match what {
        Some(Field::Imported) => {
            for item in value.as_array_mut().into_iter().flatten() {
                let type_name = item["type_name"].as_str().unwrap_or(subject).to_owned();
                for (field, value) in item.as_object_mut().into_iter().flatten() {
                    redact_field_again(family, &type_name, imported(field), value, sensitive);
                }
            }
        }
        Some(Field::RawState) => {
            if let Some(json) = value.get_mut("json") {
                sensitive.redact_stored(Object::Resource(subject), json);
            }
        }
        Some(what) => {
            if let Some(object) = object_of(family, subject, what)
                && let Some(readable) = value.get_mut("value")
            {
                sensitive.redact(object, readable);
            }
        }
        None => {}
    }
}

/// A stored state or identity as Terraform sends it for an upgrade: redacted whole by default;
/// with `non-sensitive`, its JSON redacted by the secrets of `object` as far as the attribute
/// names match. A flatmap state or JSON that does not parse is redacted whole.
fn raw(value: &mut Json, object: Option<(Object<'_>, Option<&Type>)>, policy: &Policy<'_>) {
    let readable = policy.values == Values::NonSensitive
        && value.get("flatmap").is_none()
        && value
            .get("json")
            .and_then(Json::as_object)
            .is_some_and(|o| !(o.len() == 1 && o.contains_key("unparsed")));
    match value.get_mut("json") {
        Some(json) if readable => match object {
            Some((_, None)) => *value = redacted(),
            Some((object, Some(declared))) => {
                policy.sensitive.redact_stored(object, json);
                redact_undeclared(json, declared);
            }
            None => {}
        },
        _ => *value = redacted(),
    }
}

/// Redacts what `ty` does not declare in stored JSON: an attribute an older schema version
/// had (perhaps a secret since renamed) is no value this schema can say is not one.
fn redact_undeclared(json: &mut Json, ty: &Type) {
    match (ty, json) {
        (Type::Object(attrs), Json::Object(fields)) => {
            for (name, value) in fields.iter_mut() {
                match attrs.get(name) {
                    Some(ty) => redact_undeclared(value, ty),
                    None => *value = redacted(),
                }
            }
        }
        (Type::List(elem) | Type::Set(elem), Json::Array(items)) => items
            .iter_mut()
            .for_each(|item| redact_undeclared(item, elem)),
        (Type::Map(elem), Json::Object(entries)) => entries
            .values_mut()
            .for_each(|v| redact_undeclared(v, elem)),
        (Type::Tuple(elems), Json::Array(items)) => {
            for (item, ty) in items.iter_mut().zip(elems) {
                redact_undeclared(item, ty);
            }
        }
        _ => {}
    }
}

/// Most schema names one message field's paths may look at (see `redact_path`).
const MAX_PATH_LOOKUPS: usize = 1 << 22;

/// The summaries tfwasm itself writes (the contract checks, the runtime): what a default
/// recording keeps of a summary. A guest's summary is its own text, which may quote anything
/// (a configured value in backticks, a bare word), so no rule can tell it holds none: it is
/// kept by its length. A summary tfwasm rewords is only redacted, never leaked.
const HOST_SUMMARIES: &[&str] = &[
    "Provider produced invalid object",
    "Provider produced invalid plan",
    "Provider produced inconsistent result after apply",
    "Invalid resource state upgrade",
    "Invalid resource identity upgrade",
    "Provider deferred a change the client cannot defer",
    "Write-only attribute not supported by this client",
    "An interrupted apply left an object behind",
    "Provider returned an invalid schema",
    "Unable to read stored state",
    "Provider exceeded its fuel budget",
    "Provider exceeded its time limit",
    "Provider call cancelled",
    "Provider exceeded its memory limit",
    "Provider crashed",
    "Provider could not start",
    "Provider returned a value that is too large",
    "Provider state reports not journaled",
    "Provider imported too many objects",
    "Provider planned too many replacement paths",
    "Provider diagnostics capped",
];

/// A diagnostic as a recording keeps it. By default: its severity, its summary when tfwasm
/// wrote it, and its path with what follows the schema's own structure redacted (map
/// keys, names a configuration chose), not its detail, which may quote values (a contract
/// violation quotes the configured and planned ones). With `non-sensitive`: whole, its path
/// cut at a secret attribute.
fn redact_diagnostic(
    diagnostic: &mut Json,
    block: Option<&Block>,
    values: Values,
    budget: &mut usize,
) {
    if values == Values::Redacted {
        let summary = diagnostic.get_mut("summary");
        if let Some(summary) = summary
            && let Some(text) = summary.as_str()
            && !HOST_SUMMARIES.contains(&text)
        {
            *summary = Json::String(format!("(not recorded: {} bytes)", text.len()));
        }
        if let Some(detail) = diagnostic.get_mut("detail")
            && let Some(text) = detail.as_str()
            && !text.is_empty()
        {
            *detail = Json::String(format!(
                "(not recorded: {} bytes; values = \"non-sensitive\" keeps it)",
                text.len()
            ));
        }
    }
    if let Some(path) = diagnostic.get_mut("attribute") {
        redact_path(path, block, values, budget);
    }
}

/// An attribute path (`.a["k"][0]`) as a recording keeps it: by default every map key and
/// every step past the schema's own structure (into a value, past a secret) redacted; with
/// `non-sensitive`, cut at the first sensitive or write-only attribute. Without the object's
/// schema, by default, every step is redacted but the first.
fn redact_path(path: &mut Json, block: Option<&Block>, values: Values, budget: &mut usize) {
    use tfwasm_model::PathStep;
    use tfwasm_model::schema_path::{secret_prefix_within, value_prefix_within};
    let Some(text) = path.as_str() else {
        return;
    };
    let Ok(mut parsed) = text.parse::<tfwasm_model::AttributePath>() else {
        *path = redacted();
        return;
    };
    match values {
        Values::Redacted => {
            let start = match block {
                Some(block) => {
                    value_prefix_within(block, &parsed.0, budget).unwrap_or(parsed.0.len())
                }
                None => 1,
            };
            for (i, step) in parsed.0.iter_mut().enumerate() {
                match step {
                    PathStep::KeyString(key) => *key = "(redacted)".to_owned(),
                    PathStep::Attribute(name) if i >= start => *name = "(redacted)".to_owned(),
                    _ => {}
                }
            }
        }
        Values::NonSensitive => {
            let end = block.and_then(|block| secret_prefix_within(block, &parsed.0, budget));
            if let Some(end) = end {
                parsed.0.truncate(end);
            }
        }
    }
    let redacted_text = parsed.to_string();
    if redacted_text != text {
        *path = Json::String(redacted_text);
    }
}

/// Decodes one encoded value of type `ty` in place to `{"value": JSON}`, redacting every leaf
/// (`whole`) or the secrets of `object`. A value that does not decode is redacted whole. A
/// value already decoded in this call as `reuse`'s (of its index) is read from that tree.
fn decode_value(
    field: &mut Json,
    ty: Option<&Type>,
    reuse: Option<(&Arc<SchemaIndex>, Of<'_>)>,
    object: Option<Object<'_>>,
    whole: bool,
    policy: &Policy<'_>,
) {
    if field.is_null() {
        return;
    }
    let decoded = ty.and_then(|ty| {
        // Sized before it is built, as deep as a value sits in a call's file: past what
        // the call has left, it is redacted whole.
        let readable = |value: &Value| {
            if !policy.take_readable(readable_bytes(value, VALUE_DEPTH)) {
                return None;
            }
            encode_with_unknowns(value, ty).ok()
        };
        let readable = if let Some(b64) = field.get("msgpack").and_then(Json::as_str) {
            let bytes = STANDARD.decode(b64).ok()?;
            policy.with_tree(reuse, &bytes, ty, readable)?
        } else {
            readable(&tfwasm_model::codec::json::decode(field.get("json")?, ty).ok()?)?
        };
        Some((readable, ty))
    });
    let Some((mut readable, ty)) = decoded else {
        *field = redacted();
        return;
    };
    if whole {
        leaves(&mut readable, ty);
    } else if let Some(object) = object {
        policy.sensitive.redact(object, &mut readable);
    }
    *field = json!({ "value": readable });
}

/// The most bytes the values of one recorded call may take written out (a 16 MiB answer of
/// nested lists of `true` was 12 GB of indented redaction markers; 16 imported objects of
/// 1 MB each, every one within a per-value bound, 1 GB of file and 5.8 GB of memory).
pub const MAX_READABLE_BYTES: usize = 32 << 20;

/// How deep a value's own JSON starts in a call's file (`response.imported[i].state.value`),
/// counted in its indentation.
const VALUE_DEPTH: usize = 6;

/// An upper bound of the bytes `value`, `depth` levels down, takes in a recording: each
/// leaf indented by its depth and possibly a redaction marker, numbers in plain decimal,
/// strings escaped at worst.
fn readable_bytes(value: &Value, depth: usize) -> usize {
    const MARKER: usize = 24;
    let indent = 2 * depth + 2;
    match value {
        Value::Number(n) => indent + MARKER + n.plain_len(),
        Value::String(s) => indent + MARKER + 6 * s.len(),
        Value::Unknown(r) => {
            let bounds = [&r.number_lower, &r.number_upper].into_iter().flatten();
            let prefix = r.string_prefix.as_ref().map_or(0, |p| 6 * p.len());
            indent + 4 * MARKER + prefix + bounds.map(|(n, _)| n.plain_len()).sum::<usize>()
        }
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            let inner: usize = items.iter().map(|v| readable_bytes(v, depth + 1)).sum();
            indent + 2 + inner
        }
        Value::Map(entries) => {
            let inner: usize = (entries.iter())
                .map(|(k, v)| indent + 6 * k.len() + readable_bytes(v, depth + 1))
                .sum();
            indent + 2 + inner
        }
        Value::Object(entries) => {
            let inner: usize = (entries.iter())
                .map(|(k, v)| indent + 6 * k.len() + readable_bytes(v, depth + 1))
                .sum();
            indent + 2 + inner
        }
        // Written with its type, which a guest chooses too (120 levels of list, indented).
        Value::Dynamic(ty, inner) => {
            indent + MARKER + type_readable_bytes(ty, depth + 1) + readable_bytes(inner, depth + 1)
        }
        Value::Null | Value::Bool(_) => indent + MARKER,
    }
}

/// An upper bound of the bytes a type's JSON takes in a recording, `depth` levels down and
/// indented: `["list", T]` is three lines around its element type.
fn type_readable_bytes(ty: &Type, depth: usize) -> usize {
    let indent = 2 * depth + 2;
    let brackets = 3 * (indent + 2) + 12;
    match ty {
        Type::String | Type::Number | Type::Bool | Type::Dynamic => indent + 12,
        Type::List(elem) | Type::Set(elem) | Type::Map(elem) => {
            brackets + type_readable_bytes(elem, depth + 1)
        }
        Type::Object(attrs) => {
            let inner: usize = (attrs.iter())
                .map(|(k, t)| indent + 6 * k.len() + 8 + type_readable_bytes(t, depth + 2))
                .sum();
            2 * brackets + inner
        }
        Type::Tuple(elems) => {
            let inner: usize = elems
                .iter()
                .map(|t| type_readable_bytes(t, depth + 2))
                .sum();
            2 * brackets + inner
        }
    }
}

/// Encodes one readable value of type `ty` in place, placeholders for redacted parts.
fn encode_value(field: &mut Json, ty: &Type) {
    let Some(mut readable) = field.get_mut("value").map(Json::take) else {
        return;
    };
    fill_redacted(&mut readable, ty);
    // A value that does not fit its schema is handed over as it is, in go-cty's JSON
    // encoding, for the provider to reject.
    *field = match decode_with_unknowns(&readable, ty)
        .ok()
        .and_then(|v| tfwasm_model::codec::msgpack::encode(&v, ty).ok())
    {
        Some(bytes) => json!({ "msgpack": STANDARD.encode(bytes) }),
        None => json!({ "json": readable }),
    };
}

/// Replaces each redaction marker by a stand-in of the type found there, so a recording with
/// its secrets removed still replays: `"(redacted)"`, 0, false, empty collections; a redacted
/// refinement of an unknown is dropped.
pub fn fill_redacted(json: &mut Json, ty: &Type) {
    if is_redacted(json) {
        *json = placeholder(ty);
        return;
    }
    if unrefine(json) > 0 {
        return;
    }
    match (ty, json) {
        (Type::Object(attrs), Json::Object(fields)) => {
            for (name, attr_ty) in attrs {
                if let Some(v) = fields.get_mut(name) {
                    fill_redacted(v, attr_ty);
                }
            }
        }
        (Type::List(elem) | Type::Set(elem), Json::Array(items)) => {
            items.iter_mut().for_each(|v| fill_redacted(v, elem));
        }
        (Type::Map(elem), Json::Object(entries)) => {
            entries.values_mut().for_each(|v| fill_redacted(v, elem));
        }
        (Type::Tuple(elems), Json::Array(items)) => {
            items
                .iter_mut()
                .zip(elems)
                .for_each(|(v, t)| fill_redacted(v, t));
        }
        (Type::Dynamic, Json::Object(fields)) => {
            let inner = fields.get("type").and_then(|t| Type::from_json(t).ok());
            if let (Some(inner), Some(v)) = (inner, fields.get_mut("value")) {
                fill_redacted(v, &inner);
            }
        }
        _ => {}
    }
}

fn placeholder(ty: &Type) -> Json {
    match ty {
        Type::String => Json::String("(redacted)".into()),
        Type::Number => json!(0),
        Type::Bool => Json::Bool(false),
        Type::List(_) | Type::Set(_) => json!([]),
        Type::Map(_) => json!({}),
        Type::Tuple(elems) => Json::Array(elems.iter().map(placeholder).collect()),
        Type::Object(attrs) => Json::Object(
            attrs
                .iter()
                .map(|(name, t)| (name.clone(), placeholder(t)))
                .collect::<Map<_, _>>(),
        ),
        Type::Dynamic => Json::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfwasm_model::rpc::{
        CallFunctionRequest, CallFunctionResponse, DynamicValue, Function,
        OpenEphemeralResourceResponse, Parameter, PlanResourceChangeRequest,
        PlanResourceChangeResponse, RawState, ReadResourceRequest, UpgradeResourceStateRequest,
    };
    use tfwasm_model::{Attribute, BlockNesting, Diagnostic, NestedBlock, Schema, Value};

    fn block(password_sensitive: bool) -> Block {
        let mut password = Attribute::new("password", Type::String);
        password.sensitive = password_sensitive;
        let mut token = Attribute::new("token", Type::Number);
        token.write_only = true;
        Block {
            attributes: vec![Attribute::new("id", Type::String), password, token],
            block_types: vec![NestedBlock {
                type_name: "rule".into(),
                block: Block {
                    attributes: vec![{
                        let mut secret = Attribute::new("secret", Type::String);
                        secret.sensitive = true;
                        secret
                    }],
                    ..Block::default()
                },
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        }
    }

    fn schemas(password_sensitive: bool) -> Schemas {
        let mut provider = ProviderSchema::default();
        provider.resources.insert(
            "t_x".into(),
            Schema {
                version: 0,
                block: block(password_sensitive),
            },
        );
        provider.ephemeral_resources.insert(
            "t_token".into(),
            Schema {
                version: 0,
                block: Block {
                    attributes: vec![Attribute::new("value", Type::String)],
                    ..Block::default()
                },
            },
        );
        let mut functions = GetFunctionsResponse::default();
        functions.functions.insert(
            "echo".into(),
            Function {
                parameters: vec![Parameter {
                    name: "s".into(),
                    ty: Type::String,
                    allow_null_value: false,
                    allow_unknown_values: false,
                    description: String::new(),
                    description_kind: Default::default(),
                }],
                variadic_parameter: None,
                return_type: Type::String,
                summary: String::new(),
                description: String::new(),
                description_kind: Default::default(),
                deprecation_message: String::new(),
            },
        );
        Schemas::new(provider, functions, Default::default())
    }

    fn config() -> Value {
        Value::object([
            ("id", Value::unknown()),
            ("password", Value::String("hunter2".into())),
            ("token", Value::Number(7.into())),
            (
                "rule",
                Value::List(vec![Value::object([(
                    "secret",
                    Value::String("s3cr3t".into()),
                )])]),
            ),
        ])
    }

    fn plan_request(schemas: &Schemas) -> Json {
        let ty = schemas.provider.resources["t_x"].block.implied_type();
        serde_json::to_value(PlanResourceChangeRequest {
            type_name: "t_x".into(),
            config: DynamicValue::encode(&config(), &ty).unwrap(),
            prior_private: b"{\"etag\":\"abc\"}".to_vec(),
            ..Default::default()
        })
        .unwrap()
    }

    fn policy(values: Values, sensitive: &Sensitive) -> Policy<'_> {
        Policy::new(values, sensitive)
    }

    #[test]
    fn by_default_no_value_is_kept_only_its_shape() {
        let schemas = schemas(true);
        let sensitive = Sensitive::of(&schemas.provider);
        let mut json = plan_request(&schemas);
        schemas.decode(
            "PlanResourceChange",
            "t_x",
            &mut json,
            &policy(Values::Redacted, &sensitive),
        );
        let text = json.to_string();
        assert!(
            !text.contains("hunter2") && !text.contains("s3cr3t") && !text.contains("etag"),
            "{text}"
        );
        let config = &json["config"]["value"];
        assert_eq!(config["id"], json!({"$unknown": true}), "unknowns stay");
        assert_eq!(config["password"], redacted());
        assert_eq!(
            config["rule"][0]["secret"],
            redacted(),
            "lists keep their length"
        );
        assert_eq!(json["prior_private"], redacted());
        assert_eq!(json["prior_state"], Json::Null, "nulls stay");
    }

    /// Every RPC, every field that holds a value in any RPC (and one no RPC has yet), under
    /// the policy that keeps the most: no sensitive or write-only value is ever written.
    #[test]
    fn no_rpc_records_a_secret_in_any_field() {
        let schemas = schemas(true);
        let sensitive = Sensitive::of(&schemas.provider);
        let ty = schemas.provider.resources["t_x"].block.implied_type();
        let encoded = serde_json::to_value(DynamicValue::encode(&config(), &ty).unwrap()).unwrap();
        // Every field of any RPC's messages, as the RPC table names them: those it says hold
        // no value too, in case one is sent there.
        let mut fields: Vec<&str> = (Rpc::ALL.iter())
            .flat_map(|rpc| rpc.request_fields().iter().chain(rpc.response_fields()))
            .chain(IMPORTED_FIELDS)
            .map(|&(name, _)| name)
            .collect();
        fields.sort_unstable();
        fields.dedup();
        fields.push("a_field_of_a_future_rpc");
        let names = Rpc::ALL.iter().map(|r| r.name()).chain(["AFutureRpc"]);
        for rpc in names {
            for &field in &fields {
                let value = if field == "arguments" {
                    json!([encoded.clone()])
                } else {
                    encoded.clone()
                };
                let mut message = json!({ field: value });
                schemas.decode(
                    rpc,
                    "t_x",
                    &mut message,
                    &policy(Values::NonSensitive, &sensitive),
                );
                let text = message.to_string();
                assert!(
                    !text.contains("hunter2") && !text.contains("s3cr3t") && !text.contains(":7"),
                    "{rpc} {field}: {text}"
                );
                // Nor left encoded, where it would be as readable to anyone with a decoder.
                assert!(!text.contains("msgpack"), "{rpc} {field}: {text}");
            }
        }
    }

    /// The ninth hostile pass: a guest's answer of `true`s 120 lists deep was 769 times its
    /// size as indented, redacted JSON, and `1e999` (six bytes) is 1,000 digits; all of it
    /// was built before anything was written.
    #[test]
    fn a_value_too_large_to_write_readably_is_redacted_whole() {
        let ty = Type::List(Box::new(Type::Number));
        // 40,000 numbers sent as the text "1e999", as a guest may send them: 240 KB.
        let mut bytes = vec![0xdd];
        bytes.extend(40_000u32.to_be_bytes());
        (0..40_000).for_each(|_| bytes.extend(b"\xa51e999"));
        let encoded = json!({ "msgpack": STANDARD.encode(&bytes) });
        let deep = tfwasm_model::codec::msgpack::decode(&bytes, &ty).unwrap();
        let sent = bytes.len();
        let schemas = schemas(true);
        let sensitive = Sensitive::of(&schemas.provider);
        for values in [Values::Redacted, Values::NonSensitive] {
            let mut field = encoded.clone();
            decode_value(
                &mut field,
                Some(&ty),
                None,
                None,
                values == Values::Redacted,
                &policy(values, &sensitive),
            );
            assert_eq!(field, redacted(), "whole");
        }
        assert!(
            readable_bytes(&deep, 1) > MAX_READABLE_BYTES,
            "{sent} bytes sent"
        );
        // A dynamic value is written with its type: 120 levels of list in each of 200, about
        // 9 MB indented, counted before it is built.
        let mut deep_ty = Type::String;
        for _ in 0..120 {
            deep_ty = Type::List(Box::new(deep_ty));
        }
        let typed = Value::Dynamic(deep_ty, Box::new(Value::List(Vec::new())));
        let many = Value::List(vec![typed; 200]);
        let dynamic_ty = Type::List(Box::new(Type::Dynamic));
        let readable = tfwasm_model::codec::json::encode_with_unknowns(&many, &dynamic_ty).unwrap();
        let written = serde_json::to_vec_pretty(&json!({ "value": readable }))
            .unwrap()
            .len();
        let bound = readable_bytes(&many, 1);
        assert!(
            bound >= written && bound < 4 * written,
            "bound {bound}, written {written}"
        );
        let mut field =
            serde_json::to_value(DynamicValue::encode(&many, &dynamic_ty).unwrap()).unwrap();
        decode_value(
            &mut field,
            Some(&dynamic_ty),
            None,
            None,
            false,
            &policy(Values::NonSensitive, &sensitive),
        );
        assert!(field.get("value").is_some(), "within the bound, kept");
        // A value within the bound is kept as it was.
        let small = Value::List(vec![Value::Bool(true); 3]);
        let small_ty = Type::List(Box::new(Type::Bool));
        let mut field =
            serde_json::to_value(DynamicValue::encode(&small, &small_ty).unwrap()).unwrap();
        decode_value(
            &mut field,
            Some(&small_ty),
            None,
            None,
            false,
            &policy(Values::NonSensitive, &sensitive),
        );
        assert_eq!(field, json!({"value": [true, true, true]}));
    }

    /// What the recording writes of a value the checks decoded is read from their tree
    /// (`tfwasm_contract::decodings`), not from its bytes decoded again: here the kept tree
    /// differs from what the bytes say, which only a reading of the tree shows. Kept with
    /// another index's types, it is not read; and a tree this pass decodes itself is kept for
    /// the call's later fields of the same bytes (a plan's planned state is often its prior).
    #[test]
    fn the_checks_decodings_are_read_not_decoded_again() {
        let schemas = schemas(true);
        let ty = schemas.resource_type("t_x").unwrap().clone();
        let sensitive = Sensitive::of(&schemas.provider);
        let encoded = DynamicValue::encode(&config(), &ty).unwrap();
        let stand_in = Value::object([
            ("id", Value::String("from the tree".into())),
            ("password", Value::Null),
            ("token", Value::Null),
            ("rule", Value::List(Vec::new())),
        ]);
        let record = |index: &Arc<SchemaIndex>| {
            let mut kept = Decodings::default();
            let given_back = kept.keep(
                index,
                Of::Resource("t_x"),
                &encoded.msgpack,
                stand_in.clone(),
            );
            assert_eq!(given_back, None);
            let mut json = plan_request(&schemas);
            let policy = policy(Values::NonSensitive, &sensitive).reusing(kept);
            schemas.decode("PlanResourceChange", "t_x", &mut json, &policy);
            json
        };
        assert_eq!(record(&schemas.0)["config"]["value"]["id"], "from the tree");
        let other = Arc::new((*schemas.0).clone());
        let decoded = record(&other);
        assert_ne!(
            decoded["config"]["value"]["id"], "from the tree",
            "{decoded}"
        );
        assert_eq!(
            decoded["config"]["value"]["rule"].as_array().map(Vec::len),
            Some(1)
        );

        let policy = policy(Values::NonSensitive, &sensitive);
        let mut json = plan_request(&schemas);
        schemas.decode("PlanResourceChange", "t_x", &mut json, &policy);
        let kept = policy.decodings.borrow();
        let tree = kept.get(&schemas.0, Of::Resource("t_x"), &encoded.msgpack);
        assert_eq!(tree, Some(&config()), "{kept:?}");
    }

    #[test]
    fn non_sensitive_keeps_values_and_replays_secrets_as_placeholders() {
        let schemas = schemas(true);
        let ty = schemas.provider.resources["t_x"].block.implied_type();
        let sensitive = Sensitive::of(&schemas.provider);
        let mut json = plan_request(&schemas);
        schemas.decode(
            "PlanResourceChange",
            "t_x",
            &mut json,
            &policy(Values::NonSensitive, &sensitive),
        );
        let text = json.to_string();
        assert!(
            !text.contains("hunter2") && !text.contains("s3cr3t"),
            "{text}"
        );
        let config_json = &json["config"]["value"];
        assert_eq!(config_json["password"], redacted());
        assert_eq!(config_json["token"], redacted());
        assert_eq!(config_json["rule"][0]["secret"], redacted());
        assert_eq!(
            json["prior_private"],
            redacted(),
            "private state never stays"
        );

        schemas.encode("PlanResourceChange", "t_x", &mut json);
        let back: PlanResourceChangeRequest = serde_json::from_value(json).unwrap();
        let replayed = back.config.decode(&ty).unwrap();
        assert_eq!(
            replayed.get("password"),
            Some(&Value::String("(redacted)".into()))
        );
        assert_eq!(replayed.get("token"), Some(&Value::Number(0.into())));
        assert!(replayed.get("id").unwrap().is_unknown());
        assert!(back.prior_private.is_empty());
    }

    #[test]
    fn a_secret_another_process_marked_is_redacted_where_this_schema_does_not_mark_it() {
        // Process A's schema marks `password` sensitive; process B's (this one) does not.
        let a = schemas(true);
        let b = schemas(false);
        let mut union = Sensitive::of(&b.provider);
        union.merge(&Sensitive::of(&a.provider));
        let mut json = plan_request(&b);
        b.decode(
            "PlanResourceChange",
            "t_x",
            &mut json,
            &policy(Values::NonSensitive, &union),
        );
        assert_eq!(json["config"]["value"]["password"], redacted());
        assert!(!json.to_string().contains("hunter2"));

        // Recorded under B's schema alone, then redacted again once A's secrets are known.
        let mut earlier = plan_request(&b);
        let alone = Sensitive::of(&b.provider);
        b.decode(
            "PlanResourceChange",
            "t_x",
            &mut earlier,
            &policy(Values::NonSensitive, &alone),
        );
        assert!(earlier.to_string().contains("hunter2"));
        assert!(redact_again(
            "PlanResourceChange",
            "t_x",
            &mut earlier,
            &union
        ));
        assert!(!earlier.to_string().contains("hunter2"));
        assert!(!redact_again(
            "PlanResourceChange",
            "t_x",
            &mut earlier,
            &union
        ));
    }

    #[test]
    fn function_arguments_results_and_ephemeral_results_are_never_kept() {
        let schemas = schemas(true);
        let sensitive = Sensitive::default();
        for values in [Values::Redacted, Values::NonSensitive] {
            let policy = policy(values, &sensitive);
            let arg =
                DynamicValue::encode(&Value::String("hunter2".into()), &Type::String).unwrap();
            let mut request = serde_json::to_value(CallFunctionRequest {
                name: "echo".into(),
                arguments: vec![arg.clone()],
            })
            .unwrap();
            schemas.decode("CallFunction", "echo", &mut request, &policy);
            assert_eq!(request["arguments"][0], json!({"value": redacted()}));
            let mut response = serde_json::to_value(CallFunctionResponse {
                result: arg,
                ..Default::default()
            })
            .unwrap();
            schemas.decode("CallFunction", "echo", &mut response, &policy);
            assert_eq!(response["result"], json!({"value": redacted()}));

            let ty = schemas.provider.ephemeral_resources["t_token"]
                .block
                .implied_type();
            let mut opened = serde_json::to_value(OpenEphemeralResourceResponse {
                result: DynamicValue::encode(
                    &Value::object([("value", Value::String("hunter2".into()))]),
                    &ty,
                )
                .unwrap(),
                private: b"lease-42".to_vec(),
                ..Default::default()
            })
            .unwrap();
            schemas.decode("OpenEphemeralResource", "t_token", &mut opened, &policy);
            assert_eq!(opened["result"]["value"]["value"], redacted());
            assert_eq!(opened["private"], redacted());
            assert!(!opened.to_string().contains("hunter2"));
        }
    }

    /// The eighteenth hostile pass: a map with the key `"$unknown"` was written like an
    /// unknown's marker and kept whole, a secret map's value included, in both modes and in
    /// stored state.
    #[test]
    fn a_map_key_like_a_marker_hides_no_secret() {
        let mut keys = Attribute::new("keys", Type::Map(Box::new(Type::String)));
        keys.sensitive = true;
        let mut flags = Attribute::new("flags", Type::Map(Box::new(Type::Bool)));
        flags.sensitive = true;
        let labels = Attribute::new("labels", Type::Map(Box::new(Type::String)));
        let block = Block {
            attributes: vec![keys, flags, labels],
            ..Block::default()
        };
        let ty = block.implied_type();
        let mut provider = ProviderSchema::default();
        provider
            .resources
            .insert("t_m".into(), Schema { version: 0, block });
        let schemas = Schemas::new(provider, Default::default(), Default::default());
        let sensitive = Sensitive::of(&schemas.provider);
        let map = |v: Value| Value::Map([("$unknown".into(), v)].into_iter().collect());
        let config = Value::object([
            ("keys", map(Value::from("SECRET-map"))),
            ("flags", map(Value::from(true))),
            ("labels", map(Value::from("PLAIN-label"))),
        ]);
        for values in [Values::Redacted, Values::NonSensitive] {
            let mut json = serde_json::to_value(PlanResourceChangeRequest {
                type_name: "t_m".into(),
                config: DynamicValue::encode(&config, &ty).unwrap(),
                ..Default::default()
            })
            .unwrap();
            schemas.decode(
                "PlanResourceChange",
                "t_m",
                &mut json,
                &policy(values, &sensitive),
            );
            let text = json.to_string();
            assert!(!text.contains("SECRET-map"), "{values:?}: {text}");
            let flags = &json["config"]["value"]["flags"];
            if values == Values::Redacted {
                // Every value goes, each map keeps its size under numbered keys.
                assert!(!text.contains("PLAIN-label"), "{text}");
                assert!(is_redacted(&flags["(redacted key 1)"]), "{text}");
            } else {
                assert!(is_redacted(flags), "{text}");
            }
        }
        let mut stored = serde_json::to_value(UpgradeResourceStateRequest {
            type_name: "t_m".into(),
            version: 0,
            raw_state: RawState {
                json:
                    br#"{"keys":{"$unknown":"SECRET-raw"},"flags":{"$unknown":true},"labels":null}"#
                        .to_vec(),
                flatmap: Default::default(),
            },
        })
        .unwrap();
        let kept = policy(Values::NonSensitive, &sensitive);
        schemas.decode("UpgradeResourceState", "t_m", &mut stored, &kept);
        assert_eq!(
            stored["raw_state"]["json"],
            json!({"keys": redacted(), "flags": redacted(), "labels": null})
        );
    }

    /// The eighteenth hostile pass: the bound was per value, so one answer of many values,
    /// each within it, wrote and held many times it (16 imported objects of 1 MB: 1 GB of
    /// file, 5.8 GB of memory).
    #[test]
    fn the_values_of_one_call_share_one_readable_bound() {
        let schemas = schemas(true);
        let sensitive = Sensitive::of(&schemas.provider);
        let ty = Type::List(Box::new(Type::Bool));
        let value = Value::List(vec![Value::Bool(true); 300_000]);
        let one = readable_bytes(&value, VALUE_DEPTH);
        assert!(
            one < MAX_READABLE_BYTES && 4 * one > MAX_READABLE_BYTES,
            "{one}"
        );
        let encoded = serde_json::to_value(DynamicValue::encode(&value, &ty).unwrap()).unwrap();
        let policy = policy(Values::NonSensitive, &sensitive);
        let kept: Vec<bool> = (0..4)
            .map(|_| {
                let mut field = encoded.clone();
                decode_value(&mut field, Some(&ty), None, None, false, &policy);
                field.get("value").is_some()
            })
            .collect();
        assert!(kept[0], "the first fits");
        assert!(!kept[3], "past the call's bound, redacted whole: {kept:?}");
        // The next call starts afresh.
        let mut field = encoded.clone();
        decode_value(
            &mut field,
            Some(&ty),
            None,
            None,
            false,
            &Policy::new(Values::NonSensitive, &sensitive),
        );
        assert!(field.get("value").is_some());
    }

    /// The nineteenth hostile pass: a `non-sensitive` recording kept the import ID, which for
    /// some resources is the secret itself (random_password's is the password).
    #[test]
    fn the_import_id_is_kept_in_no_mode() {
        let schemas = schemas(true);
        let sensitive = Sensitive::of(&schemas.provider);
        for values in [Values::Redacted, Values::NonSensitive] {
            let mut json = serde_json::to_value(tfwasm_model::rpc::ImportResourceStateRequest {
                type_name: "t_x".into(),
                id: "SECRET-import-id".into(),
                ..Default::default()
            })
            .unwrap();
            schemas.decode(
                "ImportResourceState",
                "t_x",
                &mut json,
                &policy(values, &sensitive),
            );
            assert!(!json.to_string().contains("SECRET"), "{values:?}: {json}");
            assert!(is_redacted(&json["id"]), "{json}");
        }
    }

    #[test]
    fn stored_state_is_redacted_by_the_secrets_of_its_type_and_whole_by_default() {
        let schemas = schemas(true);
        let sensitive = Sensitive::of(&schemas.provider);
        let request = |stored: &str| {
            serde_json::to_value(UpgradeResourceStateRequest {
                type_name: "t_x".into(),
                version: 0,
                raw_state: RawState {
                    json: stored.as_bytes().to_vec(),
                    flatmap: Default::default(),
                },
            })
            .unwrap()
        };
        let stored = r#"{"id":"i-1","password":"hunter2"}"#;
        let mut kept = request(stored);
        let policy_kept = policy(Values::NonSensitive, &sensitive);
        schemas.decode("UpgradeResourceState", "t_x", &mut kept, &policy_kept);
        assert_eq!(
            kept["raw_state"],
            json!({"json": {"id": "i-1", "password": {"$redacted": true}}})
        );
        schemas.encode("UpgradeResourceState", "t_x", &mut kept);
        let back: UpgradeResourceStateRequest = serde_json::from_value(kept).unwrap();
        assert!(
            String::from_utf8(back.raw_state.json)
                .unwrap()
                .contains("(redacted)")
        );

        // The fifteenth hostile pass: an attribute the current schema does not have (a
        // secret since renamed) was kept.
        let mut renamed = request(r#"{"id":"i-1","old_password":"hunter2"}"#);
        schemas.decode("UpgradeResourceState", "t_x", &mut renamed, &policy_kept);
        assert_eq!(
            renamed["raw_state"],
            json!({"json": {"id": "i-1", "old_password": {"$redacted": true}}})
        );

        let mut unparsed = request("{not json hunter2");
        schemas.decode("UpgradeResourceState", "t_x", &mut unparsed, &policy_kept);
        assert_eq!(unparsed["raw_state"], redacted());
        let mut by_default = request(stored);
        let policy_default = policy(Values::Redacted, &sensitive);
        schemas.decode(
            "UpgradeResourceState",
            "t_x",
            &mut by_default,
            &policy_default,
        );
        assert_eq!(by_default["raw_state"], redacted());
    }

    /// The fifteenth hostile pass: a redacting recording kept diagnostics whole, and a
    /// contract violation quotes configured values (from a sensitive variable too, which the
    /// schema cannot know), and paths kept the keys of maps.
    #[test]
    fn by_default_diagnostics_keep_their_summary_and_paths_no_key() {
        let schemas = schemas(true);
        let sensitive = Sensitive::of(&schemas.provider);
        let response = || {
            serde_json::to_value(PlanResourceChangeResponse {
                diagnostics: vec![
                    Diagnostic::error(
                        "Provider produced invalid plan",
                        r#"planned value "x" does not match config value "hunter2""#,
                    )
                    .at(r#".tags["s3cr3t-key"]"#.parse().unwrap()),
                ],
                requires_replace: vec![
                    r#".tags["s3cr3t-key"]"#.parse().unwrap(),
                    ".rule[0].secret".parse().unwrap(),
                    r#".id["s3cr3t"]"#.parse().unwrap(),
                ],
                ..Default::default()
            })
            .unwrap()
        };
        let mut by_default = response();
        let redacting = policy(Values::Redacted, &sensitive);
        schemas.decode("PlanResourceChange", "t_x", &mut by_default, &redacting);
        let text = by_default.to_string();
        assert!(
            !text.contains("hunter2") && !text.contains("s3cr3t"),
            "{text}"
        );
        assert!(text.contains("Provider produced invalid plan"), "{text}");
        // A step the schema does not have, a map key, a name inside a value: redacted.
        assert_eq!(
            by_default["requires_replace"],
            json!([
                r#".(redacted)["(redacted)"]"#,
                ".rule[0].secret",
                r#".id["(redacted)"]"#
            ])
        );
        let mut kept = response();
        let keeping = policy(Values::NonSensitive, &sensitive);
        schemas.decode("PlanResourceChange", "t_x", &mut kept, &keeping);
        assert_eq!(
            kept,
            response(),
            "kept as the provider and the checks wrote it"
        );

        // The sixteenth hostile pass: with non-sensitive, paths past a secret attribute kept
        // its keys; a function's error text (quoting arguments or the result) was kept.
        let mut past_secret = serde_json::to_value(PlanResourceChangeResponse {
            requires_replace: vec![r#".password["s3cr3t-key"]"#.parse().unwrap()],
            ..Default::default()
        })
        .unwrap();
        schemas.decode("PlanResourceChange", "t_x", &mut past_secret, &keeping);
        assert_eq!(past_secret["requires_replace"], json!([".password"]));
        let error = serde_json::to_value(CallFunctionResponse::error(
            r#"cannot parse "s3cr3t-argument""#,
            Some(0),
        ))
        .unwrap();
        for policy in [&keeping, &redacting] {
            let mut message = error.clone();
            schemas.decode("CallFunction", "echo", &mut message, policy);
            let text = message.to_string();
            assert!(!text.contains("s3cr3t"), "{text}");
            assert_eq!(message["error"]["function_argument"], 0);
        }
        // A guest's summary is not kept by default, however it quotes (the seventeenth pass:
        // backticks, typographic quotes, other digits, bare words); tfwasm's own are.
        for summary in [
            r#"Invalid value "s3cr3t""#,
            "Invalid password `s3cr3t`",
            "Invalid password \u{201c}s3cr3t\u{201d}",
            "Invalid PIN \u{ff11}\u{ff12} s3cr3t",
            "Login failed: password is s3cr3t",
        ] {
            let mut quoted = serde_json::to_value(PlanResourceChangeResponse {
                diagnostics: vec![Diagnostic::error(summary, "")],
                ..Default::default()
            })
            .unwrap();
            schemas.decode("PlanResourceChange", "t_x", &mut quoted, &redacting);
            assert!(!quoted.to_string().contains("s3cr3t"), "{quoted}");
        }
    }

    #[test]
    fn schemas_are_recorded_as_they_are() {
        let mut provider = schemas(true).provider.clone();
        provider.provider_meta = Some(Schema {
            version: 0,
            block: block(true),
        });
        let schemas = Schemas::new(provider, Default::default(), Default::default());
        let sensitive = Sensitive::of(&schemas.provider);
        let mut json = serde_json::to_value(&schemas.provider).unwrap();
        let before = json.clone();
        for values in [Values::Redacted, Values::NonSensitive] {
            schemas.decode(
                "GetProviderSchema",
                "",
                &mut json,
                &policy(values, &sensitive),
            );
            assert_eq!(json, before);
        }
    }

    #[test]
    fn values_no_schema_describes_and_undecodable_ones_are_redacted_whole() {
        let schemas = schemas(true);
        let sensitive = Sensitive::default();
        let policy = policy(Values::NonSensitive, &sensitive);
        let mut json = json!({ "config": { "msgpack": STANDARD.encode([0xc1]) } });
        schemas.decode("PlanResourceChange", "t_x", &mut json, &policy);
        assert_eq!(json["config"], redacted());

        let ty = Type::object([("password", Type::String)]);
        let value = Value::object([("password", Value::String("hunter2".into()))]);
        let mut unknown_type = serde_json::to_value(ReadResourceRequest {
            type_name: "t_other".into(),
            current_state: DynamicValue::encode(&value, &ty).unwrap(),
            ..Default::default()
        })
        .unwrap();
        schemas.decode("ReadResource", "t_other", &mut unknown_type, &policy);
        assert_eq!(unknown_type["current_state"], redacted());
        let mut unknown_rpc = json!({"config": {"msgpack": "kaFh"}, "type_name": "t_x"});
        schemas.decode("SomeFutureRpc", "t_x", &mut unknown_rpc, &policy);
        assert_eq!(unknown_rpc["config"], redacted());
        // Of an RPC the table does not know, nothing is kept: not even what looks plain.
        assert_eq!(unknown_rpc["type_name"], redacted());
    }
}
