//! MemoryService: the one door to long-term memory (CONTRACT §7). Callers resolve the owner first
//! (strictly for the console, leniently on the run path); the service never picks a file itself.

use std::sync::Arc;

use serde::Serialize;

use super::entry::{sanitize_content, trim_runtime, Entry, Scope};
use super::format::{ARCHIVAL_HEADING, CORE_HEADING};
use super::semantic::{self, RecallConfig, RecallMode, Recalled, SemanticIndex};
use super::store::{Backend, ContextEntries, LongTermMemoryStore};
use super::window::{self, Window, WindowRule};
use crate::error::Result;
use crate::names::Owner;
use crate::runtime::config::RuntimeConfig;
use crate::runtime::embedder::Configured;
use crate::runtime::recall as runtime_recall;

pub const FOOTPRINT_PART_LIMIT: usize = 200;
pub const RECALL_EMPTY: &str = "没有找到相关记忆";

#[derive(Clone)]
pub struct MemoryService {
    store: Arc<dyn LongTermMemoryStore>,
    rule: WindowRule,
    recall: RecallConfig,
    /// The vectors semantic and hybrid recall rank with (`None`: keyword recall only).
    index: Option<Arc<SemanticIndex>>,
    /// The runtime that reads these entries: its recall engine answers `recall_memory`.
    runtime: Option<RuntimeSource>,
}

/// Where the runtime's recall engine takes its settings and vectors from.
#[derive(Debug, Clone)]
pub struct RuntimeSource {
    pub config: Arc<RuntimeConfig>,
    /// The runtime's database (its `providers` and `memory_vectors`).
    pub db_path: std::path::PathBuf,
}

/// The runtime's recall of one query, with the settings it ran with.
#[derive(Debug, Clone)]
pub struct RuntimeRecall {
    pub answer: runtime_recall::Answer,
    /// The settings the runtime's configuration gives (the answer's may be a trial's).
    pub configured: runtime_recall::Settings,
    /// Why the configuration's settings could not be read (the runtime would not start).
    pub settings_problem: Option<String>,
    pub embedding: Configured,
}

/// Where the window cuts the archive, in numbers a person can read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WindowStats {
    /// The rule that cut the window.
    pub rule: WindowRule,
    /// The console's character limit (whatever rule is in force).
    pub limit_chars: usize,
    /// Index of the oldest archival entry inside the window.
    pub first_in_window: usize,
    /// One past the newest archival entry inside the window (the count of entries, unless the
    /// runtime's archival text ends before them).
    pub end_in_window: usize,
    pub in_window_entries: usize,
    pub in_window_chars: usize,
    pub outside_entries: usize,
    pub outside_chars: usize,
    pub newest_cut: bool,
    /// When the entry at `first_in_window` is only partly in: the end of it that reaches the
    /// prompt.
    pub partial: Option<String>,
}

impl WindowStats {
    /// The figures of `w` over the archival entries `archival`.
    pub fn of(w: &Window, rule: WindowRule, limit_chars: usize, archival: &[Entry]) -> WindowStats {
        let total = archival.len();
        let first = w.first_in_window.min(total);
        let end = w.end_in_window.clamp(first, total);
        let chars = |es: &[Entry]| es.iter().map(Entry::line_chars).sum::<usize>();
        WindowStats::counted(
            w,
            rule,
            limit_chars,
            (first, end, total),
            chars(&archival[..first]) + chars(&archival[end..]),
        )
    }

    /// The figures of `w` whose entries `first..end` of `total` are in, with `outside_chars`
    /// characters in the others.
    pub fn counted(
        w: &Window,
        rule: WindowRule,
        limit_chars: usize,
        (first, end, total): (usize, usize, usize),
        outside_chars: usize,
    ) -> WindowStats {
        WindowStats {
            rule,
            limit_chars,
            first_in_window: first,
            end_in_window: end,
            in_window_entries: end - first,
            in_window_chars: w.text.chars().count(),
            outside_entries: total - (end - first),
            outside_chars,
            newest_cut: w.newest_cut,
            partial: w.partial.as_ref().map(|p| p.kept.clone()),
        }
    }

    pub fn is_in_window(&self, index: usize) -> bool {
        index >= self.first_in_window && index < self.end_in_window
    }
}

