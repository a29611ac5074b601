//! The optional LLM summariser: the entries outside the window go to an
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

/// Most bytes of the endpoint's answer that are read: a summary of at most
/// [`MAX_SUMMARY_CHARS`] fits many times over; a larger answer is refused, not buffered.
pub const MAX_RESPONSE_BYTES: u64 = 1 << 20;

/// Most characters of a summary: the prompt asks for at most 1000; a longer one is refused
/// rather than appended as one huge entry.
pub const MAX_SUMMARY_CHARS: usize = 8_000;

/// Most characters of the endpoint's error text quoted in an error message.
const MAX_DETAIL_CHARS: usize = 300;

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
    let text = read_body(cfg, res)?;
    if !status.is_success() {
        let detail = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| {
                v.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_else(|| text.clone());
        let detail = printable(&detail, MAX_DETAIL_CHARS);
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
    // One archival entry is one line, without control characters (escape sequences).
    let one_line = content
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if one_line.is_empty() {
        return Err(CoreError::BackendUnavailable(format!(
            "the summariser at {} returned an empty summary",
            cfg.base_url
        )));
    }
    let chars = one_line.chars().count();
    if chars > MAX_SUMMARY_CHARS {
        return Err(CoreError::BackendUnavailable(format!(
            "the summariser at {} returned a summary of {chars} characters, more than the \
             {MAX_SUMMARY_CHARS} a summary may hold; nothing was proposed",
            cfg.base_url
        )));
    }
    Ok(one_line)
}

/// The answer's body as text, at most [`MAX_RESPONSE_BYTES`] of it read: a larger one is an
/// error, whatever its Content-Length says.
fn read_body(cfg: &LlmConfig, res: reqwest::blocking::Response) -> Result<String> {
    use std::io::Read;
    let too_large = || {
        CoreError::BackendUnavailable(format!(
            "the summariser at {} answered more than {MAX_RESPONSE_BYTES} bytes; a summary is \
             far shorter, so the answer was not read",
            cfg.base_url
        ))
    };
    if res.content_length().is_some_and(|n| n > MAX_RESPONSE_BYTES) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    res.take(MAX_RESPONSE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(
            |e| match e.get_ref().and_then(|e| e.downcast_ref::<reqwest::Error>()) {
                Some(re) => transport_error(cfg, re),
                None => CoreError::BackendUnavailable(format!(
                    "reading the answer of the summariser at {} failed: {e}",
                    cfg.base_url
                )),
            },
        )?;
    if bytes.len() as u64 > MAX_RESPONSE_BYTES {
        return Err(too_large());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `text` fit for a terminal line: control characters (escape sequences, newlines) shown as
/// `\u{..}` escapes, at most `max` characters of it, an ellipsis when cut.
fn printable(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.trim().chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        // Bidirectional overrides and isolates reorder what a terminal shows, too.
        if c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
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

    /// An endpoint on 127.0.0.1 answering one request with `head` (status line and headers)
    /// and the body `parts` make, written part by part; the config pointing at it.
    fn endpoint(
        head: &'static str,
        parts: impl Iterator<Item = Vec<u8>> + Send + 'static,
    ) -> LlmConfig {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            // The request: headers, then the Content-Length bytes of its body.
            let mut req = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                let n = conn.read(&mut buf).unwrap();
                req.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&req).to_lowercase();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len: usize = text
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .map_or(0, |v| v.trim().parse().unwrap());
                    if req.len() >= end + 4 + len {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            if conn.write_all(head.as_bytes()).is_err() {
                return;
            }
            for part in parts {
                // The client hangs up once it has read enough: that ends the answer.
                if conn.write_all(&part).is_err() {
                    return;
                }
            }
        });
        LlmConfig {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            model: "m".into(),
            api_key: None,
            timeout: Duration::from_secs(30),
        }
    }

    fn entry() -> Entry {
        Entry::new(None, "a fact")
    }

    const OK_HEAD: &str =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";

    #[test]
    fn a_huge_answer_is_refused_without_reading_it_whole() {
        // 64 MiB of summary, sent without a Content-Length.
        let body = std::iter::once(br#"{"choices":[{"message":{"content":""#.to_vec())
            .chain((0..64).map(|_| vec![b'a'; 1 << 20]))
            .chain(std::iter::once(br#""}}]}"#.to_vec()));
        let cfg = endpoint(OK_HEAD, body);
        let started = std::time::Instant::now();
        let e = summarise(&cfg, &[&entry()]).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("more than {MAX_RESPONSE_BYTES} bytes")),
            "{e}"
        );
        eprintln!("refused after {:?}", started.elapsed());
        // Announced as too large: refused before the body.
        let cfg = endpoint(
            "HTTP/1.1 200 OK\r\nContent-Length: 209715200\r\nConnection: close\r\n\r\n",
            std::iter::empty(),
        );
        let e = summarise(&cfg, &[&entry()]).unwrap_err();
        assert!(e.to_string().contains("more than"), "{e}");
    }

    #[test]
    fn a_summary_longer_than_the_cap_is_a_clear_error() {
        let long = "字".repeat(MAX_SUMMARY_CHARS + 1);
        let body = json!({"choices": [{"message": {"content": long}}]}).to_string();
        let cfg = endpoint(OK_HEAD, std::iter::once(body.into_bytes()));
        let e = summarise(&cfg, &[&entry()]).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("{} characters", MAX_SUMMARY_CHARS + 1)),
            "{e}"
        );
        // At the cap it is a summary, with its control characters gone.
        let ok = format!("{}\u{1b}[2J", "字".repeat(MAX_SUMMARY_CHARS - 5));
        let body = json!({"choices": [{"message": {"content": ok}}]}).to_string();
        let cfg = endpoint(OK_HEAD, std::iter::once(body.into_bytes()));
        let s = summarise(&cfg, &[&entry()]).unwrap();
        assert!(!s.contains('\u{1b}') && s.ends_with(" [2J"), "{s}");
    }

    #[test]
    fn an_error_body_reaches_the_message_escaped_and_cut() {
        let raw = "\u{1b}]0;pwned\u{7}\u{1b}[31mboom\u{202e}\r\n".repeat(2000);
        let cfg = endpoint(
            "HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\n\r\n",
            std::iter::once(raw.clone().into_bytes()),
        );
        let e = summarise(&cfg, &[&entry()]).unwrap_err().to_string();
        assert!(
            !e.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{e:?}"
        );
        assert!(e.contains("\\u{1b}]0;pwned"), "{e}");
        assert!(
            e.chars().count() < 400 + 40 * 10,
            "{} chars",
            e.chars().count()
        );
        // The same inside the JSON error of an OpenAI-compatible endpoint.
        let body = json!({"error": {"message": raw}}).to_string();
        let cfg = endpoint(
            "HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n",
            std::iter::once(body.into_bytes()),
        );
        let e = summarise(&cfg, &[&entry()]).unwrap_err().to_string();
        assert!(!e.chars().any(|c| c.is_control()), "{e:?}");
        assert!(e.contains("refused the API key"), "{e}");
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
