//! Targeted edits of block-style YAML front matter: one key's value is replaced (or added, or
//! removed) in the text, and every other line — comments, unknown keys, their order, the
//! spelling of other values — stays byte for byte. The result is parsed again and must hold
//! exactly the value asked for; a shape this editor does not handle in place (a flow mapping
//! `provider: {name: x}`, a key spelled with quotes) is refused, never rewritten.

use serde_json::Value;

use crate::error::{CoreError, Result};
use crate::frontmatter;

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The line `key:` at `indent` within `lines[from..to]`; the end of its block (the first
/// later line, not blank or a comment, indented no deeper than the key).
fn find_key(
    lines: &[&str],
    from: usize,
    to: usize,
    indent: usize,
    key: &str,
) -> Option<(usize, usize)> {
    let mut i = from;
    while i < to {
        let line = lines[i];
        if !is_blank_or_comment(line) && indent_of(line) == indent {
            let rest = &line[indent..];
            if let Some(after) = rest.strip_prefix(key) {
                if after.starts_with(':') {
                    let mut end = i + 1;
                    while end < to
                        && (is_blank_or_comment(lines[end]) || indent_of(lines[end]) > indent)
                    {
                        end += 1;
                    }
                    // Trailing blank lines and comments belong to what follows.
                    while end > i + 1 && is_blank_or_comment(lines[end - 1]) {
                        end -= 1;
                    }
                    return Some((i, end));
                }
            }
        }
        i += 1;
    }
    None
}

/// `value` as YAML lines for `key` at `indent`: `key: scalar` or `key:` and a block.
fn render(key: &str, value: &Value, indent: usize) -> Result<Vec<String>> {
    let pad = " ".repeat(indent);
    let text = serde_yaml_ng::to_string(value)
        .map_err(|e| CoreError::InvalidInput(format!("cannot write {key}: {e}")))?;
    let text = text.trim_end_matches('\n');
    let simple = !matches!(value, Value::Object(m) if !m.is_empty())
        && !matches!(value, Value::Array(a) if !a.is_empty());
    if simple && !text.contains('\n') {
        return Ok(vec![format!("{pad}{key}: {text}")]);
    }
    let mut out = vec![format!("{pad}{key}:")];
    for l in text.lines() {
        out.push(format!("{pad}  {l}"));
    }
    Ok(out)
}

/// One line of the front matter and the ending it had: `"\n"`, `"\r\n"`, or none (the last).
struct Line {
    text: String,
    end: &'static str,
}

fn split_lines(fm: &str) -> Vec<Line> {
    fm.split_inclusive('\n')
        .map(|l| {
            let (text, end) = if let Some(t) = l.strip_suffix("\r\n") {
                (t, "\r\n")
            } else if let Some(t) = l.strip_suffix('\n') {
                (t, "\n")
            } else {
                (l, "")
            };
            Line {
                text: text.to_string(),
                end,
            }
        })
        .collect()
}

/// The ending for lines added at `at`: the line before's, else the line after's, else the
/// file's.
fn ending_near(lines: &[Line], at: usize, fm: &str) -> &'static str {
    let before = at.checked_sub(1).and_then(|i| lines.get(i));
    [before, lines.get(at)]
        .into_iter()
        .flatten()
        .map(|l| l.end)
        .find(|e| !e.is_empty())
        .unwrap_or(if fm.contains("\r\n") { "\r\n" } else { "\n" })
}

/// `texts` as lines ending like the lines they replace: the first line's ending, and the
/// last replaced line's ending on the last.
fn lines_like(texts: Vec<String>, first: &'static str, last: &'static str) -> Vec<Line> {
    let n = texts.len();
    texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| Line {
            text,
            end: if i + 1 == n { last } else { first },
        })
        .collect()
}

