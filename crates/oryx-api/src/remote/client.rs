//! A console served by `oryx serve` on another machine, spoken to the way the browser does: every
//! operation is `POST /api/v1/console/<op>` with its JSON arguments and the bearer token, the
//! answer is the CONTRACT §10 envelope, change events come over `GET /api/v1/console/events`.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::Url;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use super::http::builder;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::migrate::{MigrateRequest, MigrationProgress, MigrationReport};
use crate::transfer::UploadDto;

/// Ordinary operations; a server's own limit (30 s by default) answers well before this.
const OP_TIMEOUT: Duration = Duration::from_secs(300);

/// Where a remote console is: `scheme://host[:port]`, nothing after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerUrl(Url);

impl ServerUrl {
    /// Reads what a person typed: `https://host:8443`, `host:8443` (https assumed), a pasted UI
    /// address with a path or `?token=` (dropped). Plain `http://` is refused unless the server is
    /// on this machine: the token would cross the network in clear text.
    pub fn parse(text: &str) -> ApiResult<ServerUrl> {
        let text = text.trim();
        if text.is_empty() {
            return Err(ApiError::invalid("the server's address is empty"));
        }
        let with_scheme = if text.contains("://") {
            text.to_string()
        } else {
            format!("https://{text}")
        };
        let mut url = Url::parse(&with_scheme)
            .map_err(|e| ApiError::invalid(format!("{text:?} is not a server address: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ApiError::invalid(format!(
                "{text:?}: only https:// (or http:// to this machine) can reach `oryx serve`"
            )));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(ApiError::invalid(format!("{text:?} names no host")));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(ApiError::invalid(
                "put the token in its own field, not in the address",
            ));
        }
        url.set_path("");
        url.set_query(None);
        url.set_fragment(None);
        let parsed = ServerUrl(url);
        if parsed.0.scheme() == "http" && !parsed.is_loopback() {
            return Err(ApiError::invalid(format!(
                "http://{} would send the token across the network in clear text: start the server with --tls-cert/--tls-key and use https://",
                parsed.host()
            )));
        }
        Ok(parsed)
    }

    /// `https://host:port`, as remembered and shown.
    pub fn as_str(&self) -> &str {
        self.0.as_str().trim_end_matches('/')
    }

    /// `host:port` (the port when not the scheme's default), for the banner.
    pub fn host(&self) -> String {
        let host = self.0.host_str().unwrap_or_default();
        match self.0.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        }
    }

    pub fn is_https(&self) -> bool {
        self.0.scheme() == "https"
    }

    fn is_loopback(&self) -> bool {
        match self.0.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        }
    }

    fn api(&self, path: &str) -> String {
        format!("{}/api/v1/console/{path}", self.as_str())
    }
}

/// How a remote console is reached: its address, its token (when the server has one), and the
/// fingerprint of the certificate trusted for it (when no authority vouches for it).
#[derive(Clone)]
pub struct RemoteTarget {
    pub url: ServerUrl,
    pub token: Option<String>,
    pub fingerprint: Option<String>,
}

impl std::fmt::Debug for RemoteTarget {
    // The token stays out of logs and panic messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteTarget")
            .field("url", &self.url.as_str())
            .field("token", &self.token.as_ref().map(|_| "…"))
            .field("fingerprint", &self.fingerprint)
            .finish()
    }
}

#[derive(Deserialize)]
struct Envelope {
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Value,
    #[serde(default)]
    error_code: Option<ErrorCode>,
}

/// One remote console. Cheap to clone (the HTTP clients are shared).
#[derive(Clone)]
pub struct RemoteConsole {
    target: Arc<RemoteTarget>,
    client: Client,
    /// For answers that take as long as their work (migrate, an archive up or down, events).
    untimed: Client,
}

