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
}
