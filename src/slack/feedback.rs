//! Feedback on every report, and the report history it counts against. Every report the
//! bot posts or updates ends with Slack's feedback element (👍/👎: a `context_actions`
//! block with `feedback_buttons`); a workspace whose Slack refuses that block with
//! `invalid_blocks` gets the same report with two ordinary buttons instead, and the bot
//! remembers it for a day so the next report goes with the buttons at once. Each posted
//! report is recorded in the workspace's history (counts, never the answer's text);
//! its sources and claims are kept in the shared state for a day under the report's
//! key, and move into the history only when someone gives feedback on it. A press is
//! recorded once per person and report (pressing again changes the vote), counted in
//! `sourcebot_feedback_total{value}`, and thanked ephemerally; 👎 also opens a modal
//! asking what was wrong.

use super::api::{Outgoing, Sent};
use super::deliver::Presser;
use super::inbound::{feedback_locator, read_feedback_locator};
use super::{Bot, Workspace};
use crate::calendar::unix_now;
use crate::model::workspace::{FeedbackRecord, ReportCounts, ReportRecord, Vote, WrongPart};
use crate::model::{Report, SupportJudge};
use crate::render::blocks::MAX_BLOCKS;
use crate::render::feedback::{
    fallback_feedback_block, feedback_block, wrong_part_modal, FeedbackPress,
};
use serde_json::Value;

/// How long the bot remembers that a workspace's Slack refuses the feedback element.
pub const FEEDBACK_REFUSAL_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// Workspaces remembered as refusing the feedback element, at most.
pub const FEEDBACK_REFUSAL_MAX: usize = 10_000;

/// The ephemeral thanks for a 👍.
pub const THANKS_UP: &str = "Thanks for the 👍: it is counted for this report.";
/// The ephemeral thanks for a 👎.
pub const THANKS_DOWN: &str =
    "Thanks for the 👎: it is counted for this report. Tell me what was wrong in the form, if you have a moment.";

/// What one report counted, for its history row: the figures the report itself shows,
/// from the same helpers its renderings use (its verdict counts; its claims and the
/// claims that cite nothing as the metrics count them, also in a very long answer whose
/// report lists only the first ones; the claims none of their readable pages support).
pub fn report_counts(report: &Report) -> ReportCounts {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let verdicts = &report.verification.counts;
    ReportCounts {
        sources: count(report.sources().count()),
        verified: count(verdicts.verified),
        broken: count(verdicts.broken),
        claims: count(crate::render::claims_total(report)),
        uncited: count(crate::render::uncited_total(
            report,
            crate::render::uncited(report).len(),
        )),
        not_supported: count(crate::render::unsupported(report).len()),
    }
}

/// Who judged the report's claims: `llm`, `builtin`, or `none` when no page was read.
pub fn report_judge(report: &Report) -> &'static str {
    let mut judges = report
        .claims
        .iter()
        .flat_map(|c| c.support.iter().map(|s| s.judge));
    let first = judges.next();
    if first == Some(SupportJudge::Llm) || judges.any(|judge| judge == SupportJudge::Llm) {
        "llm"
    } else if first.is_some() {
        "builtin"
    } else {
        "none"
    }
}

/// What is kept of a report that got feedback: its sources with their verdicts, its
/// claims with their verdicts, quotes and missing words, and its figures — the labelled
/// data `sourcebot feedback export` prints. The answer's own text is not among them, and
/// neither is anything of what sourcebot read with its own credentials: an internal
/// document's or a Slack message's quote, the figures it gives instead of the claim's
/// (its `differs`: the claim's side stays among the missing words), and the model's
/// reason about it, are dropped (kept, they would sit in the database for the history's
/// days).
pub fn report_evidence(report: &Report) -> Value {
    let mut report = report.clone();
    let internal: std::collections::HashSet<usize> = report
        .sources()
        .filter(|s| s.read_via.as_ref().is_some_and(|via| via.is_internal()))
        .map(|s| s.id)
        .collect();
    for support in report
        .claims
        .iter_mut()
        .flat_map(|c| c.support.iter_mut())
        .filter(|s| internal.contains(&s.source))
    {
        support.quote = None;
        support.differs.clear();
        if support.judge == SupportJudge::Llm {
            support.reason = None;
        }
    }
    let whole = serde_json::to_value(&report).unwrap_or(Value::Null);
    let mut kept = serde_json::Map::new();
    for key in [
        "groups",
        "claims",
        "dangling_citations",
        "metrics",
        "confidence",
    ] {
        if let Some(value) = whole.get(key) {
            kept.insert(key.to_string(), value.clone());
        }
    }
    Value::Object(kept)
}

