//! Value cases: a type and raw msgpack and JSON bytes for it, decoded by tfwasm and by
//! go-cty. Both must accept or refuse alike; what both accept must re-encode to the same
//! msgpack and JSON bytes (so the decoded values, set de-duplication and order included,
//! agree); and two values must be equal (`RawEquals`) and one set element (`Equals` is true)
//! exactly when go-cty says so.

use tfwasm_model::codec::{json, msgpack};
use tfwasm_model::{Type, Value};

use super::oracle::{Answer, Request};
use super::rng::Rng;
use super::wire::{Gen, Wire, variant};
use super::{Outcome, hex};

/// One value case.
#[derive(Debug, Clone)]
pub struct Case {
    pub ty: Type,
    pub a: Wire,
    pub b: Wire,
}

/// The case of `seed`.
pub fn generate(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let mut generator = Gen { rng: &mut rng };
    let ty = generator.ty(0);
    let a = generator.value(&ty, 0, true);
    let b = variant(&mut rng, &a, &ty);
    Case { ty, a, b }
}

/// What the oracle is asked for a case, in order: decode `a` from msgpack, decode `a` (or,
/// when `a` holds unknowns, `b`) from JSON if it has a JSON form, and compare `a` with `b`.
pub fn requests(case: &Case) -> Vec<Request> {
    let ty = Some(case.ty.to_json());
    let mut out = vec![Request {
        op: "msgpack",
        ty: ty.clone(),
        msgpack: Some(case.a.msgpack()),
        ..Request::default()
    }];
    if let Some(text) = json_source(case).and_then(Wire::json) {
        out.push(Request {
            op: "json",
            ty: ty.clone(),
            json: Some(text),
            ..Request::default()
        });
    }
    out.push(Request {
        op: "equal",
        ty,
        a: Some(case.a.msgpack()),
        b: Some(case.b.msgpack()),
        ..Request::default()
    });
    out
}

fn json_source(case: &Case) -> Option<&Wire> {
    [&case.a, &case.b].into_iter().find(|w| w.is_wholly_known())
}

/// tfwasm's side of the case against the oracle's answers (as many as [`requests`] made).
pub fn judge(case: &Case, answers: &[Answer]) -> Vec<Outcome> {
    let mut out = Vec::new();
    let mut answers = answers.iter();
    let bytes = case.a.msgpack();
    let ours = msgpack::decode(&bytes, &case.ty);
    out.push(decoded(
        "msgpack",
        &case.a,
        &case.ty,
        &ours,
        answers.next().expect("msgpack answer"),
        || format!("msgpack {}", hex(&bytes)),
    ));
    if let Some(text) = json_source(case).and_then(Wire::json) {
        let ours = json::decode_bytes(text.as_bytes(), &case.ty);
        out.push(decoded(
            "json",
            json_source(case).expect("a JSON source"),
            &case.ty,
            &ours,
            answers.next().expect("json answer"),
            || format!("json {text}"),
        ));
    }
    out.push(equality(case, answers.next().expect("equal answer")));
    out
}

fn decoded(
    what: &'static str,
    wire: &Wire,
    ty: &Type,
    ours: &Result<Value, tfwasm_model::codec::CodecError>,
    theirs: &Answer,
    input: impl Fn() -> String,
) -> Outcome {
    if let Some(panic) = &theirs.panic {
        // go-cty panics (and a client with it) on what tfwasm must refuse.
        return match ours {
            Err(_) => Outcome::AgreeOn("refused by tfwasm, go-cty panics"),
            Ok(_) if what == "json" && repeats_a_key(wire) => Outcome::Deliberate(
                "a JSON object repeating a key whose earlier value go-cty refuses (tfwasm keeps the last)",
            ),
            Ok(v) => Outcome::Disagree(format!(
                "{what}: tfwasm accepted what go-cty panics on ({panic})\n  type {ty}\n  input {}\n  tfwasm decoded {v:?}",
                input()
            )),
        };
    }
    let value = match (ours, &theirs.error) {
        (Err(_), Some(_)) => return Outcome::AgreeOn("refused by both"),
        (Ok(_), Some(_)) if what == "json" && repeats_a_key(wire) => {
            return Outcome::Deliberate(
                "a JSON object repeating a key whose earlier value go-cty refuses (tfwasm keeps the last)",
            );
        }
        (Ok(v), Some(err)) => {
            return Outcome::Disagree(format!(
                "{what}: tfwasm accepted what go-cty refuses ({err})\n  type {ty}\n  input {}\n  tfwasm decoded {v:?}",
                input()
            ));
        }
        (Err(e), None) => {
            return deliberate(&e.message).map_or_else(
                || {
                    Outcome::Disagree(format!(
                        "{what}: tfwasm refused ({e}) what go-cty accepts\n  type {ty}\n  input {}\n  go-cty re-encodes {}",
                        input(),
                        theirs.msgpack.as_deref().map(hex).unwrap_or_default()
                    ))
                },
                Outcome::Deliberate,
            );
        }
        (Ok(v), None) => v,
    };
    // tfwasm keeps a set's elements in the order it holds them; go-cty writes its own order.
    let mut value = value.clone();
    tfwasm_model::canonical::canonicalize(&mut value);
    let value = &value;
    let ours_msgpack = match msgpack::encode(value, ty) {
        Ok(b) => b,
        Err(e) => {
            return Outcome::Disagree(format!(
                "{what}: tfwasm cannot re-encode what it decoded: {e}\n  type {ty}\n  input {}",
                input()
            ));
        }
    };
    let theirs_msgpack = theirs.msgpack.clone().unwrap_or_default();
    if ours_msgpack != theirs_msgpack {
        return Outcome::Disagree(format!(
            "{what}: re-encoded msgpack differs\n  type {ty}\n  input   {}\n  tfwasm  {}\n  go-cty  {}\n  tfwasm decoded {value:?}\n  go-cty's bytes decoded by tfwasm {:?}",
            input(),
            hex(&ours_msgpack),
            hex(&theirs_msgpack),
            msgpack::decode(&theirs_msgpack, ty)
        ));
    }
    let ours_json = json::encode_text(value, ty);
    match (ours_json, &theirs.json) {
        (Ok(a), Some(b)) if a == *b => Outcome::AgreeOn("decoded, same bytes"),
        (Err(_), None) => Outcome::AgreeOn("decoded, same bytes"),
        (ours, theirs_json) => Outcome::Disagree(format!(
            "{what}: re-encoded JSON differs\n  type {ty}\n  input  {}\n  tfwasm {ours:?}\n  go-cty {theirs_json:?} {:?}",
            input(),
            theirs.json_error
        )),
    }
}

