//! Whether a newer entry states a different value for the same thing an older one states,
//! decided by rules over the two entries' [`Features`]: the embedding only says the two are on
//! one topic; the rules say whether the slot is the same and the value different.

use serde::Serialize;

use super::features::{features, Features, ValueKind};

/// Why a pair is taken for a superseded fact (the UI words each in zh and en).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Another phone number for the same thing.
    Phone,
    Email,
    /// Another date or time for the same thing (a birthday, or a change word says it moved).
    Date,
    /// Another number in the same sentence frame.
    Number,
    /// Another place for where someone lives or works.
    Place,
    /// The newer entry says the thing changed ("搬到", "switched to", "no longer").
    Change,
    /// One says what the other denies.
    Negation,
    /// Another value of a frame that holds one (a preference, a favourite).
    Preference,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Phone => "phone",
            Reason::Email => "email",
            Reason::Date => "date",
            Reason::Number => "number",
            Reason::Place => "place",
            Reason::Change => "change",
            Reason::Negation => "negation",
            Reason::Preference => "preference",
        }
    }

    /// How sure the rule is on its own (0..1), before the topic's closeness.
    fn strength(self) -> f32 {
        match self {
            Reason::Phone | Reason::Email => 0.95,
            Reason::Place => 0.9,
            Reason::Date | Reason::Number => 0.85,
            Reason::Negation => 0.8,
            Reason::Change => 0.75,
            Reason::Preference => 0.65,
        }
    }
}

/// The thresholds the rules use, measured on the tuning half of the labelled set.
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    /// Below this cosine two entries are not on one topic.
    pub topic: f32,
    /// A change word alone (no value or place that differs) needs this closeness.
    pub change: f32,
    /// Entries in different languages: their residues cannot be compared, so more closeness.
    pub cross: f32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            topic: 0.35,
            change: 0.45,
            cross: 0.45,
        }
    }
}

/// A pair's verdict: the reason and how sure (0..1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    pub reason: Reason,
    pub score: f32,
}

/// Whether `newer` supersedes `older`, their embeddings' cosine being `cosine`.
pub fn judge(older: &str, newer: &str, cosine: f32, t: &Thresholds) -> Option<Verdict> {
    judge_features(older, newer, &features(older), &features(newer), cosine, t)
}