/// The shared-state key a report's evidence waits under until someone gives feedback.
fn evidence_slot(report_key: &str) -> String {
    format!("report-{report_key}")
}

/// Who a report answered: a watched assistant (its bot id) or the person who asked.
#[derive(Debug, Clone, Default)]
pub struct Answered {
    /// The assistant's bot id (`B…`), for watched answers and the API.
    pub assistant: Option<String>,
    /// The person who asked, for mentions, the shortcut and `/sources`.
    pub asked_by: Option<String>,
}

/// The assistant a report posted through the answer API (`POST /v1/answers`) is
/// recorded under.
pub const API_ASSISTANT: &str = "answer API";

impl Bot {
    /// A fresh random key for a report: its feedback buttons carry it.
    pub(crate) fn report_key(&self) -> String {
        self.evidence_key()
    }

    /// `outgoing` ending with the feedback footer for `report_key`: Slack's feedback
    /// element, with the ordinary buttons as the alternate; the buttons alone where
    /// this workspace's Slack refused the element lately. Unchanged when the message
    /// has no room for one more block.
    pub(crate) fn with_feedback(
        &self,
        ws: &Workspace,
        mut outgoing: Outgoing,
        report_key: &str,
    ) -> Outgoing {
        if outgoing.blocks.blocks.len() >= MAX_BLOCKS {
            tracing::warn!("no room for the feedback buttons under the report");
            return outgoing;
        }
        let mut alternate = outgoing.blocks.blocks.clone();
        alternate.push(fallback_feedback_block(report_key));
        if self.feedback_refused.get(&ws.id().to_string()).is_some() {
            outgoing.blocks.blocks = alternate;
            outgoing.alternate = None;
        } else {
            outgoing.blocks.blocks.push(feedback_block(report_key));
            outgoing.alternate = Some(alternate);
        }
        outgoing
    }

    /// Remembers which form of a report Slack took: a refused feedback element is not
    /// offered to this workspace again for a day.
    pub(crate) fn sent(&self, ws: &Workspace, sent: Sent) {
        if sent == Sent::Alternate {
            tracing::info!(
                workspace = ws.id(),
                "Slack refused the feedback element: this workspace gets ordinary buttons"
            );
            self.feedback_refused.insert(ws.id().to_string(), ());
        }
    }

    /// Records a report posted in `channel` as `message_ts` (for an ephemeral one, its
    /// key) in the workspace's history, and keeps its evidence for a day under its key.
    /// A failure is logged and counted, never shown to anyone.
    pub(crate) async fn record_report(
        &self,
        ws: &Workspace,
        report: &Report,
        report_key: &str,
        channel: &str,
        message_ts: &str,
        answered: &Answered,
    ) {
        ws.state
            .keep_evidence(&evidence_slot(report_key), report_evidence(report))
            .await;
        let record = ReportRecord {
            workspace: ws.id().to_string(),
            channel: channel.to_string(),
            message_ts: message_ts.to_string(),
            assistant: answered.assistant.clone(),
            asked_by: answered.asked_by.clone(),
            counts: report_counts(report),
            judge: report_judge(report).to_string(),
            posted_at: unix_now(),
        };
        if let Err(error) = self.hub.data().record_report(&record).await {
            self.metrics.history_failure("report");
            tracing::warn!(%error, workspace = ws.id(), channel, "cannot record the report in the history");
        }
    }