impl RemoteConsole {
    /// A client for `target`; talks to the server only when used.
    pub fn new(target: RemoteTarget) -> ApiResult<RemoteConsole> {
        let (client, untimed) = match (&target.fingerprint, target.url.is_https()) {
            (Some(fp), true) => (
                super::pin::client(Some(fp.clone()), Some(OP_TIMEOUT))?.0,
                super::pin::client(Some(fp.clone()), None)?.0,
            ),
            _ => (
                builder(Some(OP_TIMEOUT)).build().map_err(setup_error)?,
                builder(None).build().map_err(setup_error)?,
            ),
        };
        Ok(RemoteConsole {
            target: Arc::new(target),
            client,
            untimed,
        })
    }

    pub fn target(&self) -> &RemoteTarget {
        &self.target
    }

    fn authorised(&self, req: RequestBuilder) -> RequestBuilder {
        match &self.target.token {
            Some(t) => req.bearer_auth(t),
            None => req,
        }
    }

    fn send(&self, req: RequestBuilder) -> ApiResult<Response> {
        self.authorised(req)
            .send()
            .map_err(|e| transport_error(&self.target.url, &e))
    }

    /// Runs a registered operation on the remote console.
    pub fn call_json(&self, op: &str, args: Value) -> ApiResult<Value> {
        if op.is_empty() || !op.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            return Err(ApiError::invalid(format!(
                "no console operation called {op:?}"
            )));
        }
        let res = self.send(self.client.post(self.target.url.api(op)).json(&args))?;
        self.data(res)
    }

    /// Like [`call_json`](Self::call_json), typed.
    pub fn call<T: DeserializeOwned>(&self, op: &str, args: Value) -> ApiResult<T> {
        let value = self.call_json(op, args)?;
        serde_json::from_value(value).map_err(|e| self.unexpected(op, e))
    }

    fn unexpected(&self, what: &str, e: impl std::fmt::Display) -> ApiError {
        ApiError::new(
            ErrorCode::BackendUnavailable,
            format!(
                "{} answered {what} in a form this console does not know ({e}): is it the same version?",
                self.target.url.host()
            ),
        )
    }

    /// The envelope's data, or its error as the server's own code and message.
    fn data(&self, res: Response) -> ApiResult<Value> {
        let status = res.status();
        let text = res
            .text()
            .map_err(|e| transport_error(&self.target.url, &e))?;
        let env: Envelope = serde_json::from_str(&text).map_err(|_| {
            ApiError::new(
                ErrorCode::BackendUnavailable,
                format!(
                    "{} answered HTTP {} without the console's JSON envelope: is `oryx serve` running there?",
                    self.target.url.host(),
                    status.as_u16()
                ),
            )
        })?;
        if status.is_success() && env.code == 0 {
            return Ok(env.data);
        }
        let code = env.error_code.unwrap_or(match status.as_u16() {
            401 => ErrorCode::Unauthorized,
            403 => ErrorCode::InvalidInput,
            404 => ErrorCode::NotFound,
            409 => ErrorCode::Conflict,
            503 => ErrorCode::BackendUnavailable,
            504 => ErrorCode::Timeout,
            400 | 413 | 422 => ErrorCode::InvalidInput,
            _ => ErrorCode::Internal,
        });
        let message = if status.as_u16() == 401 {
            format!(
                "{} refused the token{}: {}",
                self.target.url.host(),
                if self.target.token.is_none() {
                    " (none was given)"
                } else {
                    ""
                },
                env.message
            )
        } else {
            env.message
        };
        Err(ApiError::new(code, message))
    }

    /// Copies (or counts) entries on the remote console; progress comes over its event stream.
    pub fn migrate(
        &self,
        req: &MigrateRequest,
        on_progress: &mut (dyn FnMut(MigrationProgress) + Send),
    ) -> ApiResult<MigrationReport> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel::<MigrationProgress>();
        let (subscribed_tx, subscribed_rx) = std::sync::mpsc::channel::<()>();
        let events = {
            let me = self.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut subscribed = Some(subscribed_tx);
                me.follow_events(&stop, &mut |event| match event {
                    RemoteEvent::Subscribed => {
                        if let Some(s) = subscribed.take() {
                            let _ = s.send(());
                        }
                    }
                    RemoteEvent::Migration(p) => {
                        let _ = tx.send(p);
                    }
                    RemoteEvent::Change(_) => {}
                })
            })
        };
        // Progress of a short run could come before the stream is open: wait for it a little.
        let _ = subscribed_rx.recv_timeout(Duration::from_secs(5));
        let request = {
            let me = self.clone();
            let body = serde_json::to_value(req).map_err(|e| ApiError::internal(e.to_string()))?;
            std::thread::spawn(move || {
                let res = me.send(me.untimed.post(me.target.url.api("migrate")).json(&body))?;
                me.data(res)
            })
        };
        while !request.is_finished() {
            if let Ok(p) = rx.recv_timeout(Duration::from_millis(50)) {
                on_progress(p);
            }
        }
        while let Ok(p) = rx.try_recv() {
            on_progress(p);
        }
        stop.store(true, Ordering::Relaxed);
        drop(events);
        let value = request
            .join()
            .map_err(|_| ApiError::internal("the migration request failed"))??;
        serde_json::from_value(value).map_err(|e| self.unexpected("the migration", e))
    }

    /// Stops the remote console's running migration (nothing to do when none runs).
    pub fn cancel_migration(&self) -> ApiResult<()> {
        let res = self.send(self.client.post(self.target.url.api("migrate/cancel")))?;
        match self.data(res) {
            Err(e) if e.code == ErrorCode::Conflict => Ok(()),
            other => other.map(|_| ()),
        }
    }

    /// Saves a finished export's archive to `to` (a path the person chose in a dialog).
    pub fn download_export(&self, id: &str, to: &Path) -> ApiResult<()> {
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(ApiError::invalid(format!("{id:?} is not a transfer id")));
        }
        let mut res = self.send(
            self.untimed
                .get(self.target.url.api(&format!("transfer/{id}/archive"))),
        )?;
        if !res.status().is_success() {
            return self.data(res).map(|_| ());
        }
        oryx_core::portable::staging::save_download(&mut res, to)?;
        Ok(())
    }

    /// Sends an archive the person chose to the remote console for an import.
    pub fn upload_archive(&self, path: &Path) -> ApiResult<UploadDto> {
        let (file, name) = oryx_core::portable::staging::open_upload(path)?;
        let url = format!(
            "{}?name={}",
            self.target.url.api("transfer/upload"),
            url::form_urlencoded::byte_serialize(name.as_bytes()).collect::<String>()
        );
        let res = self.send(
            self.untimed
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/zip")
                .body(reqwest::blocking::Body::from(file)),
        )?;
        let value = self.data(res)?;
        serde_json::from_value(value).map_err(|e| self.unexpected("the upload", e))
    }

    /// Follows the remote console's event stream until `stop`, reconnecting after a drop (1 s,
    /// doubling to 30 s).
    pub fn follow_events(&self, stop: &AtomicBool, on: &mut dyn FnMut(RemoteEvent)) {
        let mut delay = Duration::from_secs(1);
        while !stop.load(Ordering::Relaxed) {
            let opened = self.send(
                self.untimed
                    .get(self.target.url.api("events"))
                    .header(reqwest::header::ACCEPT, "text/event-stream"),
            );
            match opened {
                Ok(res) if res.status().is_success() => {
                    delay = Duration::from_secs(1);
                    on(RemoteEvent::Subscribed);
                    read_events(res, stop, on);
                }
                _ => {}
            }
            let until = std::time::Instant::now() + delay;
            while !stop.load(Ordering::Relaxed) && std::time::Instant::now() < until {
                std::thread::sleep(Duration::from_millis(100));
            }
            delay = (delay * 2).min(Duration::from_secs(30));
        }
    }
}

