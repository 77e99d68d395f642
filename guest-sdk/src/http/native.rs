//! The native transport (unit tests, benchmark baselines): `ureq`, with redirects left to
//! the shared layer so both transports follow the same rules.

use std::sync::OnceLock;

use super::{ErrorKind, HttpError, Prepared, Response};

/// Most response body bytes read, as in a component.
const MAX_BODY: u64 = 8 << 20;

fn agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .into()
    })
}

pub(crate) fn send(request: &Prepared) -> Result<Response, HttpError> {
    let fail = |kind: ErrorKind| HttpError::new(request.method, &request.url, kind);
    let mut builder = ureq::http::Request::builder()
        .method(request.method.as_str())
        .uri(&request.url);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let built = builder
        .body(request.body.clone())
        .map_err(|e| fail(ErrorKind::InvalidUrl(e.to_string())))?;
    let configured = agent()
        .configure_request(built)
        .timeout_global(Some(request.timeout))
        .allow_non_standard_methods(true)
        .build();
    let response = if request.body.is_empty() {
        agent().run(configured.map(|_| ()))
    } else {
        agent().run(configured)
    };
    let mut response = response.map_err(|e| fail(error_kind(e)))?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY)
        .read_to_vec()
        .map_err(|e| fail(error_kind(e)))?;
    Ok(Response::new(request, status, headers, body))
}

fn error_kind(error: ureq::Error) -> ErrorKind {
    match error {
        ureq::Error::Timeout(_) => ErrorKind::Timeout,
        ureq::Error::Tls(_) => ErrorKind::Refused(error.to_string()),
        other => ErrorKind::Transport(other.to_string()),
    }
}
