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

/// Sets `path` (e.g. `["provider", "model"]`) to `value` in the front matter text `fm`
/// (without fences); `None` removes the key. Missing parents are added.
pub fn set(fm: &str, path: &[&str], value: Option<&Value>) -> Result<String> {
    if path.is_empty() || path.iter().any(|k| k.is_empty()) {
        return Err(CoreError::InvalidInput(
            "name a key, like provider.model".into(),
        ));
    }
    let nl = if fm.contains("\r\n") { "\r\n" } else { "\n" };
    let mut lines: Vec<String> = fm.lines().map(str::to_string).collect();
    let (mut from, mut to, mut indent) = (0usize, lines.len(), 0usize);
    for (depth, key) in path.iter().enumerate() {
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let last = depth + 1 == path.len();
        match find_key(&refs, from, to, indent, key) {
            Some((at, end)) if last => {
                match value {
                    Some(v) => {
                        // A comment after an inline value stays.
                        let comment = inline_comment(&lines[at]);
                        let mut new = render(key, v, indent)?;
                        if let (Some(c), 1) = (comment, new.len()) {
                            new[0].push_str(&c);
                        }
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
                let rest = lines[at][indent + key.len() + 1..].trim();
                if !(rest.is_empty() || rest.starts_with('#')) {
                    return Err(CoreError::InvalidInput(format!(
                        "{} is written inline ({rest}); edit it in the raw editor",
                        path[..=depth].join(".")
                    )));
                }
                let child = (at + 1..end)
                    .find(|&j| !is_blank_or_comment(&lines[j]))
                    .map_or(indent + 2, |j| indent_of(&lines[j]));
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
                while at > from && is_blank_or_comment(&lines[at - 1]) && depth > 0 {
                    at -= 1;
                }
                lines.splice(at..at, new);
                break;
            }
        }
    }
    let mut out = lines.join(nl);
    if fm.ends_with('\n') || fm.is_empty() {
        out.push_str(nl);
    }
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

fn inline_comment(line: &str) -> Option<String> {
    // A ` #` outside quotes starts a comment; quoted values with `#` are left without one.
    let (_, value) = line.split_once(':')?;
    if value.contains('"') || value.contains('\'') {
        return None;
    }
    let hash = value.find(" #")? + 1;
    let start = value[..hash].trim_end_matches([' ', '\t']).len();
    Some(value[start..].to_string())
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