/// What the remote console's event stream says.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteEvent {
    /// The stream is open (again): what happened while it was not is unknown.
    Subscribed,
    /// A change event as the server sent it (`{kind, agent}`).
    Change(Value),
    Migration(MigrationProgress),
}

fn read_events(res: Response, stop: &AtomicBool, on: &mut dyn FnMut(RemoteEvent)) {
    let mut lines = BufReader::new(res);
    let (mut data, mut name) = (String::new(), String::new());
    let mut line = String::new();
    while !stop.load(Ordering::Relaxed) {
        line.clear();
        match lines.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let l = line.trim_end_matches(['\r', '\n']);
        if l.is_empty() {
            if !data.is_empty() {
                if let Some(e) = event_of(&name, &data) {
                    on(e);
                }
            }
            data.clear();
            name.clear();
        } else if let Some(d) = l.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(d.strip_prefix(' ').unwrap_or(d));
        } else if let Some(n) = l.strip_prefix("event:") {
            name = n.trim().to_string();
        }
    }
}

fn event_of(name: &str, data: &str) -> Option<RemoteEvent> {
    match name {
        "" => serde_json::from_str(data).ok().map(RemoteEvent::Change),
        "migration" => serde_json::from_str(data).ok().map(RemoteEvent::Migration),
        _ => None,
    }
}

