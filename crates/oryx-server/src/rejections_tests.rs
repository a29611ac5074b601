//! Every kind of request an extractor refuses (bad JSON, a missing field, a mistyped field, a
//! bad query string, a bad path segment, a missing content type) answers 400 `invalid_input` in
//! the envelope, on the registered operations, our resource routes and the runtime's routes.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use oryx_api::{Console, Overrides};
use serde_json::Value;
use tokio::sync::watch;
use tower::ServiceExt;

use crate::{events, host_guard, limits, router, AppState, Limits};

const HOST: &str = "127.0.0.1:7777";

struct App {
    router: Router,
    _dir: tempfile::TempDir,
    _stop: watch::Sender<bool>,
}

/// The whole application over the sample root, without a listener.
fn app() -> App {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    oryx_api::settings::create_sample_root(&root.to_string_lossy()).unwrap();
    let console = Console::open(
        Some(dir.path().join("settings.json")),
        Overrides {
            root: Some(root),
            ..Overrides::default()
        },
    )
    .unwrap();
    let console = Arc::new(console);
    let (stop, stopping) = watch::channel(false);
    let state = AppState {
        events: events::Hub::start(console.clone()),
        console,
        token: None,
        work: limits::WorkPermits::new(4, Duration::from_secs(5)),
        stopping,
        body_timeout: Duration::from_secs(10),
        logins: Default::default(),
        throttle: Default::default(),
        tls: false,
    };
    let limits = Limits {
        request: Duration::from_secs(30),
        header: Duration::from_secs(10),
        body: Duration::from_secs(10),
        shutdown_grace: Duration::from_secs(1),
        max_connections: 16,
        max_blocking: 4,
    };
    let addr: SocketAddr = HOST.parse().unwrap();
    App {
        router: router(
            state,
            None,
            host_guard::AllowedHosts::new(addr, &[]),
            &limits,
        ),
        _dir: dir,
        _stop: stop,
    }
}

async fn send(
    app: &App,
    method: Method,
    uri: &str,
    body: Option<(&str, &str)>,
) -> (StatusCode, Value) {
    let mut req = Request::builder()
        .method(method)
        .uri(uri)
        .header(header::HOST, HOST);
    let body = match body {
        Some((content_type, text)) => {
            if !content_type.is_empty() {
                req = req.header(header::CONTENT_TYPE, content_type);
            }
            Body::from(text.to_string())
        }
        None => Body::empty(),
    };
    let res = app
        .router
        .clone()
        .oneshot(req.body(body).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20)
        .await
        .unwrap();
    let json = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
        panic!(
            "{uri}: not an envelope ({e}): {}",
            String::from_utf8_lossy(&bytes)
        )
    });
    (status, json)
}

fn assert_invalid_input(what: &str, (status, body): (StatusCode, Value)) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {body}");
    assert_eq!(body["code"], 400, "{what}: {body}");
    assert_eq!(body["error_code"], "invalid_input", "{what}: {body}");
    assert!(body["data"].is_null(), "{what}: {body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{what}: {body}"
    );
}

const JSON: &str = "application/json";

#[tokio::test]
async fn bad_json_is_invalid_input_on_every_route_family() {
    let app = app();
    for (uri, body) in [
        ("/api/v1/console/append_memory", "{\"scope\": "),
        ("/api/v1/console/append_memory", "not json"),
        ("/api/v1/console/memory", "{\"scope\": "),
        ("/api/v1/console/memory/preview", "[1,"),
        ("/api/v1/auth/login", "{\"username\""),
    ] {
        assert_invalid_input(
            &format!("POST {uri} {body:?}"),
            send(&app, Method::POST, uri, Some((JSON, body))).await,
        );
    }
}

