//! Retries with exponential backoff, and redirects, the same for every transport.

use std::time::Duration;

use super::{ErrorKind, HttpError, Method, Prepared, Response};

/// Redirect hops followed at most (each hop passes the host's allow-list again).
const MAX_REDIRECTS: usize = 10;
/// Longest `Retry-After` honoured; a server asking for more gets the error instead.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// When to try a request again: only idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS),
/// after a transport failure, a timeout, or a 429/5xx answer. The delay doubles from
/// `min_delay` up to `max_delay`; a `Retry-After` (in seconds) is honoured instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retry {
    /// Attempts in all (1 = no retry).
    pub attempts: u32,
    /// Delay before the first retry.
    pub min_delay: Duration,
    /// Longest delay between attempts.
    pub max_delay: Duration,
}

impl Default for Retry {
    /// Three attempts, 250 ms then 500 ms apart, at most 5 s.
    fn default() -> Retry {
        Retry {
            attempts: 3,
            min_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl Retry {
    /// One attempt only.
    pub fn none() -> Retry {
        Retry {
            attempts: 1,
            ..Retry::default()
        }
    }

    fn backoff(&self, retry: u32) -> Duration {
        let factor = 1u32
            .checked_shl(retry.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.min_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// What one attempt's outcome means for the next.
enum Next {
    Done,
    RetryAfter(Duration),
}

fn judge(policy: &Retry, retry: u32, outcome: &Result<Response, HttpError>) -> Next {
    match outcome {
        Ok(response) if response.status() == 429 || response.status() >= 500 => {
            match response
                .header("retry-after")
                .and_then(|v| v.trim().parse::<u64>().ok())
            {
                Some(secs) if Duration::from_secs(secs) > MAX_RETRY_AFTER => Next::Done,
                Some(secs) => Next::RetryAfter(Duration::from_secs(secs)),
                None => Next::RetryAfter(policy.backoff(retry)),
            }
        }
        Err(e) if matches!(e.kind(), ErrorKind::Transport(_) | ErrorKind::Timeout) => {
            Next::RetryAfter(policy.backoff(retry))
        }
        _ => Next::Done,
    }
}

/// Sends `request` with `send`, following redirects and retrying as `policy` allows.
pub(crate) fn run(
    policy: &Retry,
    request: &Prepared,
    send: fn(&Prepared) -> Result<Response, HttpError>,
) -> Result<Response, HttpError> {
    let attempts = if request.method.is_idempotent() {
        policy.attempts.max(1)
    } else {
        1
    };
    let mut retry = 0;
    loop {
        let outcome = follow(request, send);
        retry += 1;
        match judge(policy, retry, &outcome) {
            Next::RetryAfter(delay) if retry < attempts => std::thread::sleep(delay),
            _ => return outcome,
        }
    }
}

/// One attempt, following redirects as browsers and curl do: 303 (and 301/302 after a POST)
/// continue with GET and no body; 307/308 repeat the method and body.
fn follow(
    request: &Prepared,
    send: fn(&Prepared) -> Result<Response, HttpError>,
) -> Result<Response, HttpError> {
    let mut hop: Option<Prepared> = None;
    for _ in 0..=MAX_REDIRECTS {
        let current = hop.as_ref().unwrap_or(request);
        let response = send(current)?;
        let status = response.status();
        let location = match (status, response.header("location")) {
            (301 | 302 | 303 | 307 | 308, Some(location)) => location,
            _ => return Ok(response),
        };
        let next = url::Url::parse(&current.url)
            .and_then(|base| base.join(location))
            .map_err(|e| {
                HttpError::new(
                    current.method,
                    &current.url,
                    ErrorKind::InvalidUrl(format!("redirect to {location:?}: {e}")),
                )
            })?;
        let becomes_get =
            status == 303 || (matches!(status, 301 | 302) && current.method == Method::Post);
        let (method, body) = if becomes_get {
            (Method::Get, Vec::new())
        } else {
            (current.method, current.body.clone())
        };
        let mut headers = current.headers.clone();
        if becomes_get {
            headers.retain(|(n, _)| n != "content-type");
        }
        if next.host_str()
            != url::Url::parse(&current.url)
                .ok()
                .as_ref()
                .and_then(|u| u.host_str())
        {
            // Credentials are for the host they were given for.
            headers.retain(|(n, _)| n != "authorization");
        }
        hop = Some(Prepared {
            method,
            url: next.to_string(),
            headers,
            body,
            timeout: current.timeout,
        });
    }
    Err(HttpError::new(
        request.method,
        &request.url,
        ErrorKind::TooManyRedirects,
    ))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    /// A scripted answer: status and headers.
    type Answer = (u16, Vec<(String, String)>);

    thread_local! {
        static SCRIPT: RefCell<Vec<Answer>> = const { RefCell::new(Vec::new()) };
        static SEEN: RefCell<Vec<(Method, String, usize)>> = const { RefCell::new(Vec::new()) };
    }

    /// Answers from the script, in order, recording each request.
    fn scripted(request: &Prepared) -> Result<Response, HttpError> {
        SEEN.with(|s| {
            s.borrow_mut()
                .push((request.method, request.url.clone(), request.body.len()))
        });
        let (status, headers) = SCRIPT.with(|s| s.borrow_mut().remove(0));
        Ok(Response::new(request, status, headers, Vec::new()))
    }

    fn request(method: Method) -> Prepared {
        Prepared {
            method,
            url: "http://api.test/items".into(),
            headers: vec![("authorization".into(), "Bearer t".into())],
            body: b"{}".to_vec(),
            timeout: Duration::from_secs(1),
        }
    }

    fn script(steps: &[(u16, &[(&str, &str)])]) {
        SEEN.with(|s| s.borrow_mut().clear());
        SCRIPT.with(|s| {
            *s.borrow_mut() = steps
                .iter()
                .map(|(status, headers)| {
                    (
                        *status,
                        headers
                            .iter()
                            .map(|(n, v)| (n.to_string(), v.to_string()))
                            .collect(),
                    )
                })
                .collect();
        });
    }

    fn fast() -> Retry {
        Retry {
            attempts: 3,
            min_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
        }
    }

    #[test]
    fn idempotent_requests_retry_on_429_and_5xx_and_post_does_not() {
        script(&[(503, &[]), (429, &[("retry-after", "0")]), (200, &[])]);
        let response = run(&fast(), &request(Method::Get), scripted).unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(SEEN.with(|s| s.borrow().len()), 3);

        script(&[(503, &[]), (200, &[])]);
        let response = run(&fast(), &request(Method::Post), scripted).unwrap();
        assert_eq!(response.status(), 503, "POST is not retried");

        script(&[(500, &[]), (500, &[]), (500, &[]), (200, &[])]);
        let response = run(&fast(), &request(Method::Put), scripted).unwrap();
        assert_eq!(response.status(), 500, "gives up after the attempts");

        script(&[(429, &[("retry-after", "3600")]), (200, &[])]);
        let response = run(&fast(), &request(Method::Get), scripted).unwrap();
        assert_eq!(
            response.status(),
            429,
            "a Retry-After beyond the bound is not waited for"
        );
    }

    #[test]
    fn redirects_follow_the_rules_and_keep_credentials_on_their_host() {
        script(&[
            (307, &[("location", "/v2/items")]),
            (303, &[("location", "http://other.test/done")]),
            (200, &[]),
        ]);
        let response = run(&Retry::none(), &request(Method::Post), scripted).unwrap();
        assert_eq!(response.url(), "http://other.test/done");
        let seen = SEEN.with(|s| s.borrow().clone());
        assert_eq!(
            seen,
            [
                (Method::Post, "http://api.test/items".to_owned(), 2),
                (Method::Post, "http://api.test/v2/items".to_owned(), 2),
                (Method::Get, "http://other.test/done".to_owned(), 0),
            ]
        );
        let hop: (u16, &[(&str, &str)]) = (302, &[("location", "/loop")]);
        script(&[hop; 11]);
        let err = run(&Retry::none(), &request(Method::Get), scripted).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::TooManyRedirects);
    }

    #[test]
    fn backoff_doubles_up_to_the_bound() {
        let policy = Retry::default();
        assert_eq!(policy.backoff(1), Duration::from_millis(250));
        assert_eq!(policy.backoff(2), Duration::from_millis(500));
        assert_eq!(policy.backoff(40), Duration::from_secs(5));
    }
}
