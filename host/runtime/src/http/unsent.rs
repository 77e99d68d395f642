//! What a guest's requests hold in host memory before they are sent.
//!
//! An `outgoing-request` lives in the host's handle table, outside the guest's `memory`, for
//! as long as the guest keeps it. wasmtime-wasi-http bounds its header block (the store's
//! field size limit) and its path (`http::uri`, 64 KiB) but not its authority or an
//! extension method, and buffers a write to an unsent body of up to its chunk size: a guest
//! holding the handle limit's worth of requests could hold gigabytes. These bounds make one
//! request hold at most a few hundred KiB, so the handle limit's worth of them stays within
//! what docs/sandbox.md states.

use wasmtime::component::{Linker, Resource};
use wasmtime_wasi_http::WasiHttpView as _;
use wasmtime_wasi_http::p2::bindings::http::types::{HostOutgoingRequest as _, Method};
use wasmtime_wasi_http::p2::types::HostOutgoingRequest;

use crate::state::StoreState;

/// Longest authority (`host:port`) a request may have: a DNS name is at most 253 bytes.
pub(crate) const MAX_AUTHORITY: usize = 1024;
/// Longest method a request may have (the standard ones are at most 7 bytes).
pub(crate) const MAX_METHOD: usize = 64;
/// Most bytes one write to a request body may hand the host; with one write buffered, an
/// unsent body holds at most twice this.
pub(crate) const BODY_CHUNK: usize = 64 << 10;

/// The interface whose setters are replaced, as wasmtime-wasi-http names it.
const TYPES: &str = "wasi:http/types@0.2.12";

/// Replaces the `outgoing-request` setters wasmtime-wasi-http leaves unbounded with ones
/// that refuse (as an invalid value, which the guest sees as the setter's error) an
/// authority or method longer than the limits above.
pub(crate) fn add_to_linker(linker: &mut Linker<StoreState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(TYPES)?;
    types.func_wrap(
        "[method]outgoing-request.set-authority",
        |mut store, (request, authority): (Resource<HostOutgoingRequest>, Option<String>)| {
            if authority.as_ref().is_some_and(|a| a.len() > MAX_AUTHORITY) {
                return Ok((Err(()),));
            }
            let state: &mut StoreState = store.data_mut();
            Ok((state.http().set_authority(request, authority)?,))
        },
    )?;
    types.func_wrap(
        "[method]outgoing-request.set-method",
        |mut store, (request, method): (Resource<HostOutgoingRequest>, Method)| {
            if matches!(&method, Method::Other(m) if m.len() > MAX_METHOD) {
                return Ok((Err(()),));
            }
            let state: &mut StoreState = store.data_mut();
            Ok((state.http().set_method(request, method)?,))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shadowing a name wasmtime-wasi-http does not define would add an unused function and
    /// leave its setter unbounded: without shadowing, redefining must collide.
    #[test]
    fn the_replaced_setters_are_the_ones_wasi_http_defines() {
        let engine = crate::engine::new_engine(&crate::CallLimits::default()).unwrap();
        let mut linker: Linker<StoreState> = Linker::new(&engine);
        wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker).unwrap();
        let mut types = linker.instance(TYPES).unwrap();
        for name in [
            "[method]outgoing-request.set-authority",
            "[method]outgoing-request.set-method",
        ] {
            let err = types
                .func_wrap(name, |_, (): ()| Ok(()))
                .expect_err(name)
                .to_string();
            assert!(err.contains("defined twice"), "{name}: {err}");
        }
        add_to_linker(&mut linker).unwrap();
    }
}
