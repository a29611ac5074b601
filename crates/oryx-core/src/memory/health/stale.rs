//! Time words that say "relative to when this was written" (tomorrow, next week, 明天, 下周…):
//! an entry that holds one is stale once it is old enough.

use std::sync::LazyLock;

use regex::Regex;

/// Chinese words that say "relative to when this was written" (the first of them an entry
/// holds, in this order, is the one reported).
pub(super) const STALE_ZH: &[&str] = &[
    "明天",
    "后天",
    "今晚",
    "今天下午",
    "今天上午",
    "下周",
    "下星期",
    "下个月",
    "本周",
    "这周",
    "周一",
    "周二",
    "周三",
    "周四",
    "周五",
    "周六",
    "周日",
    "星期一",
    "星期二",
    "星期三",
    "星期四",
    "星期五",
    "星期六",
    "星期日",
    "星期天",
];

/// The English words, as whole words, case aside.
const STALE_EN: &str = r"(?i)\b(tomorrow|tonight|next (?:week|month)|this (?:week|afternoon|evening)|(?:on )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b";

/// Words that say "relative to when this was written", by regexes alone (the path of entries
/// holding letters the trigger automaton does not fold, see `triggers.rs`).
pub(super) fn relative_time(text: &str) -> Option<&str> {
    // One pass says whether any word is there (most entries have none); then which one.
    static ANY: LazyLock<Regex> = LazyLock::new(|| {
        let zh: Vec<String> = STALE_ZH.iter().map(|w| regex::escape(w)).collect();
        let en = STALE_EN.replace(r"\b", "");
        Regex::new(&format!("{}|(?:{en})", zh.join("|"))).expect("a valid pattern")
    });
    if !ANY.is_match(text) {
        return None;
    }
    if let Some(w) = STALE_ZH.iter().find(|w| text.contains(*w)) {
        return Some(*w);
    }
    english_word(text)
}

/// The first English word of [`STALE_EN`] in `text`.
pub(super) fn english_word(text: &str) -> Option<&str> {
    static EN: LazyLock<Regex> = LazyLock::new(|| Regex::new(STALE_EN).expect("a valid pattern"));
    EN.find(text).map(|m| m.as_str())
}
