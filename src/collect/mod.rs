//! The collector: from an [`Answer`] to the deduplicated list of sources it rests on,
//! its claims, and the citations that lead nowhere. It scans the text for every citation
//! form ([`scan`]), resolves `[n]` markers against the answer's reference list or the
//! agent's structured sources, canonicalises each link ([`canon`]) so that duplicates
//! collapse, classifies the kind of each source ([`kind`]), and splits the text into
//! claims ([`claims`]) to find the ones a reader would want a source for and that cite
//! nothing. No network, no I/O: plain data in, plain data out.

mod candidates;
pub mod canon;
pub mod claims;
pub mod input;
pub mod kind;
pub mod link_title;
pub mod readable;
pub mod scan;
mod sentences;
pub mod slack_message;
mod sources;
#[cfg(test)]
mod tests;
pub mod title;

use crate::model::{
    Answer, Claim, ClaimSignal, DanglingCitation, FoundBy, InputShape, KindCounts, LinkTitle,
    Metrics, Source, SourceKind, Span, StructuredSource, Verdict,
};
use candidates::{candidates, Candidate, Dangling};
use canon::CanonError;
use kind::KindRules;
use scan::{RefEntry, RefId, Scan};
use sentences::{claims_of, metrics, sentences_at, ClaimTally};
use sources::Builder;
use std::borrow::Cow;
use std::collections::HashMap;
use url::Url;

/// Most unique sources kept per answer by default; links beyond it are counted in
/// [`Metrics::links_skipped`] and named in a warning.
pub const DEFAULT_MAX_SOURCES: usize = 1_000;

/// Most claims a report lists; the metrics count every sentence, and a note says how
/// many were not listed.
pub const MAX_LISTED_CLAIMS: usize = 10_000;
/// Most repeats of dangling markers a report lists beyond the first marker of each
/// number (every distinct number is always listed; the metrics count every marker).
pub const MAX_LISTED_DANGLING_REPEATS: usize = 1_000;

/// How the collector behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectOptions {
    /// Extra internal hosts per kind.
    pub kind_rules: KindRules,
    /// Most unique sources kept.
    pub max_sources: usize,
}

impl Default for CollectOptions {
    fn default() -> Self {
        CollectOptions {
            kind_rules: KindRules::default(),
            max_sources: DEFAULT_MAX_SOURCES,
        }
    }
}

/// What the collector found in one answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected {
    /// Unique sources, in order of first appearance, ids 1, 2, 3…
    pub sources: Vec<Source>,
    /// Every sentence considered, with the sources it cites.
    pub claims: Vec<Claim>,
    /// Markers that resolve to nothing.
    pub dangling: Vec<DanglingCitation>,
    /// Counts.
    pub metrics: Metrics,
    /// Things people should know (unusable links, limits hit).
    pub warnings: Vec<String>,
}

/// Collects the sources and claims of `answer`.
pub fn collect(answer: &Answer, options: &CollectOptions) -> Collected {
    collect_on(answer, options, answer.text.len() >= PARALLEL_FROM_BYTES)
}

/// [`collect`] on one thread, or with the sentences read on a second one; the result
/// is the same either way (the equality test in `tests.rs` holds them to it).
fn collect_on(answer: &Answer, options: &CollectOptions, two_threads: bool) -> Collected {
    let scan = scan::scan(&answer.text);
    let mut builder = Builder::new(options);
    let opaque = scan.opaque();
    let sentences = if two_threads {
        // A second core splits the sentences (which needs no source) while this one
        // gathers the sources; then each reads the signals of half of the sentences.
        std::thread::scope(|scope| {
            let (spans_sent, spans_received) = std::sync::mpsc::channel();
            let (text, scan, opaque) = (&answer.text, &scan, &opaque);
            let first_half = scope.spawn(move || {
                let spans = claims::split_claims(text, opaque, &scan.non_prose());
                let half = spans.len() / 2;
                let _ = spans_sent.send(spans[half..].to_vec());
                sentences_at(text, &spans[..half], opaque)
            });
            gather_sources(&mut builder, answer, scan);
            let second_half = spans_received
                .recv()
                .map(|spans| sentences_at(text, &spans, opaque))
                .unwrap_or_default();
            let mut sentences = first_half
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            sentences.extend(second_half);
            sentences
        })
    } else {
        gather_sources(&mut builder, answer, &scan);
        let spans = claims::split_claims(&answer.text, &opaque, &scan.non_prose());
        sentences_at(&answer.text, &spans, &opaque)
    };
    let claims = claims_of(
        sentences,
        &builder.citation_targets,
        &answer.text,
        &scan.shown,
    );
    builder.finish(answer, claims)
}

/// From this size on, an answer's sentences are read on a second thread: below it the
/// thread would cost more than it saves.
const PARALLEL_FROM_BYTES: usize = 64 * 1024;

/// Every source the answer names, merged, with the warnings about them.
fn gather_sources<'a>(builder: &mut Builder<'_, 'a>, answer: &'a Answer, scan: &'a Scan) {
    let candidates = candidates(answer, scan, &mut builder.dangling);
    builder.warn_about_dangling();
    builder.add_all(candidates);
    builder.apply_link_titles(&answer.link_titles);
    builder.warn_about_scan(scan);
}
