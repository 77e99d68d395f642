//! The component transport: `wasi:http`, so the host's allow-list, connection pool, trusted
//! CAs and proxies apply to every request.

use wasip2::http::outgoing_handler;
use wasip2::http::types::{
    ErrorCode, Fields, Method as WasiMethod, OutgoingBody, OutgoingRequest, RequestOptions, Scheme,
};
use wasip2::io::streams::StreamError;

use super::{ErrorKind, HttpError, Prepared, Response};

/// Most response body bytes read (the host caps bodies at 8 MiB as well).
const MAX_BODY: usize = 8 << 20;
/// Bytes written per `blocking-write-and-flush` (wasi:io allows at most 4096).
const WRITE_CHUNK: usize = 4096;

pub(crate) fn send(request: &Prepared) -> Result<Response, HttpError> {
    let fail = |kind: ErrorKind| HttpError::new(request.method, &request.url, kind);
    let url =
        url::Url::parse(&request.url).map_err(|e| fail(ErrorKind::InvalidUrl(e.to_string())))?;
    let mut entries: Vec<(String, Vec<u8>)> = request
        .headers
        .iter()
        .map(|(n, v)| (n.clone(), v.as_bytes().to_vec()))
        .collect();
    // A known length rather than chunked encoding, which simple servers (Python's
    // `http.server`) do not read: they leave a chunked body on the connection, where it
    // breaks the next request. Without a length the host's HTTP client chunks every request
    // but GET and HEAD, so a body-less DELETE states its zero length.
    let stated = entries
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("content-length"));
    let bodiless = matches!(request.method, super::Method::Get | super::Method::Head);
    if !stated && (!request.body.is_empty() || !bodiless) {
        entries.push((
            "content-length".into(),
            request.body.len().to_string().into_bytes(),
        ));
    }
    let headers = Fields::from_list(&entries)
        .map_err(|e| fail(ErrorKind::Transport(format!("invalid header: {e:?}"))))?;
    let outgoing = OutgoingRequest::new(headers);
    let invalid = |what: &str| {
        fail(ErrorKind::InvalidUrl(format!(
            "the host refused the {what}"
        )))
    };
    outgoing
        .set_method(&wasi_method(request.method))
        .map_err(|()| invalid("method"))?;
    let scheme = if url.scheme() == "https" {
        Scheme::Https
    } else {
        Scheme::Http
    };
    outgoing
        .set_scheme(Some(&scheme))
        .map_err(|()| invalid("scheme"))?;
    let authority = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    outgoing
        .set_authority(Some(&authority))
        .map_err(|()| invalid("authority"))?;
    let path = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    outgoing
        .set_path_with_query(Some(&path))
        .map_err(|()| invalid("path"))?;

    let options = RequestOptions::new();
    let nanos = u64::try_from(request.timeout.as_nanos()).unwrap_or(u64::MAX);
    // The host clamps these to the call's deadline; an error only means "not supported".
    let _ = options.set_connect_timeout(Some(nanos));
    let _ = options.set_first_byte_timeout(Some(nanos));
    let _ = options.set_between_bytes_timeout(Some(nanos));

    let body = outgoing
        .body()
        .map_err(|()| fail(ErrorKind::Transport("request body already taken".into())))?;
    let pending = outgoing_handler::handle(outgoing, Some(options))
        .map_err(|code| fail(error_kind(&code)))?;
    let written = write_body(&body, &request.body);
    let finished = match written {
        Ok(()) => OutgoingBody::finish(body, None).map_err(|code| error_kind(&code)),
        Err(why) => {
            drop(body);
            Err(ErrorKind::Transport(why))
        }
    };

    // A request the host refuses (an ungranted destination) closes its body stream, so a
    // failed write is explained by the response's error, which names the real cause.
    pending.subscribe().block();
    let answer = pending
        .get()
        .ok_or_else(|| ErrorKind::Transport("no response".into()))
        .and_then(|got| got.map_err(|()| ErrorKind::Transport("response already taken".into())))
        .and_then(|got| got.map_err(|code| error_kind(&code)));
    let response = match (answer, finished) {
        (Err(kind), _) | (Ok(_), Err(kind)) => return Err(fail(kind)),
        (Ok(response), Ok(())) => response,
    };
    let status = response.status();
    let headers = response
        .headers()
        .entries()
        .into_iter()
        .map(|(n, v)| {
            (
                n.to_ascii_lowercase(),
                String::from_utf8_lossy(&v).into_owned(),
            )
        })
        .collect();
    let incoming = response
        .consume()
        .map_err(|()| fail(ErrorKind::Transport("response body already taken".into())))?;
    let stream = incoming
        .stream()
        .map_err(|()| fail(ErrorKind::Transport("response body already taken".into())))?;
    let mut bytes = Vec::new();
    loop {
        match stream.blocking_read(64 << 10) {
            Ok(chunk) => {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > MAX_BODY {
                    return Err(fail(ErrorKind::Transport(format!(
                        "the response body is larger than {MAX_BODY} bytes"
                    ))));
                }
            }
            Err(StreamError::Closed) => break,
            Err(StreamError::LastOperationFailed(e)) => {
                return Err(fail(ErrorKind::Transport(format!(
                    "reading the response body: {}",
                    e.to_debug_string()
                ))));
            }
        }
    }
    drop(stream);
    Ok(Response::new(request, status, headers, bytes))
}

