//! Cost of the contract checks on a realistic object: 50 attributes plus a list block of
//! 10 elements and a single block. The baseline beside it is decoding the same planned
//! object from msgpack, which the host does anyway to check it.

use criterion::{Criterion, criterion_group, criterion_main};
use tfwasm_contract::{check_apply, check_apply_with, check_plan, check_plan_with};
use tfwasm_model::codec::msgpack;
use tfwasm_model::{Attribute, Block, BlockNesting, Layout, NestedBlock, Type, Value};

fn attr(name: String, ty: Type, i: usize) -> Attribute {
    let mut a = Attribute::new(name, ty);
    match i % 4 {
        0 => a.required = true,
        1 => a.optional = true,
        2 => a.computed = true,
        _ => {
            a.optional = true;
            a.computed = true;
        }
    }
    a
}

fn schema() -> Block {
    let types = [
        Type::String,
        Type::Number,
        Type::Bool,
        Type::map(Type::String),
        Type::list(Type::String),
    ];
    let attributes = (0..50)
        .map(|i| attr(format!("attr_{i}"), types[i % types.len()].clone(), i))
        .collect();
    let inner = Block {
        attributes: (0..5)
            .map(|i| attr(format!("field_{i}"), Type::String, i))
            .collect(),
        ..Block::default()
    };
    Block {
        attributes,
        block_types: vec![
            NestedBlock {
                type_name: "rule".into(),
                block: inner.clone(),
                nesting: BlockNesting::List,
                min_items: 0,
                max_items: 0,
            },
            NestedBlock {
                type_name: "settings".into(),
                block: inner,
                nesting: BlockNesting::Single,
                min_items: 0,
                max_items: 0,
            },
        ],
        ..Block::default()
    }
}

fn sample(ty: &Type, i: usize) -> Value {
    match ty {
        Type::String => Value::from(format!("value-{i}")),
        Type::Number => Value::from(i as i64 * 7),
        Type::Bool => Value::Bool(i.is_multiple_of(2)),
        Type::Map(_) => Value::Map(
            (0..3)
                .map(|k| (format!("k{k}").into(), Value::from(format!("v{k}"))))
                .collect(),
        ),
        Type::List(_) => Value::List((0..3).map(|k| Value::from(format!("e{k}"))).collect()),
        _ => Value::Null,
    }
}

/// (config, planned, applied): config sets every non-computed attribute, the plan leaves
/// computed ones unknown, and the apply fills them.
fn objects(block: &Block) -> (Value, Value, Value) {
    let fill = |b: &Block, stage: u8| {
        let mut obj = Value::null_object_of(&b.implied_type());
        for (i, a) in b.attributes.iter().enumerate() {
            let v = match (a.computed && !a.optional, stage) {
                (true, 0) => Value::Null,
                (true, 1) => Value::unknown(),
                _ => sample(&a.implied_type(), i),
            };
            obj.set(&a.name, v);
        }
        obj
    };
    let build = |stage: u8| {
        let mut obj = fill(block, stage);
        let inner = &block.block_types[0].block;
        obj.set(
            "rule",
            Value::List((0..10).map(|_| fill(inner, stage)).collect()),
        );
        obj.set("settings", fill(inner, stage));
        obj
    };
    (build(0), build(1), build(2))
}

fn bench(c: &mut Criterion) {
    let block = schema();
    let ty = block.implied_type();
    let (config, planned, applied) = objects(&block);
    assert!(
        check_plan(&block, &Value::Null, &config, &planned).is_empty(),
        "the plan is valid"
    );
    assert!(
        check_apply(&block, &planned, &applied).is_empty(),
        "the apply is valid"
    );
    let planned_bytes = msgpack::encode(&planned, &ty).unwrap();

    let mut group = c.benchmark_group("contract_50_attributes_with_blocks");
    group.bench_function("baseline_msgpack_decode_planned", |b| {
        b.iter(|| msgpack::decode(&planned_bytes, &ty).unwrap())
    });
    // As the host runs them: with the layout its schema index holds.
    let layout = Layout::of(&block);
    group.bench_function("check_plan_create", |b| {
        b.iter(|| check_plan_with(&block, &layout, &Value::Null, &config, &planned, true))
    });
    group.bench_function("check_plan_update", |b| {
        b.iter(|| check_plan_with(&block, &layout, &applied, &config, &applied, true))
    });
    group.bench_function("check_apply", |b| {
        b.iter(|| check_apply_with(&block, &layout, &planned, &applied))
    });
    // As `tfwasm check` runs them, working the layout out per call.
    group.bench_function("check_plan_create_layout_per_call", |b| {
        b.iter(|| check_plan(&block, &Value::Null, &config, &planned))
    });
    group.bench_function("check_apply_layout_per_call", |b| {
        b.iter(|| check_apply(&block, &planned, &applied))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