    /// A press of 👍 or 👎: recorded (again: the vote changes), counted, thanked; the
    /// report's evidence joins the history; 👎 opens the modal asking what was wrong.
    pub(super) async fn feedback(
        &self,
        ws: &Workspace,
        press: FeedbackPress,
        ephemeral: bool,
        response_url: Option<String>,
    ) {
        let Some(channel) = press.channel.clone() else {
            tracing::warn!("a feedback press without a channel: not recorded");
            return;
        };
        // An ephemeral report has no lasting ts: its key names it.
        let message_ts = match (&press.message_ts, ephemeral) {
            (Some(ts), false) => ts.clone(),
            _ => press.report_key.clone(),
        };
        // The modal first: its trigger_id lasts 3 seconds.
        if press.vote == Vote::Down {
            if let Some(trigger_id) = &press.trigger_id {
                let view = wrong_part_modal(&feedback_locator(&channel, &message_ts));
                if let Err(error) = ws.api.open_view(trigger_id, &view).await {
                    tracing::warn!(%error, "cannot open the feedback modal");
                }
            }
        }
        let record = FeedbackRecord {
            workspace: ws.id().to_string(),
            channel: channel.clone(),
            message_ts: message_ts.clone(),
            user_id: press.user_id.clone(),
            vote: press.vote,
            wrong: None,
            comment: None,
            at: unix_now(),
        };
        self.metrics.feedback(press.vote.as_str());
        if let Err(error) = self.hub.data().record_feedback(&record).await {
            self.metrics.history_failure("feedback");
            tracing::warn!(%error, workspace = ws.id(), channel, "cannot record feedback");
        }
        if let Some(evidence) = ws.state.evidence(&evidence_slot(&press.report_key)).await {
            let kept = self
                .hub
                .data()
                .keep_evidence(ws.id(), &channel, &message_ts, &evidence)
                .await;
            if let Err(error) = kept {
                self.metrics.history_failure("evidence");
                tracing::warn!(%error, workspace = ws.id(), "cannot keep the report's evidence");
            }
        }
        let thanks = match press.vote {
            Vote::Up => THANKS_UP,
            Vote::Down => THANKS_DOWN,
        };
        let presser = Presser {
            response_url: response_url.as_deref(),
            channel: Some(&channel),
            user: Some(&press.user_id),
        };
        self.tell_presser(ws, &presser, thanks).await;
    }

