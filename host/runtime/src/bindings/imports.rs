//! What the host gives a guest through the project's own WIT imports (`log`, `progress`,
//! `types`, 0.3.0's `files`), implemented on the store of every call.

use crate::bindings::latest::tfwasm::provider::{log, progress, types};
use crate::state::StoreState;

impl progress::Host for StoreState {
    async fn report_state(&mut self, state: Vec<u8>) -> wasmtime::Result<()> {
        // An oversized report is ignored, as an oversized result would be refused.
        if state.len() <= crate::limits::MAX_VALUE_BYTES {
            self.reported.report(state);
        }
        Ok(())
    }
}

impl log::Host for StoreState {
    async fn log(
        &mut self,
        level: log::Level,
        message: String,
        fields: Vec<(String, String)>,
    ) -> wasmtime::Result<()> {
        let level = match level {
            log::Level::Trace => "trace",
            log::Level::Debug => "debug",
            log::Level::Info => "info",
            log::Level::Warn => "warn",
            log::Level::Error => "error",
        };
        self.log.line(level, &message, &fields);
        Ok(())
    }
}

impl super::additions::action_progress::Host for StoreState {
    async fn report_progress(&mut self, message: String) -> wasmtime::Result<()> {
        self.progress.report(message);
        Ok(())
    }
}

/// The `types` interface has no functions; this marks that the store provides it.
impl types::Host for StoreState {}

/// The file functions run on tokio's blocking pool, as wasmtime-wasi runs its own: a write
/// of up to a host call's copy budget, synced, would otherwise hold a runtime worker (and
/// every connection and call scheduled on it) until the disk is done.
async fn blocking(
    dirs: &[crate::DirGrant],
    work: impl FnOnce(&[crate::DirGrant]) -> Result<(), String> + Send + 'static,
) -> wasmtime::Result<Result<(), String>> {
    let dirs = dirs.to_vec();
    tokio::task::spawn_blocking(move || work(&dirs))
        .await
        .map_err(|e| wasmtime::Error::msg(format!("a file operation failed: {e}")))
}

impl super::additions::files::Host for StoreState {
    async fn write_file(
        &mut self,
        path: String,
        contents: Vec<u8>,
        mode: u32,
    ) -> wasmtime::Result<Result<(), String>> {
        blocking(&self.dirs, move |dirs| {
            crate::files::write_file(dirs, &path, &contents, mode)
        })
        .await
    }

    async fn create_dir(
        &mut self,
        path: String,
        mode: u32,
    ) -> wasmtime::Result<Result<(), String>> {
        blocking(&self.dirs, move |dirs| {
            crate::files::create_dir(dirs, &path, mode)
        })
        .await
    }

    async fn set_mode(&mut self, path: String, mode: u32) -> wasmtime::Result<Result<(), String>> {
        blocking(&self.dirs, move |dirs| {
            crate::files::set_mode(dirs, &path, mode)
        })
        .await
    }
}
