//! `---` YAML front matter at the top of AGENT.md and SKILL.md.

use serde_json::Value;

/// The front matter text (without fences) and the body after it. No front matter → (None, all).
pub fn split(text: &str) -> (Option<&str>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(first_nl) = text.find('\n') else {
        return (None, text);
    };
    if text[..first_nl].trim_end() != "---" {
        return (None, text);
    }
    let rest = &text[first_nl + 1..];
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let t = line.trim_end();
        if t == "---" || t == "..." {
            let body = &rest[offset + line.len()..];
            return (Some(&rest[..offset]), body);
        }
        offset += line.len();
    }
    // An opening fence without a closing one is not front matter: keep the text as body.
    (None, text)
}

/// Why front matter cannot be read; shown to the user as a warning beside the agent.
#[derive(Debug, thiserror::Error)]
pub enum FrontMatterError {
    #[error("{0}")]
    Yaml(#[from] serde_yaml_ng::Error),
    #[error("front matter is not a mapping of keys to values")]
    NotAMapping,
}

/// Parses the YAML into a JSON value (a mapping), or says why it cannot.
pub fn parse(yaml: &str) -> Result<Value, FrontMatterError> {
    if yaml.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    let value: Value = serde_yaml_ng::from_str(yaml)?;
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Ok(Value::Object(Default::default())),
        _ => Err(FrontMatterError::NotAMapping),
    }
}

pub fn get_str(v: &Value, path: &[&str]) -> Option<String> {
    let mut cur = v;
    for key in path {
        cur = cur.get(key)?;
    }
    match cur {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub fn get_f64(v: &Value, path: &[&str]) -> Option<f64> {
    let mut cur = v;
    for key in path {
        cur = cur.get(key)?;
    }
    cur.as_f64()
        .or_else(|| cur.as_str().and_then(|s| s.trim().parse().ok()))
}

/// A list of strings; a single string counts as a list of one; maps in the list use their `name`.
pub fn get_str_list(v: &Value, key: &str) -> Vec<String> {
    match v.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => o.get("name").and_then(Value::as_str).map(str::to_string),
                _ => None,
            })
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

/// Replaces `${VAR}` in every text value (not in keys) the way the runtime's profile loader does
/// before it reads AGENT.md's front matter: `VAR` is `[A-Za-z0-9_]+`, a variable `lookup` does
/// not know stays as written, and there is no `${VAR:default}` form (that text stays as is).
pub fn resolve_placeholders(v: &Value, lookup: &dyn Fn(&str) -> Option<String>) -> Value {
    match v {
        Value::String(s) => Value::String(resolve_in_text(s, lookup)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| resolve_placeholders(i, lookup))
                .collect(),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, i)| (k.clone(), resolve_placeholders(i, lookup)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The placeholders of one text resolved (see [`resolve_placeholders`]).
pub fn resolve_in_text(s: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let var_len = after
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        if var_len > 0 && after.as_bytes().get(var_len) == Some(&b'}') {
            let var = &after[..var_len];
            match lookup(var) {
                Some(value) => out.push_str(&value),
                None => out.push_str(&rest[start..start + 3 + var_len]),
            }
            rest = &after[var_len + 1..];
        } else {
            out.push_str("${");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The console's own environment, as the lookup for [`resolve_placeholders`]: the runtime reads
/// its process environment, which on one machine is most often the same.
pub fn process_env(var: &str) -> Option<String> {
    std::env::var(var).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_front_matter() {
        let (fm, body) = split("---\nname: a\n---\n# Body\n");
        assert_eq!(fm, Some("name: a\n"));
        assert_eq!(body, "# Body\n");
        assert_eq!(split("# no front matter").0, None);
        assert_eq!(split("---\nunterminated: yes\n").0, None);
        let (fm, body) = split("\u{feff}---\r\n---\r\nbody");
        assert_eq!(fm, Some(""));
        assert_eq!(body, "body");
    }

    #[test]
    fn parses_and_reads_fields() {
        let v =
            parse("name: a\nprovider:\n  model: gpt\n  temperature: 0.3\ntools: [x, y]\n").unwrap();
        assert_eq!(get_str(&v, &["provider", "model"]), Some("gpt".into()));
        assert_eq!(get_f64(&v, &["provider", "temperature"]), Some(0.3));
        assert_eq!(get_str_list(&v, "tools"), vec!["x", "y"]);
        assert!(parse("name: [unclosed").is_err());
        assert!(parse("- a list").is_err());
    }

    #[test]
    fn placeholders_resolve_as_the_runtime_resolves_them() {
        let env = |k: &str| (k == "MODEL").then(|| "gpt-4o".to_string());
        assert_eq!(resolve_in_text("${MODEL}", &env), "gpt-4o");
        assert_eq!(
            resolve_in_text("a-${MODEL}-${MODEL}", &env),
            "a-gpt-4o-gpt-4o"
        );
        // Unknown variables and the `:default` form stay as written.
        assert_eq!(resolve_in_text("${NOPE}", &env), "${NOPE}");
        assert_eq!(resolve_in_text("${MODEL:x}", &env), "${MODEL:x}");
        assert_eq!(
            resolve_in_text("${} ${ MODEL} $MODEL {MODEL}", &env),
            "${} ${ MODEL} $MODEL {MODEL}"
        );
        assert_eq!(resolve_in_text("${${MODEL}}", &env), "${gpt-4o}");
        let v = parse("provider:\n  model: ${MODEL}\n  n: 3\ntools: [\"${MODEL}\"]\n${MODEL}: k\n")
            .unwrap();
        let r = resolve_placeholders(&v, &env);
        assert_eq!(r["provider"]["model"], "gpt-4o");
        assert_eq!(r["provider"]["n"], 3);
        assert_eq!(r["tools"][0], "gpt-4o");
        assert_eq!(r["${MODEL}"], "k", "keys are not resolved");
    }
}
