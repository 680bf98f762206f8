//! Where a report goes once checked: a reply in the thread, an ephemeral answer to
//! the command (with its "Share in channel" button), or an ephemeral message in the
//! thread for a workspace that offers reports to the asker only; replaced in place when
//! the support check changes it. Every report ends with its feedback footer
//! ([`super::feedback`]). A failure is told to the person who asked, never swallowed.

use super::api::{self, CallError, Outgoing, ResponseMessage};
use super::inbound::{Reply, SHARE_ACTION_ID};
use super::{slack_reason, Bot, Workspace};
use crate::render::blocks::{button, push_button, BlockMessage};
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

/// Where to tell the person who pressed a button.
pub(super) struct Presser<'a> {
    /// The message's response URL, when Slack gave one (none from the App Home).
    pub response_url: Option<&'a str>,
    /// The channel, for an ephemeral message when there is no response URL.
    pub channel: Option<&'a str>,
    /// The person.
    pub user: Option<&'a str>,
}

impl Bot {
    /// One ephemeral sentence to whoever pressed a button: through the response URL (as
    /// a new message, never replacing the one that carried the button), else, or when
    /// that fails, with `chat.postEphemeral`; the log says when neither can reach them.
    pub(super) async fn tell_presser(&self, ws: &Workspace, presser: &Presser<'_>, text: &str) {
        if let Some(url) = presser.response_url {
            let message = ResponseMessage {
                replace_original: Some(false),
                ..ResponseMessage::ephemeral(text)
            };
            match ws.api.respond(url, &message).await {
                Ok(()) => return,
                Err(error) => tracing::warn!(%error, "cannot answer a button press"),
            }
        }
        let (Some(channel), Some(user)) = (presser.channel, presser.user) else {
            tracing::warn!(
                text,
                "cannot tell the person who pressed a button: no way to reach them"
            );
            return;
        };
        if let Err(error) = ws.api.post_ephemeral(channel, user, text).await {
            tracing::warn!(%error, channel, "cannot tell the person who pressed a button");
        }
    }

    /// The report as posted: blocks, and mrkdwn for when Slack refuses them, listing at
    /// most `per_kind` sources of each kind (0: all).
    pub(super) fn outgoing(&self, report: &crate::model::Report, per_kind: usize) -> Outgoing {
        let options = crate::render::RenderOptions {
            max_per_kind: per_kind,
            ..self.pipeline.config().render.clone()
        };
        Outgoing::new(
            crate::render::blocks(report, &options),
            crate::render::mrkdwn(report, &options),
        )
    }

    /// Replaces a delivered report with `outgoing` in place, its feedback footer for
    /// `key` under it.
    pub(super) async fn redeliver(
        &self,
        ws: &Workspace,
        delivered: &Delivered,
        outgoing: Outgoing,
        key: &str,
    ) {
        let result = match delivered {
            Delivered::Message { channel, ts } => {
                let outgoing = self.with_feedback(ws, outgoing, key);
                ws.api
                    .update_report(channel, ts, &outgoing)
                    .await
                    .map(|sent| self.sent(ws, sent))
            }
            Delivered::Ephemeral {
                response_url,
                key: share_key,
                ..
            } => {
                self.keep_shared(ws, share_key, &outgoing).await;
                let mut shown = outgoing;
                push_button(&mut shown.blocks.blocks, share_button(share_key));
                let shown = self.with_feedback(ws, shown, key);
                self.respond_report(ws, response_url, &shown, true).await
            }
            Delivered::Whisper { .. } => Ok(()),
        };
        if let Err(error) = result {
            tracing::warn!(%error, "cannot show the support check in the posted sources");
        }
    }

