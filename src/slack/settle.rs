//! Watched assistants' answers: one reply per answer, posted once the answer settles,
//! kept in step with its edits and removed with it.
//!
//! Streaming assistants post a placeholder ("Thinking…") and edit it many times a
//! second (`chat.update`, or Slack's `chat.startStream` / `appendStream` /
//! `stopStream`); watchers see a `message` event and then `message_changed` events. The
//! [`Settler`] keeps, per answer, the newest version seen and when it last changed; one
//! task per answer waits until it has gone [`Settler::settle`] without an edit (or
//! [`Settler::ceiling`] since it began changing), then checks that version:
//!
//! - nothing worth checking (a placeholder, a greeting, a status line): no reply;
//! - no reply yet: the report is posted in the answer's thread, and remembered
//!   ([`crate::state::BotState::remember_reply`]) with digests of the answer's content
//!   and of what the reply shows;
//! - a reply already: a content digest unchanged (Slack re-sends a parent when its
//!   thread grows) does nothing; otherwise the answer is checked again, and the reply
//!   updated in place (`chat.update`) only when what it shows would change;
//! - deleted (`message_deleted`, or a parent turned into a tombstone), or edited down
//!   to nothing worth checking: the reply is deleted.
//!
//! Edits that arrive while a check runs are picked up by the same task afterwards, so
//! one answer never has two checks (or two posts) at once in this process. Events can
//! arrive out of order: a version whose `edited.ts` is older than the one held is
//! ignored. The pending answers are bounded by the bot's job limit.

use super::api::Outgoing;
use super::inbound::{thread_of, AnswerEvent};
use super::{slack_reason, Answered, Bot, Workspace};
use crate::collect::collect;
use crate::collect::slack_message::{thread::ts_key, worth_checking, MessageMeta};
use crate::state::{digest, AnswerKey, ReplyRecord, ANSWER_LOCK_TTL};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The answers waiting to settle, in this process.
pub struct Settler {
    settle: Duration,
    ceiling: Duration,
    pending: Mutex<HashMap<SettleKey, Pending>>,
}

/// An answer waiting in this process: its workspace's id and the answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SettleKey {
    workspace: String,
    answer: AnswerKey,
}

/// One answer waiting to settle.
struct Pending {
    /// The newest version, or `None` once deleted.
    message: Option<Box<Value>>,
    /// Its `edited.ts` (zero for the first version).
    version: (u64, u64),
    /// When the current round of edits began.
    first: Instant,
    /// When it last changed.
    last: Instant,
    /// Bumped at every change, so the task knows whether more came while it worked.
    generation: u64,
}

impl Settler {
    /// Waits `settle` after the last edit, `ceiling` at most.
    pub fn new(settle: Duration, ceiling: Duration) -> Settler {
        Settler {
            settle,
            ceiling: ceiling.max(settle),
            pending: Mutex::new(HashMap::new()),
        }
    }

    /// How long an answer must go unedited.
    pub fn settle(&self) -> Duration {
        self.settle
    }

