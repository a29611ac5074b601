//! The optional LLM summariser (issue #15): the entries outside the window go to an
//! OpenAI-compatible chat endpoint (`POST <base>/chat/completions`) and its answer becomes the
//! text of a proposal the user reads and edits before anything is written. Unset settings fall
//! back to the agent's own provider: its model, and for a provider we know, its base URL and
//! the usual environment variable of its API key.

use std::time::Duration;

use reqwest::blocking::Client;
use serde_json::{json, Value};

use super::entry::Entry;
use crate::config::LlmSettings;
use crate::error::{CoreError, Result};

/// The key for the summariser when the settings hold none (checked before the provider's own).
pub const ENV_SUMMARY_KEY: &str = "ORYX_SUMMARY_API_KEY";

/// Most characters of entries sent in one request: what does not fit stays for the next
/// proposal (the newest entries outside the window go first).
pub const MAX_INPUT_CHARS: usize = 24_000;

/// Providers whose OpenAI-compatible endpoint and key variable are well known.
const PROVIDERS: &[(&str, &str, &str)] = &[
    ("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    (
        "deepseek",
        "https://api.deepseek.com/v1",
        "DEEPSEEK_API_KEY",
    ),
    (
        "qwen",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "DASHSCOPE_API_KEY",
    ),
    (
        "dashscope",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "DASHSCOPE_API_KEY",
    ),
    ("moonshot", "https://api.moonshot.cn/v1", "MOONSHOT_API_KEY"),
    ("kimi", "https://api.moonshot.cn/v1", "MOONSHOT_API_KEY"),
    (
        "zhipu",
        "https://open.bigmodel.cn/api/paas/v4",
        "ZHIPUAI_API_KEY",
    ),
    ("ollama", "http://127.0.0.1:11434/v1", ""),
];

const SYSTEM: &str =
    "你是一个智能体的记忆整理助手。下面是该智能体较早的记忆条目（每行一条，带时间）。\
把它们合并成一段简洁的摘要：保留事实、人名、数字、日期和用户偏好，重复的事只说一次并注明次数，\
去掉寒暄和过时的临时安排。用原文的语言书写，只输出摘要本身，不要列表、不要标题、不要换行。";

/// Where and how to ask, after settings and the provider's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmConfig {
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub timeout: Duration,
}

/// The agent's provider as AGENT.md names it.
#[derive(Debug, Clone, Default)]
pub struct ProviderHint {
    pub name: Option<String>,
    pub model: Option<String>,
}

fn env_nonempty(k: &str) -> Option<String> {
    std::env::var(k).ok().filter(|v| !v.trim().is_empty())
}

/// The summariser's endpoint for an agent; a clear error when nothing says where it is.
pub fn resolve(s: &LlmSettings, provider: &ProviderHint) -> Result<LlmConfig> {
    let known = provider.name.as_deref().and_then(|n| {
        let n = n.trim().to_ascii_lowercase();
        PROVIDERS.iter().find(|(p, _, _)| *p == n)
    });
    let base_url = s
        .base_url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .or_else(|| known.map(|k| k.1.to_string()))
        .ok_or_else(|| {
            CoreError::InvalidInput(match &provider.name {
                Some(n) => format!(
                    "no summariser endpoint: the agent's provider {n:?} has no known \
                     OpenAI-compatible URL; set one in Settings → Summaries"
                ),
                None => "no summariser endpoint: set a base URL in Settings → Summaries".into(),
            })
        })?;
    let model = s
        .model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .or_else(|| provider.model.clone().filter(|m| !m.trim().is_empty()))
        .ok_or_else(|| {
            CoreError::InvalidInput(
                "no summariser model: set one in Settings → Summaries or in the agent's \
                 provider.model"
                    .into(),
            )
        })?;
    let api_key = s
        .api_key
        .clone()
        .filter(|k| !k.trim().is_empty())
        .or_else(|| env_nonempty(ENV_SUMMARY_KEY))
        .or_else(|| {
            known
                .filter(|k| !k.2.is_empty())
                .and_then(|k| env_nonempty(k.2))
        });
    Ok(LlmConfig {
        base_url: base_url.trim().trim_end_matches('/').to_string(),
        model: model.trim().to_string(),
        api_key,
        timeout: Duration::from_millis(s.timeout_ms.max(1)),
    })
}

