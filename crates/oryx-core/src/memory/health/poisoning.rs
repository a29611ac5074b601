//! Entries that read as instructions to the model rather than facts about the user or the
//! work ("poisoned" entries): an agent loads its memory into the prompt, so a line such as
//! "ignore previous instructions" or a hidden right-to-left override in it is obeyed or shown
//! to the model as if the person had written it. Signals, in Chinese and English:
//!
//! - `override`: words that cancel the prompt ("ignore previous instructions", "忽略之前的指令");
//! - `role_marker`: a chat template's role or turn marker (`<|im_start|>`, `[INST]`, "system:"
//!   at a line's start, `</system>`);
//! - `standing_order`: an order aimed at the model that stands from now on ("you must call …",
//!   "always answer …", "从现在起你必须…", "无论用户说什么都…") — weaker, since a person's
//!   rule or preference is often written the same way ("Always run the tests first", "Always
//!   answer in English per user preference"): an order naming no one, or with a preference's
//!   words, is shown only when an outside channel brought it;
//! - `hidden_unicode`: characters that are not seen but read (zero-width ones, bidirectional
//!   controls, tag characters), except where text uses them (a zero-width joiner inside an
//!   emoji, tag characters of a flag);
//! - `base64_blob`: a long run of the base64 alphabet, stronger when it decodes to text that
//!   itself holds a signal.
//!
//! The score (0–100) is the text's alone; where the entry came from (a tool call in a session
//! of an outside channel, or a person in the console) weighs it later, for the few entries
//! that have one. The literals every signal but the base64 run needs are found first by the
//! trigger automaton ([`super::triggers`]); the run is found by [`has_base64_run`] looking at
//! one byte in [`BASE64_MIN`].

use std::sync::LazyLock;

use regex::Regex;

/// The shortest run of the base64 alphabet reported: longer than a hex SHA-256 (64) and most
/// ids, shorter than any payload worth hiding.
pub(super) const BASE64_MIN: usize = 80;

/// The literals without which no word signal can match (ASCII case aside), for the trigger
/// automaton. Hidden characters are in [`HIDDEN_PREFIXES`].
pub(super) const LITERALS: &[&str] = &[
    // Overrides.
    "ignore",
    "disregard",
    "forget",
    "override",
    "bypass",
    "忽略",
    "无视",
    "忽视",
    "忘记",
    "忘掉",
    "不要理会",
    "不要遵守",
    // Role markers.
    "system",
    "assistant",
    "<|",
    "[inst",
    "[/inst",
    "<<sys",
    "###",
    "系统提示",
    "系统指令",
    // Standing orders.
    "you must",
    "you shall",
    "you will",
    "you should",
    "you are now",
    "from now on",
    "henceforth",
    "going forward",
    "always",
    "never",
    "do not tell",
    "从现在",
    "从今以后",
    "今后",
    "无论用户",
    "不管用户",
    "你必须",
    "你务必",
    "你要始终",
    "你应该始终",
    "一律",
    "必须调用",
    "务必调用",
];

/// The first bytes of every hidden character looked for (UTF-8): U+200B–U+200F, U+202A–U+202E
/// (`E2 80 ..`), U+2060–U+2064, U+2066–U+2069 (`E2 81 ..`), U+FEFF (`EF BB BF`), and the tag
/// characters U+E0000–U+E007F (`F3 A0 80 ..`, `F3 A0 81 ..`). The automaton takes each whole
/// character but the tags (128 of them), found by their three first bytes.
pub(super) const HIDDEN_PREFIXES: &[&[u8]] = &[
    "\u{200b}".as_bytes(),
    "\u{200c}".as_bytes(),
    "\u{200d}".as_bytes(),
    "\u{200e}".as_bytes(),
    "\u{200f}".as_bytes(),
    "\u{202a}".as_bytes(),
    "\u{202b}".as_bytes(),
    "\u{202c}".as_bytes(),
    "\u{202d}".as_bytes(),
    "\u{202e}".as_bytes(),
    "\u{2060}".as_bytes(),
    "\u{2061}".as_bytes(),
    "\u{2062}".as_bytes(),
    "\u{2063}".as_bytes(),
    "\u{2064}".as_bytes(),
    "\u{2066}".as_bytes(),
    "\u{2067}".as_bytes(),
    "\u{2068}".as_bytes(),
    "\u{2069}".as_bytes(),
    "\u{feff}".as_bytes(),
    &[0xf3, 0xa0, 0x80],
    &[0xf3, 0xa0, 0x81],
];

