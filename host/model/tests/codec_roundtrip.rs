//! Property tests: every value of every type survives msgpack and JSON round trips.

use proptest::prelude::*;
use tfwasm_model::codec::{json, msgpack};
use tfwasm_model::{Number, Refinement, Type, Value};

fn arb_type() -> impl Strategy<Value = Type> {
    let leaf = prop_oneof![
        Just(Type::String),
        Just(Type::Number),
        Just(Type::Bool),
        Just(Type::Dynamic)
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(Type::list),
            inner.clone().prop_map(Type::set),
            inner.clone().prop_map(Type::map),
            prop::collection::btree_map("[a-z_]{1,6}", inner.clone(), 0..4).prop_map(Type::Object),
            prop::collection::vec(inner, 0..3).prop_map(Type::Tuple),
        ]
    })
}

fn arb_number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::from),
        any::<u64>().prop_map(Number::from),
        (-1.0e12f64..1.0e12).prop_map(|f| Number::from_f64(f).unwrap()),
        "-?[1-9][0-9]{0,40}(\\.[0-9]{1,30})?".prop_map(|s| s.parse().unwrap()),
    ]
}

/// A known value of type `ty`, with nulls and (optionally) unknowns sprinkled in.
fn arb_value(ty: Type, unknowns: bool) -> BoxedStrategy<Value> {
    let known: BoxedStrategy<Value> = match ty.clone() {
        Type::String => ".{0,12}".prop_map(Value::String).boxed(),
        Type::Number => arb_number().prop_map(Value::Number).boxed(),
        Type::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Type::Dynamic => prop_oneof![
            ".{0,6}".prop_map(|s| Value::Dynamic(Type::String, Box::new(Value::String(s)))),
            any::<i32>()
                .prop_map(|n| Value::Dynamic(Type::Number, Box::new(Value::from(i64::from(n))))),
            prop::collection::vec(any::<bool>().prop_map(Value::Bool), 0..3)
                .prop_map(|v| Value::Dynamic(Type::list(Type::Bool), Box::new(Value::List(v)))),
        ]
        .boxed(),
        Type::List(elem) => prop::collection::vec(arb_value(*elem, unknowns), 0..4)
            .prop_map(Value::List)
            .boxed(),
        Type::Set(elem) => prop::collection::vec(arb_value(*elem, unknowns), 0..4)
            .prop_map(|items| {
                let mut distinct: Vec<Value> = Vec::new();
                for item in items {
                    if !distinct.contains(&item) {
                        distinct.push(item);
                    }
                }
                Value::Set(distinct)
            })
            .boxed(),
        Type::Map(elem) => prop::collection::btree_map(".{0,5}", arb_value(*elem, unknowns), 0..4)
            .prop_map(|m| Value::Map(m.into_iter().map(|(k, v)| (k.into(), v)).collect()))
            .boxed(),
        Type::Object(attrs) => {
            let parts: Vec<(String, BoxedStrategy<Value>)> = attrs
                .into_iter()
                .map(|(k, t)| (k, arb_value(t, unknowns)))
                .collect();
            let names: Vec<String> = parts.iter().map(|(k, _)| k.clone()).collect();
            parts
                .into_iter()
                .map(|(_, s)| s)
                .collect::<Vec<_>>()
                .prop_map(move |values| {
                    Value::Object(
                        names
                            .iter()
                            .map(|n| n.into())
                            .zip(values)
                            .collect::<tfwasm_model::Attributes>(),
                    )
                })
                .boxed()
        }
        Type::Tuple(elems) => elems
            .into_iter()
            .map(|t| arb_value(t, unknowns))
            .collect::<Vec<_>>()
            .prop_map(Value::Tuple)
            .boxed(),
    };
    let refined = match ty {
        Type::String => ".{0,4}"
            .prop_map(|p| {
                Value::refined(Refinement {
                    not_null: true,
                    string_prefix: Some(p),
                    ..Refinement::default()
                })
            })
            .boxed(),
        Type::Number => (any::<i32>(), any::<bool>())
            .prop_map(|(n, inc)| {
                Value::refined(Refinement {
                    number_lower: Some((Number::from(n), inc)),
                    ..Refinement::default()
                })
            })
            .boxed(),
        Type::List(_) | Type::Set(_) | Type::Map(_) => (0u64..5)
            .prop_map(|n| {
                Value::refined(Refinement {
                    not_null: true,
                    length_lower: Some(n),
                    length_upper: Some(n + 3),
                    ..Refinement::default()
                })
            })
            .boxed(),
        _ => Just(Value::unknown()).boxed(),
    };
    if unknowns {
        prop_oneof![6 => known, 1 => Just(Value::Null), 1 => Just(Value::unknown()), 1 => refined]
            .boxed()
    } else {
        prop_oneof![6 => known, 1 => Just(Value::Null)].boxed()
    }
}

fn typed_value(unknowns: bool) -> impl Strategy<Value = (Type, Value)> {
    arb_type().prop_flat_map(move |ty| (Just(ty.clone()), arb_value(ty, unknowns)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Decoding puts a value in go-cty's form (strings in NFC, refinements that pin a
    /// value down made that value, empty refinements dropped, dynamic values typed by what
    /// they hold); from then on a round trip changes nothing, bytes included. What that form
    /// is, go-cty decides: the differential tests (`make fuzz-diff`) compare it.
    #[test]
    fn msgpack_round_trips((ty, value) in typed_value(true)) {
        // A collection of dynamic values of several types is refused (go-cty panics on it).
        let first = msgpack::decode(&msgpack::encode(&value, &ty).unwrap(), &ty);
        prop_assume!(first.is_ok());
        let first = first.unwrap();
        let bytes = msgpack::encode(&first, &ty).unwrap();
        let back = msgpack::decode(&bytes, &ty).unwrap();
        prop_assert_eq!(&back, &first);
        prop_assert_eq!(msgpack::encode(&back, &ty).unwrap(), bytes);
    }

    #[test]
    fn json_round_trips((ty, value) in typed_value(false)) {
        let first = json::decode_bytes(json::encode_text(&value, &ty).unwrap().as_bytes(), &ty);
        prop_assume!(first.is_ok());
        let first = first.unwrap();
        let text = json::encode_text(&first, &ty).unwrap();
        let back = json::decode_bytes(text.as_bytes(), &ty).unwrap();
        prop_assert_eq!(&back, &first);
        prop_assert_eq!(json::encode_text(&back, &ty).unwrap(), text);
    }

    #[test]
    fn truncated_msgpack_is_an_error_never_a_panic((ty, value) in typed_value(true), cut in 0usize..64) {
        let bytes = msgpack::encode(&value, &ty).unwrap();
        if cut < bytes.len() {
            prop_assert!(msgpack::decode(&bytes[..cut], &ty).is_err());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64), ty in arb_type()) {
        let _ = msgpack::decode(&bytes, &ty);
    }
}