/// Every entry of one owner with the window applied (the console's listing).
#[derive(Debug, Clone, Serialize)]
pub struct MemoryView {
    pub backend: Backend,
    pub core: Vec<Entry>,
    pub archival: Vec<Entry>,
    pub window: WindowStats,
    pub context: String,
    /// The backend listed a full page (mem0): there may be more entries than shown.
    pub possibly_more: bool,
    /// File index of `archival[0]`: 0, or in a paged view the first entry of the window.
    pub archival_offset: usize,
    /// Set when the file was too large to parse whole: `archival` holds only the window's
    /// entries, the others come in pages (memory/paged.rs). Says why, for the person.
    pub paged_reason: Option<String>,
    /// The store's own ids of `core` / `archival` (see [`super::Sections`]); empty for
    /// MEMORY.md, whose ids come from position and line.
    pub core_ids: Vec<String>,
    pub archival_ids: Vec<String>,
}

impl MemoryView {
    pub fn core_id(&self, i: usize) -> String {
        super::entry::entry_id(&self.core_ids, Scope::Core, i, &self.core[i])
    }

    /// The id of the archival entry at file index `index` (whose entry is `e`).
    pub fn archival_id(&self, index: usize, e: &Entry) -> String {
        match index.checked_sub(self.archival_offset) {
            Some(j) if j < self.archival_ids.len() => self.archival_ids[j].clone(),
            _ => super::entry_id::markdown_id(Scope::Archival, index, &e.line),
        }
    }
}

impl MemoryService {
    pub fn new(store: Arc<dyn LongTermMemoryStore>, archival_limit: usize) -> Self {
        MemoryService {
            store,
            rule: WindowRule::WholeEntries {
                limit: archival_limit,
            },
            recall: RecallConfig::default(),
            index: None,
            runtime: None,
        }
    }

    /// Answers `recall_memory` with the runtime's engine as `source` configures it.
    pub fn with_runtime(mut self, source: Option<RuntimeSource>) -> Self {
        self.runtime = source;
        self
    }

    pub fn runtime_source(&self) -> Option<&RuntimeSource> {
        self.runtime.as_ref()
    }

    /// The runtime's answer to `recall_memory(keyword)` with its explanation, with `trial`
    /// settings in place of the configured ones when given; `None` when no runtime reads these
    /// entries, or it delegates recall to its store (mem0).
    pub fn runtime_recall(
        &self,
        owner: &Owner,
        keyword: &str,
        trial: Option<runtime_recall::Settings>,
    ) -> Result<Option<RuntimeRecall>> {
        let Some(src) = &self.runtime else {
            return Ok(None);
        };
        if self.backend() == Backend::Mem0 {
            return Ok(None);
        }
        let (configured, settings_problem, embedding) = self.runtime_engine(src);
        let answer = runtime_recall::recall(
            self.store.as_ref(),
            owner,
            keyword,
            trial.unwrap_or(configured),
            &embedding,
            &src.db_path,
        )?;
        Ok(Some(RuntimeRecall {
            answer,
            configured,
            settings_problem,
            embedding,
        }))
    }

    /// The runtime's recall settings (the defaults and why, when it would refuse its own) and its
    /// embedding provider.
    pub fn runtime_engine(
        &self,
        src: &RuntimeSource,
    ) -> (runtime_recall::Settings, Option<String>, Configured) {
        let (configured, settings_problem) = match runtime_recall::Settings::of(&src.config) {
            Ok(s) => (s, None),
            Err(e) => (runtime_recall::Settings::default(), Some(e)),
        };
        let registry = crate::runtime::providers::registry(&src.db_path).unwrap_or(None);
        let embedding = crate::runtime::embedder::configured(&src.config, registry.as_deref());
        (configured, settings_problem, embedding)
    }

    /// Recall as `cfg` says, ranking with `index` in semantic and hybrid modes.
    pub fn with_recall(mut self, cfg: RecallConfig, index: Option<Arc<SemanticIndex>>) -> Self {
        self.recall = cfg;
        self.index = index;
        self
    }

    pub fn recall_config(&self) -> &RecallConfig {
        &self.recall
    }

    pub fn semantic_index(&self) -> Option<&Arc<SemanticIndex>> {
        self.index.as_ref()
    }

    pub fn backend(&self) -> Backend {
        self.store.backend()
    }

    pub fn store(&self) -> &Arc<dyn LongTermMemoryStore> {
        &self.store
    }

    /// Cuts the window by `rule` from now on (the runtime's rule for a root it reads).
    pub fn with_window_rule(mut self, rule: WindowRule) -> Self {
        self.rule = rule;
        self
    }

    /// The rule the window is cut by.
    pub fn window_rule(&self) -> WindowRule {
        self.rule
    }

