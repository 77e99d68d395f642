//! Which attributes are secrets: those any process of the run marks sensitive or write-only.
//!
//! A guest chooses its schema per process, so one that marks `password` sensitive where
//! Terraform reads the schema and drops the mark in the process that applies would have its
//! value recorded there if each process redacted by its own schema (issue 31). Every process
//! recording into one root therefore adds the secrets its schema marks to the root's
//! `sensitive.json` before it writes a value (see `shared`), and redacts by the union of
//! that file and its own schema. A [`Sensitive`] is that union: per object (provider
//! configuration, `provider_meta`, each resource type, data source and ephemeral resource) a
//! [`Tree`] of attribute names down to the secret ones.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use tfwasm_model::codec::redact::{is_redacted, redacted};
use tfwasm_model::{AttributeType, Block, NestedObject, ProviderSchema};

use super::redact::scrub_unknown;

/// The secret attributes of every object a provider has, by object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sensitive {
    #[serde(default, skip_serializing_if = "Tree::is_empty")]
    provider: Tree,
    #[serde(default, skip_serializing_if = "Tree::is_empty")]
    provider_meta: Tree,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    resources: BTreeMap<String, Tree>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    data_sources: BTreeMap<String, Tree>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    ephemeral_resources: BTreeMap<String, Tree>,
}