fn equality(case: &Case, theirs: &Answer) -> Outcome {
    if let Some(panic) = &theirs.panic {
        return Outcome::OraclePanicked(format!("equal: {panic}"));
    }
    let a = msgpack::decode(&case.a.msgpack(), &case.ty);
    let b = msgpack::decode(&case.b.msgpack(), &case.ty);
    let (Ok(a), Ok(b), Some(raw), Some(equals)) = (a, b, theirs.raw_equals, theirs.equals) else {
        // Either side refused a value: the decode cases judge that.
        return Outcome::Agree;
    };
    let describe = || {
        format!(
            "\n  type {}\n  a {}\n  b {}\n  tfwasm decoded a {a:?}\n  tfwasm decoded b {b:?}",
            case.ty,
            hex(&case.a.msgpack()),
            hex(&case.b.msgpack())
        )
    };
    if a.cty_equals(&b) != equals {
        return Outcome::Disagree(format!(
            "equal: set membership (Equals is true) tfwasm {}, go-cty {equals}{}",
            a.cty_equals(&b),
            describe()
        ));
    }
    if (a == b) != raw {
        if order_sensitive(&a) || order_sensitive(&b) {
            return Outcome::Deliberate(
                "RawEquals of sets whose distinct elements tie in go-cty's order (elements holding unknowns, numbers alike in ten digits)",
            );
        }
        if a == b && same_bytes(&a, &b, &case.ty) {
            return Outcome::Deliberate(
                "RawEquals of values go-cty writes alike (an unknown with a refinement that refines nothing)",
            );
        }
        return Outcome::Disagree(format!(
            "equal: RawEquals tfwasm {}, go-cty {raw}{}",
            a == b,
            describe()
        ));
    }
    Outcome::AgreeOn(match (equals, raw) {
        (true, _) => "equal, one set element",
        (false, true) => "equal, not one set element (unknowns)",
        (false, false) => "not equal",
    })
}

/// Whether a map anywhere in `wire` names a key twice.
fn repeats_a_key(wire: &Wire) -> bool {
    match wire {
        Wire::Map(entries) => {
            let mut seen = std::collections::BTreeSet::new();
            entries.iter().any(|(k, _)| !seen.insert(k))
                || entries.iter().any(|(_, v)| repeats_a_key(v))
        }
        Wire::Array(items) => items.iter().any(repeats_a_key),
        Wire::Dynamic { value, .. } => repeats_a_key(value),
        _ => false,
    }
}

/// Whether two values are written alike (sets in go-cty's order).
fn same_bytes(a: &Value, b: &Value, ty: &Type) -> bool {
    let bytes = |v: &Value| {
        let mut v = v.clone();
        tfwasm_model::canonical::canonicalize(&mut v);
        msgpack::encode(&v, ty).ok()
    };
    bytes(a) == bytes(b)
}

/// go-cty's `RawEquals` compares two sets element by element in their stored order, which
/// keeps insertion order among elements that tie (elements holding unknowns, whose hash text
/// hides them behind `?`; numbers alike in their first ten digits): two sets with the same
/// such elements in different orders compare unequal there. tfwasm compares sets as
/// multisets.
fn order_sensitive(value: &Value) -> bool {
    match value {
        Value::Set(items) => {
            let holding: Vec<&Value> = items.iter().filter(|v| !v.is_wholly_known()).collect();
            let texts: Vec<Vec<u8>> = items
                .iter()
                .map(tfwasm_model::canonical::hash_text)
                .collect();
            let tie = (0..items.len()).any(|i| {
                (i + 1..items.len()).any(|j| texts[i] == texts[j] && items[i] != items[j])
            });
            tie || holding.iter().any(|x| holding.iter().any(|y| x != y))
                || items.iter().any(order_sensitive)
        }
        Value::List(items) | Value::Tuple(items) => items.iter().any(order_sensitive),
        Value::Map(m) => m.values().any(order_sensitive),
        Value::Object(m) => m.values().any(order_sensitive),
        Value::Dynamic(_, inner) => order_sensitive(inner),
        _ => false,
    }
}

/// Inputs tfwasm refuses on purpose though go-cty takes them (docs/robustness.md lists
/// them): numbers beyond tfwasm's exponent bound, which go-cty would write out in
/// hundreds of thousands of digits.
fn deliberate(message: &str) -> Option<&'static str> {
    if message.contains("its decimal exponent is beyond") {
        return Some(
            "numbers with a decimal exponent beyond tfwasm's bound (±1000; ±400 past 150 digits)",
        );
    }
    if message.contains("(an infinity)") || message.contains("cannot be represented") {
        return Some("infinite numbers");
    }
    if message.contains("attributes is required (0 given)") {
        return Some(
            "an empty msgpack map for an object type with attributes (go-cty decodes it as an object of another type)",
        );
    }
    None
}