/// Sets `path` (e.g. `["provider", "model"]`) to `value` in the front matter text `fm`
/// (without fences); `None` removes the key. Missing parents are added. Each line keeps its
/// own ending (a file mixing LF and CRLF stays mixed); added lines take their neighbour's.
pub fn set(fm: &str, path: &[&str], value: Option<&Value>) -> Result<String> {
    if path.is_empty() || path.iter().any(|k| k.is_empty()) {
        return Err(CoreError::InvalidInput(
            "name a key, like provider.model".into(),
        ));
    }
    let mut lines = split_lines(fm);
    let (mut from, mut to, mut indent) = (0usize, lines.len(), 0usize);
    for (depth, key) in path.iter().enumerate() {
        let refs: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        let last = depth + 1 == path.len();
        match find_key(&refs, from, to, indent, key) {
            Some((at, end)) if last => {
                match value {
                    Some(v) => {
                        // A comment after an inline value stays.
                        let comment = inline_comment(&lines[at].text);
                        let mut new = render(key, v, indent)?;
                        if let (Some(c), 1) = (comment, new.len()) {
                            new[0].push_str(&c);
                        }
                        let new = lines_like(new, lines[at].end, lines[end - 1].end);
                        lines.splice(at..end, new);
                    }
                    None => {
                        lines.drain(at..end);
                    }
                }
                break;
            }
            Some((at, end)) => {
                // Descend into a block mapping (an inline value here cannot be edited in place).
                let rest = lines[at].text[indent + key.len() + 1..].trim();
                if !(rest.is_empty() || rest.starts_with('#')) {
                    return Err(CoreError::InvalidInput(format!(
                        "{} is written inline ({rest}); edit it in the raw editor",
                        path[..=depth].join(".")
                    )));
                }
                let child = (at + 1..end)
                    .find(|&j| !is_blank_or_comment(&lines[j].text))
                    .map_or(indent + 2, |j| indent_of(&lines[j].text));
                from = at + 1;
                to = end;
                indent = child;
            }
            None => {
                let Some(v) = value else {
                    return Ok(fm.to_string()); // nothing to remove
                };
                // Build the missing part from here down.
                let mut nested = v.clone();
                for k in path[depth + 1..].iter().rev() {
                    let mut m = serde_json::Map::new();
                    m.insert((*k).to_string(), nested);
                    nested = Value::Object(m);
                }
                let new = render(key, &nested, indent)?;
                let mut at = to;
                while at > from && is_blank_or_comment(&lines[at - 1].text) && depth > 0 {
                    at -= 1;
                }
                let nl = ending_near(&lines, at, fm);
                lines.splice(at..at, lines_like(new, nl, nl));
                break;
            }
        }
    }
    let out = join_lines(lines, fm);
    // The edit must read back as asked, and change nothing else.
    let before = frontmatter::parse(fm).map_err(|e| CoreError::InvalidInput(e.to_string()))?;
    let after = frontmatter::parse(&out).map_err(|e| {
        CoreError::InvalidInput(format!(
            "editing {} in place would break the YAML ({e}); use the raw editor",
            path.join(".")
        ))
    })?;
    let mut want = before;
    put(&mut want, path, value.cloned());
    if want != after {
        return Err(CoreError::InvalidInput(format!(
            "{} cannot be edited in place in this file's YAML; use the raw editor",
            path.join(".")
        )));
    }
    Ok(out)
}

/// The lines as text: every line but the last ends (a line that was last and is no longer
/// gets its neighbour's ending); the last ends when `fm` did (or was empty).
fn join_lines(mut lines: Vec<Line>, fm: &str) -> String {
    let n = lines.len();
    for i in 0..n {
        if lines[i].end.is_empty() && i + 1 < n {
            lines[i].end = ending_near(&lines, i, fm);
        }
    }
    if let Some(last) = lines.last_mut() {
        if fm.ends_with('\n') || fm.is_empty() {
            if last.end.is_empty() {
                last.end = if fm.contains("\r\n") { "\r\n" } else { "\n" };
            }
        } else {
            last.end = "";
        }
    }
    lines
        .iter()
        .flat_map(|l| [l.text.as_str(), l.end])
        .collect()
}

/// The comment after an inline value (with the blanks before it), kept when the value is
/// replaced. A `#` starts a comment only after a blank and outside a quoted scalar: in
/// `key: "a # b"  # note` the comment is `  # note`.
fn inline_comment(line: &str) -> Option<String> {
    let (_, value) = line.split_once(':')?;
    let body = value.trim_start_matches([' ', '\t']);
    let lead = value.len() - body.len();
    let scalar_end = match body.chars().next() {
        Some(q @ ('"' | '\'')) => lead + closing_quote(body, q)? + 1,
        _ => lead,
    };
    let bytes = value.as_bytes();
    let hash = (scalar_end.max(1)..bytes.len())
        .find(|&i| bytes[i] == b'#' && matches!(bytes[i - 1], b' ' | b'\t'))?;
    let start = value[..hash].trim_end_matches([' ', '\t']).len();
    Some(value[start..].to_string())
}