fn setup_error(e: reqwest::Error) -> ApiError {
    ApiError::internal(format!("cannot set up the HTTP client: {e}"))
}

/// A request that got no answer, said in the words a person can act on.
/// The innermost cause of a failed request: reqwest's own message says only "error sending
/// request", the cause says why (refused, a certificate, a timeout).
pub(super) fn innermost(e: &reqwest::Error) -> String {
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        detail = s.to_string();
        source = s.source();
    }
    detail
}

fn transport_error(url: &ServerUrl, e: &reqwest::Error) -> ApiError {
    let detail = innermost(e);
    let host = url.host();
    if e.is_timeout() {
        return ApiError::new(
            ErrorCode::Timeout,
            format!("{host} did not answer in time: {detail}"),
        );
    }
    if detail.contains("not the trusted") {
        return ApiError::new(
            ErrorCode::UntrustedCertificate,
            format!("{host} is not the server you trusted: {detail}. If its certificate was renewed on purpose, connect again and compare the new fingerprint with the one `oryx serve` prints."),
        );
    }
    if detail.contains("UnknownIssuer") || detail.contains("certificate") {
        return ApiError::new(
            ErrorCode::UntrustedCertificate,
            format!("{host}'s certificate is not signed by an authority this computer trusts ({detail}): check its fingerprint and trust it when you connect"),
        );
    }
    ApiError::new(
        ErrorCode::BackendUnavailable,
        format!("cannot reach {host}: {detail}"),
    )
}

/// Reads a small answer body, for the probe.
pub(super) fn read_prefix(mut res: Response, limit: u64) -> String {
    let mut text = String::new();
    let _ = (&mut res).take(limit).read_to_string(&mut text);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_read_as_people_type_them() {
        let u = ServerUrl::parse("example.org:8443").unwrap();
        assert_eq!(u.as_str(), "https://example.org:8443");
        assert_eq!(u.host(), "example.org:8443");
        let u = ServerUrl::parse(" https://example.org/assistant?token=abc ").unwrap();
        assert_eq!(u.as_str(), "https://example.org");
        let u = ServerUrl::parse("http://127.0.0.1:7777/").unwrap();
        assert_eq!(u.as_str(), "http://127.0.0.1:7777");
        assert!(ServerUrl::parse("http://localhost:1").is_ok());
        assert!(ServerUrl::parse("http://[::1]:1").is_ok());
    }

    #[test]
    fn clear_text_across_the_network_and_odd_addresses_are_refused() {
        let e = ServerUrl::parse("http://192.168.1.5:7777").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.contains("clear text"), "{e:?}");
        for bad in ["", "ftp://x", "https://", "https://user:pw@host", "::"] {
            assert!(ServerUrl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn event_stream_lines_become_events() {
        assert_eq!(
            event_of("", r#"{"kind":"memory","agent":"a"}"#),
            Some(RemoteEvent::Change(
                serde_json::json!({"kind":"memory","agent":"a"})
            ))
        );
        assert_eq!(
            event_of("migration", r#"{"owner":"a","done":1,"total":2}"#),
            Some(RemoteEvent::Migration(MigrationProgress {
                owner: "a".into(),
                done: 1,
                total: 2
            }))
        );
        assert_eq!(event_of("other", "{}"), None);
        assert_eq!(event_of("", "not json"), None);
    }
}
