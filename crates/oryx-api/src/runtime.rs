//! The runtime the console manages: what its install holds and how it is configured
//! (`runtime_info`), and changing one value of its `config/application.yml` in place
//! (`set_runtime_value`, undone by `undo_runtime_value`).
//!
//! A change is recorded by keeping the file's bytes from before it in the console's index folder
//! (`runtime/<install hash>.undo.json`, the last 20 changes); undo puts them back when the file
//! is still as the console left it. While the runtime runs, the values it started with are kept
//! beside it (`runtime/<install hash>.seen.json`, with the process's pid and start time): a
//! value changed since is reported as pending until that process is replaced.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use oryx_core::runtime::config::{self as rc, RuntimeConfig, Source};
use oryx_core::runtime::install::{Install, Kind};
use oryx_core::runtime::process::ProcessId;
use oryx_core::runtime::providers;
use serde::{Deserialize, Serialize};
#[cfg(feature = "specta")]
use specta::Type;

use crate::console::Console;
use crate::error::{ApiError, ApiResult, ErrorCode};

/// The keys `set_runtime_value` changes; everything else is edited in the file by hand.
pub const SETTABLE: &[&str] = &[
    rc::BACKEND,
    rc::TOP_K,
    rc::WEIGHT_SEMANTIC,
    rc::WEIGHT_KEYWORD,
    rc::WEIGHT_RECENCY,
    rc::EMBEDDING_PROVIDER,
    rc::EMBEDDING_MODEL,
];

