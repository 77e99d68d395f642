//! A minimal HTTP GET over `wasi:http`, following redirects as an ordinary client would, so
//! the host's allow-list sees every hop.

use wasip2::http::outgoing_handler;
use wasip2::http::types::{Fields, Method, OutgoingRequest, Scheme};
use wasip2::io::streams::StreamError;

/// Most redirects followed.
const MAX_REDIRECTS: usize = 5;
/// Most body bytes read.
const MAX_BODY: usize = 32 << 20;

/// The body of `url` after following redirects, or what went wrong.
pub(crate) fn get(url: &str) -> Result<String, String> {
    let mut url = url.to_owned();
    for _ in 0..=MAX_REDIRECTS {
        let (status, location, body) = once(&url)?;
        match (status, location) {
            (300..=399, Some(next)) => url = next,
            (200..=299, _) => {
                return String::from_utf8(body)
                    .map_err(|_| "response body is not UTF-8".to_owned());
            }
            (status, _) => return Err(format!("{url} answered HTTP {status}")),
        }
    }
    Err(format!("more than {MAX_REDIRECTS} redirects"))
}

/// Builds `count` header blocks of 16 KiB each and keeps them all: host memory the guest's
/// memory limit does not see, bounded by the host's handle limit.
pub(crate) fn hoard_fields(count: usize) -> Result<usize, String> {
    let value = vec![b'v'; 16 << 10];
    let mut kept = Vec::with_capacity(count);
    for _ in 0..count {
        let fields = Fields::new();
        fields
            .append("x-hoard", &value)
            .map_err(|e| format!("append failed: {e:?}"))?;
        kept.push(fields);
    }
    Ok(kept.len())
}

/// Sets an authority and a method of `len` bytes on a request it keeps: host memory the
/// guest's memory limit does not see. Says which the host refused.
pub(crate) fn long_parts(len: usize) -> Result<String, String> {
    let request = OutgoingRequest::new(Fields::new());
    let authority = format!("{}.example", "a".repeat(len));
    let method = Method::Other("X".repeat(len));
    let refused = |ok: Result<(), ()>| if ok.is_err() { "refused" } else { "accepted" };
    let said = format!(
        "an authority of {} bytes was {}, a method of {len} bytes was {}",
        authority.len(),
        refused(request.set_authority(Some(&authority))),
        refused(request.set_method(&method)),
    );
    std::mem::forget(request);
    if said.contains("accepted") {
        Ok(said)
    } else {
        Err(said)
    }
}

/// Sends a GET to `url`, gives it half a second to reach the server, and returns without
/// waiting for, or dropping, the response: the request is left in flight when the call
/// answers.
pub(crate) fn leave(url: &str) -> Result<(), String> {
    let request = request(url)?;
    let pending =
        outgoing_handler::handle(request, None).map_err(|e| format!("GET {url} failed: {e:?}"))?;
    std::thread::sleep(std::time::Duration::from_millis(500));
    std::mem::forget(pending);
    Ok(())
}

fn once(url: &str) -> Result<(u16, Option<String>, Vec<u8>), String> {
    let request = request(url)?;
    let pending =
        outgoing_handler::handle(request, None).map_err(|e| format!("GET {url} failed: {e:?}"))?;
    answer(url, pending)
}

/// A GET request for `url`.
fn request(url: &str) -> Result<OutgoingRequest, String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("{url:?} is not an absolute URL"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let request = OutgoingRequest::new(Fields::new());
    request
        .set_method(&Method::Get)
        .map_err(|()| "cannot set the method")?;
    let scheme = match scheme {
        "http" => Scheme::Http,
        "https" => Scheme::Https,
        other => return Err(format!("unsupported scheme {other:?}")),
    };
    request
        .set_scheme(Some(&scheme))
        .map_err(|()| "cannot set the scheme")?;
    request
        .set_authority(Some(authority))
        .map_err(|()| "cannot set the authority")?;
    request
        .set_path_with_query(Some(path))
        .map_err(|()| "cannot set the path")?;
    Ok(request)
}

/// Waits for the response to `url` and reads it whole.
fn answer(
    url: &str,
    pending: wasip2::http::types::FutureIncomingResponse,
) -> Result<(u16, Option<String>, Vec<u8>), String> {
    pending.subscribe().block();
    let response = pending
        .get()
        .ok_or("no response")?
        .map_err(|()| "response already taken")?
        .map_err(|e| format!("GET {url} failed: {e:?}"))?;
    let status = response.status();
    let location = response
        .headers()
        .get("location")
        .first()
        .and_then(|v| String::from_utf8(v.clone()).ok());
    let body = response.consume().map_err(|()| "cannot read the body")?;
    let stream = body.stream().map_err(|()| "cannot read the body")?;
    let mut bytes = Vec::new();
    loop {
        match stream.blocking_read(64 << 10) {
            Ok(chunk) => {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > MAX_BODY {
                    return Err("response body too large".into());
                }
            }
            Err(StreamError::Closed) => break,
            Err(StreamError::LastOperationFailed(e)) => {
                return Err(format!("reading {url} failed: {}", e.to_debug_string()));
            }
        }
    }
    drop(stream);
    Ok((status, location, bytes))
}