    /// Sends a report through a `response_url`: its blocks, else its alternate blocks,
    /// else its mrkdwn.
    pub(super) async fn respond_report(
        &self,
        ws: &Workspace,
        response_url: &str,
        outgoing: &Outgoing,
        replace: bool,
    ) -> Result<(), CallError> {
        let message = |blocks: &[Value]| {
            let mut message =
                ResponseMessage::with_blocks("ephemeral", &outgoing.blocks.text, blocks.to_vec());
            message.replace_original = replace.then_some(true);
            message
        };
        let first = ws
            .api
            .respond(response_url, &message(&outgoing.blocks.blocks))
            .await;
        // Sent, or Slack could not be reached (after the client's retries): the other
        // forms would fail the same way.
        if first.as_ref().is_ok() || first.as_ref().is_err_and(slack_is_away) {
            return first;
        }
        if let Some(alternate) = &outgoing.alternate {
            if ws
                .api
                .respond(response_url, &message(alternate))
                .await
                .is_ok()
            {
                self.sent(ws, api::Sent::Alternate);
                return Ok(());
            }
        }
        let mut plain = ResponseMessage::ephemeral(&outgoing.mrkdwn);
        plain.replace_original = replace.then_some(true);
        ws.api.respond(response_url, &plain).await
    }

    /// Posts the report where it belongs (and says where it went), with its feedback
    /// footer for `key`; says why when it cannot.
    pub(super) async fn deliver(
        &self,
        ws: &Workspace,
        reply: &Reply,
        outgoing: Outgoing,
        key: &str,
    ) -> Option<Delivered> {
        match reply {
            Reply::Thread {
                channel,
                thread_ts,
                user,
                response_url,
            } => {
                let outgoing = self.with_feedback(ws, outgoing, key);
                match ws
                    .api
                    .post_report(channel, Some(thread_ts), &outgoing)
                    .await
                {
                    Ok((ts, sent)) => {
                        self.sent(ws, sent);
                        Some(Delivered::Message {
                            channel: channel.clone(),
                            ts,
                        })
                    }
                    Err(error) => {
                        tracing::warn!(%error, channel, thread_ts, "cannot post the sources");
                        if slack_is_away(&error) {
                            // Telling the person would go through the same Slack.
                            return None;
                        }
                        let why = match error.code() {
                            Some("not_in_channel") | Some("channel_not_found") => "I am not in this channel, so I cannot post the sources here. Invite me with `/invite @sourcebot` and ask again.".to_string(),
                            _ => format!("I checked the sources but could not post them: {}.", slack_reason(&error)),
                        };
                        self.tell(ws, channel, user.as_deref(), response_url.as_deref(), &why)
                            .await;
                        None
                    }
                }
            }
            Reply::Whisper {
                channel,
                thread_ts,
                user,
            } => {
                let outgoing = self.with_feedback(ws, outgoing, key);
                match ws
                    .api
                    .post_ephemeral_report(channel, user, Some(thread_ts), &outgoing)
                    .await
                {
                    Ok(sent) => {
                        self.sent(ws, sent);
                        Some(Delivered::Whisper {
                            channel: channel.clone(),
                        })
                    }
                    Err(error) => {
                        tracing::warn!(%error, channel, thread_ts, "cannot show the sources to the person who asked");
                        None
                    }
                }
            }
            Reply::Ephemeral {
                response_url,
                channel,
            } => {
                let share_key = self.keep_for_sharing(ws, &outgoing).await;
                let mut shown = outgoing;
                push_button(&mut shown.blocks.blocks, share_button(&share_key));
                let shown = self.with_feedback(ws, shown, key);
                if let Err(error) = self.respond_report(ws, response_url, &shown, false).await {
                    tracing::error!(%error, channel = %channel, "cannot answer the command, even as plain text");
                    return None;
                }
                Some(Delivered::Ephemeral {
                    response_url: response_url.clone(),
                    key: share_key,
                    channel: channel.clone(),
                })
            }
        }
    }

    /// Keeps `outgoing` under `key` for the "Share in channel" button.
    pub(super) async fn keep_shared(&self, ws: &Workspace, key: &str, outgoing: &Outgoing) {
        let message = ResponseMessage::with_blocks(
            "in_channel",
            &outgoing.blocks.text,
            outgoing.blocks.blocks.clone(),
        );
        match serde_json::to_value(&message) {
            Ok(value) => ws.state.keep_share(key, value).await,
            Err(error) => tracing::warn!(%error, "cannot keep the report for sharing"),
        }
    }