const UNDO_DEPTH: usize = 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RunningDto {
    pub pid: u32,
    pub port: u16,
    /// With the pid, tells this process from a later one.
    pub start_ticks: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct EmbeddingDto {
    pub provider: String,
    pub model: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct WeightsDto {
    pub semantic: Option<f64>,
    pub keyword: Option<f64>,
    pub recency: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RecallDto {
    /// `None` when the configured text is not a number the runtime can read.
    pub top_k: Option<i32>,
    pub weights: WeightsDto,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct Mem0Dto {
    pub base_url: String,
    pub user_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RuntimeProviderDto {
    pub name: String,
    pub base_url: Option<String>,
    /// Masked as the runtime's admin UI masks it.
    pub api_key: String,
}

/// A value changed in the file that the running process has not loaded yet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct PendingDto {
    pub key: String,
    pub running: String,
    pub configured: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RuntimeInfo {
    /// `install` or `bareRoot`.
    pub kind: String,
    /// The install dir; `None` for a bare root.
    pub install: Option<String>,
    pub root: String,
    /// `config/application.yml` of the install.
    pub config: Option<String>,
    pub config_exists: bool,
    pub running: Option<RunningDto>,
    /// The backend the runtime runs (an unknown configured value is markdown there).
    pub backend: String,
    pub database: Option<String>,
    pub database_exists: bool,
    pub embedding: EmbeddingDto,
    pub recall: RecallDto,
    pub mem0: Mem0Dto,
    pub providers: Vec<RuntimeProviderDto>,
    /// `table` (the database's registry, what the runtime reads) or `config` (what it would
    /// seed on its first start).
    pub providers_from: String,
    /// Each key's source: `default`, `file`, `env` or `cmdline`.
    pub sources: BTreeMap<String, String>,
    /// Values changed in the file since the running process started (restart to apply).
    pub pending: Vec<PendingDto>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct SetRuntimeValueArgs {
    pub key: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct SetRuntimeValuesArgs {
    pub values: Vec<SetRuntimeValueArgs>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(Type))]
#[serde(rename_all = "camelCase")]
pub struct RuntimeChange {
    pub key: String,
    /// The value in effect before (`None`: the file did not set it).
    pub previous: Option<String>,
    pub value: String,
    pub file: String,
    /// The runtime is running: the change applies when it is restarted.
    pub restart_needed: bool,
    /// A higher source (an environment variable, a `-D` property) still decides the value.
    pub overridden_by: Option<String>,
    pub message: String,
}

/// One change of the runtime's configuration: the file's bytes around it, and for
/// `use_local_embeddings` the `providers` row it wrote.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct UndoRecord {
    pub key: String,
    pub before: String,
    pub after: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<crate::local_embeddings::ProviderUndo>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Seen {
    process: ProcessId,
    values: BTreeMap<String, String>,
}

pub(crate) fn install_of(console: &Console) -> Option<Install> {
    let rt = console.services();
    (rt.effective.root_kind == Kind::Install)
        .then(|| rt.effective.install_dir.clone())
        .flatten()
        .map(|d| Install::read(&d))
}

fn state_path(console: &Console, install_dir: &Path, what: &str) -> PathBuf {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(install_dir.as_os_str().as_encoded_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    console
        .index_dir()
        .join("runtime")
        .join(format!("{hex}.{what}.json"))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

fn write_json<T: Serialize>(path: &Path, v: &T) -> ApiResult<()> {
    let dir = path.parent().expect("under the index dir");
    std::fs::create_dir_all(dir).map_err(|e| oryx_core::CoreError::io(dir, e))?;
    std::fs::write(path, serde_json::to_vec_pretty(v).expect("serialises"))
        .map_err(|e| oryx_core::CoreError::io(path, e))?;
    Ok(())
}

fn values_of(cfg: &RuntimeConfig) -> BTreeMap<String, String> {
    cfg.values()
        .map(|(k, v)| (k.to_string(), v.value.clone()))
        .collect()
}

impl Console {
    /// The values the running process started with, as first seen by the console; dropped when
    /// that process is gone.
    pub(crate) fn seen(&self, inst: &Install) -> Option<Seen> {
        let path = state_path(self, &inst.dir, "seen");
        let Some(p) = &inst.process else {
            let _ = std::fs::remove_file(&path);
            return None;
        };
        match read_json::<Seen>(&path) {
            Some(s) if s.process == p.id => Some(s),
            _ => {
                let s = Seen {
                    process: p.id,
                    values: values_of(&inst.config),
                };
                // Best effort: without it, pending values are not reported.
                let _ = write_json(&path, &s);
                Some(s)
            }
        }
    }

    pub fn runtime_info(&self) -> ApiResult<RuntimeInfo> {
        let rt = self.services();
        let e = &rt.effective;
        let inst = install_of(self);
        let cfg = match &inst {
            Some(i) => i.config.clone(),
            None => rc::from_text(Path::new(""), None, &rc::Context::console()),
        };
        let database = match &inst {
            Some(i) => i.database(),
            None => Some(e.db_path.clone()),
        };
        let mut warnings = cfg.warnings.clone();
        let (providers, providers_from) =
            match database.as_deref().map(providers::registry).transpose() {
                Ok(Some(Some(rows))) => (
                    rows.into_iter()
                        .map(|r| RuntimeProviderDto {
                            name: r.name,
                            base_url: r.base_url,
                            api_key: providers::mask(r.api_key.as_deref()),
                        })
                        .collect(),
                    "table",
                ),
                other => {
                    if let Err(err) = other {
                        warnings.push(format!("the providers table could not be read: {err}"));
                    }
                    (
                        cfg.providers
                            .iter()
                            .map(|p| RuntimeProviderDto {
                                name: p.name.clone(),
                                base_url: p.base_url.clone(),
                                api_key: providers::mask(p.api_key.as_deref()),
                            })
                            .collect(),
                        "config",
                    )
                }
            };
        let pending = match inst.as_ref().and_then(|i| self.seen(i)) {
            Some(seen) => values_of(&cfg)
                .into_iter()
                .filter_map(|(k, now)| {
                    let was = seen.values.get(&k)?;
                    (was != &now).then(|| PendingDto {
                        key: k,
                        running: was.clone(),
                        configured: now,
                    })
                })
                .collect(),
            None => Vec::new(),
        };
        let number = |k: &str| cfg.value(k).trim().parse::<f64>().ok();
        Ok(RuntimeInfo {
            kind: e.root_kind.as_str().to_string(),
            install: inst.as_ref().map(|i| i.dir.display().to_string()),
            root: e.root.display().to_string(),
            config: inst.as_ref().map(|_| cfg.file.display().to_string()),
            config_exists: cfg.file_exists,
            running: inst
                .as_ref()
                .and_then(|i| i.process.as_ref())
                .map(|p| RunningDto {
                    pid: p.id.pid,
                    port: p.port,
                    start_ticks: p.id.start_ticks.to_string(),
                }),
            backend: match &inst {
                Some(_) => cfg.backend().to_string(),
                None => e.backend.as_str().to_string(),
            },
            database_exists: database.as_ref().is_some_and(|d| d.is_file()),
            database: database.map(|d| d.display().to_string()),
            embedding: EmbeddingDto {
                provider: cfg.value(rc::EMBEDDING_PROVIDER).to_string(),
                model: cfg.value(rc::EMBEDDING_MODEL).to_string(),
            },
            recall: RecallDto {
                top_k: cfg.value(rc::TOP_K).trim().parse().ok(),
                weights: WeightsDto {
                    semantic: number(rc::WEIGHT_SEMANTIC),
                    keyword: number(rc::WEIGHT_KEYWORD),
                    recency: number(rc::WEIGHT_RECENCY),
                },
            },
            mem0: Mem0Dto {
                base_url: cfg.value(rc::MEM0_BASE_URL).to_string(),
                user_id: cfg.value(rc::MEM0_USER_ID).to_string(),
            },
            providers,
            providers_from: providers_from.to_string(),
            sources: cfg
                .values()
                .map(|(k, v)| (k.to_string(), v.source.as_str().to_string()))
                .collect(),
            pending,
            warnings,
        })
    }

    /// Writes one value into the install's `config/application.yml`, changing only its bytes.
    pub fn set_runtime_value(&self, args: &SetRuntimeValueArgs) -> ApiResult<RuntimeChange> {
        let mut changes = self.set_runtime_values(&SetRuntimeValuesArgs {
            values: vec![args.clone()],
        })?;
        Ok(changes.remove(0))
    }

    /// Writes several values into `config/application.yml` at once: all are checked before the
    /// file is written, and one undo puts them all back.
    pub fn set_runtime_values(&self, args: &SetRuntimeValuesArgs) -> ApiResult<Vec<RuntimeChange>> {
        if args.values.is_empty() {
            return Err(ApiError::invalid("no value to set"));
        }
        let mut keys = Vec::with_capacity(args.values.len());
        for v in &args.values {
            let key = SETTABLE
                .iter()
                .find(|k| rc::canonical(k) == rc::canonical(v.key.trim()))
                .copied()
                .ok_or_else(|| {
                    ApiError::invalid(format!(
                        "{} is not a key the console changes; it changes {}",
                        v.key,
                        SETTABLE.join(", ")
                    ))
                })?;
            if keys.contains(&key) {
                return Err(ApiError::invalid(format!("{key} is given twice")));
            }
            keys.push(key);
        }
        let inst = install_of(self).ok_or_else(|| {
            ApiError::invalid(
                "the root in effect is a bare .oryxos root, not a runtime install: there is no \
                 runtime configuration to change",
            )
        })?;
        let mut values = Vec::with_capacity(keys.len());
        for (key, v) in keys.iter().zip(&args.values) {
            values.push(self.checked_value(&inst, key, &v.value)?);
        }
        let file = inst.config.file.clone();
        if !inst.config.file_exists {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!(
                    "{} does not exist; nothing was written (the start script creates it from \
                     config/application.yml.example on the runtime's first start)",
                    file.display()
                ),
            ));
        }
        // The values the running process started with, before the file changes.
        let _ = self.seen(&inst);
        let before =
            std::fs::read_to_string(&file).map_err(|e| oryx_core::CoreError::io(&file, e))?;
        let mut after = before.clone();
        let mut previous = Vec::with_capacity(keys.len());
        for (key, value) in keys.iter().zip(&values) {
            let path = yaml_path(&after, key);
            let refs: Vec<&str> = path.iter().map(String::as_str).collect();
            previous.push(
                oryx_core::frontmatter::parse(&after)
                    .ok()
                    .and_then(|v| oryx_core::frontmatter::get_str(&v, &refs)),
            );
            after = oryx_core::yaml_edit::set(&after, &refs, Some(value))?;
        }
        write_keeping_mode(&file, &after)?;
        push_undo(
            self,
            &inst,
            UndoRecord {
                key: keys.join(", "),
                before,
                after,
                provider: None,
            },
        )?;
        let now = Install::read(&inst.dir);
        self.follow_runtime();
        Ok(keys
            .into_iter()
            .zip(previous)
            .map(|(key, previous)| self.change(key, previous, &now, &file))
            .collect())
    }

    /// Puts back the file as it was before the last `set_runtime_value`, when nothing else
    /// changed it since.
    pub fn undo_runtime_value(&self) -> ApiResult<RuntimeChange> {
        let inst = install_of(self)
            .ok_or_else(|| ApiError::invalid("the root in effect is not a runtime install"))?;
        let undo_path = state_path(self, &inst.dir, "undo");
        let mut undo: Vec<UndoRecord> = read_json(&undo_path).unwrap_or_default();
        let Some(last) = undo.pop() else {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                "no change of the runtime's configuration to undo",
            ));
        };
        let file = inst.config.file.clone();
        let current = std::fs::read_to_string(&file).unwrap_or_default();
        if current != last.after {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "{} changed since the console set {}; undo it by hand",
                    file.display(),
                    last.key
                ),
            ));
        }
        if let Some(row) = &last.provider {
            // Both halves are checked before either is put back.
            if !crate::local_embeddings::row_is_as_left(row) {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "the {} row of the providers table changed since the console wrote it; \
                         undo it by hand",
                        row.name
                    ),
                ));
            }
            crate::local_embeddings::undo_row(row)?;
        }
        // One record may hold several keys set together (`set_runtime_values`).
        let keys: Vec<&'static str> = last
            .key
            .split(", ")
            .filter_map(|k| SETTABLE.iter().find(|s| **s == k).copied())
            .collect();
        let keys = if keys.is_empty() {
            vec![rc::BACKEND]
        } else {
            keys
        };
        let previous: Vec<String> = keys
            .iter()
            .map(|k| inst.config.value(k).to_string())
            .collect();
        write_keeping_mode(&file, &last.before)?;
        write_json(&undo_path, &undo)?;
        let now = Install::read(&inst.dir);
        self.follow_runtime();
        let mut changes = keys
            .iter()
            .zip(previous)
            .map(|(k, p)| self.change(k, Some(p), &now, &file));
        let mut change = changes.next().expect("one key at least");
        for other in changes {
            change.message.push_str(&format!("; {}", other.message));
        }
        if let Some(row) = &last.provider {
            change.message.push_str(&format!(
                "; the {} row of the providers table is {}",
                row.name,
                if row.before.is_some() {
                    "as it was again"
                } else {
                    "removed"
                }
            ));
        }
        Ok(change)
    }

    /// The console's services follow the runtime's new configuration (backend, database).
    pub(crate) fn follow_runtime(&self) {
        let rt = self.services();
        let file = crate::settings_file::SettingsFile {
            settings: rt.settings.clone(),
            preferences: rt.preferences,
        };
        drop(rt);
        if let Err(e) = self.replace_settings(file) {
            eprintln!(
                "oryx: the console keeps its current services ({})",
                e.message
            );
        }
    }

    fn change(
        &self,
        key: &'static str,
        previous: Option<String>,
        now: &Install,
        file: &Path,
    ) -> RuntimeChange {
        let setting = now.config.get(key);
        let overridden_by = match setting.source {
            Source::Env => Some("an environment variable of the runtime".to_string()),
            Source::Cmdline => Some("a -D property of the running runtime".to_string()),
            _ => None,
        };
        let restart_needed = now.process.is_some();
        let mut message = format!("{key} is now {:?} in {}", setting.value, file.display());
        if let Some(o) = &overridden_by {
            message.push_str(&format!("; {o} sets it, so the runtime keeps that value"));
        }
        if restart_needed {
            message.push_str("; restart the runtime to apply (bin/stop.sh, then bin/start.sh)");
        }
        RuntimeChange {
            key: key.to_string(),
            previous,
            value: setting.value.clone(),
            file: file.display().to_string(),
            restart_needed,
            overridden_by,
            message,
        }
    }

    /// The value as the runtime would read it, or why it would not.
    fn checked_value(&self, inst: &Install, key: &str, raw: &str) -> ApiResult<serde_json::Value> {
        let v = raw.trim();
        match key {
            rc::BACKEND => {
                if !rc::BACKENDS.contains(&v) {
                    return Err(ApiError::invalid(format!(
                        "memory.backend is one of {} (the runtime runs markdown for anything \
                         else), got {raw:?}",
                        rc::BACKENDS.join(", ")
                    )));
                }
                Ok(v.into())
            }
            rc::TOP_K => match v.parse::<i32>() {
                Ok(n) if n > 0 => Ok(n.into()),
                _ => Err(ApiError::invalid(format!(
                    "memory.recall.top-k is a positive whole number (the runtime reads an int), \
                     got {raw:?}"
                ))),
            },
            rc::WEIGHT_SEMANTIC | rc::WEIGHT_KEYWORD | rc::WEIGHT_RECENCY => {
                match v.parse::<f64>() {
                    Ok(w) if w.is_finite() && w >= 0.0 => {
                        Ok(serde_json::Number::from_f64(w).expect("finite").into())
                    }
                    _ => Err(ApiError::invalid(format!(
                        "{key} is a number of 0 or more (a weight of 0 turns its route off), got \
                         {raw:?}"
                    ))),
                }
            }
            rc::EMBEDDING_PROVIDER => {
                if !v.is_empty() {
                    let names = provider_names(inst);
                    if !names.iter().any(|n| n == v) {
                        return Err(ApiError::invalid(format!(
                            "embedding.provider names a provider of the registry ({}), or is \
                             empty for keyword recall only; got {raw:?}",
                            names.join(", ")
                        )));
                    }
                }
                Ok(v.into())
            }
            _ => Ok(v.into()),
        }
    }
}