/// What kind of character a hidden one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hidden {
    /// Zero-width spaces, joiners and marks, invisible operators, the byte-order mark.
    ZeroWidth,
    /// Controls that reorder what is shown (the "Trojan source" characters).
    Bidi,
    /// Tag characters: ASCII spelled invisibly.
    Tag,
}

fn hidden(c: char) -> Option<Hidden> {
    match c {
        '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}' => Some(Hidden::ZeroWidth),
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => Some(Hidden::Bidi),
        '\u{e0000}'..='\u{e007f}' => Some(Hidden::Tag),
        _ => None,
    }
}

/// Pictographs a zero-width joiner joins into one emoji (👩‍💻), and the variation selector
/// that makes a symbol one.
fn emoji_like(c: char) -> bool {
    matches!(c, '\u{1f000}'..='\u{1faff}' | '\u{2600}'..='\u{27bf}' | '\u{fe0f}')
}

/// One signal found in an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    /// `override`, `role_marker`, `standing_order`, `hidden_unicode`, `base64_blob`.
    pub kind: &'static str,
    /// Where it is in the text (bytes).
    pub start: usize,
    pub end: usize,
    /// Its strength alone, 0–100.
    pub score: u32,
}

/// Kinds from the strongest, the order in which a finding names its first kind when two
/// score the same.
const KINDS: [&str; 5] = [
    "override",
    "role_marker",
    "hidden_unicode",
    "standing_order",
    "base64_blob",
];

fn re(p: &str) -> Regex {
    Regex::new(p).expect("a valid pattern")
}

static OVERRIDE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\b(?:ignore|disregard|forget|override|bypass)\s+",
        r"(?:(?:all|any|every|the|your|of|these|those)\s+){0,3}",
        r"(?:(?:previous|prior|above|earlier|preceding|foregoing|system|original|initial|developer|safety)\s+)?",
        r"(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|constraints)\b",
        r"|\b(?:ignore|disregard|forget)\s+(?:everything|all|anything)\s+(?:above|before|previously|said|you\s+(?:were|have\s+been)\s+told)\b",
        r"|\b(?:ignore|disregard)\s+(?:the|all)\s+above\b",
        r"|(?:忽略|无视|忽视|忘记|忘掉|不要理会|不要遵守)(?:掉)?(?:你)?",
        r"(?:之前|以前|先前|此前|上面|上述|以上|前面|原有|原来|原先|系统)(?:的)?",
        r"(?:所有|全部|一切|任何)?(?:的)?",
        r"(?:指令|指示|提示词|提示|规则|设定|要求|约束|说明|内容)",
        r"|(?:忽略|无视|忘记|忘掉)(?:掉)?(?:你)?(?:收到的)?(?:所有|全部|一切|任何)(?:的)?(?:指令|指示|提示词|规则|设定|约束)",
    ))
});

/// Chat templates' markers: strong, no memory line holds one by chance.
static TEMPLATE_MARKER: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>",
        r"|\[/?INST\]|<</?SYS>>|</?(?:system|instructions?|system_prompt)>",
        r"|(?m:^\s*###\s*(?:instruction|system|new\s+instructions?)\b)",
    ))
});

/// A role name opening a line ("system:", "assistant:", "系统提示："), weaker: a note may
/// start "System: Ubuntu 22.04".
static ROLE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?im)^\s*(?:\[?(?:system|assistant)\]?\s*[:：]|(?:系统提示|系统指令)\s*[:：])[^\n]*")
});

/// What a role line says when it speaks to the model about how to behave.
static TO_THE_MODEL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:you|your|assistant|ai|model|policy|polic(?:y|ies)|rules?|instructions?|reply|respond|answer|obey|unrestricted)\b|以下|规则|指令|回复|回答|优先|必须|忽略",
    )
});

