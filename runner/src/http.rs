//! HTTP hooks (Claude Code's `type: "http"`): the event's JSON is POSTed
//! with `Content-Type: application/json`, and a 2xx response body is read
//! like a command's stdout. Anything else (another status, no connection,
//! no answer in time) is a failure, which the failure policy turns into a
//! warning or, under `closed`, a block.
//!
//! No proxy from the environment is used and no redirect is followed: a
//! variable or a 3xx answer must not send the event, or take the verdict,
//! from somewhere the settings did not name.

use std::time::Duration;

use hookshot_core::{Captured, Failure, FailureKind};

use crate::RunEnv;

/// `$NAME` and `${NAME}` in `value`, replaced by the variable's value when
/// `allowed` lists it, else by nothing (as Claude Code does).
pub fn interpolate(value: &str, allowed: &[String], env: &RunEnv) -> String {
    hookshot_core::subst::dollar(value, |name| {
        Some(if allowed.iter().any(|a| a == name) {
            env.var(name).unwrap_or_default()
        } else {
            String::new()
        })
    })
}

/// What the request came to.
#[derive(Debug)]
pub enum Answer {
    /// A 2xx response: its body, as a command's captured stdout.
    Body(Captured),
    /// Why there is no usable answer.
    Failed(Failure),
}

/// The one client every `http` hook of this process shares: its
/// connections are pooled, so a session's later requests to the same
/// server (in `serve`, the warm server, `replay`) skip the TCP and TLS
/// handshakes. Each request carries its own deadline.
#[cfg(feature = "http")]
fn agent() -> &'static ureq::Agent {
    static AGENT: std::sync::OnceLock<ureq::Agent> = std::sync::OnceLock::new();
    AGENT.get_or_init(|| {
        hookshot_platform::name_services::pin();
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .build()
            .into()
    })
}

/// Without the `http` feature there is no HTTP client: the hook fails
/// with that reason (a warning, or a block under the closed policy).
#[cfg(not(feature = "http"))]
pub fn post(url: &str, _headers: &[(String, String)], _body: &[u8], _limit: Duration, _cap: usize) -> Answer {
    Answer::Failed(Failure::new(
        FailureKind::Spawn,
        format!("would POST to {url}, but this hookshot was built without HTTP support (the `http` feature)"),
    ))
}

/// POSTs `body` to `url` with `headers`, within `limit`, keeping at most
/// `cap` bytes of the response.
#[cfg(feature = "http")]
pub fn post(url: &str, headers: &[(String, String)], body: &[u8], limit: Duration, cap: usize) -> Answer {
    use hookshot_core::Exit;
    let start = std::time::Instant::now();
    let mut request = agent()
        .post(url)
        .config()
        .timeout_global(Some(limit.max(Duration::from_millis(1))))
        .build()
        .header("Content-Type", "application/json");
    for (k, v) in headers {
        request = request.header(k, v);
    }
    let failed = |kind, why: String| Answer::Failed(Failure::new(kind, why));
    let mut response = match request.send(body) {
        Ok(r) => r,
        Err(ureq::Error::Timeout(_)) => {
            return failed(
                FailureKind::Timeout,
                format!("got no answer from {url} within {:.3}s", limit.as_secs_f64()),
            );
        }
        Err(e) => return failed(FailureKind::Spawn, format!("could not POST to {url}: {e}")),
    };
    let status = response.status().as_u16();
    let text = match response.body_mut().with_config().limit(cap as u64).read_to_string() {
        Ok(t) => t,
        Err(ureq::Error::Timeout(_)) => {
            return failed(
                FailureKind::Timeout,
                format!("{url} did not finish its answer within {:.3}s", limit.as_secs_f64()),
            );
        }
        Err(e) => {
            return failed(
                FailureKind::Protocol,
                format!("{url} answered HTTP {status} with a body that could not be read: {e}"),
            );
        }
    };
    if !(200..300).contains(&status) {
        let excerpt: String = text.chars().take(200).collect();
        return failed(
            FailureKind::Protocol,
            format!("{url} answered HTTP {status}: {}", excerpt.trim()),
        );
    }
    Answer::Body(Captured {
        exit: Exit {
            code: Some(0),
            ..Exit::default()
        },
        stdout: text,
        duration: start.elapsed(),
        limit: Some(limit),
        ..Captured::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_variables_are_interpolated() {
        let env = RunEnv {
            cwd: ".".into(),
            vars: vec![("TOKEN".into(), "t0k".into()), ("SECRET".into(), "s3c".into())],
            ..RunEnv::default()
        };
        let allowed = vec!["TOKEN".to_string()];
        assert_eq!(interpolate("Bearer $TOKEN", &allowed, &env), "Bearer t0k");
        assert_eq!(interpolate("Bearer ${TOKEN}!", &allowed, &env), "Bearer t0k!");
        assert_eq!(interpolate("x $SECRET y", &allowed, &env), "x  y");
        assert_eq!(interpolate("cost $5 and $", &allowed, &env), "cost  and $");
        assert_eq!(interpolate("${unclosed", &allowed, &env), "${unclosed");
    }
}
