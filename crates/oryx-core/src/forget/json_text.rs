//! A text masked where it may be JSON: the runtime keeps tool inputs, tool results and whole
//! conversations as JSON text, and a masked value must still parse for the runtime to read it
//! back. Inside JSON only the strings' decoded text is masked, never the raw bytes (a needle may
//! match across an escape, `nx` in `\nx`), and only the strings that changed are written again,
//! so the rest of the value stays byte for byte as the runtime wrote it. A string that itself
//! holds JSON (the runtime stores a tool call's arguments as a JSON string inside a message) is
//! masked by the same rule, being a text like any other once decoded.

use super::Needles;

/// `text` with every needle replaced by `with`, JSON kept valid; `None` when nothing changed.
pub fn redact(text: &str, needles: &Needles, with: &str) -> Option<String> {
    if is_json(text) {
        return redact_json(text, needles, with);
    }
    needles
        .in_text(text)
        .then(|| needles.replace_all(text, with))
}

/// The byte strings a needle may be stored as: itself, and escaped as a JSON string (once, and
/// twice for JSON kept inside a JSON string) when escaping changes it — a needle with a quote
/// or a line break is in the runtime's JSON only in its escaped form. A needle with non-ASCII
/// characters also in the ASCII-only form (`\u7528`, either case) that writers other than the
/// runtime's (Python's `json.dumps`, Jackson's `ESCAPE_NON_ASCII`) use.
pub fn stored_forms(needles: &Needles) -> Vec<String> {
    let mut forms = Vec::new();
    for t in needles.texts() {
        let once = escaped(t);
        let mut all = vec![t.clone(), escaped(&once), once];
        if !t.is_ascii() {
            for upper in [false, true] {
                let ascii = ascii_escaped(t, upper);
                all.push(escaped(&ascii));
                all.push(ascii);
            }
        }
        for f in all {
            if !forms.contains(&f) {
                forms.push(f);
            }
        }
    }
    forms
}

/// `t` escaped as a JSON string with every non-ASCII character as `\uXXXX` (UTF-16 units).
fn ascii_escaped(t: &str, upper: bool) -> String {
    let mut out = String::new();
    for c in escaped(t).chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&if upper {
                    format!("\\u{u:04X}")
                } else {
                    format!("\\u{u:04x}")
                });
            }
        }
    }
    out
}

/// `t` as it appears between the quotes of a JSON string.
fn escaped(t: &str) -> String {
    let quoted = serde_json::to_string(t).unwrap_or_else(|_| format!("\"{t}\""));
    quoted[1..quoted.len() - 1].to_string()
}