/// The summary text for `entries` (oldest first), without the marker the proposal adds.
pub fn summarise(cfg: &LlmConfig, entries: &[&Entry]) -> Result<String> {
    let lines: Vec<&str> = entries.iter().map(|e| e.line.as_str()).collect();
    let input = lines.join("\n");
    let target = (input.chars().count() / 3).clamp(60, 1000);
    let body = json!({
        "model": cfg.model,
        "temperature": 0.2,
        "stream": false,
        "messages": [
            {"role": "system", "content": format!("{SYSTEM}摘要不超过 {target} 个字符。")},
            {"role": "user", "content": input},
        ],
    });
    let client = Client::builder()
        .timeout(cfg.timeout)
        .connect_timeout(cfg.timeout.min(Duration::from_secs(10)))
        .build()
        .map_err(|e| CoreError::BackendUnavailable(format!("cannot create an HTTP client: {e}")))?;
    let url = format!("{}/chat/completions", cfg.base_url);
    let mut req = client.post(&url).json(&body);
    if let Some(k) = &cfg.api_key {
        req = req.bearer_auth(k);
    }
    let res = req.send().map_err(|e| transport_error(cfg, &e))?;
    let status = res.status();
    let text = res.text().map_err(|e| transport_error(cfg, &e))?;
    if !status.is_success() {
        let detail = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| {
                v.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_else(|| text.chars().take(200).collect());
        let why = match status.as_u16() {
            401 | 403 => format!(
                "refused the API key ({status}){}",
                if cfg.api_key.is_none() {
                    format!("; none is set — put one in Settings → Summaries or {ENV_SUMMARY_KEY}")
                } else {
                    String::new()
                }
            ),
            404 => format!(
                "has no chat completions endpoint or no model {:?} ({status})",
                cfg.model
            ),
            _ => format!("answered {status}"),
        };
        return Err(CoreError::BackendUnavailable(format!(
            "the summariser at {} {why}: {detail}",
            cfg.base_url
        )));
    }
    let v: Value = serde_json::from_str(&text).map_err(|e| malformed(cfg, &e.to_string()))?;
    let content = v
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed(cfg, "no choices[0].message.content"))?;
    // One archival entry is one line.
    let one_line = content.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        return Err(CoreError::BackendUnavailable(format!(
            "the summariser at {} returned an empty summary",
            cfg.base_url
        )));
    }
    Ok(one_line)
}

fn malformed(cfg: &LlmConfig, why: &str) -> CoreError {
    CoreError::BackendUnavailable(format!(
        "the summariser at {} answered something that is not a chat completion ({why})",
        cfg.base_url
    ))
}

fn transport_error(cfg: &LlmConfig, e: &reqwest::Error) -> CoreError {
    if e.is_timeout() {
        CoreError::Timeout(format!(
            "the summariser at {} did not answer within {} s",
            cfg.base_url,
            cfg.timeout.as_secs_f32()
        ))
    } else {
        let mut msg = e.to_string();
        let mut src = std::error::Error::source(e);
        while let Some(s) = src {
            msg = s.to_string();
            src = s.source();
        }
        CoreError::BackendUnavailable(format!(
            "the summariser at {} is unreachable: {msg}",
            cfg.base_url
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(name: &str, model: &str) -> ProviderHint {
        ProviderHint {
            name: Some(name.into()),
            model: Some(model.into()),
        }
    }

    #[test]
    fn a_known_provider_gives_url_and_model_and_settings_win() {
        let c = resolve(&LlmSettings::default(), &hint("DeepSeek", "deepseek-chat")).unwrap();
        assert_eq!(c.base_url, "https://api.deepseek.com/v1");
        assert_eq!(c.model, "deepseek-chat");
        let s = LlmSettings {
            base_url: Some("http://127.0.0.1:9/v1/".into()),
            model: Some("small".into()),
            api_key: Some("k".into()),
            timeout_ms: 1000,
        };
        let c = resolve(&s, &hint("openai", "gpt-4o")).unwrap();
        assert_eq!(c.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(c.model, "small");
        assert_eq!(c.api_key.as_deref(), Some("k"));
    }

    #[test]
    fn an_unknown_provider_without_settings_is_a_clear_error() {
        let e = resolve(&LlmSettings::default(), &hint("acme", "m1")).unwrap_err();
        assert!(e.to_string().contains("\"acme\""), "{e}");
        let e = resolve(
            &LlmSettings {
                base_url: Some("http://x/v1".into()),
                ..LlmSettings::default()
            },
            &ProviderHint::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("no summariser model"), "{e}");
    }
}
