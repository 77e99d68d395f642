//! Where a check is, borrowed: `tfwasm_model::PathRef`, turned into an owned path only when a
//! rule is broken.

pub(crate) use tfwasm_model::{PathRef as At, ToPath as Place};
