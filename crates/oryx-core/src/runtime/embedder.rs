//! The embedder the runtime's memory recall and vector index use, chosen as the runtime chooses
//! it: `embedding.provider` names a provider of its registry (the `providers` table; its
//! configuration's list before the runtime first started), `mock` gives the built-in
//! deterministic vectors, any other provider is called over the OpenAI embeddings API with the
//! provider's key and base URL. Nothing configured: the runtime recalls by keyword only. A
//! provider that cannot be built (not in the registry, no model, no key or URL) is not an error
//! at start for the runtime: every recall then degrades, and so does the console's answer.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use super::config::{self, RuntimeConfig};
use super::mock_embedding;
use super::providers::ProviderRow;

/// Why an embedding could not be had; the runtime logs it and degrades.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EmbedFailure(pub String);

/// Text to vector, as one of the runtime's embedding models.
pub trait Embedder: Send + Sync {
    /// `provider/model` (`mock/deterministic` for mock): what `memory_vectors.embedding_model`
    /// holds for the rows this embedder wrote.
    fn model_id(&self) -> &str;

    fn embed(&self, text: &str) -> Result<Vec<f32>, EmbedFailure>;

    /// Several texts in one call where the provider takes a list.
    fn embed_all(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedFailure> {
        texts.iter().map(|t| self.embed(t)).collect()
    }
}

/// The runtime's built-in `mock` provider.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mock;

impl Embedder for Mock {
    fn model_id(&self) -> &str {
        mock_embedding::MODEL_ID
    }

    fn embed(&self, text: &str) -> Result<Vec<f32>, EmbedFailure> {
        Ok(mock_embedding::embed(text))
    }
}

/// A provider spoken to over the OpenAI embeddings API.
pub struct OpenAiCompatible {
    url: String,
    api_key: String,
    model: String,
    model_id: String,
    client: reqwest::blocking::Client,
}

/// How long the runtime waits for a provider by default (its connect and read timeouts).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const READ_TIMEOUT: Duration = Duration::from_secs(60);

impl OpenAiCompatible {
    pub fn new(provider: &str, api_key: &str, base_url: &str, model: &str) -> Self {
        OpenAiCompatible {
            url: embeddings_url(base_url),
            api_key: api_key.to_string(),
            model: model.to_string(),
            model_id: format!("{provider}/{model}"),
            client: reqwest::blocking::Client::builder()
                .connect_timeout(CONNECT_TIMEOUT)
                .timeout(READ_TIMEOUT)
                .build()
                .expect("an HTTP client with timeouts builds"),
        }
    }

    /// Where the requests go.
    pub fn url(&self) -> &str {
        &self.url
    }
}

#[derive(Deserialize)]
struct EmbeddingList {
    data: Vec<EmbeddingItem>,
}

#[derive(Deserialize)]
struct EmbeddingItem {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

impl Embedder for OpenAiCompatible {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn embed(&self, text: &str) -> Result<Vec<f32>, EmbedFailure> {
        let mut all = self.embed_all(&[text])?;
        all.pop()
            .ok_or_else(|| EmbedFailure(format!("{} answered no embedding", self.url)))
    }

    fn embed_all(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedFailure> {
        let fail = |what: String| EmbedFailure(format!("{}: {what}", self.url));
        let response = self
            .client
            .post(&self.url)
            .bearer_auth(&self.api_key)
            .json(&json!({ "model": self.model, "input": texts, "encoding_format": "float" }))
            .send()
            .map_err(|e| fail(e.to_string()))?;
        let status = response.status();
        let body = response.text().map_err(|e| fail(e.to_string()))?;
        if !status.is_success() {
            let excerpt: String = body.chars().take(300).collect();
            return Err(fail(format!("HTTP {status}: {excerpt}")));
        }
        let list: EmbeddingList =
            serde_json::from_str(&body).map_err(|e| fail(format!("not an embedding list: {e}")))?;
        let mut items = list.data;
        if items.len() != texts.len() {
            return Err(fail(format!(
                "{} embeddings for {} texts",
                items.len(),
                texts.len()
            )));
        }
        // The list may come in any order; `index` says whose vector each is.
        items.sort_by_key(|i| i.index.unwrap_or(usize::MAX));
        Ok(items.into_iter().map(|i| i.embedding).collect())
    }
}

/// The URL the runtime posts embeddings to for a provider's base URL: blanks around it, then
/// trailing `/` and `/v1` (any number, in any order) stripped; `/v1/embeddings` appended, or
/// `/embeddings` when the base already ends in a version (`/api/paas/v4`).
pub fn embeddings_url(base_url: &str) -> String {
    let mut base = base_url.trim();
    loop {
        if let Some(b) = base.strip_suffix('/') {
            base = b;
        } else if let Some(b) = base.strip_suffix("/v1") {
            base = b;
        } else {
            break;
        }
    }
    if ends_in_version(base) {
        format!("{base}/embeddings")
    } else {
        format!("{base}/v1/embeddings")
    }
}

/// `.*/v\d+$`.
fn ends_in_version(base: &str) -> bool {
    let Some((_, last)) = base.rsplit_once('/') else {
        return false;
    };
    last.strip_prefix('v')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// What the runtime's configuration makes of embeddings.
#[derive(Clone)]
pub enum Configured {
    /// `embedding.provider` is empty: recall is the store's keyword search, no index is kept.
    Off,
    /// A provider is named but cannot be built: every semantic route fails (the recall is
    /// degraded) and the runtime's indexer writes nothing.
    Broken {
        provider: String,
        reason: String,
    },
    Ready(Arc<dyn Embedder>),
}

impl std::fmt::Debug for Configured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Configured::Off => f.write_str("Off"),
            Configured::Broken { provider, reason } => f
                .debug_struct("Broken")
                .field("provider", provider)
                .field("reason", reason)
                .finish(),
            Configured::Ready(e) => f.debug_tuple("Ready").field(&e.model_id()).finish(),
        }
    }
}

impl Configured {
    /// The provider named in the configuration (empty when off).
    pub fn provider(&self) -> &str {
        match self {
            Configured::Off => "",
            Configured::Broken { provider, .. } => provider,
            Configured::Ready(e) => e.model_id().split('/').next().unwrap_or_default(),
        }
    }