/// The byte index of the quote closing the scalar `body` opens with `q`; `None` when it does
/// not close on this line.
fn closing_quote(body: &str, q: char) -> Option<usize> {
    let b = body.as_bytes();
    let mut i = 1;
    while i < b.len() {
        match (q, b[i]) {
            ('"', b'\\') => i += 1,
            ('\'', b'\'') if b.get(i + 1) == Some(&b'\'') => i += 1,
            (_, c) if c == q as u8 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

fn put(v: &mut Value, path: &[&str], value: Option<Value>) {
    let Value::Object(m) = v else {
        *v = Value::Object(Default::default());
        return put(v, path, value);
    };
    if path.len() == 1 {
        match value {
            Some(x) => {
                m.insert(path[0].to_string(), x);
            }
            None => {
                m.remove(path[0]);
            }
        }
        return;
    }
    let child = m
        .entry(path[0].to_string())
        .or_insert_with(|| Value::Object(Default::default()));
    put(child, &path[1..], value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FM: &str = "# the assistant\nname: assistant   # must match the folder\ndescription: 日常助理\nprovider:\n  name: openai\n  model: gpt-4o-mini  # cheap\n  temperature: 0.3\ntools: [save_memory, recall_memory]\ncustom_thing:\n  keep: me\n";

    #[test]
    fn a_value_changes_and_every_other_byte_stays() {
        let out = set(FM, &["provider", "model"], Some(&json!("gpt-4o"))).unwrap();
        assert_eq!(out, FM.replace("gpt-4o-mini  # cheap", "gpt-4o  # cheap"));
        let out = set(FM, &["name"], Some(&json!("assistant"))).unwrap();
        assert_eq!(out, FM);
    }

    #[test]
    fn missing_keys_and_parents_are_added_and_keys_removed() {
        let out = set(FM, &["settings", "max_history_turns"], Some(&json!(30))).unwrap();
        assert!(out.starts_with(FM), "{out}");
        assert!(
            out.ends_with("settings:\n  max_history_turns: 30\n"),
            "{out}"
        );
        let out = set(FM, &["provider", "base_url"], Some(&json!("http://x"))).unwrap();
        assert!(
            out.contains("  temperature: 0.3\n  base_url: http://x\ntools:"),
            "{out}"
        );
        let out = set(FM, &["custom_thing"], None).unwrap();
        assert_eq!(out, FM.replace("custom_thing:\n  keep: me\n", ""));
        let out = set(FM, &["bootstrap"], Some(&json!(["USER.md", "AGENTS.md"]))).unwrap();
        assert!(
            out.ends_with("bootstrap:\n  - USER.md\n  - AGENTS.md\n"),
            "{out}"
        );
    }

    #[test]
    fn each_line_keeps_its_own_ending() {
        let fm =
            "name: a\r\ndescription: b\nprovider:\r\n  name: openai\n  model: x\r\ntools: [t]\n";
        let out = set(fm, &["provider", "model"], Some(&json!("y"))).unwrap();
        assert_eq!(out, fm.replace("model: x", "model: y"));
        let out = set(fm, &["description"], Some(&json!("c"))).unwrap();
        assert_eq!(out, fm.replace("description: b", "description: c"));
        // Added lines take a neighbour's ending; the others stay as they were.
        let out = set(fm, &["provider", "base_url"], Some(&json!("http://x"))).unwrap();
        assert_eq!(
            out,
            fm.replace("model: x\r\n", "model: x\r\n  base_url: http://x\r\n")
        );
        let out = set(fm, &["settings", "max_history_turns"], Some(&json!(3))).unwrap();
        assert_eq!(out, format!("{fm}settings:\n  max_history_turns: 3\n"));
        let out = set(fm, &["description"], None).unwrap();
        assert_eq!(out, fm.replace("description: b\n", ""));
        // A last line without an ending gets one when a line follows it, and the file still
        // ends without one.
        let out = set("name: a\r\nx: 1", &["y"], Some(&json!(2))).unwrap();
        assert_eq!(out, "name: a\r\nx: 1\r\ny: 2");
    }

    #[test]
    fn a_hash_inside_quotes_is_not_a_comment_and_the_comment_after_stays() {
        let fm = "description: \"issue #29 \\\" fix\"  # keep me\nname: 'it''s #1' # and me\nmodel: a#b # me too\nempty: # only a comment\n";
        let out = set(fm, &["description"], Some(&json!("plain"))).unwrap();
        assert!(out.starts_with("description: plain  # keep me\n"), "{out}");
        let out = set(fm, &["name"], Some(&json!("n"))).unwrap();
        assert!(out.contains("\nname: n # and me\n"), "{out}");
        let out = set(fm, &["model"], Some(&json!("m"))).unwrap();
        assert!(out.contains("\nmodel: m # me too\n"), "{out}");
        let out = set(fm, &["empty"], Some(&json!("v"))).unwrap();
        assert!(out.ends_with("\nempty: v # only a comment\n"), "{out}");
        // A quoted value with `#` and no comment gets none.
        let out = set("d: \"a # b\"\n", &["d"], Some(&json!("c"))).unwrap();
        assert_eq!(out, "d: c\n");
    }

    #[test]
    fn shapes_it_cannot_edit_in_place_are_refused() {
        let fm = "provider: {name: openai, model: x}\n";
        assert!(set(fm, &["provider", "model"], Some(&json!("y"))).is_err());
        // A list value replaced by a list.
        let out = set(FM, &["tools"], Some(&json!(["save_memory"]))).unwrap();
        assert!(
            out.contains("tools:\n  - save_memory\ncustom_thing:"),
            "{out}"
        );
    }
}