#[tokio::test]
async fn a_missing_field_is_invalid_input() {
    let app = app();
    for (uri, body) in [
        ("/api/v1/console/append_memory", r#"{"scope": "core"}"#),
        ("/api/v1/console/get_agent", "{}"),
        ("/api/v1/console/memory", r#"{"content": "x"}"#),
        ("/api/v1/console/memory/preview", "{}"),
        ("/api/v1/console/inspect-root", "{}"),
        ("/api/v1/auth/login", r#"{"username": "admin"}"#),
    ] {
        assert_invalid_input(
            &format!("POST {uri} {body}"),
            send(&app, Method::POST, uri, Some((JSON, body))).await,
        );
    }
}

#[tokio::test]
async fn a_field_of_the_wrong_type_is_invalid_input() {
    let app = app();
    for (uri, body) in [
        (
            "/api/v1/console/append_memory",
            r#"{"scope": "core", "content": 5}"#,
        ),
        ("/api/v1/console/archival_page", r#"{"limit": "many"}"#),
        ("/api/v1/console/get_agent", r#"{"name": ["a"]}"#),
        ("/api/v1/console/memory", r#"{"scope": 1, "content": "x"}"#),
        (
            "/api/v1/console/migrate",
            r#"{"from": "paper", "to": "sqlite"}"#,
        ),
        ("/api/v1/auth/login", r#"{"username": 1, "password": 2}"#),
    ] {
        assert_invalid_input(
            &format!("POST {uri} {body}"),
            send(&app, Method::POST, uri, Some((JSON, body))).await,
        );
    }
}

#[tokio::test]
async fn a_bad_query_string_is_invalid_input() {
    let app = app();
    for uri in [
        "/api/v1/console/memory/archival?limit=abc",
        "/api/v1/console/memory/archival?newest_first=perhaps",
        "/api/v1/console/memory/recall",
        "/api/v1/console/prompt",
        "/api/v1/console/sessions?limit=-1",
        "/api/v1/console/tool-invocations?offset=x",
        "/api/v1/workspace/file",
        "/api/v1/sessions?status=paused",
    ] {
        assert_invalid_input(
            &format!("GET {uri}"),
            send(&app, Method::GET, uri, None).await,
        );
    }
}

#[tokio::test]
async fn a_path_segment_that_is_not_utf8_is_invalid_input() {
    let app = app();
    for uri in [
        "/api/v1/console/agents/%FF",
        "/api/v1/console/sessions/%C3%28",
        "/api/v1/agents/%FF",
        "/api/v1/agents/%FF/memory",
        "/api/v1/sessions/%FF",
    ] {
        assert_invalid_input(
            &format!("GET {uri}"),
            send(&app, Method::GET, uri, None).await,
        );
    }
}

#[tokio::test]
async fn a_json_body_without_its_content_type_is_invalid_input() {
    let app = app();
    for (uri, content_type) in [
        ("/api/v1/console/memory", ""),
        ("/api/v1/console/memory/preview", "text/plain"),
        ("/api/v1/auth/login", "text/plain"),
    ] {
        assert_invalid_input(
            &format!("POST {uri} as {content_type:?}"),
            send(
                &app,
                Method::POST,
                uri,
                Some((content_type, r#"{"content": "x", "scope": "core"}"#)),
            )
            .await,
        );
    }
}

#[tokio::test]
async fn errors_the_server_raises_itself_carry_a_code_too() {
    let app = app();
    let (status, body) = send(&app, Method::GET, "/api/v1/no-such-route", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error_code"], "invalid_input", "{body}");
    let (status, body) = send(&app, Method::DELETE, "/api/v1/console/agents", None).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{body}");
    assert_eq!(body["error_code"], "invalid_input", "{body}");
    let big = format!(r#"{{"content": "{}"}}"#, "x".repeat(crate::BODY_LIMIT + 1));
    for uri in [
        "/api/v1/console/memory/preview",
        "/api/v1/console/preview_entry",
    ] {
        let (status, body) = send(&app, Method::POST, uri, Some((JSON, &big))).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{uri}: {body}");
        assert_eq!(body["error_code"], "invalid_input", "{uri}: {body}");
    }
}
