//! The **Show evidence** button under a report whose claims were checked against the
//! pages they cite. When the report is posted, its evidence modal is rendered
//! ([`crate::render::evidence::modal`]) for the channel it is posted in, quoting
//! internal documents only as the workspace allows and private conversations only in
//! themselves, checked against Slack's limits, and kept in the
//! workspace's slice of the shared state under a fresh random key for
//! [`crate::state::EVIDENCE_TTL`]; the button carries the key. A press reaches any
//! replica: it reads the view back and opens it with `views.open` and the click's
//! `trigger_id` (Slack takes it for 3 seconds, so nothing else is done first). When the
//! evidence has expired, or the modal cannot open, the person who pressed is told so in
//! one ephemeral sentence.

use super::api::{CallError, Outgoing};
use super::deliver::Presser;
use super::inbound::EVIDENCE_ACTION_ID;
use super::{slack_reason, Bot, Workspace};
use crate::model::Report;
use crate::render::blocks::{button, push_button};
use crate::render::evidence::has_evidence;
use crate::render::evidence::modal::{check_view_limits, evidence_view, Audience};
use std::sync::atomic::Ordering;

/// The button's text.
pub const EVIDENCE_BUTTON_TEXT: &str = "Show evidence";

/// What a press is told when the evidence is no longer kept.
pub const EVIDENCE_EXPIRED: &str = "The evidence for that report is no longer kept (it is kept for a day): ask me to check the answer again to see it.";

impl Bot {
    /// `outgoing`, to be posted in `channel`, with a "Show evidence" button when
    /// `report` has claims checked against the pages they cite: the modal is rendered
    /// now and kept under a fresh random key, which the button carries. It quotes what
    /// sourcebot read with its own credentials as the workspace allows, and a private
    /// conversation's words only when `channel` is that conversation. `outgoing`
    /// unchanged otherwise (and when the modal would break a limit, which the log
    /// says).
    pub(crate) async fn with_evidence(
        &self,
        ws: &Workspace,
        report: &Report,
        mut outgoing: Outgoing,
        channel: &str,
    ) -> Outgoing {
        if !has_evidence(report) {
            return outgoing;
        }
        let audience = Audience {
            channel: Some(channel),
            internal_quotes: self.hub.applied(ws.id()).await.internal_quotes,
        };
        let view = evidence_view(report, &self.pipeline.config().render, &audience);
        if let Err(error) = check_view_limits(&view) {
            tracing::warn!(%error, "the evidence does not fit in a modal: no button");
            return outgoing;
        }
        let key = self.evidence_key();
        ws.state.keep_evidence(&key, view).await;
        let pressed = button(EVIDENCE_ACTION_ID, EVIDENCE_BUTTON_TEXT, &key);
        if !push_button(&mut outgoing.blocks.blocks, pressed) {
            tracing::warn!("no room for the evidence button under the report");
        }
        outgoing
    }

    /// Opens the evidence kept under `key` for the person who pressed its button; tells
    /// them in a sentence when it has expired or cannot be shown.
    pub(super) async fn show_evidence(
        &self,
        ws: &Workspace,
        key: &str,
        trigger_id: Option<&str>,
        presser: Presser<'_>,
    ) {
        let Some(view) = ws.state.evidence(key).await else {
            return self.tell_presser(ws, &presser, EVIDENCE_EXPIRED).await;
        };
        let Some(trigger_id) = trigger_id else {
            tracing::warn!("an evidence click without a trigger_id");
            return self
                .tell_presser(
                    ws,
                    &presser,
                    "I could not open the evidence: Slack did not say where to show it. Press the button again.",
                )
                .await;
        };
        if let Err(error) = ws.api.open_view(trigger_id, &view).await {
            tracing::warn!(%error, "cannot open the evidence");
            let why = match &error {
                CallError::Slack { code, .. } if code == "expired_trigger_id" => {
                    "Slack took too long to hand me the click; press the button again".to_string()
                }
                other => slack_reason(other),
            };
            self.tell_presser(
                ws,
                &presser,
                &format!("I could not open the evidence: {why}."),
            )
            .await;
        }
    }

    /// A fresh random key (128 bits, hex) for kept evidence; the clock and a counter
    /// should the system's generator fail.
    pub(super) fn evidence_key(&self) -> String {
        use ring::rand::SecureRandom;
        let mut bytes = [0u8; 16];
        if ring::rand::SystemRandom::new().fill(&mut bytes).is_ok() {
            return bytes.iter().map(|b| format!("{b:02x}")).collect();
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        format!(
            "{nanos:x}-{:x}-{}",
            self.next_key.fetch_add(1, Ordering::Relaxed),
            self.holder
        )
    }
}
