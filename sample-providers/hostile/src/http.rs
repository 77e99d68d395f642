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

fn once(url: &str) -> Result<(u16, Option<String>, Vec<u8>), String> {
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

    let pending =
        outgoing_handler::handle(request, None).map_err(|e| format!("GET {url} failed: {e:?}"))?;
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
