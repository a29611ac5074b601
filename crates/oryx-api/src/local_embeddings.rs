//! `use_local_embeddings`: the console's offline embedding endpoint (`oryx serve`'s
//! `POST /v1/embeddings`) as the runtime's embedding provider. It writes a row of the runtime's
//! `providers` table (`oryx-local`, the console's URL, an API key) and sets `embedding.provider`
//! and `embedding.model` in its `config/application.yml`; a dry run says what would change.
//!
//! The runtime reads both once at start. Its client posts to `<base_url>/v1/embeddings` (a
//! trailing `/` or `/v1` of the base is dropped first; `/embeddings` alone when the base ends in
//! `/v<digits>`) with `Authorization: Bearer <api_key>`, and refuses a blank key or URL. At
//! its next start its reconcile drops every `memory_vectors` row made by another model
//! (`embedding_model` other than `oryx-local/<model>`) and embeds the archival entries again.
//!
//! The change is one step of the runtime-configuration undo: the record keeps the file's bytes
//! and the row as it was (every column), and undo puts both back.

use std::path::{Path, PathBuf};
use std::time::Duration;

use oryx_core::runtime::config::{self as rc, Source};
use oryx_core::runtime::provider_rows::{self as rows, Cell, StoredRow};
use oryx_core::runtime::providers;
use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use crate::console::Console;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::runtime::{self as rt, UndoRecord};

/// The provider's name in the runtime's registry.
pub const PROVIDER: &str = "oryx-local";

/// Where `oryx serve` listens by default (its `--bind`).
pub const DEFAULT_URL: &str = "http://127.0.0.1:7777";

/// The API key written when no token is given: `oryx serve` without `--token` accepts any key,
/// and the runtime refuses a blank one. Not a secret.
pub const PLACEHOLDER_KEY: &str = "oryx-local-no-token";

const DESCRIPTION: &str = "The OryxOS console's offline embeddings (oryx serve, /v1/embeddings)";

/// How long the check of the URL waits for an answer.
const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
pub struct UseLocalEmbeddingsArgs {
    /// The console's address as the runtime reaches it (default: `oryx serve`'s
    /// `http://127.0.0.1:7777`).
    #[serde(default)]
    pub url: Option<String>,
    /// The server's `--token`, written as the provider's API key (default: the row's key when it
    /// has one, else a placeholder that a server without a token accepts).
    #[serde(default)]
    pub api_key: Option<String>,
    /// Only say what would change.
    #[serde(default)]
    pub dry_run: bool,
}

/// A `providers` row as the preview shows it (the key masked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct ProviderRowDto {
    pub name: String,
    pub base_url: Option<String>,
    pub api_key: String,
    pub description: Option<String>,
}

/// One configuration value before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct ValueChangeDto {
    pub key: String,
    /// `None`: the file does not set it.
    pub before: Option<String>,
    pub after: String,
}

/// Whether the console's endpoint answered at the URL just now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct EndpointProbeDto {
    /// The address asked (`GET …/v1/models`, as the runtime would build the path).
    pub url: String,
    /// It answered with our model, accepting the key.
    pub ok: bool,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct LocalEmbeddingsPlan {
    pub provider: String,
    pub model: String,
    /// The base URL written into the row.
    pub url: String,
    /// `insert`, `update` or `unchanged`.
    pub row_action: String,
    pub row_before: Option<ProviderRowDto>,
    pub row_after: ProviderRowDto,
    /// `given` (the server's token), `kept` (the row's key) or `placeholder`.
    pub api_key_from: String,
    /// `config/application.yml` of the install.
    pub config: Option<String>,
    pub values: Vec<ValueChangeDto>,
    /// The file's lines that change, before and after (empty when it stays the same).
    pub lines_before: Vec<String>,
    pub lines_after: Vec<String>,
    /// `memory_vectors` rows of another model, which the runtime drops at its next start.
    pub vectors_dropped: u32,
    /// The `embedding_model` the runtime writes from then on (`provider/model`).
    pub vectors_model: String,
    pub server: EndpointProbeDto,
    /// Why nothing can be written (no install, no providers table, no config file).
    pub blocked: Option<String>,
    /// Written (false for a dry run).
    pub applied: bool,
    /// The runtime is running: it applies this at its next start.
    pub restart_needed: bool,
    pub notes: Vec<String>,
    pub message: String,
}

