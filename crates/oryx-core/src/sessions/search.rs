//! Searching sessions by text: the session id, the user id and what was said in the messages.
//!
//! SQLite does the matching so that a search over 100 000 sessions never loads a message array
//! into Rust. Matching mirrors what a reader sees: the `content` of each message, not the JSON
//! around it (a search for "role" or a quote must not match every session).

use rusqlite::types::Value;
use serde::{Deserialize, Serialize};

/// Where in a session a search matched: the first message whose content contains the query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageMatch {
    /// Position in `messages_json` (what the session view numbers from 0).
    pub index: u64,
    pub role: String,
    /// The text around the match on one line, with `…` where it was cut.
    pub snippet: String,
}

/// `messages_json` when it is a JSON array, else an empty array: json_each must never see
/// text it cannot parse, and a corrupt row is searched by its raw text instead.
const MESSAGES_ARRAY: &str = "CASE WHEN json_valid(messages_json) \
     AND json_type(messages_json) = 'array' THEN messages_json ELSE '[]' END";

/// A message element's content, lower-cased the way SQLite folds (ASCII only).
const CONTENT_OF_ELEMENT: &str =
    "CASE WHEN m.type = 'object' THEN lower(coalesce(json_extract(m.value, '$.content'), '')) \
     ELSE '' END";

/// The WHERE clause for a text query with its parameters. instr rather than LIKE: a search for
/// "50%" or "a_b" means those characters. The raw-text instr runs first because it is cheap and
/// rejects almost every row; only rows that contain the text somewhere are parsed as JSON.
pub(super) fn condition(query: &str) -> (String, Vec<Value>) {
    let sql = format!(
        "(instr(lower(session_id), ?1q) > 0 \
          OR instr(lower(coalesce(user_id, '')), ?1q) > 0 \
          OR (instr(lower(coalesce(messages_json, '')), ?1q) > 0 AND ( \
                CASE WHEN json_valid(messages_json) AND json_type(messages_json) = 'array' \
                     THEN EXISTS (SELECT 1 FROM json_each(messages_json) m \
                                  WHERE instr({CONTENT_OF_ELEMENT}, ?1q) > 0) \
                     ELSE 1 END)))"
    );
    let needle = query.to_ascii_lowercase();
    let n = sql.matches("?1q").count();
    (
        sql.replace("?1q", "?"),
        std::iter::repeat_n(Value::Text(needle), n).collect(),
    )
}

/// A column giving the first matching message of a row as a JSON object `{i, role, content}`
/// (NULL when the match was in the ids or the row is not an array), with its parameter.
pub(super) fn first_match_column(query: &str) -> (String, Value) {
    let sql = format!(
        "(SELECT json_object('i', m.key, 'role', json_extract(m.value, '$.role'), \
                             'content', json_extract(m.value, '$.content')) \
          FROM json_each({MESSAGES_ARRAY}) m \
          WHERE instr({CONTENT_OF_ELEMENT}, ?) > 0 ORDER BY m.key LIMIT 1)"
    );
    (sql, Value::Text(query.to_ascii_lowercase()))
}

/// Reads the column of [`first_match_column`] into a match with a snippet around `query`.
pub(super) fn read_first_match(cell: Option<String>, query: &str) -> Option<MessageMatch> {
    #[derive(Deserialize)]
    struct Raw {
        i: u64,
        role: Option<serde_json::Value>,
        content: Option<serde_json::Value>,
    }
    let raw: Raw = serde_json::from_str(&cell?).ok()?;
    let text = |v: Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => s,
        Some(other) if !other.is_null() => other.to_string(),
        _ => String::new(),
    };
    Some(MessageMatch {
        index: raw.i,
        role: text(raw.role),
        snippet: snippet(&text(raw.content), query),
    })
}

/// Characters of context kept before and after the match.
const BEFORE: usize = 40;
const AFTER: usize = 80;

/// The text around the first case-insensitive (ASCII, as SQLite) occurrence of `query`, on one
/// line. Lower-casing ASCII keeps byte offsets, so the position found in the folded copy is
/// the position in the original.
pub fn snippet(text: &str, query: &str) -> String {
    let folded = text.to_ascii_lowercase();
    let needle = query.to_ascii_lowercase();
    let at = folded.find(&needle).unwrap_or(0);
    let end = at + needle.len().min(text.len() - at);
    let head: Vec<char> = text[..at].chars().collect();
    let start_chars = head.len().saturating_sub(BEFORE);
    let start = text[..at]
        .char_indices()
        .nth(start_chars)
        .map_or(at, |(i, _)| i);
    let stop = text[end..]
        .char_indices()
        .nth(AFTER)
        .map_or(text.len(), |(i, _)| end + i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&one_line(&text[start..stop]));
    if stop < text.len() {
        out.push('…');
    }
    out
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_keeps_context_and_marks_cuts() {
        let text = format!(
            "{}the certificate expired\non Monday{}",
            "x".repeat(100),
            "y".repeat(200)
        );
        let s = snippet(&text, "CERTIFICATE");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("the certificate expired on Monday"), "{s}");
        let kept_before = s.split("the certificate").next().unwrap();
        assert_eq!(
            kept_before.chars().filter(|c| *c == 'x').count(),
            BEFORE - 4
        );
    }

    #[test]
    fn snippet_of_short_text_is_the_text_on_one_line() {
        assert_eq!(
            snippet("证书\n过期了 certificate", "certificate"),
            "证书 过期了 certificate"
        );
        assert_eq!(snippet("用户说证书过期了", "证书"), "用户说证书过期了");
    }

    #[test]
    fn snippet_cuts_on_character_boundaries() {
        let text = format!("{}证书{}", "中".repeat(100), "文".repeat(100));
        let s = snippet(&text, "证书");
        assert_eq!(s.chars().filter(|c| *c == '中').count(), BEFORE);
        assert_eq!(s.chars().filter(|c| *c == '文').count(), AFTER);
    }
}