/// An object, array or string that parses as JSON (a bare number or word is plain text).
fn is_json(text: &str) -> bool {
    matches!(
        text.trim_start().as_bytes().first(),
        Some(b'{' | b'[' | b'"')
    ) && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// Valid JSON `text` with each string token's decoded text redacted; tokens that did not change
/// are copied raw.
fn redact_json(text: &str, needles: &Needles, with: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        // The text is valid JSON: a quote outside a string opens one, which ends at the next
        // quote not escaped.
        let start = i;
        i += 1;
        while bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        i += 1;
        let token = &text[start..i];
        // A token that does not decode (a lone surrogate escape) is left as it is.
        let Ok(decoded) = serde_json::from_str::<String>(token) else {
            continue;
        };
        if let Some(masked) = redact(&decoded, needles, with) {
            let Ok(encoded) = serde_json::to_string(&masked) else {
                continue;
            };
            out.push_str(&text[copied..start]);
            out.push_str(&encoded);
            copied = i;
            changed = true;
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forget::FORGOTTEN;

    fn needles(t: &[&str]) -> Needles {
        Needles::new(t.iter().map(|s| s.to_string()))
    }

    #[test]
    fn a_needle_written_ascii_only_is_found_and_masked() {
        let n = needles(&["用户 key"]);
        let forms = stored_forms(&n);
        assert!(
            forms.contains(&r"\u7528\u6237 key".to_string()),
            "{forms:?}"
        );
        let accent = stored_forms(&needles(&["café"]));
        for f in [r"caf\u00e9", r"caf\u00E9", r"caf\\u00e9"] {
            assert!(accent.contains(&f.to_string()), "{f} not in {accent:?}");
        }
        let emoji = stored_forms(&needles(&["😀x"]));
        assert!(emoji.contains(&r"\ud83d\ude00x".to_string()), "{emoji:?}");
        // Python's json.dumps writes it so; the mask reads the decoded text.
        let raw = r#"{"content":"\u7528\u6237 key sk-1"}"#;
        let out = redact(raw, &n, "[forgotten]").unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["content"], "[forgotten] sk-1");
    }

    #[test]
    fn plain_text_is_replaced_and_untouched_text_is_none() {
        let n = needles(&["sk-123"]);
        assert_eq!(
            redact("key sk-123 end", &n, FORGOTTEN).as_deref(),
            Some("key [forgotten] end")
        );
        assert_eq!(redact("nothing here", &n, FORGOTTEN), None);
        // A bare JSON number is plain text.
        assert_eq!(
            redact("9sk-1239", &n, FORGOTTEN).as_deref(),
            Some("9[forgotten]9")
        );
    }

    #[test]
    fn only_the_changed_strings_are_written_again() {
        let n = needles(&["sk-123"]);
        let raw = r#"{"content":"记住 sk-123","scope":"archival","n":1.50,"x":"\u00e9"}"#;
        let out = redact(raw, &n, FORGOTTEN).unwrap();
        assert_eq!(
            out,
            r#"{"content":"记住 [forgotten]","scope":"archival","n":1.50,"x":"\u00e9"}"#
        );
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
    }

    #[test]
    fn a_needle_in_escaped_form_is_found_through_the_decoding() {
        let n = needles(&["say \"hi\"\nnow"]);
        let raw = r#"["a say \"hi\"\nnow b"]"#;
        assert_eq!(
            redact(raw, &n, FORGOTTEN).as_deref(),
            Some(r#"["a [forgotten] b"]"#)
        );
        assert!(stored_forms(&n).contains(&r#"say \"hi\"\nnow"#.to_string()));
    }

    #[test]
    fn a_needle_matching_across_an_escape_breaks_nothing() {
        let n = needles(&["nx"]);
        let raw = r#"{"a":"\nx"}"#;
        assert_eq!(redact(raw, &n, FORGOTTEN), None);
        // Nor a needle spanning the JSON's syntax.
        let n = needles(&["\",\"scope"]);
        assert_eq!(redact(r#"{"c":"v","scope":"s"}"#, &n, FORGOTTEN), None);
    }

    #[test]
    fn json_inside_a_json_string_stays_json() {
        let n = needles(&["sk-\"q\"-9"]);
        let args =
            serde_json::json!({"content": "my key sk-\"q\"-9", "scope": "archival"}).to_string();
        let messages = serde_json::json!([
            {"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"save_memory","argumentsJson": args}]}
        ])
        .to_string();
        let out = redact(&messages, &n, FORGOTTEN).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let inner = v[0]["toolCalls"][0]["argumentsJson"].as_str().unwrap();
        let inner: serde_json::Value = serde_json::from_str(inner).unwrap();
        assert_eq!(inner["content"], "my key [forgotten]");
        assert_eq!(inner["scope"], "archival");
        assert!(!out.contains("sk-"));
    }

    #[test]
    fn a_json_string_value_is_decoded_and_encoded_again() {
        // A tool's result as the runtime records it: the returned text as a JSON string.
        let n = needles(&["sk-9"]);
        let raw = "\"- [2026-01-01 10:00:00] key sk-9\\n- other\"";
        assert_eq!(
            redact(raw, &n, FORGOTTEN).as_deref(),
            Some("\"- [2026-01-01 10:00:00] key [forgotten]\\n- other\"")
        );
    }
}