    /// The 👎 modal's answer: what was wrong and the person's words, kept with their vote.
    pub(super) async fn wrong_part(
        &self,
        ws: &Workspace,
        user: &str,
        locator: &str,
        wrong: Option<WrongPart>,
        comment: Option<String>,
    ) {
        let Some((channel, message_ts)) = read_feedback_locator(locator) else {
            tracing::warn!("a feedback modal that names no report: not recorded");
            return;
        };
        if wrong.is_none() && comment.is_none() {
            return;
        }
        let record = FeedbackRecord {
            workspace: ws.id().to_string(),
            channel: channel.to_string(),
            message_ts: message_ts.to_string(),
            user_id: user.to_string(),
            vote: Vote::Down,
            wrong,
            comment,
            at: unix_now(),
        };
        if let Err(error) = self.hub.data().record_feedback(&record).await {
            self.metrics.history_failure("feedback");
            tracing::warn!(%error, workspace = ws.id(), channel, "cannot record what was wrong");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_report_counts_nothing_and_was_judged_by_nobody() {
        let report = crate::build_report(
            &crate::model::Answer::from_text("nothing here"),
            crate::collect::collect(
                &crate::model::Answer::from_text("nothing here"),
                &crate::collect::CollectOptions::default(),
            ),
        );
        assert_eq!(report_counts(&report), ReportCounts::default());
        assert_eq!(report_judge(&report), "none");
        let evidence = report_evidence(&report);
        assert!(evidence.get("groups").is_some());
        assert!(evidence.get("text").is_none() && evidence.get("answer").is_none());
    }

    #[test]
    fn counts_are_the_figures_the_report_shows() {
        use crate::model::{ClaimSupport, SupportVerdict};
        let answer = crate::model::Answer::from_text(
            "Deploys freeze on Fridays [1]. Rollbacks need a ticket [2]. Canaries take 5% of traffic for 45 minutes.\n\n[1] https://a.example/freeze - Freeze\n[2] https://b.example/rollback - Rollback",
        );
        let mut report = crate::build_report(
            &answer,
            crate::collect::collect(&answer, &crate::collect::CollectOptions::default()),
        );
        let support = |source: usize, verdict: SupportVerdict| ClaimSupport {
            source,
            score: 0.0,
            verdict,
            quote: None,
            missing: Vec::new(),
            differs: Vec::new(),
            reason: None,
            judge: SupportJudge::Builtin,
        };
        // Not supported by the page that could be read, the other unreadable: the
        // report says "not supported", and so does the history.
        report.claims[0].support = vec![
            support(1, SupportVerdict::NotSupported),
            support(2, SupportVerdict::Unreadable),
        ];
        report.claims[1].support = vec![support(2, SupportVerdict::Unreadable)];
        let counts = report_counts(&report);
        assert_eq!(counts.not_supported, 1);
        assert_eq!(counts.sources, 2);
        assert_eq!(counts.claims as usize, crate::render::claims_total(&report));
        assert_eq!(counts.uncited, 1, "{:?}", report.claims);
        assert_eq!(report_judge(&report), "builtin");
    }

    #[test]
    fn what_sourcebot_read_with_its_credentials_is_not_kept_with_the_feedback() {
        use crate::model::{ClaimSupport, Differ, ReadVia, SupportVerdict};
        let answer = crate::model::Answer::from_text(
            "Deploys freeze at 18:00 [1]. Rollbacks need a ticket [2].\n\n[1] https://acme.atlassian.net/wiki/spaces/ENG/pages/1/Runbook - Runbook\n[2] https://b.example/rollback - Rollback",
        );
        let mut report = crate::build_report(
            &answer,
            crate::collect::collect(&answer, &crate::collect::CollectOptions::default()),
        );
        let quoted = |source: usize, words: &str| ClaimSupport {
            source,
            score: 1.0,
            verdict: SupportVerdict::Supported,
            quote: Some(words.to_string()),
            missing: vec!["18:00".into()],
            differs: vec![Differ {
                claim: "18:00".into(),
                page: format!("{words} at 17:45"),
            }],
            reason: Some(format!("It says: {words}")),
            judge: SupportJudge::Llm,
        };
        report.claims[0].support = vec![quoted(1, "SECRET runbook words")];
        report.claims[1].support = vec![quoted(2, "Public page words")];
        for source in report.groups.iter_mut().flat_map(|g| g.sources.iter_mut()) {
            source.read_via = Some(if source.id == 1 {
                ReadVia::Product {
                    product: "Confluence".into(),
                }
            } else {
                ReadVia::Web
            });
        }
        let kept = report_evidence(&report).to_string();
        assert!(!kept.contains("SECRET runbook words"), "{kept}");
        assert!(kept.contains("Public page words"), "{kept}");
        assert!(kept.contains("18:00"), "the claim's own missing words stay");
        // The web page's differing figure is kept; the runbook's is dropped whole.
        assert!(kept.contains("Public page words at 17:45"), "{kept}");
        let evidence = report_evidence(&report);
        assert_eq!(evidence["claims"][0]["support"][0].get("differs"), None);
        assert_eq!(
            evidence["claims"][1]["support"][0]["differs"][0]["page"],
            "Public page words at 17:45"
        );
    }

    #[test]
    fn locators_round_trip_and_refuse_garbage() {
        let locator = feedback_locator("C1", "1700000000.000100");
        assert_eq!(
            read_feedback_locator(&locator),
            Some(("C1", "1700000000.000100"))
        );
        assert_eq!(read_feedback_locator("C1"), None);
        assert_eq!(read_feedback_locator(" 17"), None);
        assert_eq!(read_feedback_locator("C1 17 x"), None);
    }
}