fn normalised(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Values of `kind` that both entries have and that differ (none in common).
fn differs(a: &Features, b: &Features, kind: ValueKind) -> bool {
    let (x, y) = (a.of_kind(kind), b.of_kind(kind));
    !x.is_empty() && !y.is_empty() && x.is_disjoint(&y)
}

pub fn judge_features(
    older: &str,
    newer: &str,
    a: &Features,
    b: &Features,
    cosine: f32,
    t: &Thresholds,
) -> Option<Verdict> {
    if cosine < t.topic || normalised(older) == normalised(newer) {
        return None;
    }
    let verdict = |reason: Reason| {
        Some(Verdict {
            reason,
            score: (0.5 * reason.strength() + 0.5 * cosine.clamp(0.0, 1.0)).min(1.0),
        })
    };
    // Residues compare only within one language (a mixed entry counts as both).
    let same_language = a.has_zh == b.has_zh && a.has_en == b.has_en;
    let only_a: Vec<&String> = a.residue.difference(&b.residue).collect();
    let only_b: Vec<&String> = b.residue.difference(&a.residue).collect();
    let same_frame = same_language && only_a.is_empty() && only_b.is_empty();
    // Another holder (a name, a relative) in one of them: two people's facts.
    if a.holders != b.holders {
        return None;
    }
    // "Likes tea" … "likes coffee too": an addition, not a change.
    if b.additive && !b.change && (a.negated || !b.negated) {
        return None;
    }
    let change = b.change;
    // Two states of one group ("single" / "married").
    let state_changed = a.states.iter().any(|(g, s)| {
        b.states.iter().any(|(h, r)| g == h && s != r) && !b.states.contains(&(*g, *s))
    });
    if state_changed && cosine >= t.topic {
        return verdict(Reason::Change);
    }
    let close = if same_language { t.topic } else { t.cross };
    // The slot's value differs: a value of one kind, or the place.
    for (kind, reason) in [
        (ValueKind::Phone, Reason::Phone),
        (ValueKind::Email, Reason::Email),
        (ValueKind::Number, Reason::Number),
        (ValueKind::Date, Reason::Date),
        (ValueKind::Time, Reason::Date),
    ] {
        if !differs(a, b, kind) {
            continue;
        }
        // A date or time of an event is another event unless it says it moved, or the frame
        // holds one date (a birthday).
        let dated = matches!(kind, ValueKind::Date | ValueKind::Time);
        let allowed = if dated {
            change || (a.single_date && b.single_date)
        } else {
            // Another number in the same sentence is a change only where the frame holds one
            // value (an age, a phone number): two runs of 5 and 10 km are two runs.
            change || a.single || b.single
        };
        if allowed
            && (same_frame || (change && cosine >= close) || (!same_language && cosine >= t.cross))
        {
            return verdict(reason);
        }
    }
    let place_differs =
        !a.places.is_empty() && !b.places.is_empty() && a.places.is_disjoint(&b.places);
    if place_differs && (change || a.single && b.single) && (same_frame || cosine >= close) {
        return verdict(Reason::Place);
    }
    // Everything else alike but one denies it: "吃素" / "不再吃素".
    if a.negated != b.negated && same_language && only_a.len() + only_b.len() <= 1 {
        return verdict(Reason::Negation);
    }
    // A change word and something of the older entry gone from the newer.
    let replaced = !only_a.is_empty() || place_differs || !same_language || b.ended;
    if change
        && replaced
        && cosine >= t.change
        && !(a.values == b.values && a.places == b.places && same_frame)
    {
        return verdict(Reason::Change);
    }
    // A frame of one value ("prefers", "最喜欢") with the value swapped.
    if a.prefer
        && b.prefer
        && same_language
        && !only_a.is_empty()
        && !only_b.is_empty()
        && only_a.len() <= 3
        && only_b.len() <= 3
        && cosine >= t.change
        && a.negated == b.negated
    {
        return verdict(Reason::Preference);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yes(a: &str, b: &str) -> Reason {
        judge(a, b, 0.7, &Thresholds::default())
            .unwrap_or_else(|| panic!("{a} / {b}: not found"))
            .reason
    }

    fn no(a: &str, b: &str) {
        let v = judge(a, b, 0.7, &Thresholds::default());
        assert!(v.is_none(), "{a} / {b}: {v:?}");
    }

    #[test]
    fn different_values_for_one_slot_are_found() {
        assert_eq!(yes("用户住在北京", "用户搬到上海了"), Reason::Place);
        assert_eq!(
            yes("User lives in Berlin", "User moved to Paris"),
            Reason::Place
        );
        assert_eq!(
            yes("用户手机号 13800001111", "用户手机号换成 13900002222"),
            Reason::Phone
        );
        assert_eq!(
            yes(
                "The user's phone number is 555-123-4567",
                "The user's phone number is 555-987-6543"
            ),
            Reason::Phone
        );
        assert_eq!(
            yes("User prefers tea", "User switched to coffee"),
            Reason::Change
        );
        assert_eq!(yes("用户吃素", "用户不再吃素了"), Reason::Negation);
    }

    #[test]
    fn look_alikes_are_left_alone() {
        no(
            "Alice's phone number is 555-123-4567",
            "Bob's phone number is 555-987-6543",
        );
        no("User likes tea", "User likes coffee too");
        no("用户喜欢喝茶", "用户也喜欢喝咖啡");
        no(
            "Meeting with the design team on Monday at 10:00",
            "Meeting with the design team on Thursday at 15:00",
        );
        no("User lives in Berlin", "User lives in Berlin with two cats");
        no("用户住在北京", "用户住在北京");
        no(
            "触发「明天上午有什么安排」⇒ 10:00 架构评审（第 63 次）",
            "触发「明天上午有什么安排」⇒ 10:00 架构评审（第 73 次）",
        );
    }
}