    /// Keeps a report for its "Share in channel" button; returns its key.
    pub(super) async fn keep_for_sharing(&self, ws: &Workspace, outgoing: &Outgoing) -> String {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let key = format!(
            "{nanos:x}-{:x}",
            self.next_key.fetch_add(1, Ordering::Relaxed)
        );
        self.keep_shared(ws, &key, outgoing).await;
        key
    }

    pub(super) async fn share(&self, ws: &Workspace, key: &str, response_url: &str) {
        let stored = ws.state.take_share(key).await;
        let shared = match &stored {
            Some(message) => ws.api.respond(response_url, message).await,
            None => {
                ws.api
                    .respond(
                        response_url,
                        &ResponseMessage::ephemeral(
                            "That report is no longer available to share: run the command again.",
                        ),
                    )
                    .await
            }
        };
        if let Err(error) = shared {
            tracing::warn!(%error, "cannot answer the share button");
        }
    }

    /// A short message to whoever asked.
    pub(super) async fn say(&self, ws: &Workspace, reply: &Reply, text: &str) {
        match reply {
            Reply::Thread {
                channel,
                thread_ts,
                user,
                response_url,
            } => {
                let outgoing = Outgoing::new(
                    BlockMessage {
                        text: text.to_string(),
                        blocks: Vec::new(),
                    },
                    text.to_string(),
                );
                if let Err(error) = ws.api.post(channel, Some(thread_ts), &outgoing).await {
                    tracing::warn!(%error, channel, thread_ts, "cannot reply");
                    if slack_is_away(&error) {
                        return;
                    }
                    self.tell(ws, channel, user.as_deref(), response_url.as_deref(), text)
                        .await;
                }
            }
            Reply::Ephemeral { response_url, .. } => {
                let message = ResponseMessage::ephemeral(text);
                if let Err(error) = ws.api.respond(response_url, &message).await {
                    tracing::warn!(%error, "cannot answer the command");
                }
            }
            Reply::Whisper { channel, user, .. } => {
                self.tell(ws, channel, Some(user), None, text).await;
            }
        }
    }

    /// Tells one person something privately: through the interaction's response URL
    /// when there is one, else as an ephemeral message in the channel.
    pub(super) async fn tell(
        &self,
        ws: &Workspace,
        channel: &str,
        user: Option<&str>,
        response_url: Option<&str>,
        text: &str,
    ) {
        let result = match (response_url, user) {
            (Some(url), _) => ws.api.respond(url, &ResponseMessage::ephemeral(text)).await,
            (None, Some(user)) => ws.api.post_ephemeral(channel, user, text).await,
            (None, None) => return,
        };
        if let Err(error) = result {
            tracing::warn!(%error, channel, "cannot tell the person either");
        }
    }
}

/// Whether `error` says Slack could not be reached (after the client's retries): then
/// telling the person through Slack would fail the same way, and only the log is left.
fn slack_is_away(error: &CallError) -> bool {
    matches!(error, CallError::Unreachable { .. })
}

/// Where a report went, so it can be replaced in place.
pub(super) enum Delivered {
    /// A message in a channel or thread.
    Message {
        /// The channel.
        channel: String,
        /// The message's `ts`.
        ts: String,
    },
    /// An ephemeral answer through a `response_url`, with its share key.
    Ephemeral {
        /// The response URL (usable five times in 30 minutes).
        response_url: String,
        /// The key its "Share in channel" button carries.
        key: String,
        /// The channel it was asked in.
        channel: String,
    },
    /// An ephemeral message in a thread, for the person who asked: it cannot be edited.
    Whisper {
        /// The channel.
        channel: String,
    },
}

impl Delivered {
    /// Where the report is recorded in the history: its channel and `ts`, or, for an
    /// ephemeral one (which has no lasting `ts`), its `key`.
    pub(super) fn location<'a>(&'a self, key: &'a str) -> (&'a str, &'a str) {
        match self {
            Delivered::Message { channel, ts } => (channel, ts),
            Delivered::Ephemeral { channel, .. } | Delivered::Whisper { channel } => (channel, key),
        }
    }
}

/// The "Share in channel" button carrying the stored report's key.
pub(super) fn share_button(key: &str) -> serde_json::Value {
    button(SHARE_ACTION_ID, "Share in channel", key)
}