    pub fn embedder(&self) -> Option<&Arc<dyn Embedder>> {
        match self {
            Configured::Ready(e) => Some(e),
            _ => None,
        }
    }
}

/// The embedder `cfg` gives with the provider registry `registry` (the `providers` table;
/// `None` when the database has none yet: the configuration's list is what the runtime will
/// seed it with).
pub fn configured(cfg: &RuntimeConfig, registry: Option<&[ProviderRow]>) -> Configured {
    let provider = cfg.value(config::EMBEDDING_PROVIDER);
    // The runtime only asks whether the value is blank; a provider name is looked up as is.
    if provider.trim().is_empty() {
        return Configured::Off;
    }
    let model = cfg.value(config::EMBEDDING_MODEL);
    let broken = |reason: String| Configured::Broken {
        provider: provider.to_string(),
        reason,
    };
    let found = match registry {
        Some(rows) => rows
            .iter()
            .find(|r| r.name == provider)
            .map(|r| (r.api_key.clone(), r.base_url.clone())),
        None => cfg
            .providers
            .iter()
            .find(|p| p.name == provider)
            .map(|p| (p.api_key.clone(), p.base_url.clone())),
    };
    let Some((api_key, base_url)) = found else {
        return broken(format!(
            "embedding provider 不存在于 Provider 注册表: {provider}"
        ));
    };
    if provider == "mock" {
        return Configured::Ready(Arc::new(Mock));
    }
    if model.trim().is_empty() {
        return broken(format!(
            "未配置 embedding 模型（knowledge.embedding.model），provider: {provider}"
        ));
    }
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    if blank(&api_key) || blank(&base_url) {
        return broken(format!(
            "Provider 缺少 api_key / base_url，无法构造 embedding: {provider}"
        ));
    }
    Configured::Ready(Arc::new(OpenAiCompatible::new(
        provider,
        api_key.as_deref().unwrap_or_default(),
        base_url.as_deref().unwrap_or_default(),
        model,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::config::{from_text, Context};
    use std::path::Path;

    fn cfg(yaml: &str) -> RuntimeConfig {
        from_text(
            Path::new("/i/config/application.yml"),
            Some(yaml),
            &Context::default(),
        )
    }

    fn row(name: &str, key: Option<&str>, url: Option<&str>) -> ProviderRow {
        ProviderRow {
            name: name.into(),
            api_key: key.map(String::from),
            base_url: url.map(String::from),
            description: None,
        }
    }

    #[test]
    fn base_urls_become_the_runtimes_embedding_urls() {
        for (base, url) in [
            (
                "https://api.openai.com",
                "https://api.openai.com/v1/embeddings",
            ),
            (
                "https://api.openai.com/v1",
                "https://api.openai.com/v1/embeddings",
            ),
            (
                "https://api.openai.com/v1/",
                "https://api.openai.com/v1/embeddings",
            ),
            (" https://x.test/v1/v1// ", "https://x.test/v1/embeddings"),
            (
                "https://open.bigmodel.cn/api/paas/v4",
                "https://open.bigmodel.cn/api/paas/v4/embeddings",
            ),
            (
                "https://open.bigmodel.cn/api/paas/v4/",
                "https://open.bigmodel.cn/api/paas/v4/embeddings",
            ),
            (
                "http://127.0.0.1:8765/v",
                "http://127.0.0.1:8765/v/v1/embeddings",
            ),
            ("http://h/v2x", "http://h/v2x/v1/embeddings"),
        ] {
            assert_eq!(embeddings_url(base), url, "{base}");
        }
    }

    #[test]
    fn no_provider_is_off_and_mock_needs_its_registry_row() {
        assert!(matches!(configured(&cfg(""), Some(&[])), Configured::Off));
        let mock = cfg("embedding:\n  provider: mock\n");
        assert!(matches!(
            configured(&mock, Some(&[row("mock", None, None)])),
            Configured::Ready(ref e) if e.model_id() == "mock/deterministic"
        ));
        let Configured::Broken { reason, .. } =
            configured(&mock, Some(&[row("openai", None, None)]))
        else {
            panic!("mock without a registry row is broken")
        };
        assert!(reason.contains("注册表"), "{reason}");
    }

    #[test]
    fn a_provider_needs_a_model_a_key_and_a_url() {
        let c = cfg("embedding:\n  provider: qwen\n  model: text-embedding-v3\n");
        let ok = [row(
            "qwen",
            Some("sk-1"),
            Some("https://dashscope.test/compatible-mode/v1"),
        )];
        let Configured::Ready(e) = configured(&c, Some(&ok)) else {
            panic!("qwen with key and url is ready")
        };
        assert_eq!(e.model_id(), "qwen/text-embedding-v3");
        for rows in [
            [row("qwen", Some(" "), Some("https://x"))],
            [row("qwen", Some("k"), None)],
        ] {
            assert!(matches!(
                configured(&c, Some(&rows)),
                Configured::Broken { .. }
            ));
        }
        let no_model = cfg("embedding:\n  provider: qwen\n");
        assert!(matches!(
            configured(&no_model, Some(&ok)),
            Configured::Broken { .. }
        ));
    }
}