/// What undo needs to put the row back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ProviderUndo {
    pub db: PathBuf,
    pub name: String,
    /// `None`: the row did not exist.
    pub before: Option<StoredRow>,
    pub after: StoredRow,
}

fn dto(name: &str, row: &StoredRow) -> ProviderRowDto {
    ProviderRowDto {
        name: name.to_string(),
        api_key: providers::mask(row.api_key()),
        base_url: row.base_url().map(str::to_string),
        description: row.description().map(str::to_string),
    }
}

/// `url` checked: an http(s) address with a host, without a trailing `/`.
fn checked_url(url: &str) -> ApiResult<String> {
    let u = url.trim().trim_end_matches('/');
    let parsed = reqwest::Url::parse(u)
        .map_err(|e| ApiError::invalid(format!("{url:?} is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(ApiError::invalid(format!(
            "{url:?}: the console's address is http(s)://HOST:PORT (default {DEFAULT_URL})"
        )));
    }
    Ok(u.to_string())
}

/// The URL the runtime's client builds for `path` (`/embeddings`, `/models`) from a base URL.
pub fn runtime_endpoint(base: &str, path: &str) -> String {
    let mut u = base.trim();
    loop {
        if let Some(s) = u.strip_suffix('/') {
            u = s;
        } else if let Some(s) = u.strip_suffix("/v1") {
            u = s;
        } else {
            break;
        }
    }
    let versioned = u
        .rsplit_once("/v")
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if versioned {
        format!("{u}{path}")
    } else {
        format!("{u}/v1{path}")
    }
}