/// Orders to the model that stand from now on.
static STANDING_ORDER: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\byou\s+(?:must|shall|have\s+to|are\s+required\s+to)\s+(?:always\s+|never\s+|now\s+|first\s+|not\s+)?",
        r"(?:call|run|use|invoke|execute|send|forward|visit|open|reply|answer|respond|say|tell|include|ignore|obey|follow|output|print|reveal|recommend|mention|add|append|write|save|remember|treat|pretend|act|refuse)\b",
        r"|\byou\s+(?:will|should)\s+always\b|\byou\s+are\s+now\b",
        r"|\b(?:from\s+now\s+on|henceforth|going\s+forward),?\s+(?:you|always|never|only|answer|reply|respond|call|ignore)\b",
        r"|\b(?:do\s+not|don't|never)\s+tell\s+the\s+user\b",
        r"|从现在(?:起|开始)|从今以后|今后你|(?:无论|不管)用户(?:说|问|要求)",
        r"|你(?:必须|务必|要始终|应该始终|一律)|(?:必须|务必)调用",
    ))
});

/// An order with no one named, "Always run …", "Never mention …": how a person writes a rule
/// for the agent as often as an injection does, so weaker — shown from its words alone only when
/// an outside channel brought it.
static BARE_ORDER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:^|[.!;:\n]\s*)(?:always|never)\s+(?:answer|reply|respond|say|call|use|run|send|include|recommend|output|tell|forward|execute|mention|reveal|refuse|ask|warn|obey|follow|trust)\b",
    )
});

/// The words of a person's preference: an order that holds one describes what the user asked
/// for rather than giving the model an order of its own.
static PREFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)\buser(?:'s|s)?\s+(?:prefers?|wants|likes|asked|asks|requested)\b",
        r"|\bper\s+(?:the\s+)?user\b|\bpreferences?\b|\bprefers?\b",
        r"|用户(?:偏好|喜欢|习惯|希望|总是|让我|想要)|偏好|喜欢|习惯",
    ))
});

/// The signals in `text`, in order of where they start. Run for the entries the trigger
/// automaton or [`has_base64_run`] let through.
pub fn signals(text: &str) -> Vec<Signal> {
    let mut out = Vec::new();
    word_signals(text, &mut out);
    hidden_signals(text, &mut out);
    if has_base64_run(text.as_bytes()) {
        base64_signals(text, &mut out);
    }
    out.sort_by_key(|s| (s.start, s.end));
    out
}

fn word_signals(text: &str, out: &mut Vec<Signal>) {
    let mut push = |kind, m: regex::Match<'_>, score| {
        out.push(Signal {
            kind,
            start: m.start(),
            end: m.end(),
            score,
        })
    };
    for m in OVERRIDE.find_iter(text) {
        push("override", m, 70);
    }
    for m in TEMPLATE_MARKER.find_iter(text) {
        push("role_marker", m, 60);
    }
    for m in ROLE_LINE.find_iter(text) {
        // "System: Ubuntu 22.04" is a note; "system: the assistant has no policy" is not.
        let score = match TO_THE_MODEL.is_match(m.as_str()) {
            true => 35,
            false => 20,
        };
        push("role_marker", m, score);
    }
    // A preference's words take 15 off an order (a person describing what the user wants).
    let less = if PREFERENCE.is_match(text) { 15 } else { 0 };
    let named: Vec<regex::Match<'_>> = STANDING_ORDER.find_iter(text).collect();
    for m in BARE_ORDER.find_iter(text) {
        if !named
            .iter()
            .any(|n| n.start() < m.end() && m.start() < n.end())
        {
            push("standing_order", m, (20 - less).max(SIGNAL_FROM));
        }
    }
    for m in named {
        push("standing_order", m, 30 - less);
    }
}

