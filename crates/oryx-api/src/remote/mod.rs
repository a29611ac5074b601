//! A remote console: the OryxOS runtime usually runs on a server, so the
//! desktop can open the console `oryx serve` serves there. Every operation goes over the same
//! REST routes the browser uses; the desktop only decides where its calls go. The token never
//! reaches the page and never crosses a network in clear text (https, or http to this machine).

mod client;
mod http;
mod pin;
mod servers;

use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

pub use client::{RemoteConsole, RemoteEvent, RemoteTarget, ServerUrl};
pub use pin::{fingerprint, normalise_fingerprint};
pub use servers::{RememberedServer, ServerList};

use crate::error::{ApiError, ApiResult, ErrorCode};

/// What a server at an address is, learnt without sending any token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ServerProbeDto {
    /// The address as it will be remembered (`https://host:port`).
    pub url: String,
    pub host: String,
    pub https: bool,
    /// SHA-256 of the server's certificate (https only), to compare with what `oryx serve`
    /// printed when it started.
    pub fingerprint: Option<String>,
    /// An authority this computer trusts vouches for the certificate (no fingerprint to check).
    pub trusted: bool,
    /// The server asks for a token.
    pub needs_token: bool,
}

/// Where a connection should go.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ConnectRequest {
    pub url: String,
    /// Empty: the token remembered for this server, if any.
    #[serde(default)]
    pub token: Option<String>,
    /// The certificate fingerprint the person checked (needed when no authority vouches for it).
    #[serde(default)]
    pub fingerprint: Option<String>,
    /// Remember the server (and keep the token in the system's keyring).
    #[serde(default)]
    pub remember: bool,
}

/// The remote console being shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RemoteInfoDto {
    pub url: String,
    pub host: String,
    /// The `.oryxos` root the server's console shows (a path on that machine).
    pub root: String,
    pub backend: String,
    pub fingerprint: Option<String>,
}

/// A server the desktop remembers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct RememberedServerDto {
    pub url: String,
    pub host: String,
    pub fingerprint: Option<String>,
    /// A token for it is in the system's keyring.
    pub has_token: bool,
    /// When the desktop last connected (RFC 3339).
    pub last_connected: Option<String>,
}

/// Which console the desktop shows, and the servers it remembers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct ConnectionDto {
    /// `None`: the console on this computer.
    pub remote: Option<RemoteInfoDto>,
    pub servers: Vec<RememberedServerDto>,
    /// Where remembered tokens are kept (said in Settings), e.g. "Secret Service".
    pub token_store: String,
}

/// Learns what the server at `url` is: whether it is reachable and an `oryx serve`, whether it
/// needs a token, and which certificate it shows. Sends no token.
pub fn probe(url: &str) -> ApiResult<ServerProbeDto> {
    let url = ServerUrl::parse(url)?;
    let agents = format!("{}/api/v1/console/agents", url.as_str());
    let (res, fingerprint, trusted) = if url.is_https() {
        // Recording, not checking: this request carries nothing secret.
        let (capturing, seen) = pin::client(None, Some(std::time::Duration::from_secs(15)))?;
        let res = capturing
            .get(&agents)
            .send()
            .map_err(|e| probe_error(&url, &e))?;
        let fp = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let trusted = http::builder(Some(std::time::Duration::from_secs(15)))
            .build()
            .ok()
            .is_some_and(|c| c.get(&agents).send().is_ok());
        (res, fp, trusted)
    } else {
        let plain = http::builder(Some(std::time::Duration::from_secs(15)))
            .build()
            .map_err(|e| ApiError::internal(e.to_string()))?;
        let res = plain
            .get(&agents)
            .send()
            .map_err(|e| probe_error(&url, &e))?;
        (res, None, false)
    };
    let status = res.status().as_u16();
    let body = client::read_prefix(res, 64 * 1024);
    let is_envelope = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .is_some_and(|v| v.get("code").is_some() && v.get("message").is_some());
    if !is_envelope {
        return Err(ApiError::new(
            ErrorCode::BackendUnavailable,
            format!(
                "{} answered HTTP {status}, but not as `oryx serve` does: is this the console's address?",
                url.host()
            ),
        ));
    }
    Ok(ServerProbeDto {
        url: url.as_str().to_string(),
        host: url.host(),
        https: url.is_https(),
        fingerprint,
        trusted,
        needs_token: status == 401,
    })
}

fn probe_error(url: &ServerUrl, e: &reqwest::Error) -> ApiError {
    let detail = client::innermost(e);
    let hint = if url.is_https() && detail.to_ascii_lowercase().contains("record") {
        " (is it serving plain http? Start it with --tls-cert/--tls-key, or use http:// on this machine)"
    } else {
        ""
    };
    ApiError::new(
        ErrorCode::BackendUnavailable,
        format!("cannot reach {}: {detail}{hint}", url.host()),
    )
}

/// Opens a remote console: checks the address, the certificate and the token by asking for its
/// settings, and answers what the banner shows.
pub fn connect(target: RemoteTarget) -> ApiResult<(RemoteConsole, RemoteInfoDto)> {
    // Without a fingerprint, https takes only an authority's word for the certificate.
    let remote = RemoteConsole::new(target)?;
    let settings: serde_json::Value = remote.call_json("get_settings", serde_json::json!({}))?;
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    let effective = &settings["effective"];
    let root = text(&effective["root"])
        .or_else(|| text(&settings["settings"]["root"]))
        .unwrap_or_default();
    let backend = text(&effective["backend"]).unwrap_or_default();
    let t = remote.target();
    let info = RemoteInfoDto {
        url: t.url.as_str().to_string(),
        host: t.url.host(),
        root,
        backend,
        fingerprint: t.fingerprint.clone(),
    };
    Ok((remote, info))
}

/// Now, as remembered for "last connected" (RFC 3339, UTC).
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