    /// The rule's number (characters, UTF-16 units or entries): what a store's prompt load
    /// must cover.
    pub fn archival_limit(&self) -> usize {
        self.rule.reach()
    }

    /// The memory block of prompt part [2]: core whole, archival windowed, headings always present.
    pub fn build_context(&self, owner: &Owner) -> Result<String> {
        let ctx = self.store.load_context(owner, self.rule.reach())?;
        Ok(prompt_of(&ctx, self.rule).1)
    }

    pub fn view(&self, owner: &Owner) -> Result<MemoryView> {
        let all = self.store.load_all(owner)?;
        let (w, context) = match self.rule {
            // The runtime's markdown window is cut from the raw text: the prompt's own load.
            WindowRule::TailUnits { .. } => {
                let ctx = self.store.load_context(owner, self.rule.reach())?;
                let (w, context) = prompt_of(&ctx, self.rule);
                // The load holds the newest entries (a large file's only from its tail).
                let offset = all.archival.len().saturating_sub(ctx.archival_tail.len());
                (w.shifted(offset), context)
            }
            _ => {
                let w = window::apply(&all.archival, self.rule);
                let context = render_block(&all.core, &w);
                (w, context)
            }
        };
        let stats = WindowStats::of(&w, self.rule, self.rule.limit(), &all.archival);
        let possibly_more = all.possibly_more;
        Ok(MemoryView {
            backend: self.backend(),
            core: all.core,
            archival: all.archival,
            window: stats,
            context,
            possibly_more,
            archival_offset: 0,
            paged_reason: None,
            core_ids: all.core_ids,
            archival_ids: all.archival_ids,
        })
    }

    /// Sanitises `raw` to one line and appends it; returns the entry as stored.
    pub fn append(&self, owner: &Owner, scope: Scope, raw: &str) -> Result<Entry> {
        let content = sanitize_content(raw)?;
        self.store.append(owner, scope, &content, None)
    }

    /// The entries `recall_memory` answers with, in the configured mode.
    pub fn recall(&self, owner: &Owner, keyword: &str) -> Result<Vec<Entry>> {
        Ok(self
            .recall_with(owner, keyword, &self.recall)?
            .into_iter()
            .map(|r| r.entry)
            .collect())
    }

    /// Recall with explicit settings (the console's recall tester compares modes).
    pub fn recall_with(
        &self,
        owner: &Owner,
        query: &str,
        cfg: &RecallConfig,
    ) -> Result<Vec<Recalled>> {
        semantic::recall(
            self.store.as_ref(),
            self.index.as_deref(),
            owner,
            query,
            cfg,
        )
    }

    /// The recall_memory tool's result string (CONTRACT §8).
    pub fn recall_text(&self, owner: &Owner, keyword: &str) -> Result<String> {
        Ok(self.recall_answer(owner, keyword)?.0)
    }

    /// The recall_memory tool's result string, and a note when the configured mode could not
    /// rank by meaning (no model, unusable vectors): the agent then gets keyword recall's
    /// answer rather than a failed call.
    pub fn recall_answer(&self, owner: &Owner, keyword: &str) -> Result<(String, Option<String>)> {
        if let Some(r) = self.runtime_recall(owner, keyword, None)? {
            let note = r
                .answer
                .degraded
                .map(|why| format!("the runtime's semantic recall is unavailable: {why}"));
            return Ok((r.answer.text, note));
        }
        match self.recall(owner, keyword) {
            Ok(hits) => Ok((recall_result_text(&hits), None)),
            Err(e) if self.recall.mode != RecallMode::Keyword => {
                let keyword_cfg = RecallConfig {
                    mode: RecallMode::Keyword,
                    ..self.recall
                };
                let hits: Vec<Entry> = self
                    .recall_with(owner, keyword, &keyword_cfg)?
                    .into_iter()
                    .map(|r| r.entry)
                    .collect();
                let note = format!(
                    "{} recall could not be used ({e}); answered with keyword recall",
                    self.recall.mode.as_str()
                );
                Ok((recall_result_text(&hits), Some(note)))
            }
            Err(e) => Err(e),
        }
    }

    /// Appends the automatic footprint of one trigger (CONTRACT §5).
    pub fn record_footprint(&self, owner: &Owner, user: &str, reply: &str) -> Result<Entry> {
        self.append(owner, Scope::Archival, &footprint_text(user, reply))
    }
}