/// Which object a value is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Object<'a> {
    Provider,
    ProviderMeta,
    Resource(&'a str),
    DataSource(&'a str),
    EphemeralResource(&'a str),
}

impl Sensitive {
    /// The secrets `schema` marks.
    pub fn of(schema: &ProviderSchema) -> Sensitive {
        let trees = |schemas: &BTreeMap<String, tfwasm_model::Schema>| {
            schemas
                .iter()
                .map(|(name, s)| (name.clone(), Tree::of_block(&s.block)))
                .filter(|(_, tree)| !tree.is_empty())
                .collect()
        };
        Sensitive {
            provider: Tree::of_block(&schema.provider.block),
            provider_meta: schema
                .provider_meta
                .as_ref()
                .map(|s| Tree::of_block(&s.block))
                .unwrap_or_default(),
            resources: trees(&schema.resources),
            data_sources: trees(&schema.data_sources),
            ephemeral_resources: trees(&schema.ephemeral_resources),
        }
    }

    /// Adds `other`'s secrets to these.
    pub fn merge(&mut self, other: &Sensitive) {
        self.provider.merge(&other.provider);
        self.provider_meta.merge(&other.provider_meta);
        for (mine, theirs) in [
            (&mut self.resources, &other.resources),
            (&mut self.data_sources, &other.data_sources),
            (&mut self.ephemeral_resources, &other.ephemeral_resources),
        ] {
            for (name, tree) in theirs {
                mine.entry(name.clone()).or_default().merge(tree);
            }
        }
    }

    /// The secrets of `object`, if it has any.
    pub fn tree(&self, object: Object<'_>) -> Option<&Tree> {
        match object {
            Object::Provider => Some(&self.provider),
            Object::ProviderMeta => Some(&self.provider_meta),
            Object::Resource(name) => self.resources.get(name),
            Object::DataSource(name) => self.data_sources.get(name),
            Object::EphemeralResource(name) => self.ephemeral_resources.get(name),
        }
    }

    /// Redacts the secrets of `object` in `json`, the object's readable form.
    pub fn redact(&self, object: Object<'_>, json: &mut Json) {
        if let Some(tree) = self.tree(object) {
            tree.redact(json);
        }
    }

    /// Redacts the secrets of `object` in `json`, stored state as Terraform keeps it: it
    /// holds no unknowns or redactions, so nothing in it is taken for their markers (a
    /// sensitive map with the key `"$unknown"` is a value like any other).
    pub fn redact_stored(&self, object: Object<'_>, json: &mut Json) {
        if let Some(tree) = self.tree(object) {
            let mut steps = REDACTION_STEPS;
            if !tree.redact_within(json, &mut steps, false) {
                *json = redacted();
            }
        }
    }
}

/// Attribute names down to the secret ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Tree(BTreeMap<String, Node>);

/// One attribute (or nested block) on the way to a secret.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Node {
    /// The whole attribute is a secret.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    secret: bool,
    /// Secrets in the objects it holds: itself, each element of a list or set, or each value
    /// of a map. Applied to all three whatever the nesting, so a guest that declares the
    /// attribute with another nesting in another process is redacted all the same.
    #[serde(default, skip_serializing_if = "Tree::is_empty")]
    within: Tree,
}

impl Tree {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn of_block(block: &Block) -> Tree {
        let mut tree = Tree::default();
        for attr in &block.attributes {
            let node = if attr.sensitive || attr.write_only {
                Node {
                    secret: true,
                    ..Node::default()
                }
            } else if let AttributeType::Nested(nested) = &attr.ty {
                Node::of_nested(nested)
            } else {
                continue;
            };
            tree.insert(&attr.name, node);
        }
        for nested in &block.block_types {
            let node = Node {
                secret: false,
                within: Tree::of_block(&nested.block),
            };
            tree.insert(&nested.type_name, node);
        }
        tree
    }

    /// Keeps `node` only when it leads to a secret.
    fn insert(&mut self, name: &str, node: Node) {
        if node.secret || !node.within.is_empty() {
            self.0.entry(name.to_owned()).or_default().merge(&node);
        }
    }

    fn merge(&mut self, other: &Tree) {
        for (name, node) in &other.0 {
            self.0.entry(name.clone()).or_default().merge(node);
        }
    }

    /// Replaces each secret in `json` (an object's readable form) that is known and not null
    /// by the redaction marker; an unknown keeps only what says nothing of its value.
    ///
    /// An object is read both as the object itself and as a map of objects (the trees of
    /// several processes may disagree on a nesting), which doubles the work per level; past
    /// [`REDACTION_STEPS`] the whole value is redacted instead, which is always safe.
    pub fn redact(&self, json: &mut Json) {
        let mut steps = REDACTION_STEPS;
        if !self.redact_within(json, &mut steps, true) {
            *json = redacted();
        }
    }

    /// [`Tree::redact`] within a step budget; false when it ran out. Each visit costs a step
    /// per name it looks up: the fewer of the tree's names and the object's fields, walked
    /// from the smaller side (a wide schema applied to each of many small objects was
    /// schema × value, 15.7 s for a 1.3 MB value).
    /// `markers`: whether `json` may hold unknowns' and redactions' markers (the readable
    /// form) or holds only values (stored state).
    fn redact_within(&self, json: &mut Json, steps: &mut usize, markers: bool) -> bool {
        if *steps == 0 {
            return false;
        }
        *steps -= 1;
        if markers && (is_redacted(json) || scrub_unknown(json)) {
            return true;
        }
        let Some(fields) = json.as_object_mut() else {
            return true;
        };
        let lookups = self.0.len().min(fields.len());
        if *steps < lookups {
            return false;
        }
        *steps -= lookups;
        if fields.len() < self.0.len() {
            for (name, value) in fields.iter_mut() {
                if let Some(node) = self.0.get(name)
                    && !node.redact_field(value, steps, markers)
                {
                    return false;
                }
            }
        } else {
            for (name, node) in &self.0 {
                if let Some(value) = fields.get_mut(name)
                    && !node.redact_field(value, steps, markers)
                {
                    return false;
                }
            }
        }
        true
    }
}

impl Node {
    /// Redacts the field this node describes; false when the budget ran out.
    fn redact_field(&self, value: &mut Json, steps: &mut usize, markers: bool) -> bool {
        if self.secret {
            // An unknown keeps what says nothing of its value; stored state holds none.
            let unknown = markers && scrub_unknown(value);
            if !value.is_null() && !unknown {
                *value = redacted();
            }
            return true;
        }
        if markers && scrub_unknown(value) {
            return true;
        }
        match value {
            Json::Array(items) => items
                .iter_mut()
                .all(|v| self.within.redact_within(v, steps, markers)),
            Json::Object(entries) => {
                // As the object itself, and as a map of objects.
                entries
                    .values_mut()
                    .all(|v| self.within.redact_within(v, steps, markers))
                    && self.within.redact_within(value, steps, markers)
            }
            _ => true,
        }
    }
}

/// Most steps redacting one value may take (a step per JSON object visited, per reading).
const REDACTION_STEPS: usize = 1 << 20;

impl Node {
    fn of_nested(nested: &NestedObject) -> Node {
        Node {
            secret: false,
            within: Tree::of_block(&Block {
                attributes: nested.attributes.clone(),
                ..Block::default()
            }),
        }
    }

    fn merge(&mut self, other: &Node) {
        self.secret |= other.secret;
        self.within.merge(&other.within);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tfwasm_model::{Attribute, BlockNesting, NestedBlock, ObjectNesting, Schema, Type};

    fn schema(password_sensitive: bool) -> ProviderSchema {
        let mut password = Attribute::new("password", Type::String);
        password.sensitive = password_sensitive;
        let mut key = Attribute::new("key", Type::String);
        key.write_only = true;
        let block = Block {
            attributes: vec![Attribute::new("id", Type::String), password, {
                let mut nested = Attribute::new("creds", Type::String);
                nested.ty = AttributeType::Nested(NestedObject {
                    attributes: vec![key, Attribute::new("user", Type::String)],
                    nesting: ObjectNesting::Map,
                });
                nested
            }],
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
                nesting: BlockNesting::Set,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        };
        let mut provider = ProviderSchema::default();
        provider
            .resources
            .insert("t_x".into(), Schema { version: 0, block });
        provider
    }

    #[test]
    fn secrets_are_found_at_any_depth_and_only_secrets() {
        let sensitive = Sensitive::of(&schema(true));
        let mut value = json!({
            "id": "i-1",
            "password": "hunter2",
            "creds": {"a": {"key": "k1", "user": "u"}, "b": {"key": null, "user": "v"}},
            "rule": [{"secret": "s3"}, {"secret": {"$unknown": {"prefix": "s", "not_null": true}}}],
        });
        sensitive.redact(Object::Resource("t_x"), &mut value);
        assert_eq!(
            value,
            json!({
                "id": "i-1",
                "password": {"$redacted": true},
                "creds": {"a": {"key": {"$redacted": true}, "user": "u"}, "b": {"key": null, "user": "v"}},
                "rule": [{"secret": {"$redacted": true}}, {"secret": {"$unknown": {"not_null": true, "prefix": {"$redacted": true}}}}],
            })
        );
    }

    #[test]
    fn a_nesting_changed_in_another_process_does_not_hide_a_secret() {
        // Marked in a set of `rule` blocks; the value arrives as a map, a single object, a list.
        let sensitive = Sensitive::of(&schema(true));
        for mut rule in [
            json!({"a": {"secret": "s3"}}),
            json!({"secret": "s3"}),
            json!([{"secret": "s3"}]),
        ] {
            let mut value = json!({"rule": rule.take()});
            sensitive.redact(Object::Resource("t_x"), &mut value);
            assert!(!value.to_string().contains("s3"), "{value}");
        }
    }

    #[test]
    fn the_union_keeps_a_secret_one_schema_dropped_and_survives_its_file() {
        let marked = Sensitive::of(&schema(true));
        let dropped = Sensitive::of(&schema(false));
        assert!(
            !dropped
                .tree(Object::Resource("t_x"))
                .unwrap()
                .0
                .contains_key("password")
        );
        let mut union = dropped.clone();
        union.merge(&marked);
        let text = serde_json::to_string(&union).unwrap();
        let union: Sensitive = serde_json::from_str(&text).unwrap();
        let mut value = json!({"id": "i-1", "password": "hunter2"});
        union.redact(Object::Resource("t_x"), &mut value);
        assert_eq!(value["password"], redacted());
        assert_eq!(value["id"], "i-1");
    }

    /// 32 nested map blocks all named `a` and a value as deep: read both ways at every
    /// level that is 2^33 visits; the budget ends it by redacting the whole value.
    #[test]
    fn a_value_too_costly_to_walk_is_redacted_whole() {
        let mut block = Block {
            attributes: vec![{
                let mut secret = Attribute::new("secret", Type::String);
                secret.sensitive = true;
                secret
            }],
            ..Block::default()
        };
        for _ in 0..32 {
            block = Block {
                block_types: vec![NestedBlock {
                    type_name: "a".into(),
                    block,
                    nesting: BlockNesting::Map,
                    min_items: 0,
                    max_items: 0,
                }],
                ..Block::default()
            };
        }
        let tree = Tree::of_block(&block);
        let mut value = json!({"secret": "s"});
        for _ in 0..64 {
            value = json!({ "a": value });
        }
        tree.redact(&mut value);
        assert!(is_redacted(&value), "{value}");
    }

    /// The tenth hostile pass: a wide tree applied to each of many objects cost a walk of
    /// the whole tree per object, uncounted. Now each name looked up is a step: a value whose
    /// walk needs more than the budget is redacted whole, and a wide tree over small objects
    /// costs only their fields.
    #[test]
    fn each_name_looked_up_counts_against_the_budget() {
        let wide = |n: usize| Block {
            attributes: (0..n)
                .map(|i| {
                    let mut a = Attribute::new(format!("s{i}"), Type::String);
                    a.sensitive = true;
                    a
                })
                .collect(),
            ..Block::default()
        };
        let list_of = |block| Block {
            block_types: vec![NestedBlock {
                type_name: "b".into(),
                block,
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            }],
            ..Block::default()
        };
        // 600 objects of 2,000 secret fields: 1.2 M lookups, past the budget.
        let tree = Tree::of_block(&list_of(wide(2_000)));
        let object: serde_json::Map<String, Json> =
            (0..2_000).map(|i| (format!("s{i}"), json!("x"))).collect();
        let mut value = json!({ "b": vec![Json::Object(object); 600] });
        tree.redact(&mut value);
        assert!(is_redacted(&value), "redacted whole");
        // 20,000 objects of one field under a tree of 20,000 names: 40,000 lookups.
        let tree = Tree::of_block(&list_of(wide(20_000)));
        let mut value = json!({ "b": vec![json!({"s7": "x"}); 20_000] });
        tree.redact(&mut value);
        assert_eq!(
            value["b"][19_999],
            json!({"s7": redacted()}),
            "walked, not redacted whole"
        );
    }
}
