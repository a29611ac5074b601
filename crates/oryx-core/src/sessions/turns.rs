//! Turns of a conversation (CONTRACT §2): a turn is one `user` message plus everything after it up to
//! the next `user` message. The prompt's history part keeps the last `max_history_turns` turns.

use super::model::Message;

fn is_user(m: &Message) -> bool {
    // The runtime writes lower case; older rows or hand-edited fixtures may not.
    m.role.eq_ignore_ascii_case("user")
}

/// How many turns `messages` holds (messages before the first `user` message start no turn).
pub fn count_turns(messages: &[Message]) -> usize {
    messages.iter().filter(|m| is_user(m)).count()
}

/// The last `n` turns. `n <= 0` keeps nothing; when the session has at most `n` turns everything
/// is kept, including messages before the first `user` message, exactly as the runtime does.
pub fn last_turns(messages: &[Message], n: i64) -> &[Message] {
    if n <= 0 {
        return &[];
    }
    let starts: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| is_user(m))
        .map(|(i, _)| i)
        .collect();
    let keep = usize::try_from(n).unwrap_or(usize::MAX);
    if starts.len() <= keep {
        return messages;
    }
    &messages[starts[starts.len() - keep]..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &str, content: &str) -> Message {
        Message {
            role: role.to_string(),
            content: Some(content.to_string()),
            ..Message::default()
        }
    }

    /// `turns` turns of user, assistant (tool call), tool, assistant; contents say `u<i>` etc.
    fn conversation(turns: usize) -> Vec<Message> {
        (1..=turns)
            .flat_map(|i| {
                [
                    msg("user", &format!("u{i}")),
                    msg("assistant", &format!("call{i}")),
                    msg("tool", &format!("t{i}")),
                    msg("assistant", &format!("a{i}")),
                ]
            })
            .collect()
    }

    fn contents(ms: &[Message]) -> Vec<&str> {
        ms.iter().filter_map(|m| m.content.as_deref()).collect()
    }

    #[test]
    fn keeping_two_of_three_turns_leaves_the_last_two() {
        let msgs = conversation(3);
        let kept = last_turns(&msgs, 2);
        assert_eq!(
            contents(kept),
            ["u2", "call2", "t2", "a2", "u3", "call3", "t3", "a3"]
        );
        assert_eq!(count_turns(kept), 2);
    }

    #[test]
    fn twenty_of_twenty_five_turns_keeps_turns_6_to_25() {
        let msgs = conversation(25);
        assert_eq!(count_turns(&msgs), 25);
        let kept = last_turns(&msgs, 20);
        assert_eq!(count_turns(kept), 20);
        assert_eq!(kept.first().and_then(|m| m.content.as_deref()), Some("u6"));
        assert_eq!(kept.last().and_then(|m| m.content.as_deref()), Some("a25"));
        assert_eq!(kept.len(), 80);
    }

    #[test]
    fn zero_or_negative_turns_keep_nothing() {
        let msgs = conversation(3);
        assert!(last_turns(&msgs, 0).is_empty());
        assert!(last_turns(&msgs, -1).is_empty());
    }

    #[test]
    fn more_turns_than_held_keeps_everything_including_a_leading_preamble() {
        let mut msgs = vec![msg("assistant", "welcome")];
        msgs.extend(conversation(3));
        assert_eq!(last_turns(&msgs, 3).len(), msgs.len());
        assert_eq!(last_turns(&msgs, 10).len(), msgs.len());
        assert_eq!(last_turns(&msgs, i64::MAX).len(), msgs.len());
        // Once a turn is dropped, the preamble goes with it.
        assert_eq!(contents(last_turns(&msgs, 2))[0], "u2");
    }

    #[test]
    fn sessions_without_user_messages_have_no_turns() {
        let msgs = vec![msg("assistant", "hello")];
        assert_eq!(count_turns(&msgs), 0);
        assert_eq!(last_turns(&msgs, 1).len(), 1);
        assert!(last_turns(&[], 5).is_empty());
    }
}