/// Asks the URL for its models with the key, briefly: the answer says whether the runtime would
/// reach the console there now.
fn probe(base: &str, key: &str) -> EndpointProbeDto {
    let url = runtime_endpoint(base, "/models");
    let client = reqwest::blocking::Client::builder()
        .timeout(PROBE_TIMEOUT)
        .connect_timeout(PROBE_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build();
    let answer = client.and_then(|c| c.get(&url).bearer_auth(key).send());
    let (ok, detail) = match answer {
        Err(e) if e.is_timeout() => (false, format!("{url} did not answer within 1.5 s")),
        Err(_) => (
            false,
            format!(
                "nothing answers at {url} now: start `oryx serve` there before the runtime's next \
                 start"
            ),
        ),
        Ok(r) => {
            let status = r.status().as_u16();
            let model = r
                .json::<serde_json::Value>()
                .ok()
                .and_then(|v| v["data"][0]["id"].as_str().map(str::to_string));
            match (status, model) {
                (200, Some(m)) if m == oryx_core::embed::MODEL_ID => {
                    (true, format!("the console answers at {url} with {m}"))
                }
                (401, _) => (
                    false,
                    format!(
                        "{url} refuses this API key: the server runs with --token; give the same \
                         token (`oryx runtime use-local-embeddings --token …`)"
                    ),
                ),
                (s, _) => (
                    false,
                    format!("{url} answered {s}, not as the console's embedding endpoint"),
                ),
            }
        }
    };
    EndpointProbeDto { url, ok, detail }
}

/// The lines of `after` that differ from `before`: what is left between their common first and
/// last lines.
fn changed_lines(before: &str, after: &str) -> (Vec<String>, Vec<String>) {
    let b: Vec<&str> = before.lines().collect();
    let a: Vec<&str> = after.lines().collect();
    let head = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let tail = b[head..]
        .iter()
        .rev()
        .zip(a[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
    (own(&b[head..b.len() - tail]), own(&a[head..a.len() - tail]))
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

impl Console {
    /// Registers the console's `/v1/embeddings` as the runtime's embedding provider (or, with
    /// `dry_run`, says what that would change).
    /// A run that is not a dry run and cannot write (no install, no providers table, no
    /// configuration file) is an error naming why; the dry run answers it as `blocked`.
    pub fn use_local_embeddings(
        &self,
        args: &UseLocalEmbeddingsArgs,
    ) -> ApiResult<LocalEmbeddingsPlan> {
        let plan = self.local_embeddings(args)?;
        match &plan.blocked {
            Some(why) if !args.dry_run => Err(ApiError::new(ErrorCode::NotFound, why.clone())),
            _ => Ok(plan),
        }
    }

    fn local_embeddings(&self, args: &UseLocalEmbeddingsArgs) -> ApiResult<LocalEmbeddingsPlan> {
        let url = checked_url(args.url.as_deref().unwrap_or(DEFAULT_URL))?;
        let model = oryx_core::embed::MODEL_ID.to_string();
        let vectors_model = format!("{PROVIDER}/{model}");
        let given_key = args
            .api_key
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty());
        let mut plan = LocalEmbeddingsPlan {
            provider: PROVIDER.to_string(),
            model: model.clone(),
            url: url.clone(),
            row_action: "insert".into(),
            row_before: None,
            row_after: ProviderRowDto {
                name: PROVIDER.to_string(),
                base_url: Some(url.clone()),
                api_key: providers::mask(Some(given_key.unwrap_or(PLACEHOLDER_KEY))),
                description: Some(DESCRIPTION.to_string()),
            },
            api_key_from: if given_key.is_some() {
                "given"
            } else {
                "placeholder"
            }
            .into(),
            config: None,
            values: Vec::new(),
            lines_before: Vec::new(),
            lines_after: Vec::new(),
            vectors_dropped: 0,
            vectors_model: vectors_model.clone(),
            server: EndpointProbeDto {
                url: runtime_endpoint(&url, "/models"),
                ok: false,
                detail: String::new(),
            },
            blocked: None,
            applied: false,
            restart_needed: false,
            notes: Vec::new(),
            message: String::new(),
        };
        let Some(inst) = rt::install_of(self) else {
            return answer(plan.blocked_by(
                "the root in effect is a bare .oryxos root, not a runtime install: there is no \
                 runtime configuration or provider registry to change",
            ));
        };
        plan.restart_needed = inst.process.is_some();
        let file = inst.config.file.clone();
        plan.config = Some(file.display().to_string());
        let db = inst.database();
        let found = match db.as_deref().filter(|d| d.is_file()) {
            Some(d) => rows::read(d, PROVIDER)?,
            None => None,
        };
        let (Some(db), Some(before_row)) = (db.clone(), found) else {
            let seeded: Vec<String> = inst
                .config
                .providers
                .iter()
                .map(|p| p.name.clone())
                .collect();
            return answer(plan.blocked_by(&format!(
                "{} has no providers table yet: the runtime creates it at its first start and \
                 seeds it from oryxos.providers of its configuration ({}); start the runtime \
                 once, then run this again. Nothing was written.",
                db.as_deref().unwrap_or(Path::new("oryxos.db")).display(),
                if seeded.is_empty() {
                    "none listed".to_string()
                } else {
                    seeded.join(", ")
                }
            )));
        };
        if !inst.config.file_exists {
            return answer(plan.blocked_by(&format!(
                "{} does not exist; nothing was written (the start script creates it from \
                     config/application.yml.example on the runtime's first start)",
                file.display()
            )));
        }

        // The row.
        let kept_key = before_row
            .as_ref()
            .and_then(StoredRow::api_key)
            .filter(|k| !k.trim().is_empty())
            .map(str::to_string);
        let key = match (given_key, &kept_key) {
            (Some(k), _) => k.to_string(),
            (None, Some(k)) => {
                plan.api_key_from = "kept".into();
                k.clone()
            }
            (None, None) => PLACEHOLDER_KEY.to_string(),
        };
        let now = Cell::Int(now_ms());
        let after_row: StoredRow = match &before_row {
            Some(b) => StoredRow(vec![
                Cell::Text(key.clone()),
                Cell::Text(url.clone()),
                b.0[2].clone(),
                b.0[3].clone(),
                b.0[4].clone(),
            ]),
            None => StoredRow(vec![
                Cell::Text(key.clone()),
                Cell::Text(url.clone()),
                Cell::Text(DESCRIPTION.to_string()),
                now.clone(),
                now.clone(),
            ]),
        };
        let row_unchanged = before_row
            .as_ref()
            .is_some_and(|b| b.0[..2] == after_row.0[..2]);
        let after_row = match (&before_row, row_unchanged) {
            (Some(b), true) => b.clone(),
            (Some(_), false) => {
                let mut r = after_row;
                r.0[4] = now;
                r
            }
            (None, _) => after_row,
        };
        plan.row_action = match (&before_row, row_unchanged) {
            (None, _) => "insert",
            (Some(_), true) => "unchanged",
            (Some(_), false) => "update",
        }
        .into();
        plan.row_before = before_row.as_ref().map(|r| dto(PROVIDER, r));
        plan.row_after = dto(PROVIDER, &after_row);

        // The configuration.
        let before_text =
            std::fs::read_to_string(&file).map_err(|e| oryx_core::CoreError::io(&file, e))?;
        let mut after_text = before_text.clone();
        for (k, v) in [
            (rc::EMBEDDING_PROVIDER, PROVIDER),
            (rc::EMBEDDING_MODEL, model.as_str()),
        ] {
            let path = rt::yaml_path(&after_text, k);
            let refs: Vec<&str> = path.iter().map(String::as_str).collect();
            let previous = oryx_core::frontmatter::parse(&before_text)
                .ok()
                .and_then(|doc| oryx_core::frontmatter::get_str(&doc, &refs));
            after_text = oryx_core::yaml_edit::set(&after_text, &refs, Some(&v.into()))?;
            plan.values.push(ValueChangeDto {
                key: k.to_string(),
                before: previous,
                after: v.to_string(),
            });
            let setting = inst.config.get(k);
            if matches!(setting.source, Source::Env | Source::Cmdline) {
                plan.notes.push(format!(
                    "{k} is set by {} of the runtime ({:?}), which wins over the file: remove it \
                     for this to apply",
                    if setting.source == Source::Env {
                        "an environment variable"
                    } else {
                        "a -D property"
                    },
                    setting.value
                ));
            }
        }
        (plan.lines_before, plan.lines_after) = changed_lines(&before_text, &after_text);

        plan.vectors_dropped =
            u32::try_from(rows::vectors_of_other_models(&db, &vectors_model)?).unwrap_or(u32::MAX);
        if inst.config.backend() == "mem0" {
            plan.notes.push(
                "the runtime's backend is mem0, which recalls by itself: the runtime keeps its \
                 memory_vectors rows and does not use this provider for memory recall"
                    .into(),
            );
        } else if plan.vectors_dropped > 0 {
            plan.notes.push(format!(
                "at its next start the runtime drops the {} memory_vectors rows of other models \
                 and embeds the archival entries again with {vectors_model}",
                plan.vectors_dropped
            ));
        }
        plan.server = probe(&url, &key);
        if plan.api_key_from == "placeholder" {
            plan.notes.push(format!(
                "the API key is the placeholder {PLACEHOLDER_KEY:?}, which `oryx serve` without \
                 --token accepts; with a token, run again with it"
            ));
        }

        if args.dry_run {
            return answer(plan);
        }
        let nothing_to_do = plan.row_action == "unchanged" && before_text == after_text;
        if nothing_to_do {
            return answer(plan);
        }
        // The values the running process started with, before the file changes.
        let _ = self.seen(&inst);
        let undo_row = ProviderUndo {
            db: db.clone(),
            name: PROVIDER.to_string(),
            before: before_row.clone(),
            after: after_row.clone(),
        };
        rows::write(&db, PROVIDER, Some(&after_row))?;
        if let Err(e) = rc::write_file(&file, &after_text) {
            // The file is the half that failed: the row goes back so nothing half-done stays.
            let _ = rows::write(&db, PROVIDER, before_row.as_ref());
            return Err(e.into());
        }
        rt::push_undo(
            self,
            &inst,
            UndoRecord {
                key: rc::EMBEDDING_PROVIDER.to_string(),
                before: before_text,
                after: after_text,
                provider: Some(undo_row),
            },
        )?;
        plan.applied = true;
        self.follow_runtime();
        answer(plan)
    }
}

/// The plan with its one-line message.
fn answer(mut plan: LocalEmbeddingsPlan) -> ApiResult<LocalEmbeddingsPlan> {
    plan.message = match (&plan.blocked, plan.applied) {
        (Some(b), _) => b.clone(),
        (None, true) => format!(
            "the runtime's embedding provider is now {} ({}, model {}); {}",
            plan.provider,
            plan.url,
            plan.model,
            if plan.restart_needed {
                "restart the runtime to apply (bin/stop.sh, then bin/start.sh)"
            } else {
                "the runtime applies it at its next start"
            }
        ),
        (None, false) if plan.row_action == "unchanged" && plan.lines_after.is_empty() => {
            format!(
                "the runtime already uses {} ({}, model {}): nothing to change",
                plan.provider, plan.url, plan.model
            )
        }
        (None, false) => format!(
            "would make {} ({}, model {}) the runtime's embedding provider, applied at its \
             next start",
            plan.provider, plan.url, plan.model
        ),
    };
    Ok(plan)
}

impl LocalEmbeddingsPlan {
    fn blocked_by(mut self, why: &str) -> Self {
        self.blocked = Some(why.to_string());
        self
    }
}

/// Whether the row is still as the change left it (checked before anything is put back).
pub(crate) fn row_is_as_left(undo: &ProviderUndo) -> bool {
    matches!(rows::read(&undo.db, &undo.name), Ok(Some(Some(now))) if now == undo.after)
}

/// Puts the row back as it was before the change.
pub(crate) fn undo_row(undo: &ProviderUndo) -> ApiResult<()> {
    Ok(rows::write(&undo.db, &undo.name, undo.before.as_ref())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_built_as_the_runtime_builds_it() {
        let e = |b| runtime_endpoint(b, "/embeddings");
        assert_eq!(
            e("http://127.0.0.1:7777"),
            "http://127.0.0.1:7777/v1/embeddings"
        );
        assert_eq!(
            e("http://127.0.0.1:7777/"),
            "http://127.0.0.1:7777/v1/embeddings"
        );
        assert_eq!(e("http://h:1/v1/"), "http://h:1/v1/embeddings");
        assert_eq!(e("http://h:1/v1/v1"), "http://h:1/v1/embeddings");
        assert_eq!(e("http://h/api/paas/v4"), "http://h/api/paas/v4/embeddings");
        assert_eq!(e("http://h/vx"), "http://h/vx/v1/embeddings");
    }

    #[test]
    fn changed_lines_are_what_lies_between_the_common_ends() {
        let (b, a) = changed_lines("a\nb\nc\n", "a\nB\nB2\nc\n");
        assert_eq!(
            (b, a),
            (vec!["b".to_string()], vec!["B".into(), "B2".into()])
        );
        let (b, a) = changed_lines("a\n", "a\n");
        assert!(b.is_empty() && a.is_empty());
    }

    #[test]
    fn urls_are_http_addresses() {
        assert_eq!(
            checked_url(" http://127.0.0.1:7777/ ").unwrap(),
            "http://127.0.0.1:7777"
        );
        assert!(checked_url("127.0.0.1:7777").is_err());
        assert!(checked_url("ftp://h").is_err());
    }
}

/// The offline model the server's `/v1/embeddings` answers with (hosts reach the core through
/// this crate only).
pub mod model {
    pub use oryx_core::embed::{default_model_dir, EmbedError, EmbedderSlot, DIM, MODEL_ID};
}
