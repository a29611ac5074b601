//! Personal data in an entry's text: e-mail addresses, phone numbers (mainland mobile and
//! international), Chinese resident ID numbers and bank card numbers. What has a checksum is
//! validated (ID numbers by GB 11643, cards by Luhn) so that order numbers and timestamps are
//! not reported.

use std::sync::LazyLock;

use regex::Regex;

/// Whether personal data could be there: what each pattern of [`pii_spans`] cannot match
/// without — an e-mail `@`, an international number `+`, or a run of digits, spaces and dashes
/// holding 11 digits or more (a mainland mobile number is 11 digits in a row; an ID number 17
/// digits and a card number 13, spaces and dashes between them allowed). A count of digits
/// alone let a footprint with a counter and a figure through (a tenth of a large archive), and
/// the four patterns cost microseconds an entry.
pub(super) fn may_hold_pii(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr2(b'@', b'+', b).is_some() || has_digit_run(b)
}

/// The digits a run of digits, spaces and dashes must hold to be a number worth a look.
const RUN_DIGITS: usize = 11;

/// Whether a run of digits, spaces and dashes holds [`RUN_DIGITS`] digits. Such a run is at
/// least that long, so it covers one of every [`RUN_DIGITS`] positions: only those are looked
/// at, and the run around one that is in a run is measured (a byte-by-byte pass over ~900 000
/// entries of a large archive cost more than the rest of the check).
fn has_digit_run(b: &[u8]) -> bool {
    let in_run = |c: &u8| matches!(c, b'0'..=b'9' | b' ' | b'-');
    let mut p = RUN_DIGITS - 1;
    while p < b.len() {
        if !in_run(&b[p]) {
            p += RUN_DIGITS;
            continue;
        }
        let start = p - b[..p].iter().rev().take_while(|c| in_run(c)).count();
        let end = p + b[p..].iter().take_while(|c| in_run(c)).count();
        if b[start..end].iter().filter(|c| c.is_ascii_digit()).count() >= RUN_DIGITS {
            return true;
        }
        // The next run starts after `end`; the first position it must cover is this one.
        p = end + RUN_DIGITS;
    }
    false
}

fn luhn(digits: &str) -> bool {
    let mut sum = 0;
    for (i, c) in digits.bytes().rev().enumerate() {
        let mut d = (c - b'0') as u32;
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}

/// GB 11643: the 18th character is the checksum of the first 17 digits.
fn resident_id_ok(id: &str) -> bool {
    const W: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    const C: &[u8; 11] = b"10X98765432";
    let b = id.as_bytes();
    if b.len() != 18 || !b[..17].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 = b[..17]
        .iter()
        .zip(W)
        .map(|(d, w)| (d - b'0') as u32 * w)
        .sum();
    C[(sum % 11) as usize] == b[17].to_ascii_uppercase()
}

/// Each piece of personal data in `text`: its kind and span, in order of where it starts.
pub(super) fn pii_spans(text: &str) -> Vec<(&'static str, usize, usize)> {
    static EMAIL: LazyLock<Regex> =
        LazyLock::new(|| regex(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"));
    static PHONE_CN: LazyLock<Regex> =
        LazyLock::new(|| regex(r"(?:^|[^0-9])(?:\+?86[- ]?)?(1[3-9][0-9]{9})(?:$|[^0-9])"));
    static PHONE_INTL: LazyLock<Regex> =
        LazyLock::new(|| regex(r"\+[1-9][0-9]{0,2}[- ]?(?:\(?[0-9]{2,4}\)?[- ]?){2,4}[0-9]{2,4}"));
    static DIGITS: LazyLock<Regex> = LazyLock::new(|| regex(r"[0-9][0-9 -]{11,22}[0-9Xx]"));
    let mut out = Vec::new();
    for m in EMAIL.find_iter(text) {
        out.push(("email", m.start(), m.end()));
    }
    for m in PHONE_CN.captures_iter(text) {
        let g = m.get(1).expect("group");
        out.push(("phone", g.start(), g.end()));
    }
    for m in PHONE_INTL.find_iter(text) {
        if !out.iter().any(|(_, a, b)| m.start() < *b && *a < m.end()) {
            out.push(("phone", m.start(), m.end()));
        }
    }
    // Runs of digits (spaces or dashes inside allowed for cards): IDs by checksum, cards by Luhn.
    for m in DIGITS.find_iter(text) {
        let raw = m.as_str();
        let before = text[..m.start()].chars().next_back();
        let after = text[m.end()..].chars().next();
        if before.is_some_and(|c| c.is_ascii_alphanumeric())
            || after.is_some_and(|c| c.is_ascii_alphanumeric())
        {
            continue;
        }
        let compact: String = raw.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
        if resident_id_ok(&compact) {
            out.push(("resident_id", m.start(), m.end()));
        } else if (13..=19).contains(&compact.len())
            && compact.bytes().all(|b| b.is_ascii_digit())
            && luhn(&compact)
            && !out.iter().any(|(_, a, b)| m.start() < *b && *a < m.end())
        {
            out.push(("bank_card", m.start(), m.end()));
        }
    }
    out.sort_by_key(|s| s.1);
    out
}

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid pattern")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pii_prefilter_lets_every_pattern_through() {
        let found = [
            "邮箱 lin.xiao@example.com",
            "电话 13812345678 找我",
            "电话+86 138-1234-5678",
            "call +1 415-555-0100",
            "身份证 11010519491231002X",
            "card 4111-1111-1111-1111",
            "card 4111 1111 1111 1111",
        ];
        for text in found {
            assert!(!pii_spans(text).is_empty(), "{text}");
            assert!(may_hold_pii(text), "the prefilter drops {text:?}");
        }
        // A counter and a figure: eleven digits, but no run of them.
        for text in [
            "触发「检查服务器磁盘状态（第 123456 次）」⇒ 测试通过 128/128",
            "2026/11/04 13:11:24 cache cleared: 1.3 GB",
            "用户偏好简洁的回复",
        ] {
            assert!(!may_hold_pii(text), "{text}");
            assert!(pii_spans(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn digit_runs_are_found_wherever_they_are() {
        // Random texts of these bytes (up to 39 long), against runs measured byte by byte.
        let alphabet = [b'1', b' ', b'-', b'x'];
        let naive = |b: &[u8]| {
            b.split(|c| !matches!(c, b'0'..=b'9' | b' ' | b'-'))
                .any(|run| run.iter().filter(|c| c.is_ascii_digit()).count() >= 11)
        };
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 40) as usize;
            let mut y = x;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    y = y.rotate_left(5).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    // Mostly digits, so that runs of 11 and more are common.
                    alphabet[[0, 0, 0, 1, 2, 3, 0, 3][(y >> 61) as usize]]
                })
                .collect();
            assert_eq!(
                has_digit_run(&text),
                naive(&text),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
            // No `@` or `+` here: the prefilter says what the runs say.
            let text = String::from_utf8(text).expect("ASCII");
            assert_eq!(may_hold_pii(&text), naive(text.as_bytes()), "{text:?}");
        }
        assert!(has_digit_run(b"12345678901"));
        assert!(!has_digit_run(b"1234567890"));
        assert!(has_digit_run("号码 138 1234 5678。".as_bytes()));
        assert!(!has_digit_run(b"---------------- 123"));
    }
}