    /// The longest an answer waits for its edits to stop.
    pub fn ceiling(&self) -> Duration {
        self.ceiling
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<SettleKey, Pending>> {
        self.pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records `event`; `true` when no task waits for this answer yet (the caller
    /// starts one).
    fn record(&self, key: &SettleKey, event: AnswerEvent) -> bool {
        let now = Instant::now();
        let (message, version) = match event {
            AnswerEvent::Changed { message, .. } => {
                let version = edited_version(&message);
                (Some(message), version)
            }
            AnswerEvent::Deleted { .. } => (None, (u64::MAX, u64::MAX)),
        };
        let mut pending = self.lock();
        match pending.get_mut(key) {
            Some(entry) => {
                if entry.message.is_none() || version < entry.version {
                    // Deleted already, or an older version arriving late.
                    return false;
                }
                entry.message = message;
                entry.version = version;
                entry.last = now;
                entry.generation += 1;
                false
            }
            None => {
                pending.insert(
                    key.clone(),
                    Pending {
                        message,
                        version,
                        first: now,
                        last: now,
                        generation: 0,
                    },
                );
                true
            }
        }
    }

    /// When `key` is due, and whether it is due now.
    fn due(&self, key: &SettleKey) -> Option<(Instant, bool)> {
        let pending = self.lock();
        let entry = pending.get(key)?;
        let at = if entry.message.is_none() {
            entry.last
        } else {
            (entry.last + self.settle).min(entry.first + self.ceiling)
        };
        Some((at, at <= Instant::now()))
    }

    /// The version to check now and its generation.
    fn take(&self, key: &SettleKey) -> Option<(Option<Box<Value>>, u64)> {
        let pending = self.lock();
        let entry = pending.get(key)?;
        Some((entry.message.clone(), entry.generation))
    }

    /// After a check of `generation`: `true` when nothing changed meanwhile (the entry
    /// is gone and the task ends); otherwise a new round begins now.
    fn finish(&self, key: &SettleKey, generation: u64) -> bool {
        let mut pending = self.lock();
        match pending.get_mut(key) {
            Some(entry) if entry.generation != generation => {
                entry.first = Instant::now();
                false
            }
            _ => {
                pending.remove(key);
                true
            }
        }
    }

    /// Forgets `key` (its task could not be started).
    fn drop_key(&self, key: &SettleKey) {
        self.lock().remove(key);
    }

    /// How many answers are waiting.
    pub fn waiting(&self) -> usize {
        self.lock().len()
    }
}

/// How often a replica waiting for an answer's lock asks again.
const LOCK_POLL: Duration = Duration::from_millis(50);

/// What is remembered of a deleted answer: its reply (if any) marked deleted.
fn deleted_marker(key: &AnswerKey, reply: Option<&ReplyRecord>) -> ReplyRecord {
    ReplyRecord {
        channel: key.channel.clone(),
        version: (u64::MAX, u64::MAX),
        deleted: true,
        ..reply.cloned().unwrap_or_default()
    }
}

/// A message's `edited.ts` as a version; the first version is zero.
fn edited_version(message: &Value) -> (u64, u64) {
    message
        .pointer("/edited/ts")
        .and_then(Value::as_str)
        .and_then(ts_key)
        .unwrap_or((0, 0))
}

/// A digest of what a message shows (its text, blocks and attachments).
fn content_digest(message: &Value) -> u64 {
    let shown = serde_json::json!([
        message.get("text"),
        message.get("blocks"),
        message.get("attachments")
    ]);
    digest(shown.to_string().as_bytes())
}

/// A digest of a reply: its blocks and its mrkdwn.
fn shown_digest(outgoing: &Outgoing) -> u64 {
    let shown = serde_json::json!([outgoing.blocks.blocks, outgoing.mrkdwn]);
    digest(shown.to_string().as_bytes())
}

impl Bot {
    /// A watched answer was posted, edited or deleted in `ws`: waits for it to settle
    /// in a task of its own (one per answer), then replies, updates or deletes.
    pub(super) fn watched(self: &Arc<Self>, ws: Arc<Workspace>, event: AnswerEvent) {
        let answer = match &event {
            AnswerEvent::Changed { channel, message } => {
                let Some(ts) = MessageMeta::of(message).ts else {
                    return;
                };
                AnswerKey {
                    channel: channel.clone(),
                    ts,
                }
            }
            AnswerEvent::Deleted { channel, ts } => AnswerKey {
                channel: channel.clone(),
                ts: ts.clone(),
            },
        };
        let key = SettleKey {
            workspace: ws.id().to_string(),
            answer,
        };
        if !self.settler.record(&key, event) {
            return;
        }
        let Some(permit) = self.permit() else {
            self.settler.drop_key(&key);
            return;
        };
        let bot = self.clone();
        tokio::spawn(async move {
            bot.settle_answer(&ws, &key).await;
            drop(permit);
        });
    }

    /// Waits for the answer to settle and handles it, round after round while edits
    /// keep coming.
    async fn settle_answer(&self, ws: &Workspace, settle_key: &SettleKey) {
        let key = &settle_key.answer;
        loop {
            let Some((at, now)) = self.settler.due(settle_key) else {
                return;
            };
            if !now {
                tokio::time::sleep_until(at.into()).await;
                continue;
            }
            let Some((message, generation)) = self.settler.take(settle_key) else {
                return;
            };
            // One replica at a time handles an answer; the others wait, then read what it
            // left in the shared state.
            self.lock_answer(ws, key).await;
            let outcome = match message {
                Some(message) => self.answer_settled(ws, key, &message).await,
                None => self.answer_deleted(ws, key).await,
            };
            ws.state.unlock_answer(key, &self.holder).await;
            tracing::debug!(workspace = ws.id(), channel = %key.channel, ts = %key.ts, outcome, "handled a watched answer");
            self.metrics.watched_answer(outcome);
            if self.settler.finish(settle_key, generation) {
                return;
            }
        }
    }

    /// Takes the shared lock on `key`, waiting while another replica has it (at most
    /// until its lock expires).
    async fn lock_answer(&self, ws: &Workspace, key: &AnswerKey) {
        let deadline = Instant::now() + ANSWER_LOCK_TTL + LOCK_POLL;
        while !ws
            .state
            .lock_answer(key, &self.holder, ANSWER_LOCK_TTL)
            .await
        {
            if Instant::now() >= deadline {
                tracing::warn!(channel = %key.channel, "an answer's lock outlived its TTL; handling it anyway");
                return;
            }
            tokio::time::sleep(LOCK_POLL).await;
        }
    }

    /// Replies to, updates or leaves a settled answer; returns what it did.
    async fn answer_settled(
        &self,
        ws: &Workspace,
        key: &AnswerKey,
        message: &Value,
    ) -> &'static str {
        let previous = ws.state.reply_to(key).await;
        let version = edited_version(message);
        match &previous {
            Some(reply) if reply.deleted => return "already_deleted",
            // Another replica replied to a newer version already.
            Some(reply) if reply.version > version => return "stale",
            _ => {}
        }
        let content = content_digest(message);
        if previous
            .as_ref()
            .is_some_and(|r| r.content_digest == content)
        {
            return "unchanged";
        }
        let read = self.read(ws, message);
        let collected = collect(&read.answer, &self.pipeline.config().collect);
        if !worth_checking(&collected) {
            return match previous {
                Some(reply) => {
                    // Edited down to a placeholder: the reply no longer applies.
                    self.delete_reply(ws, key, &reply, false).await
                }
                None => "not_worth_a_reply",
            };
        }
        let applied = self.hub.applied(ws.id()).await;
        let mut report = self
            .pipeline
            .check_with(&read.answer, Some(&ws.permalinks))
            .await;
        if previous.is_some() && applied.support {
            // A reply is up already: it changes once, to the whole result.
            self.pipeline
                .check_support_with(&mut report, Some(&ws.permalinks), None)
                .await;
        }
        let answered = Answered {
            assistant: MessageMeta::of(message).bot_id,
            asked_by: None,
        };
        let report_key = self.report_key();
        let outgoing = self.outgoing(&report, applied.sources_per_kind);
        let shown = shown_digest(&outgoing);
        // The digest leaves the evidence button out: its key is new every time.
        let outgoing = if previous.as_ref().is_some_and(|r| r.shown_digest == shown) {
            outgoing
        } else {
            self.with_evidence(ws, &report, outgoing, &key.channel)
                .await
        };
        match previous {
            Some(reply) if reply.shown_digest == shown => {
                ws.state
                    .remember_reply(
                        key,
                        ReplyRecord {
                            content_digest: content,
                            version,
                            ..reply
                        },
                    )
                    .await;
                "unchanged"
            }
            Some(reply) => match ws
                .api
                .update_report(
                    &reply.channel,
                    &reply.ts,
                    &self.with_feedback(ws, outgoing, &report_key),
                )
                .await
            {
                Ok(sent) => {
                    self.sent(ws, sent);
                    self.record_report(
                        ws,
                        &report,
                        &report_key,
                        &reply.channel,
                        &reply.ts,
                        &answered,
                    )
                    .await;
                    ws.state
                        .remember_reply(
                            key,
                            ReplyRecord {
                                content_digest: content,
                                shown_digest: shown,
                                version,
                                ..reply
                            },
                        )
                        .await;
                    "updated"
                }
                Err(error) if error.code() == Some("message_not_found") => {
                    // Someone deleted the reply: it stays deleted.
                    ws.state.forget_reply(key).await;
                    "failed"
                }
                Err(error) => {
                    tracing::warn!(%error, channel = %key.channel, answer_ts = %key.ts, "cannot update the sources: {}", slack_reason(&error));
                    "failed"
                }
            },
            None => {
                let meta = MessageMeta::of(message);
                let thread_ts = thread_of(&meta).unwrap_or_else(|| key.ts.clone());
                let footed = self.with_feedback(ws, outgoing, &report_key);
                match ws
                    .api
                    .post_report(&key.channel, Some(&thread_ts), &footed)
                    .await
                {
                    Ok((ts, sent)) => {
                        self.sent(ws, sent);
                        let mut record = ReplyRecord {
                            channel: key.channel.clone(),
                            ts,
                            content_digest: content,
                            shown_digest: shown,
                            version,
                            deleted: false,
                        };
                        ws.state.remember_reply(key, record.clone()).await;
                        // The links are up; then whether their pages say it, in place.
                        if let Some(updated) = self.support_pass(ws, &mut report, &applied).await {
                            let updated_digest = shown_digest(&updated);
                            if updated_digest != shown {
                                let updated = self
                                    .with_evidence(ws, &report, updated, &record.channel)
                                    .await;
                                let updated = self.with_feedback(ws, updated, &report_key);
                                if let Ok(sent) = ws
                                    .api
                                    .update_report(&record.channel, &record.ts, &updated)
                                    .await
                                {
                                    self.sent(ws, sent);
                                    record.shown_digest = updated_digest;
                                    ws.state.remember_reply(key, record.clone()).await;
                                }
                            }
                        }
                        self.record_report(
                            ws,
                            &report,
                            &report_key,
                            &record.channel,
                            &record.ts,
                            &answered,
                        )
                        .await;
                        "posted"
                    }
                    Err(error) => {
                        tracing::warn!(%error, channel = %key.channel, thread_ts = %thread_ts, "cannot post the sources of a watched answer: {}", slack_reason(&error));
                        "failed"
                    }
                }
            }
        }
    }

    /// Deletes the reply to a deleted answer, if there is one, and remembers that the
    /// answer is gone, so that no replica replies to a late edit of it.
    async fn answer_deleted(&self, ws: &Workspace, key: &AnswerKey) -> &'static str {
        match ws.state.reply_to(key).await {
            Some(reply) if reply.deleted => "already_deleted",
            Some(reply) => self.delete_reply(ws, key, &reply, true).await,
            None => {
                ws.state
                    .remember_reply(key, deleted_marker(key, None))
                    .await;
                "not_worth_a_reply"
            }
        }
    }

    /// Deletes `reply`; then remembers the answer as deleted (`answer_gone`) or forgets
    /// the reply (the answer was edited down to nothing worth a reply, and may come back).
    async fn delete_reply(
        &self,
        ws: &Workspace,
        key: &AnswerKey,
        reply: &ReplyRecord,
        answer_gone: bool,
    ) -> &'static str {
        match ws.api.delete(&reply.channel, &reply.ts).await {
            Ok(()) => {
                if answer_gone {
                    ws.state
                        .remember_reply(key, deleted_marker(key, Some(reply)))
                        .await;
                } else {
                    ws.state.forget_reply(key).await;
                }
                "deleted"
            }
            Err(error) => {
                tracing::warn!(%error, channel = %key.channel, "cannot delete the sources of a deleted answer");
                "failed"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key() -> SettleKey {
        SettleKey {
            workspace: "T1".into(),
            answer: AnswerKey {
                channel: "C1".into(),
                ts: "1.1".into(),
            },
        }
    }

    fn changed(text: &str, edited: Option<&str>) -> AnswerEvent {
        let mut message = json!({"type": "message", "ts": "1.1", "bot_id": "BAI", "text": text});
        if let Some(ts) = edited {
            message["edited"] = json!({"user": "U9", "ts": ts});
        }
        AnswerEvent::Changed {
            channel: "C1".into(),
            message: Box::new(message),
        }
    }

    #[test]
    fn edits_restart_the_wait_up_to_the_ceiling() {
        let settler = Settler::new(Duration::from_millis(50), Duration::from_millis(120));
        assert!(settler.record(&key(), changed("Thinking…", None)));
        let (first_due, now) = settler.due(&key()).expect("pending");
        assert!(!now);
        std::thread::sleep(Duration::from_millis(30));
        assert!(
            !settler.record(&key(), changed("Deploys", Some("1.2"))),
            "one task per answer"
        );
        let (second_due, _) = settler.due(&key()).expect("pending");
        assert!(second_due > first_due, "an edit pushes the check back");
        for i in 0..5 {
            std::thread::sleep(Duration::from_millis(30));
            settler.record(&key(), changed("more", Some(&format!("1.{}", 3 + i))));
        }
        let (_, now) = settler.due(&key()).expect("pending");
        assert!(now, "the ceiling is reached while edits keep coming");
    }

    #[test]
    fn late_older_versions_are_ignored_and_deletion_wins() {
        let settler = Settler::new(Duration::from_millis(50), Duration::from_secs(1));
        settler.record(&key(), changed("final", Some("1.5")));
        settler.record(&key(), changed("older", Some("1.3")));
        settler.record(&key(), changed("first", None));
        let (message, generation) = settler.take(&key()).expect("pending");
        assert_eq!(message.expect("a message")["text"], "final");
        assert_eq!(generation, 0);
        settler.record(
            &key(),
            AnswerEvent::Deleted {
                channel: "C1".into(),
                ts: "1.1".into(),
            },
        );
        settler.record(&key(), changed("after deletion", Some("1.9")));
        let (message, generation) = settler.take(&key()).expect("pending");
        assert!(message.is_none());
        assert!(
            !settler.finish(&key(), 0),
            "changed meanwhile: another round"
        );
        assert!(settler.finish(&key(), generation));
        assert_eq!(settler.waiting(), 0);
    }
}
