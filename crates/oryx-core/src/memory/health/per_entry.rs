//! The checks of one entry at a time: secrets, personal data (one edit masks both), stale
//! time words and instructions to the model. A literal search over each entry ([`triggers`])
//! decides which regexes run.

use super::entries::Entries;
use super::finding::{params, Check, EntryId, Finding, Fix};
use super::options::Options;
use super::triggers::{self, Triggers};
use super::{personal_data, poisoning, secrets, stale};

/// The checks of one entry at a time (secrets, personal data, stale words, poisoning), in
/// index order;
/// how many findings were dismissed.
pub(super) fn per_entry(
    e: &(impl Entries + ?Sized),
    range: std::ops::Range<usize>,
    opts: &Options,
    out: &mut Vec<Finding>,
) -> usize {
    let mut hidden = 0;
    // The triggers of a block of entries at a time, scanned together (see
    // [`triggers::scan_each`]); a block small enough that its texts are still in cache when
    // the few entries with triggers are checked.
    let mut texts = Vec::with_capacity(BLOCK);
    for from in range.clone().step_by(BLOCK) {
        let block = from..(from + BLOCK).min(range.end);
        texts.clear();
        texts.extend(block.clone().map(|i| e.text(i)));
        // Only the secrets, stale and poisoning checks look at the triggers.
        let found = match [Check::Secrets, Check::Stale, Check::Poisoning]
            .iter()
            .any(|c| opts.checks.contains(c))
        {
            true => triggers::scan_each(&texts),
            false => vec![Triggers::default(); texts.len()],
        };
        for ((i, &text), t) in block.zip(&texts).zip(found) {
            hidden += one_entry(e, i, text, t, opts, out);
        }
    }
    hidden
}

const BLOCK: usize = 256;

/// The checks of entry `i`, whose text is `text` and triggers `t`; how many of its findings
/// were dismissed.
fn one_entry(
    e: &(impl Entries + ?Sized),
    i: usize,
    text: &str,
    t: Triggers,
    opts: &Options,
    out: &mut Vec<Finding>,
) -> usize {
    let on = |c: Check| opts.checks.contains(&c);
    // Made once, and only for an entry something was found in.
    let mut id: Option<EntryId> = None;
    let mut id_of = || id.get_or_insert_with(|| e.id(i)).clone();
    let first = out.len();
    let mut secret_spans: Vec<(usize, usize)> = Vec::new();
    // The trigger literals are exactly the old prefilter's, but for folding letters.
    if on(Check::Secrets) && (t.secret || (t.folded && secrets::may_hold_secret(text))) {
        let (mut spans, kinds) = secrets::secrets_in(text);
        if !spans.is_empty() {
            spans.sort();
            secret_spans = spans.clone();
            out.push(Finding {
                check: Check::Secrets,
                kind: kinds[0].to_string(),
                entry_ids: vec![id_of()],
                reason: format!(
                    "holds what looks like a secret ({}): anyone who reads the prompt or the \
                     file sees it",
                    kinds.join(", ")
                ),
                params: params([("kinds", kinds.join(","))]),
                fix: None,
            });
        }
    }
    if on(Check::Pii) {
        // Inside a secret (the user part of a connection string) it is the secret's.
        let spans = match personal_data::may_hold_pii(text) {
            true => personal_data::pii_spans(text),
            false => Vec::new(),
        };
        let found: Vec<_> = spans
            .into_iter()
            .filter(|(_, a, b)| !secret_spans.iter().any(|(x, y)| a < y && x < b))
            .collect();
        if !found.is_empty() {
            let mut kinds: Vec<&str> = found.iter().map(|f| f.0).collect();
            kinds.dedup();
            out.push(Finding {
                check: Check::Pii,
                kind: kinds[0].to_string(),
                entry_ids: vec![id_of()],
                reason: format!("holds personal data ({})", kinds.join(", ")),
                params: params([("kinds", kinds.join(","))]),
                fix: None,
            });
            secret_spans.extend(found.iter().map(|f| (f.1, f.2)));
        }
    }
    // One edit masks everything found in the entry, whichever finding it is applied from.
    if !secret_spans.is_empty() {
        secret_spans.sort();
        let fix = Fix::Edit {
            id: id_of(),
            content: masked(text, &secret_spans),
        };
        for f in &mut out[first..] {
            f.fix = Some(fix.clone());
        }
    }
    if on(Check::Stale) {
        if let Some(word) = relative_time_of(text, &t) {
            if let Some(ts) = e.timestamp(i) {
                // Calendar days: "tomorrow" written yesterday evening is a day old this
                // morning, whatever the hours in between.
                let age = (opts.now.date() - ts.date()).num_days();
                if age > opts.stale_after_days {
                    out.push(Finding {
                        check: Check::Stale,
                        kind: "relative_time".into(),
                        entry_ids: vec![id_of()],
                        reason: format!(
                            // The words are letters and spaces: quoted as `{:?}` would.
                            "says \"{word}\" but was written {age} days ago: it no longer \
                             means what it meant"
                        ),
                        params: params([("word", word.to_string()), ("age_days", age.to_string())]),
                        fix: Some(Fix::Delete { ids: vec![id_of()] }),
                    });
                }
            }
        }
    }
    if on(Check::Poisoning) && (t.poison || t.folded || poisoning::has_base64_run(text.as_bytes()))
    {
        let signals = poisoning::signals(text);
        if poisoning::score(&signals) >= poisoning::SIGNAL_FROM {
            out.push(poisoned(text, &signals, id_of()));
        }
    }
    // Dismissed findings go after all were made: a dismissed one still shares its masking
    // fix with the others of the entry.
    if opts.dismissed.is_some() && out.len() > first {
        let before = out.len();
        let key = e.key(i);
        let found: Vec<Finding> = out.drain(first..).collect();
        out.extend(found.into_iter().filter(|f| !opts.hides_key(f.check, key)));
        return before - out.len();
    }
    0
}

