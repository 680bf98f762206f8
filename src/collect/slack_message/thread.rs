//! Which message of a thread (or a channel's history) is "the answer": the newest one,
//! older than the asking message, that is worth checking ([`super::worth_checking`]:
//! it cites something or says something that wants a source), preferring messages by
//! the assistants the caller names. "thanks!", "what about prod?" and the asker's own
//! words between the answer and the question do not hide it.

use super::{read_message, worth_checking, MessageMeta, MessageRead, ReadOptions};
use crate::collect::{collect, CollectOptions, Collected};
use serde_json::Value;

/// A message chosen as the answer.
#[derive(Debug, Clone)]
pub struct Picked<'m> {
    /// The message as it came.
    pub message: &'m Value,
    /// Its meta data.
    pub meta: MessageMeta,
    /// The message read.
    pub read: MessageRead,
    /// What it cites and claims.
    pub collected: Collected,
    /// Whether it came from a preferred author.
    pub preferred: bool,
}

/// What to look for.
pub struct AnswerQuery<'q> {
    /// Only messages older than this `ts` (the asking message's); `None` for all.
    pub before_ts: Option<&'q str>,
    /// Messages never chosen (the bot's own).
    pub exclude: &'q dyn Fn(&MessageMeta) -> bool,
    /// Messages chosen over any other (watched assistants).
    pub prefer: &'q dyn Fn(&MessageMeta) -> bool,
}

/// The newest message worth checking among `messages` (in any order), preferring
/// [`AnswerQuery::prefer`]; `None` when none is.
pub fn latest_answer<'m>(
    messages: &'m [Value],
    query: &AnswerQuery<'_>,
    read_options: &ReadOptions,
    collect_options: &CollectOptions,
) -> Option<Picked<'m>> {
    let before = query.before_ts.and_then(ts_key);
    let mut order: Vec<(Option<(u64, u64)>, usize)> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| (m.get("ts").and_then(Value::as_str).and_then(ts_key), i))
        .collect();
    // Newest first; messages without a readable ts keep their place at the end.
    order.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let mut fallback: Option<Picked<'m>> = None;
    for (ts, index) in order {
        if let (Some(before), Some(ts)) = (before, ts) {
            if ts >= before {
                continue;
            }
        }
        let message = &messages[index];
        let meta = MessageMeta::of(message);
        if (query.exclude)(&meta) || !is_answer_like(&meta) {
            continue;
        }
        let preferred = (query.prefer)(&meta);
        if fallback.is_some() && !preferred {
            continue;
        }
        let read = read_message(message, read_options);
        let collected = collect(&read.answer, collect_options);
        if !worth_checking(&collected) {
            continue;
        }
        let picked = Picked {
            message,
            meta,
            read,
            collected,
            preferred,
        };
        if preferred {
            return Some(picked);
        }
        fallback = Some(picked);
    }
    fallback
}

/// Messages that can be answers: ordinary ones, bots' and apps', broadcasts to the
/// channel and files shared with a comment. Joins, topic changes, tombstones and other
/// system messages cannot.
fn is_answer_like(meta: &MessageMeta) -> bool {
    match meta.subtype.as_deref() {
        None => true,
        Some(subtype) => matches!(
            subtype,
            "bot_message" | "thread_broadcast" | "me_message" | "file_share"
        ),
    }
}

/// A message `ts` (`1700000000.000100`) as (seconds, microseconds), for ordering.
pub fn ts_key(ts: &str) -> Option<(u64, u64)> {
    let (secs, frac) = ts.split_once('.').unwrap_or((ts, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = secs.parse().ok()?;
    let mut micros: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    for _ in frac.len()..9 {
        micros *= 10;
    }
    Some((secs, micros))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pick<'m>(
        messages: &'m [Value],
        before: Option<&str>,
        watched: &[&str],
    ) -> Option<Picked<'m>> {
        let exclude = |m: &MessageMeta| m.user.as_deref() == Some("UBOT");
        let prefer = |m: &MessageMeta| m.bot_id.as_deref().is_some_and(|b| watched.contains(&b));
        latest_answer(
            messages,
            &AnswerQuery {
                before_ts: before,
                exclude: &exclude,
                prefer: &prefer,
            },
            &ReadOptions::default(),
            &CollectOptions::default(),
        )
    }

    #[test]
    fn small_talk_below_the_answer_does_not_hide_it() {
        let messages = vec![
            json!({"type":"message","ts":"1700000000.000100","user":"U1","text":"How long do deploys freeze?"}),
            json!({"type":"message","ts":"1700000000.000200","bot_id":"BAI","text":"Deploys freeze for 48 hours [1].\n\n[1] https://wiki.example.com/freeze - Freeze policy"}),
            json!({"type":"message","ts":"1700000000.000300","user":"U1","text":"thanks!"}),
            json!({"type":"message","ts":"1700000000.000400","user":"U2","text":"what about prod?"}),
            json!({"type":"message","ts":"1700000000.000500","user":"UBOT","bot_id":"BBOT","text":"Sources: <https://x.com|X> 100%"}),
            json!({"type":"message","subtype":"channel_join","ts":"1700000000.000550","user":"U3","text":"<@U3> has joined the channel"}),
            json!({"type":"message","ts":"1700000000.000600","user":"U1","text":"<@UBOT> sources?"}),
        ];
        let picked = pick(&messages, Some("1700000000.000600"), &["BAI"]).expect("the answer");
        assert_eq!(picked.meta.ts.as_deref(), Some("1700000000.000200"));
        assert!(picked.preferred);
        // Without a watch list the newest message worth checking wins.
        let picked = pick(&messages, Some("1700000000.000600"), &[]).expect("the answer");
        assert_eq!(picked.meta.ts.as_deref(), Some("1700000000.000200"));
    }

    #[test]
    fn a_watched_answer_is_preferred_over_a_newer_human_claim() {
        let messages = vec![
            json!({"type":"message","ts":"1700000000.000200","bot_id":"BAI","text":"Revenue grew 12% in Q3 <https://ir.example.com/q3|Q3 report>."}),
            json!({"type":"message","ts":"1700000000.000300","user":"U1","text":"I heard it was 15% in 2023."}),
        ];
        let picked = pick(&messages, None, &["BAI"]).expect("answer");
        assert_eq!(picked.meta.ts.as_deref(), Some("1700000000.000200"));
        let picked = pick(&messages, None, &[]).expect("answer");
        assert_eq!(picked.meta.ts.as_deref(), Some("1700000000.000300"));
    }

    #[test]
    fn nothing_worth_checking_is_none() {
        let messages = vec![
            json!({"type":"message","ts":"1700000000.000100","user":"U1","text":"hello!"}),
            json!({"type":"message","ts":"1700000000.000200","bot_id":"BAI","text":"Thinking…"}),
        ];
        assert!(pick(&messages, None, &["BAI"]).is_none());
    }

    #[test]
    fn ts_order_is_numeric() {
        assert!(ts_key("1700000000.1") > ts_key("1700000000.000100"));
        assert!(ts_key("999999999.999999") < ts_key("1000000000.000000"));
        assert_eq!(ts_key("x"), None);
    }
}
