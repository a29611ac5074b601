//! The token: with `--token`, every API request needs exactly `Authorization: Bearer TOKEN`.
//! Anything else (no header, another scheme or case, a token one character off or one longer,
//! the token in a query string or cookie) is a 401 in the envelope that never echoes it, and
//! after ten wrong tokens from one address, a 429.

use crate::common::hostile_root::Env;
use crate::common::raw_http::{assert_error_envelope, assert_refused, get, raw};
use crate::common::serve_hostile as start;

#[test]
fn the_token_is_required_exactly() {
    let env = Env::new();
    let token = "s3cret-token-0123456789";
    let s = start(&env, &["--token", token]);
    let same_len_wrong: String = token
        .chars()
        .enumerate()
        .map(|(i, c)| if i == token.len() - 1 { 'X' } else { c })
        .collect();
    assert_eq!(same_len_wrong.len(), token.len());
    let bad_headers: Vec<Vec<(&str, String)>> = vec![
        vec![],
        vec![("Authorization", String::new())],
        vec![("Authorization", "Bearer".into())],
        vec![("Authorization", "Bearer ".into())],
        vec![("Authorization", format!("Bearer {same_len_wrong}"))],
        vec![(
            "Authorization",
            format!("Bearer {}", &token[..token.len() - 1]),
        )],
        vec![("Authorization", format!("Bearer {token}x"))],
        vec![("Authorization", format!("Bearer {}", token.to_uppercase()))],
        vec![("Authorization", format!("bearer {token}"))],
        vec![("Authorization", format!("Basic {token}"))],
        vec![("Authorization", token.to_string())],
        vec![("Authorization", format!("Bearer  {token}"))],
        vec![("X-API-Key", token.to_string())],
        vec![("Cookie", format!("token={token}"))],
    ];
    let targets = [
        ("GET", "/api/v1/agents"),
        ("GET", "/api/v1/auth/me"),
        ("GET", "/api/v1/console/memory?agent=assistant"),
        ("GET", "/api/v1/console/settings"),
        ("GET", "/api/v1/console/events"),
        ("GET", "/api/v1/openapi.json"),
        ("GET", "/api/v1/no/such/route"),
        ("POST", "/api/v1/console/memory"),
        ("PUT", "/api/v1/console/settings"),
        ("POST", "/api/v1/console/sample-root"),
    ];
    // The right token first: once wrong ones have held this address, nothing is looked at.
    let r = raw(
        &s,
        "GET",
        "/api/v1/agents",
        &[("Authorization", &format!("Bearer {token}"))],
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // The right token with a traversal payload is still refused.
    let r = raw(
        &s,
        "GET",
        "/api/v1/agents/%2e%2e/memory",
        &[("Authorization", &format!("Bearer {token}"))],
        None,
    );
    assert_refused(&r, &["invalid_agent_name"], "authorised traversal");
    // Also through a query string: tokens are headers only.
    let r = get(
        &s,
        &format!("/api/v1/agents?token={token}&access_token={token}"),
    );
    assert_eq!(r.status, 401);
    // Every form refused: 401 while the address has guesses left (a request without a bearer
    // token or session cookie is not a guess), 429 once ten wrong ones were sent.
    let mut tried = 0;
    let mut wrong = 0;
    for (method, target) in targets {
        for h in &bad_headers {
            let hs: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let body = (method != "GET").then_some(&b"{}"[..]);
            let mut hs2 = hs.clone();
            if body.is_some() {
                hs2.push(("Content-Type", "application/json"));
            }
            let r = raw(&s, method, target, &hs2, body);
            let held = wrong >= 10;
            let v = assert_error_envelope(&r, target);
            let message = v["message"].as_str().unwrap();
            if held {
                assert_eq!(r.status, 429, "{method} {target} with {h:?}: {}", r.text());
                assert!(message.contains("too many wrong credentials"), "{message}");
            } else {
                assert_eq!(r.status, 401, "{method} {target} with {h:?}: {}", r.text());
                assert!(message.contains("bearer token"), "{message}");
            }
            assert!(!r.text().contains(token), "the token is never echoed");
            // (HTTP drops a header value's trailing spaces: "Bearer " arrives as "Bearer".)
            let bearer = |v: &String| v.trim_end().starts_with("Bearer ");
            if h.iter().any(|(k, v)| *k == "Authorization" && bearer(v)) {
                wrong += 1;
            }
            tried += 1;
        }
    }
    assert!(wrong > 10, "{wrong}");
    eprintln!("token: {tried} unauthorised requests refused");
}