/// The registry's names: the table when it exists, else what the configuration would seed.
fn provider_names(inst: &Install) -> Vec<String> {
    match inst
        .database()
        .and_then(|d| providers::registry(&d).ok().flatten())
    {
        Some(rows) => rows.into_iter().map(|r| r.name).collect(),
        None => inst
            .config
            .providers
            .iter()
            .map(|p| p.name.clone())
            .collect(),
    }
}

/// The key's path in the file as the file spells it (`topK` stays `topK`); kebab case for the
/// parts it does not have yet.
pub(crate) fn yaml_path(text: &str, key: &str) -> Vec<String> {
    let doc: Option<serde_yaml_ng::Value> = serde_yaml_ng::from_str(text).ok();
    let mut cur = doc.as_ref();
    key.split('.')
        .map(|part| {
            let want = rc::canonical(part);
            let found = cur.and_then(|v| v.as_mapping()).and_then(|m| {
                m.iter().find_map(|(k, child)| {
                    let k = k.as_str()?;
                    (rc::canonical(k) == want).then(|| (k.to_string(), child))
                })
            });
            match found {
                Some((spelled, child)) => {
                    cur = Some(child);
                    spelled
                }
                None => {
                    cur = None;
                    part.to_string()
                }
            }
        })
        .collect()
}

/// Records a change for undo (the last `UNDO_DEPTH` are kept).
pub(crate) fn push_undo(console: &Console, inst: &Install, record: UndoRecord) -> ApiResult<()> {
    let undo_path = state_path(console, &inst.dir, "undo");
    let mut undo: Vec<UndoRecord> = read_json(&undo_path).unwrap_or_default();
    undo.push(record);
    let excess = undo.len().saturating_sub(UNDO_DEPTH);
    undo.drain(..excess);
    write_json(&undo_path, &undo)
}

fn write_keeping_mode(path: &Path, text: &str) -> ApiResult<()> {
    Ok(rc::write_file(path, text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_follows_the_files_spelling() {
        let t = "memory:\n  recall:\n    topK: 3\n";
        assert_eq!(yaml_path(t, rc::TOP_K), ["memory", "recall", "topK"]);
        assert_eq!(
            yaml_path(t, rc::WEIGHT_KEYWORD),
            ["memory", "recall", "weight", "keyword"]
        );
        assert_eq!(yaml_path("", rc::BACKEND), ["memory", "backend"]);
    }
}
