//! sourcebot shows what an AI answer rests on. It takes a synthesized answer, collects
//! every source it cites (inline links, numbered references, structured sources from
//! the agent), drops duplicates, and renders the sources grouped by type — Slack,
//! Confluence, files, web — with the claims that cite nothing pointed out.
//!
//! The pipeline is plain functions over plain data:
//! [`collect::input::parse_answer`] reads bytes into an [`Answer`],
//! [`collect::collect`] finds its sources and claims, [`build_report`] assembles the
//! [`Report`], [`verify::Verifier`] probes its links, [`score::Scorer`] rates its
//! sources and the answer, and [`render`] turns it into Slack mrkdwn, Block Kit, text
//! or JSON. [`pipeline::Pipeline`] runs them all with one set of settings — it is what
//! the Slack bot, the HTTP service ([`api`]) and the command line use:
//!
//! ```
//! use sourcebot::pipeline::Pipeline;
//! use sourcebot::collect::input::FormatHint;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! // Links are probed unless told otherwise; this example stays offline.
//! let pipeline = Pipeline::builder().verify(false).build()?;
//! let answer = pipeline.parse(
//!     b"Rust 1.0 shipped in May 2015 [1].\n\n\
//!       [1] https://blog.rust-lang.org/2015/05/15/Rust-1.0.html - Announcing Rust 1.0",
//!     FormatHint::Auto,
//! )?;
//! let report = pipeline.check(&answer).await;
//! assert_eq!(report.metrics.unique_sources, 1);
//! let confidence = report.confidence.as_ref().map(|c| c.value).unwrap_or_default();
//! assert!(confidence > 0.5, "an official blog: {confidence}");
//! let mrkdwn = pipeline.mrkdwn(&report);
//! assert!(mrkdwn.contains("<https://blog.rust-lang.org/2015/05/15/Rust-1.0.html|Announcing Rust 1.0>"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Without a runtime, [`check`] does the same synchronously, links not probed:
//!
//! ```
//! use sourcebot::{check, model::Answer, collect::CollectOptions, render};
//!
//! let answer = Answer::from_text(
//!     "Rust 1.0 shipped in May 2015 [1].\n\n[1] https://blog.rust-lang.org/2015/05/15/Rust-1.0.html - Announcing Rust 1.0",
//! );
//! let report = check(&answer, &CollectOptions::default());
//! let text = render::mrkdwn(&report, &render::RenderOptions::default());
//! assert!(text.contains("<https://blog.rust-lang.org/2015/05/15/Rust-1.0.html|Announcing Rust 1.0>"));
//! ```

#![warn(missing_docs)]

pub mod api;
pub mod audit;
pub mod calendar;
pub mod collect;
pub mod config;
pub mod health;
pub mod install;
pub mod llm;
pub mod metrics;
pub mod model;
pub mod mrkdwn;
pub mod page;
pub mod pipeline;
pub mod products;
pub mod render;
pub mod reply;
pub mod score;
pub mod serve;
pub mod setting;
pub mod slack;
pub mod state;
pub mod store;
pub mod support;
pub mod verify;

use collect::{CollectOptions, Collected};
use model::{Answer, Report, SourceGroup, SourceKind, VerdictCounts, Verification};

/// What reports say while links are not probed.
pub const NOT_VERIFIED_NOTE: &str = "Links were not checked.";

/// Collects the sources of `answer`, builds its report and scores it with the default
/// [`score::Scorer`]. No link is probed: every source's verdict is "not checked", and
/// the report says so.
pub fn check(answer: &Answer, options: &CollectOptions) -> Report {
    check_with(answer, options, &score::Scorer::default())
}

/// [`check`] with a configured scorer.
pub fn check_with(answer: &Answer, options: &CollectOptions, scorer: &score::Scorer) -> Report {
    let mut report = build_report(answer, collect::collect(answer, options));
    scorer.score_report(&mut report);
    report
}

/// Collects the sources of `answer`, checks its external links with `verifier` (see
/// [`verify::Verifier::verify_report`]), then scores it with the verdicts. `progress`,
/// if given, counts the links as they are checked.
pub async fn check_and_verify(
    answer: &Answer,
    options: &CollectOptions,
    verifier: &verify::Verifier,
    scorer: &score::Scorer,
    progress: Option<&verify::Progress>,
) -> Report {
    let mut report = build_report(answer, collect::collect(answer, options));
    verifier.verify_report(&mut report, progress).await;
    scorer.score_report(&mut report);
    report
}

/// Groups collected sources by kind (in the default display order; renderers reorder
/// them as configured) and wraps everything in a [`Report`].
pub fn build_report(answer: &Answer, collected: Collected) -> Report {
    let Collected {
        sources,
        claims,
        dangling,
        metrics,
        warnings,
    } = collected;
    let counts = VerdictCounts {
        not_checked: sources.len(),
        ..VerdictCounts::default()
    };
    let mut report = Report {
        shape: answer.shape,
        origin: answer.origin.clone(),
        groups: vec![SourceGroup {
            kind: SourceKind::Web,
            sources,
        }],
        claims,
        dangling_citations: dangling,
        metrics,
        verification: Verification {
            performed: false,
            note: NOT_VERIFIED_NOTE.to_string(),
            network_down: false,
            elapsed_ms: None,
            counts,
        },
        warnings,
        confidence: None,
    };
    report.regroup();
    report
}