/// Matching lines joined by `\n`, or the "nothing found" sentence the model expects.
pub fn recall_result_text(hits: &[Entry]) -> String {
    recall_lines_text(&hits.iter().map(|e| e.line.as_str()).collect::<Vec<_>>())
}

/// The recall_memory tool's result for the lines it found: joined by `\n`, or the "nothing
/// found" sentence when there are none (every engine and store answers this way).
pub fn recall_lines_text(lines: &[&str]) -> String {
    if lines.is_empty() {
        RECALL_EMPTY.to_string()
    } else {
        lines.join("\n")
    }
}

/// The window `rule` cuts from a prompt's load, and the memory block it makes: from the raw
/// text when the load carries the runtime's markdown reading and the rule is its window.
pub fn prompt_of(ctx: &ContextEntries, rule: WindowRule) -> (Window, String) {
    match (rule, &ctx.runtime_text) {
        (WindowRule::TailUnits { units }, Some(rt)) => {
            let w = window::cut_raw(&rt.archival, units);
            let block = format!(
                "{CORE_HEADING}\n{}\n{ARCHIVAL_HEADING}\n{}",
                rt.core, w.text
            );
            (w, block)
        }
        _ => {
            let w = window::apply(&ctx.archival_tail, rule);
            let block = render_block(&ctx.core, &w);
            (w, block)
        }
    }
}

/// The runtime's frame: `## 核心记忆\n<core lines>\n## 归档记忆\n<archival window>`, so an empty
/// memory is `## 核心记忆\n\n## 归档记忆\n` and a non-empty one has no trailing newline.
pub fn render_block(core: &[Entry], w: &Window) -> String {
    let core_text = core
        .iter()
        .map(|e| e.line.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "{CORE_HEADING}\n{core_text}\n{ARCHIVAL_HEADING}\n{}",
        w.text
    )
}

/// `触发「<user>」⇒ <reply>`, each part collapsed to one line and cut to 200 characters.
pub fn footprint_text(user: &str, reply: &str) -> String {
    format!(
        "触发「{}」⇒ {}",
        footprint_part(user),
        footprint_part(reply)
    )
}

/// As the runtime flattened a footprint part: blank (by its `isBlank`) is `（空）`; runs of ASCII
/// whitespace (its regex `\s`) become one space and the ends are trimmed by its `strip()`, so
/// no-break spaces are content, not whitespace.
pub(crate) fn footprint_part(s: &str) -> String {
    if trim_runtime(s).is_empty() {
        return "（空）".to_string();
    }
    let mut flat = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r') {
            if !flat.ends_with(' ') {
                flat.push(' ');
            }
        } else {
            flat.push(c);
        }
    }
    let collapsed = trim_runtime(&flat);
    if collapsed.chars().count() > FOOTPRINT_PART_LIMIT {
        let mut cut: String = collapsed.chars().take(FOOTPRINT_PART_LIMIT).collect();
        cut.push('…');
        return cut;
    }
    collapsed.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_is_framed_as_the_runtime_frames_it() {
        let empty = window::compute(&[], 4000);
        assert_eq!(render_block(&[], &empty), "## 核心记忆\n\n## 归档记忆\n");
        let core = vec![Entry::new(None, "a"), Entry::new(None, "b")];
        let arch = vec![Entry::new(None, "c")];
        let w = window::compute(&arch, 4000);
        assert_eq!(
            render_block(&core, &w),
            "## 核心记忆\n- a\n- b\n## 归档记忆\n- c"
        );
    }

    #[test]
    fn footprints() {
        assert_eq!(
            footprint_text("帮我  总结\n日志", "已总结"),
            "触发「帮我 总结 日志」⇒ 已总结"
        );
        assert_eq!(footprint_text(" ", ""), "触发「（空）」⇒ （空）");
        let long = "字".repeat(250);
        let t = footprint_text(&long, "ok");
        assert!(t.starts_with(&format!("触发「{}…」", "字".repeat(200))));
    }

    #[test]
    fn footprint_parts_keep_no_break_spaces_as_the_runtime_did() {
        assert_eq!(footprint_part("\u{a0}"), "\u{a0}");
        assert_eq!(footprint_part(" \u{a0}hi\u{a0}\n"), "\u{a0}hi\u{a0}");
        assert_eq!(footprint_part("a \t\r\n b"), "a b");
        assert_eq!(footprint_part("\u{3000}\u{2028} "), "（空）");
        assert_eq!(footprint_text("\u{a0}", "\u{a0}"), "触发「\u{a0}」⇒ \u{a0}");
    }
}
