//! Bearer-token check for every request when the server runs with `--token`.

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use subtle::ConstantTimeEq;

use super::envelope::rejection;
use super::AppState;

pub async fn require_token(State(state): State<AppState>, req: Request, next: Next) -> Response {
    // The UI's static files hold no data; only the API needs the token.
    let Some(expected) = state
        .token
        .as_deref()
        .filter(|_| req.uri().path().starts_with("/api/"))
    else {
        return next.run(req).await;
    };
    if super::compat::open_route(req.method(), req.uri().path()) {
        return next.run(req).await;
    }
    // The Java admin UI sends the token back in the cookie its login set, not in a header.
    let cookie = super::compat::session_token(req.headers());
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .or(cookie.as_deref())
        .unwrap_or("");
    if bool::from(given.as_bytes().ct_eq(expected.as_bytes())) {
        next.run(req).await
    } else {
        rejection(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token (Authorization: Bearer <token>)",
        )
    }
}
