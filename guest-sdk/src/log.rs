//! Structured logging into Terraform's provider log. Lines show under `TF_LOG=debug` (or
//! `TF_LOG_PROVIDER`) with their fields. Never log sensitive values.

use crate::bindings::tfwasm::provider::log::{Level, log};

/// Logs at trace level.
pub fn trace(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Trace, message, fields);
}
/// Logs at debug level.
pub fn debug(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Debug, message, fields);
}
/// Logs at info level.
pub fn info(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Info, message, fields);
}
/// Logs at warn level.
pub fn warn(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Warn, message, fields);
}
/// Logs at error level.
pub fn error(message: &str, fields: &[(&str, &str)]) {
    emit(Level::Error, message, fields);
}

fn emit(level: Level, message: &str, fields: &[(&str, &str)]) {
    let fields: Vec<(String, String)> = fields
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    log(level, message, &fields);
}