/// The finding of an entry whose text holds `signals`: its text's score, the kinds, the part
/// where the strongest is (hidden characters shown), and the fix — an edit that takes out
/// hidden characters or encoded runs, else the entry's deletion.
fn poisoned(text: &str, signals: &[poisoning::Signal], id: EntryId) -> Finding {
    let kinds = poisoning::kinds(signals);
    let score = poisoning::score(signals);
    let strongest = signals
        .iter()
        .filter(|s| s.kind == kinds[0])
        .max_by_key(|s| s.score)
        .expect("a signal of the first kind");
    let names: Vec<&str> = kinds.iter().map(|k| poisoning::kind_name(k)).collect();
    let mut params = params([
        ("kinds", kinds.join(",")),
        ("score", score.to_string()),
        ("excerpt", poisoning::excerpt(text, strongest)),
    ]);
    if kinds.contains(&"hidden_unicode") {
        params.insert("visible".into(), poisoning::visible(text, 300));
    }
    let fix = match poisoning::cleaned(text, signals) {
        Some(content) => Fix::Edit {
            id: id.clone(),
            content,
        },
        None => Fix::Delete {
            ids: vec![id.clone()],
        },
    };
    Finding {
        check: Check::Poisoning,
        kind: kinds[0].to_string(),
        entry_ids: vec![id],
        reason: format!(
            "reads as an instruction to the model ({}): an agent that loads this entry may obey it",
            names.join(", ")
        ),
        params,
        fix: Some(fix),
    }
}

/// A copy of `text` with each match of a secret or number masked but its first characters.
fn masked(text: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for &(a, b) in spans {
        if a < pos {
            continue;
        }
        out.push_str(&text[pos..a]);
        let shown: String = text[a..b].chars().take(4).collect();
        out.push_str(&shown);
        out.push_str("…[masked]");
        pos = b;
    }
    out.push_str(&text[pos..]);
    out
}

/// [`stale::relative_time`] from the entry's triggers: the same word, with a regex only for English
/// words (their word boundaries) and entries with folding letters.
fn relative_time_of<'t>(text: &'t str, t: &Triggers) -> Option<&'t str> {
    if t.folded {
        return stale::relative_time(text);
    }
    match t.zh_word {
        Some(i) => Some(stale::STALE_ZH[i]),
        None if t.en_word => stale::english_word(text),
        None => None,
    }
}
