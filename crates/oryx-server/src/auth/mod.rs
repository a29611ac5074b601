//! The credential check for every API request when the server runs with `--token`: the bearer
//! token, or the cookie of a session a login opened ([`logins`]); wrong credentials are
//! throttled per client address ([`throttle`]).

pub mod logins;
pub mod throttle;

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use subtle::ConstantTimeEq;

use super::envelope::rejection;
use super::AppState;

/// What a request's credentials are worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// Nothing was sent (not a guess: not throttled).
    None,
    Valid,
    Wrong,
}

/// The bearer token or the session cookie of `headers`, checked.
pub fn credential(state: &AppState, headers: &HeaderMap) -> Credential {
    let Some(expected) = state.token.as_deref() else {
        return Credential::Valid;
    };
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let session = super::compat::session_token(headers);
    if bearer.is_some_and(|b| bool::from(b.as_bytes().ct_eq(expected.as_bytes())))
        || session.as_deref().is_some_and(|s| state.logins.is_open(s))
    {
        Credential::Valid
    } else if bearer.is_none() && session.is_none() {
        Credential::None
    } else {
        Credential::Wrong
    }
}

/// The client's address, as the connection loop recorded it (absent in in-process tests).
pub fn peer(req_extensions: &axum::http::Extensions) -> Option<IpAddr> {
    req_extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
}

/// 429 with when to come back.
pub fn too_many(wait: Duration) -> Response {
    let mut r = rejection(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many wrong credentials from this address: try again in {} s",
            wait.as_secs().max(1)
        ),
    );
    r.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(wait.as_secs().max(1)),
    );
    r
}

pub async fn require_token(State(state): State<AppState>, req: Request, next: Next) -> Response {
    // The UI's static files hold no data; only the API needs the token.
    if state.token.is_none() || !req.uri().path().starts_with("/api/") {
        return next.run(req).await;
    }
    if super::compat::open_route(req.method(), req.uri().path()) {
        return next.run(req).await;
    }
    let peer = peer(req.extensions());
    if let Some(wait) = state.throttle.wait(peer) {
        return too_many(wait);
    }
    // The Java admin UI sends its login's cookie back, not a header.
    match credential(&state, req.headers()) {
        Credential::Valid => next.run(req).await,
        found => {
            if found == Credential::Wrong {
                state.throttle.failed(peer);
            }
            rejection(
                StatusCode::UNAUTHORIZED,
                "missing or wrong bearer token (Authorization: Bearer <token>)",
            )
        }
    }
}
