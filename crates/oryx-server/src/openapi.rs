//! `/api/v1/openapi.json`: the routes, their parameters and the envelope, built from the same
//! table the router registers.

use axum::Json;
use serde_json::{json, Map, Value};

use super::compat::ROUTES as COMPAT;
use super::routes::ROUTES;
use super::transfer::ROUTES as TRANSFER;

fn query_params(path: &str) -> Vec<(&'static str, bool)> {
    match path {
        "/api/v1/console/memory"
        | "/api/v1/console/memory/context"
        | "/api/v1/console/memory/overview" => vec![("agent", false)],
        "/api/v1/console/memory/archival" => vec![
            ("agent", false),
            ("offset", false),
            ("limit", false),
            ("newest_first", false),
            ("keyword", false),
        ],
        "/api/v1/console/memory/recall" => vec![("agent", false), ("keyword", true)],
        "/api/v1/console/sessions" => vec![
            ("agent", false),
            ("status", false),
            ("channel", false),
            ("search", false),
            ("limit", false),
            ("offset", false),
        ],
        "/api/v1/console/tool-invocations" => {
            vec![("session_id", false), ("limit", false), ("offset", false)]
        }
        "/api/v1/console/prompt" => vec![("agent", true), ("session_id", false)],
        "/api/v1/sessions" => vec![("status", false)],
        "/api/v1/workspace/file" => vec![("path", true)],
        _ => Vec::new(),
    }
}

fn operation(method: &str, path: &str, summary: &str) -> Value {
    let mut params: Vec<Value> = path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    for (name, required) in query_params(path) {
        params.push(json!({"name": name, "in": "query", "required": required, "schema": {"type": "string"}}));
    }
    let mut op = json!({
        "summary": summary,
        "parameters": params,
        "responses": {
            "200": {"description": "success", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}},
            "400": {"$ref": "#/components/responses/Error"},
            "403": {"description": "Host does not name this server, or a write from a foreign Origin", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}},
            "404": {"$ref": "#/components/responses/Error"},
            "409": {"$ref": "#/components/responses/Error"},
            "500": {"$ref": "#/components/responses/Error"},
            "503": {"$ref": "#/components/responses/Error"}
        }
    });
    if !super::limits::untimed(path) {
        op["responses"]["504"] = json!({"description": "not answered within the server's --request-timeout", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}});
    }
    if path == "/api/v1/console/events" {
        op["responses"]["200"] = json!({"description": "text/event-stream: change events as unnamed `data: {kind, agent}` lines; migration progress as `event: migration` with `data: {owner, done, total}`", "content": {"text/event-stream": {"schema": {"type": "string"}}}});
    }
    if path == "/api/v1/console/migrate/cancel" {
        return op;
    }
    if method != "get" {
        op["requestBody"] = json!({"required": true, "content": {"application/json": {"schema": {"type": "object"}}}});
        op["responses"]["408"] = json!({"$ref": "#/components/responses/Error"});
        op["responses"]["413"] = json!({"$ref": "#/components/responses/Error"});
    }
    op
}

pub async fn document() -> Json<Value> {
    let mut paths = Map::new();
    for (method, path, summary) in COMPAT.iter().chain(ROUTES.iter()).chain(TRANSFER.iter()) {
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        entry[*method] = operation(method, path, summary);
    }
    paths.extend(super::ops::openapi_paths());
    paths.extend(super::embeddings::openapi_paths());
    Json(json!({
        "openapi": "3.0.3",
        "info": {"title": "OryxOS Memory Console", "version": env!("CARGO_PKG_VERSION")},
        "paths": paths,
        "components": {
            "schemas": {
                "Envelope": {
                    "type": "object",
                    "required": ["code", "message", "timestamp"],
                    "properties": {
                        "code": {"type": "integer", "description": "0 on success, else the HTTP status"},
                        "message": {"type": "string"},
                        "data": {"nullable": true},
                        "timestamp": {"type": "integer", "description": "epoch milliseconds"}
                    }
                }
            },
            "responses": {
                "Error": {"description": "error envelope (data null)", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}}
            },
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}
        }
    }))
}