fn hidden_signals(text: &str, out: &mut Vec<Signal>) {
    // Runs of hidden characters, one signal each.
    let mut run: Option<(usize, usize, u32)> = None;
    let mut prev: Option<char> = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(at, c)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|x| x.1);
        let score = match hidden(c) {
            // A joiner between pictographs makes one emoji of them.
            Some(Hidden::ZeroWidth)
                if c == '\u{200d}'
                    && prev.is_some_and(emoji_like)
                    && next.is_some_and(emoji_like) =>
            {
                None
            }
            // A flag's tag characters follow the black flag (🏴) or another tag.
            Some(Hidden::Tag)
                if prev.is_some_and(|p| p == '\u{1f3f4}' || hidden(p) == Some(Hidden::Tag))
                    && flag_sequence(&chars[k..]) =>
            {
                None
            }
            Some(Hidden::ZeroWidth) => Some(40),
            Some(Hidden::Bidi) => Some(60),
            Some(Hidden::Tag) => Some(65),
            None => None,
        };
        match (score, &mut run) {
            (Some(s), Some((_, end, best))) if *end == at => {
                *end = at + c.len_utf8();
                *best = (*best).max(s);
            }
            (Some(s), _) => {
                if let Some((a, b, s)) = run.take() {
                    out.push(hidden_signal(a, b, s));
                }
                run = Some((at, at + c.len_utf8(), s));
            }
            (None, _) => {}
        }
        prev = Some(c);
    }
    if let Some((a, b, s)) = run {
        out.push(hidden_signal(a, b, s));
    }
}

/// Whether the tag characters from here on end with the cancel tag (U+E007F) after at most
/// five letters, as a subdivision flag does (🏴󠁧󠁢󠁳󠁣󠁴󠁿).
fn flag_sequence(rest: &[(usize, char)]) -> bool {
    let tags: Vec<char> = rest
        .iter()
        .map(|x| x.1)
        .take_while(|&c| hidden(c) == Some(Hidden::Tag))
        .take(8)
        .collect();
    tags.last() == Some(&'\u{e007f}')
        && tags.len() <= 6
        && tags[..tags.len() - 1]
            .iter()
            .all(|&c| matches!(c, '\u{e0061}'..='\u{e007a}' | '\u{e0030}'..='\u{e0039}'))
}

fn hidden_signal(start: usize, end: usize, score: u32) -> Signal {
    Signal {
        kind: "hidden_unicode",
        start,
        end,
        score,
    }
}

fn is_b64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_')
}

/// Whether `b` holds a run of [`BASE64_MIN`] bytes of the base64 alphabet (standard or URL).
/// Such a run covers one of every [`BASE64_MIN`] positions: only those are looked at, and the
/// run around one that is in the alphabet is measured (an entry is ~100 bytes, and most runs
/// are words).
pub(super) fn has_base64_run(b: &[u8]) -> bool {
    let mut p = BASE64_MIN - 1;
    while p < b.len() {
        if !is_b64(b[p]) {
            p += BASE64_MIN;
            continue;
        }
        let start = p - b[..p].iter().rev().take_while(|&&c| is_b64(c)).count();
        let end = p + b[p..].iter().take_while(|&&c| is_b64(c)).count();
        if end - start >= BASE64_MIN {
            return true;
        }
        p = end + BASE64_MIN;
    }
    false
}

/// The runs of the base64 alphabet long enough, mixed as encoded bytes are (upper and lower
/// case and digits: a hex digest or a long word is not). A run that decodes to text holding a
/// signal is as strong as that signal.
fn base64_signals(text: &str, out: &mut Vec<Signal>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !is_b64(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_b64(b[i]) {
            i += 1;
        }
        let run = &b[start..i];
        let mixed = run.iter().any(u8::is_ascii_uppercase)
            && run.iter().any(u8::is_ascii_lowercase)
            && run.iter().any(u8::is_ascii_digit);
        if run.len() < BASE64_MIN || !mixed {
            continue;
        }
        let inner = decode_base64(run)
            .and_then(|d| String::from_utf8(d).ok())
            .filter(|s| mostly_text(s))
            .map(|s| {
                let mut found = Vec::new();
                word_signals(&s, &mut found);
                hidden_signals(&s, &mut found);
                found.iter().map(|x| x.score).max().unwrap_or(0)
            });
        out.push(Signal {
            kind: "base64_blob",
            start,
            end: i,
            score: match inner {
                Some(s) if s >= 30 => s.max(60),
                // Text, but nothing in it reads as an order.
                Some(_) => 25,
                None => 30,
            },
        });
    }
}

