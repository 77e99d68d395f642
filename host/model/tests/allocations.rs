//! What decoding and copying a value allocates, counted by a global allocator of this test
//! binary on the counting thread only: attribute names and map keys of up to 23 bytes cost no
//! allocation of their own (they are inline [`Name`]s), and they are most of what a schema's
//! objects hold (issue 37's profiles).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tfwasm_model::codec::msgpack;
use tfwasm_model::{Name, Type, Value};

struct Counting;

thread_local! {
    // A constant initializer: reading it never allocates, so the allocator may use it.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: a thread being torn down still allocates, and is not counted.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations this thread made while `f` ran.
fn allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let out = f();
    (out, ALLOCATIONS.with(Cell::get) - before)
}

/// An object of `n` bool attributes named like a schema's (`attribute_00` ...), all null, and
/// a map of `n` null strings under keys of the same length.
fn wide(n: usize) -> (Type, Value) {
    let names: Vec<String> = (0..n).map(|i| format!("attribute_{i:02}")).collect();
    let ty = Type::object([
        (
            "attrs",
            Type::Object(names.iter().map(|k| (k.clone(), Type::Bool)).collect()),
        ),
        ("tags", Type::Map(Box::new(Type::String))),
    ]);
    let value = Value::object([
        (
            "attrs",
            Value::object(names.iter().map(|k| (k.as_str(), Value::Null))),
        ),
        (
            "tags",
            Value::Map(names.iter().map(|k| (Name::from(k), Value::Null)).collect()),
        ),
    ]);
    (ty, value)
}

#[test]
fn names_cost_no_allocation_when_decoding_or_copying() {
    let (ty, value) = wide(40);
    let bytes = msgpack::encode(&value, &ty).unwrap();

    let (decoded, decoding) = allocations(|| msgpack::decode(&bytes, &ty).unwrap());
    assert_eq!(decoded, value);
    // 80 names: with a `String` each, decoding made over 80 allocations. What is left is
    // the object's vector and the map's B-tree nodes (a few per 40 entries).
    assert!(decoding < 30, "decoding allocated {decoding} times");

    let (copy, copying) = allocations(|| decoded.clone());
    assert_eq!(copy, value);
    assert!(copying < 30, "copying allocated {copying} times");

    // A name longer than the inline limit is shared: copying it allocates nothing either.
    let long = Name::from("an_attribute_name_longer_than_twenty_three_bytes");
    let (copied, n) = allocations(|| long.clone());
    assert_eq!(copied, long);
    assert_eq!(n, 0, "copying a long name allocated");
}

/// An object's attributes are one vector: decoding or copying an object of 40 attributes (all
/// null, names inline) allocates once, where a `BTreeMap` allocated a node per 11.
#[test]
fn an_object_is_one_allocation_however_many_attributes() {
    let names: Vec<String> = (0..40).map(|i| format!("attribute_{i:02}")).collect();
    let ty = Type::Object(names.iter().map(|k| (k.clone(), Type::Bool)).collect());
    let value = Value::object(names.iter().map(|k| (k.as_str(), Value::Null)));
    let bytes = msgpack::encode(&value, &ty).unwrap();
    // The first decode of a process also sets up its hasher state.
    msgpack::decode(&bytes, &ty).unwrap();

    let (decoded, decoding) = allocations(|| msgpack::decode(&bytes, &ty).unwrap());
    assert_eq!(decoded, value);
    assert_eq!(decoding, 1, "decoding allocated {decoding} times");
    let (copy, copying) = allocations(|| decoded.clone());
    assert_eq!(copy, value);
    assert_eq!(copying, 1, "copying allocated {copying} times");
}