fn write_body(body: &OutgoingBody, bytes: &[u8]) -> Result<(), String> {
    if bytes.is_empty() {
        return Ok(());
    }
    let stream = body
        .write()
        .map_err(|()| "request body stream already taken")?;
    for chunk in bytes.chunks(WRITE_CHUNK) {
        stream
            .blocking_write_and_flush(chunk)
            .map_err(|e| format!("writing the request body: {e:?}"))?;
    }
    Ok(())
}

fn wasi_method(method: super::Method) -> WasiMethod {
    use super::Method;
    match method {
        Method::Get => WasiMethod::Get,
        Method::Head => WasiMethod::Head,
        Method::Post => WasiMethod::Post,
        Method::Put => WasiMethod::Put,
        Method::Patch => WasiMethod::Patch,
        Method::Delete => WasiMethod::Delete,
        Method::Options => WasiMethod::Options,
    }
}

/// wasi:http's error code as the SDK's error kind: what retrying cannot fix is `Refused` or
/// `Denied`.
fn error_kind(code: &ErrorCode) -> ErrorKind {
    match code {
        ErrorCode::HttpRequestDenied => ErrorKind::Denied,
        ErrorCode::TlsCertificateError => {
            ErrorKind::Refused("the server's TLS certificate is not trusted".into())
        }
        ErrorCode::ConnectionTimeout
        | ErrorCode::ConnectionReadTimeout
        | ErrorCode::HttpResponseTimeout => ErrorKind::Timeout,
        ErrorCode::InternalError(Some(message)) => ErrorKind::Transport(message.clone()),
        other => ErrorKind::Transport(describe(other)),
    }
}

/// A wasi:http error in words, as an operator reads it in a diagnostic.
fn describe(code: &ErrorCode) -> String {
    let text = match code {
        ErrorCode::DnsTimeout => "the DNS lookup timed out",
        ErrorCode::DnsError(_) => "the host name could not be resolved",
        ErrorCode::DestinationNotFound => "the host name could not be resolved",
        ErrorCode::DestinationUnavailable => "the server is unavailable",
        ErrorCode::DestinationIpProhibited => "the destination address is prohibited",
        ErrorCode::DestinationIpUnroutable => "the destination address is unreachable",
        ErrorCode::ConnectionRefused => "the connection was refused (is the server running?)",
        ErrorCode::ConnectionTerminated => "the server closed the connection",
        ErrorCode::ConnectionTimeout => "connecting timed out",
        ErrorCode::ConnectionReadTimeout => "reading the response timed out",
        ErrorCode::ConnectionWriteTimeout => "sending the request timed out",
        ErrorCode::ConnectionLimitReached => "too many connections are open",
        ErrorCode::TlsProtocolError => "the TLS handshake failed",
        ErrorCode::TlsCertificateError => "the server's TLS certificate is not trusted",
        ErrorCode::TlsAlertReceived(_) => "the server ended the TLS handshake with an alert",
        ErrorCode::HttpRequestDenied => "the host's allow-list does not include this destination",
        ErrorCode::HttpRequestLengthRequired => "the server requires a content length",
        ErrorCode::HttpRequestBodySize(_) => "the request body is too large",
        ErrorCode::HttpRequestMethodInvalid => "the method is invalid",
        ErrorCode::HttpRequestUriInvalid => "the URL is invalid",
        ErrorCode::HttpRequestUriTooLong => "the URL is too long",
        ErrorCode::HttpRequestHeaderSectionSize(_) | ErrorCode::HttpRequestHeaderSize(_) => {
            "the request headers are too large"
        }
        ErrorCode::HttpRequestTrailerSectionSize(_) | ErrorCode::HttpRequestTrailerSize(_) => {
            "the request trailers are too large"
        }
        ErrorCode::HttpResponseIncomplete => "the response ended early",
        ErrorCode::HttpResponseHeaderSectionSize(_) | ErrorCode::HttpResponseHeaderSize(_) => {
            "the response headers are too large"
        }
        ErrorCode::HttpResponseBodySize(_) => "the response body is too large",
        ErrorCode::HttpResponseTrailerSectionSize(_) | ErrorCode::HttpResponseTrailerSize(_) => {
            "the response trailers are too large"
        }
        ErrorCode::HttpResponseTransferCoding(_) => {
            "the response's transfer coding is not supported"
        }
        ErrorCode::HttpResponseContentCoding(_) => "the response's content coding is not supported",
        ErrorCode::HttpResponseTimeout => "the server did not answer in time",
        ErrorCode::HttpUpgradeFailed => "the protocol upgrade failed",
        ErrorCode::HttpProtocolError => "the server's answer is not valid HTTP",
        ErrorCode::LoopDetected => "the request loops",
        ErrorCode::ConfigurationError => "the host's HTTP settings are invalid",
        ErrorCode::InternalError(Some(message)) => return message.clone(),
        ErrorCode::InternalError(None) => "the host's HTTP client failed",
    };
    text.to_owned()
}
