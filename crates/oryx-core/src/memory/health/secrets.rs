//! Secrets in an entry's text: API keys and tokens of the common providers, private keys,
//! connection strings with a password, passwords written out. The patterns follow the token
//! formats gitleaks' default rule set documents (written here as regexes of our own).

use std::sync::LazyLock;

use regex::Regex;

/// (kind, pattern) of secrets, after gitleaks' documented token formats.
const SECRET_PATTERNS: &[(&str, &str)] = &[
    ("private_key", r"-----BEGIN[A-Z ]*PRIVATE KEY-----"),
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai_key", r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}"),
    ("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    ("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    (
        "connection_string",
        r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@[^\s/]+",
    ),
    (
        "password",
        r"(?i)(?:password|passwd|pwd|密码|口令)\s*(?:is|是|为)?\s*[:：=]\s*\S{4,}",
    ),
];

fn secret_rules() -> &'static [(&'static str, Regex)] {
    static RULES: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
        SECRET_PATTERNS
            .iter()
            .map(|(k, p)| (*k, Regex::new(p).expect("a valid pattern")))
            .collect()
    });
    &RULES
}

/// Whether any secret rule could match: the literal every rule needs, found in one pass over
/// the text by a literal searcher (the rules then run only on the few entries that have one; a
/// 100 MB archive has ~900 000 entries).
pub(super) fn may_hold_secret(text: &str) -> bool {
    static ANY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"-----BEGIN|sk-|AKIA|ASIA|gh[pousr]_|github_pat_|xox[abposr]-|AIza|[sr]k_(?:live|test)_|eyJ|://|(?i:passw|pwd)|密码|口令",
        )
        .expect("a valid pattern")
    });
    ANY.is_match(text)
}

/// The secrets of one entry: the spans found and their kinds, in rule order.
pub(super) fn secrets_in(text: &str) -> (Vec<(usize, usize)>, Vec<&'static str>) {
    let mut spans = Vec::new();
    let mut kinds = Vec::new();
    for (kind, re) in secret_rules() {
        for m in re.find_iter(text) {
            if !spans.iter().any(|(a, b)| m.start() < *b && *a < m.end()) {
                spans.push((m.start(), m.end()));
                if !kinds.contains(kind) {
                    kinds.push(*kind);
                }
            }
        }
    }
    (spans, kinds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_prefilter_lets_every_rule_through() {
        let samples = [
            "-----BEGIN RSA PRIVATE KEY-----",
            "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
            "key sk-proj-abcdefghijklmnopqrstuvwxyz0123",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
            "xoxb-1234567890-abcdef",
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "sk_live_abcdefghijklmnop1234",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk",
            "postgres://admin:hunter22@db.example.com/app",
            "PassWord: hunter22",
            "数据库密码是：hunter22",
        ];
        for s in samples {
            let rules = secret_rules().iter().filter(|(_, r)| r.is_match(s)).count();
            assert!(rules > 0, "no rule matches the sample {s:?}");
            assert!(may_hold_secret(s), "the prefilter drops {s:?}");
        }
        assert!(!may_hold_secret("用户偏好简洁的回复，不用列表。"));
    }
}
