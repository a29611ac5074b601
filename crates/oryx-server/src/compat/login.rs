//! The admin UI's login: it posts `{username, password}` and then relies on the `oryxos_session`
//! cookie, never on a bearer header. With `--token`, the token is the password; the cookie
//! carries a session id the login opened (never the token), which logout closes.

use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{AppendHeaders, IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::{AppState, HttpError, Reply};

const SESSION_COOKIE: &str = "oryxos_session";
/// Who logged in, for `/auth/me` to echo; not a credential.
const USER_COOKIE: &str = "oryxos_user";
/// The name `/auth/me` shows for a bearer-token client.
const TOKEN_USER: &str = "token";

/// Logging in and out needs no credential, nor `info`, which the admin UI loads before its login
/// page and never retries (it answers the providers only to a logged-in caller). Every other
/// route keeps the token check.
pub fn open_route(method: &Method, path: &str) -> bool {
    match *method {
        Method::POST => matches!(path, "/api/v1/auth/login" | "/api/v1/auth/logout"),
        Method::GET => path == "/api/v1/info",
        _ => false,
    }
}

/// Whether a request on an open route carries the credential the token check would accept.
pub fn authenticated(state: &AppState, headers: &HeaderMap) -> bool {
    crate::auth::credential(state, headers) == crate::auth::Credential::Valid
}

/// The session id the admin UI's cookie carries, if any.
pub fn session_token(headers: &HeaderMap) -> Option<String> {
    cookie(headers, SESSION_COOKIE)
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .and_then(|(_, v)| decode(v))
}

/// Cookie values cannot hold `;`, `,`, spaces or quotes, and a token may: percent-encode.
fn encode(v: &str) -> String {
    v.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn decode(v: &str) -> Option<String> {
    let b = v.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `Secure` when served over TLS: the browser then never sends the cookie in clear.
fn set_cookie(name: &str, value: &str, max_age: Option<u64>, tls: bool) -> String {
    let age = max_age
        .map(|a| format!("; Max-Age={a}"))
        .unwrap_or_default();
    let secure = if tls { "; Secure" } else { "" };
    format!("{name}={value}; Path=/; HttpOnly; SameSite=Strict{age}{secure}")
}

/// The client's address when the connection loop recorded one (in-process tests have none).
pub struct ConnectInfoOpt(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ConnectInfoOpt {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(ConnectInfoOpt(crate::auth::peer(&parts.extensions)))
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthMe {
    authentication_enabled: bool,
    username: Option<String>,
}

/// The admin UI asks this first. With `--token` the middleware has already checked the
/// credential (header or cookie), so reaching here means logged in.
pub async fn me(State(s): State<AppState>, headers: HeaderMap) -> Reply<AuthMe> {
    Reply(Ok(AuthMe {
        authentication_enabled: s.token.is_some(),
        username: s.token.as_ref().map(|_| {
            cookie(&headers, USER_COOKIE)
                .filter(|u| session_token(&headers).is_some() && !u.is_empty())
                .unwrap_or_else(|| TOKEN_USER.to_string())
        }),
    }))
}

#[derive(Deserialize)]
pub struct LoginRequest {
    username: Option<String>,
    password: Option<String>,
}

/// Any user name is accepted (the console has no accounts); the password must be the token.
pub async fn login(
    State(s): State<AppState>,
    ConnectInfoOpt(peer): ConnectInfoOpt,
    body: Result<Json<LoginRequest>, JsonRejection>,
) -> Response {
    let Ok(Json(req)) = body else {
        return HttpError::bad_request("username and password are required").into_response();
    };
    let (Some(user), Some(password)) = (
        req.username.filter(|u| !u.trim().is_empty()),
        req.password.filter(|p| !p.is_empty()),
    ) else {
        return HttpError::bad_request("username and password are required").into_response();
    };
    let user = user.trim().to_string();
    let Some(token) = s.token.as_deref() else {
        // Nothing to log in to: the UI goes straight to its screens.
        return Reply(Ok(AuthMe {
            authentication_enabled: false,
            username: Some(user),
        }))
        .into_response();
    };
    if let Some(wait) = s.throttle.wait(peer) {
        return crate::auth::too_many(wait);
    }
    if !bool::from(password.as_bytes().ct_eq(token.as_bytes())) {
        s.throttle.failed(peer);
        return HttpError::new(StatusCode::UNAUTHORIZED, "Invalid username or password")
            .into_response();
    }
    let age = Some(crate::auth::logins::LIFETIME.as_secs());
    (
        AppendHeaders([
            (
                header::SET_COOKIE,
                set_cookie(SESSION_COOKIE, &s.logins.open(), age, s.tls),
            ),
            (
                header::SET_COOKIE,
                set_cookie(USER_COOKIE, &encode(&user), age, s.tls),
            ),
        ]),
        Reply(Ok(AuthMe {
            authentication_enabled: true,
            username: Some(user),
        })),
    )
        .into_response()
}

/// Closes the cookie's session (the id stops working everywhere, copies included) and clears
/// the cookies; answers success with or without a session, as the runtime does.
pub async fn logout(State(s): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(id) = session_token(&headers) {
        s.logins.close(&id);
    }
    (
        AppendHeaders([
            (
                header::SET_COOKIE,
                set_cookie(SESSION_COOKIE, "", Some(0), s.tls),
            ),
            (
                header::SET_COOKIE,
                set_cookie(USER_COOKIE, "", Some(0), s.tls),
            ),
        ]),
        Reply(Ok(())),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookie_values_round_trip_any_token() {
        for t in ["plain-token_1.2~", "a;b c,d\"e", "密码%41"] {
            let mut h = HeaderMap::new();
            let v = format!("other=1; {SESSION_COOKIE}={}; x=y", encode(t));
            h.insert(header::COOKIE, v.parse().unwrap());
            assert_eq!(session_token(&h).as_deref(), Some(t), "{v}");
        }
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            "token=abc; oryxos_session_x=abc".parse().unwrap(),
        );
        assert_eq!(session_token(&h), None);
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("%4"), None);
    }
}