/// Whether decoded bytes read as text: printable for the most part.
fn mostly_text(s: &str) -> bool {
    let n = s.chars().count();
    let printable = s
        .chars()
        .filter(|c| !c.is_control() || c.is_whitespace())
        .count();
    n > 0 && printable * 10 >= n * 9
}

/// Standard or URL-safe base64, padding optional; `None` when it is neither.
fn decode_base64(run: &[u8]) -> Option<Vec<u8>> {
    let body: Vec<u8> = run.iter().copied().filter(|&c| c != b'=').collect();
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in body {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// The text's score from its signals: the strongest, and 10 more for each other kind found
/// (two kinds together are more than either), at most 100.
pub fn score(signals: &[Signal]) -> u32 {
    let best = signals.iter().map(|s| s.score).max().unwrap_or(0);
    let mut kinds: Vec<&str> = signals.iter().map(|s| s.kind).collect();
    kinds.sort();
    kinds.dedup();
    (best + 10 * (kinds.len() as u32).saturating_sub(1)).min(100)
}

/// The kinds found, strongest first (each once).
pub fn kinds(signals: &[Signal]) -> Vec<&'static str> {
    let mut by: Vec<(u32, usize, &'static str)> = Vec::new();
    for s in signals {
        let order = KINDS
            .iter()
            .position(|k| *k == s.kind)
            .unwrap_or(KINDS.len());
        match by.iter_mut().find(|x| x.2 == s.kind) {
            Some(x) => x.0 = x.0.max(s.score),
            None => by.push((s.score, order, s.kind)),
        }
    }
    by.sort_by_key(|x| (std::cmp::Reverse(x.0), x.1));
    by.into_iter().map(|x| x.2).collect()
}

/// The lowest weight a finding is shown with, once where its entry came from is weighed in:
/// below it, a standing order written as a preference or a role name opening a note
/// ("System: Ubuntu 22.04"), unless an outside channel brought it.
pub const REPORT_FROM: u32 = 25;

/// The lowest text score the checks report, for the console to weigh: any signal.
pub const SIGNAL_FROM: u32 = 5;

/// `text` with each hidden character shown as `⟨U+202E⟩`, so that a person sees what is
/// there; at most `max` characters of the text (an ellipsis then).
pub fn visible(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match hidden(c) {
            Some(_) => out.push_str(&format!("⟨U+{:04X}⟩", c as u32)),
            None => out.push(c),
        }
    }
    out
}

/// The part of `text` the strongest signal is in, with some context and hidden characters
/// shown ([`visible`]).
pub fn excerpt(text: &str, s: &Signal) -> String {
    let from = floor(text, s.start.saturating_sub(40));
    let to = floor(text, (s.end + 40).min(text.len()));
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(&visible(&text[from..to], 200));
    if to < text.len() {
        out.push('…');
    }
    out
}

fn floor(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The edit that takes out what the signals are when they are only hidden characters or
/// base64 runs (the rest of the entry stays); `None` when the instruction is in the words
/// themselves (then the entry is deleted) or nothing would be left.
pub fn cleaned(text: &str, signals: &[Signal]) -> Option<String> {
    if signals
        .iter()
        .any(|s| !matches!(s.kind, "hidden_unicode" | "base64_blob"))
    {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for s in signals {
        if s.start < pos {
            continue;
        }
        out.push_str(&text[pos..s.start]);
        if s.kind == "base64_blob" {
            out.push_str("[base64 removed]");
        }
        pos = s.end;
    }
    out.push_str(&text[pos..]);
    let out = out.trim().to_string();
    (!out.is_empty() && out != "[base64 removed]").then_some(out)
}

/// The English name of a kind, for the reason.
pub fn kind_name(kind: &str) -> &'static str {
    match kind {
        "override" => "instruction override",
        "role_marker" => "role marker",
        "standing_order" => "standing order to the model",
        "hidden_unicode" => "hidden characters",
        "base64_blob" => "encoded blob",
        _ => "instruction",
    }
}

#[cfg(test)]
mod tests;
