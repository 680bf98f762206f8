//! Credibility and support audit over research reports: `sourcebot audit`. Finds
//! report files by glob, reads each as the collector reads any answer (research-report
//! JSON, agent results, search results, Markdown answers), verifies every distinct
//! external link once across all of them, scores every citation, judges every claim
//! against the pages it cites (as `check` does: [`Pipeline::check_support`]), and sums
//! up: how many citations have a URL (coverage), how many of those score above the
//! threshold, and which are the worst and why; how many claims their pages support,
//! and which reports have the most claims their pages do not. The audit passes only
//! when every citation has a URL, none scores at or below the threshold, every file
//! was read and, with [`AuditOptions::min_supported`], at least that share of the
//! judged claims is supported.
//!
//! A *citation* is a place a report cites a source: each entry of a research report's
//! `citations`, each numbered reference or inline link of an answer (a source cited
//! under two numbers counts twice), and each `[n]` marker whose number has no
//! reference (a citation without a URL). Its credibility is its source's
//! (see [`crate::score`]); a citation without a URL scores 0.0. A *claim* is a sentence
//! of the report (a research report's citation text is one) that cites a source; it is
//! *supported* when a page it cites says what it says ([`claims`]).
//!
//! Files are handled in chunks of [`CHUNK_FILES`]: read, their links checked, their
//! cited pages read and their claims judged, then counted and dropped, so memory stays
//! bounded by the chunk, the per-file summaries, the [`AuditOptions::worst`] worst
//! citations and least supported reports, and the verifier's bounded page cache,
//! however many files match. What sourcebot reads with its own credentials (internal
//! documents) is counted, never shown: the audit prints no quote and no page's words.

use crate::collect::input::{parse_answer_owned, read_limited, FormatHint, InputError};
use crate::collect::CollectOptions;
use crate::model::{Origin, Report, Source, VerdictClass};
use crate::pipeline::Pipeline;
use crate::score::search::DEFAULT_CREDIBILITY_THRESHOLD;
use crate::score::Scorer;
use crate::support::check::SupportOutcome;
use crate::verify::Progress;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use thiserror::Error;

pub mod claims;
mod report;
#[cfg(test)]
mod tests;
mod text;

pub use claims::{ClaimCounts, LeastSupported};
pub use report::{
    AuditMetrics, AuditReport, AuditStatus, AuditedCitation, FileError, FileSummary, Tally,
};
pub use text::render_text;

/// The files audited when no glob is given.
pub const DEFAULT_GLOB: &str = "docs/research/**/*.json";
/// Link checks at once during an audit, unless told otherwise.
pub const DEFAULT_CONCURRENCY: usize = 10;
/// Worst citations listed, unless told otherwise.
pub const DEFAULT_WORST: usize = 10;
/// Files read, checked and scored together; the next chunk waits for this one.
pub const CHUNK_FILES: usize = 64;

/// Why an audit could not start.
#[derive(Debug, Error)]
pub enum AuditError {
    /// A glob matched no file.
    #[error("no file matches {pattern}")]
    NoMatch {
        /// The glob, as given.
        pattern: String,
    },
    /// A glob is not a valid pattern.
    #[error("{pattern} is not a valid glob: {reason}")]
    BadPattern {
        /// The glob, as given.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The threshold is not a number from 0 to 1.
    #[error("the threshold must be a number from 0 to 1, not {0}")]
    BadThreshold(f64),
    /// The least supported share is not a number from 0 to 1.
    #[error("the share of supported claims must be a number from 0 to 1, not {0}")]
    BadMinSupported(f64),
}

/// How to audit.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    /// Citations must score strictly above this (0.8).
    pub threshold: f64,
    /// How many of the worst citations to keep.
    pub worst: usize,
    /// Largest file read, in bytes.
    pub max_input_bytes: usize,
    /// Collector settings.
    pub collect: CollectOptions,
    /// The audit fails when less than this share (0 to 1) of the judged claims is
    /// supported by the pages they cite; `None` sets no minimum.
    pub min_supported: Option<f64>,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            threshold: DEFAULT_CREDIBILITY_THRESHOLD,
            worst: DEFAULT_WORST,
            max_input_bytes: crate::collect::input::DEFAULT_MAX_INPUT_BYTES,
            collect: CollectOptions::default(),
            min_supported: None,
        }
    }
}

/// The files `patterns` match, sorted and without repeats. A pattern naming a
/// directory stands for every `.json` file under it. Every pattern must match at least
/// one file; directories a pattern matches are not files and are passed over.
pub fn find_files(patterns: &[String]) -> Result<Vec<PathBuf>, AuditError> {
    let mut files = BTreeSet::new();
    for pattern in patterns {
        let expanded = if Path::new(pattern).is_dir() {
            format!("{}/**/*.json", pattern.trim_end_matches(['/', '\\']))
        } else {
            pattern.clone()
        };
        let paths = glob::glob(&expanded).map_err(|e| AuditError::BadPattern {
            pattern: pattern.clone(),
            reason: e.msg.to_string(),
        })?;
        let before = files.len();
        let mut matched_any = false;
        for entry in paths {
            // An unreadable directory on the way is reported as a file that could not
            // be read, not dropped.
            let path = match entry {
                Ok(path) => path,
                Err(error) => error.path().to_path_buf(),
            };
            if !path.is_dir() {
                matched_any = true;
                files.insert(path);
            }
        }
        if !matched_any && files.len() == before {
            return Err(AuditError::NoMatch {
                pattern: pattern.clone(),
            });
        }
    }
    Ok(files.into_iter().collect())
}

/// Counts an audit shows while it runs.
#[derive(Debug, Default)]
pub struct AuditProgress {
    /// Files matched.
    pub files_total: AtomicUsize,
    /// Files read, checked and scored so far.
    pub files_done: AtomicUsize,
    /// The links of the chunk being checked.
    pub links: Progress,
    /// Reports of the chunk whose claims are being judged against their pages.
    pub judging_total: AtomicUsize,
    /// Of which judged so far.
    pub judging_done: AtomicUsize,
}

/// Audits `files`: reads and collects each, checks the links with the pipeline's
/// verifier when it has one (every distinct link once per chunk, each with its full
/// timeout), scores every citation, and, when the pipeline reads cited pages, judges
/// every claim against them ([`Pipeline::check_support`], each report within its own
/// support budget). A file that cannot be read or understood is listed in the
/// report's errors.
pub async fn audit_files(
    files: &[PathBuf],
    options: &AuditOptions,
    pipeline: &Pipeline,
    progress: Option<&AuditProgress>,
) -> Result<AuditReport, AuditError> {
    if !(0.0..=1.0).contains(&options.threshold) {
        return Err(AuditError::BadThreshold(options.threshold));
    }
    if let Some(min) = options.min_supported.filter(|m| !(0.0..=1.0).contains(m)) {
        return Err(AuditError::BadMinSupported(min));
    }
    let mut tally =
        Tally::new(options.threshold, options.worst).with_min_supported(options.min_supported);
    if let Some(progress) = progress {
        progress.files_total.store(files.len(), Ordering::Relaxed);
    }
    for chunk in files.chunks(CHUNK_FILES) {
        let paths = chunk.to_vec();
        let load_options = options.clone();
        let loaded = tokio::task::spawn_blocking(move || {
            paths
                .iter()
                .map(|path| load(path, &load_options))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_else(|error| {
            chunk
                .iter()
                .map(|path| {
                    Err(FileError {
                        path: display(path),
                        message: format!("reading failed: {error}"),
                    })
                })
                .collect()
        });
        let mut reports = Vec::with_capacity(loaded.len());
        for outcome in loaded {
            match outcome {
                Ok(report) => reports.push(report),
                Err(error) => tally.add_error(error),
            }
        }
        pipeline
            .verify_and_score_all(&mut reports, progress.map(|p| &p.links))
            .await;
        let outcomes = if pipeline.checks_support() {
            claims::judge_claims(&mut reports, pipeline, progress).await
        } else {
            vec![None; reports.len()]
        };
        for (report, outcome) in reports.iter().zip(&outcomes) {
            tally_report(
                &mut tally,
                report,
                outcome.as_ref(),
                options,
                pipeline.scorer(),
            );
        }
        // The chunk's reports, their claims' support and quotes go here.
        drop(reports);
        if let Some(progress) = progress {
            progress
                .files_done
                .fetch_add(chunk.len(), Ordering::Relaxed);
        }
    }
    Ok(tally.finish(pipeline.verifies(), pipeline.checks_support()))
}

/// Reads, parses and collects one file; the report's origin is the file.
fn load(path: &Path, options: &AuditOptions) -> Result<Report, FileError> {
    let name = display(path);
    let failed = |message: String| FileError {
        path: name.clone(),
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| failed(format!("cannot open: {e}")))?;
    let bytes = read_limited(file, options.max_input_bytes)
        .map_err(|e| failed(format!("cannot read: {e}")))?;
    let hint = if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        FormatHint::Json
    } else {
        FormatHint::Auto
    };
    let mut answer =
        parse_answer_owned(bytes, hint, options.max_input_bytes).map_err(|e| match e {
            InputError::TooLarge { limit } => failed(format!(
                "larger than {limit} bytes (raise SOURCEBOT_MAX_INPUT_BYTES to read it)"
            )),
            other => failed(other.to_string()),
        })?;
    answer.origin = Origin::File { path: name.clone() };
    Ok(crate::build_report(
        &answer,
        crate::collect::collect(&answer, &options.collect),
    ))
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Adds the citations of one scored report to the tally, and its claims when its
/// support check did `support`.
fn tally_report(
    tally: &mut Tally,
    report: &Report,
    support: Option<&SupportOutcome>,
    options: &AuditOptions,
    scorer: &Scorer,
) {
    let threshold = options.threshold;
    let file = match &report.origin {
        Origin::File { path } => path.clone(),
        _ => String::new(),
    };
    let mut summary = FileSummary {
        path: file.clone(),
        citations: 0,
        with_url: 0,
        above_threshold: 0,
        confidence: report.confidence.as_ref().map_or(0.0, |c| c.value),
        support: None,
    };
    for source in report.sources() {
        let credibility = source.credibility.as_ref().map_or(0.0, |c| c.value);
        let url = source.link().map(str::to_string);
        let reason = reason(source, credibility, threshold, scorer);
        // A source cited under several numbers is that many citations.
        let times = source.citation_numbers.len().max(1);
        summary.citations += times;
        summary.with_url += if url.is_some() { times } else { 0 };
        let above = tally.add_citation(AuditedCitation {
            file: file.clone(),
            numbers: source.citation_numbers.clone(),
            citations: times,
            title: source.title.clone(),
            url,
            credibility,
            verdict: source.verdict.class,
            reason,
        });
        summary.above_threshold += if above { times } else { 0 };
    }
    for dangling in &report.dangling_citations {
        summary.citations += 1;
        tally.add_citation(AuditedCitation {
            file: file.clone(),
            numbers: vec![dangling.number],
            citations: 1,
            title: format!("[{}]", dangling.number),
            url: None,
            credibility: 0.0,
            verdict: VerdictClass::NotChecked,
            reason: format!(
                "[{}] is cited but the report lists no source under that number",
                dangling.number
            ),
        });
    }
    tally.add_verdicts(&report.verification.counts);
    if let Some(outcome) = support {
        let counted = claims::count_claims(&file, report, outcome);
        summary.support = Some(counted.counts.clone());
        tally.add_claims(counted);
    }
    tally.add_file(summary);
}

/// Why a citation scores what it does, in a few words: its verdict when it counted,
/// and where its base score came from.
fn reason(source: &Source, credibility: f64, threshold: f64, scorer: &Scorer) -> String {
    let Some(scored) = &source.credibility else {
        return "not scored".to_string();
    };
    if source.link().is_none() {
        return "no URL: the citation cannot be followed".to_string();
    }
    let mut parts = Vec::new();
    let verdict = &source.verdict;
    if verdict.class != VerdictClass::NotChecked || verdict.reason.is_none() {
        let mut said = verdict.class.as_str().to_string();
        if let Some(why) = &verdict.reason {
            said.push_str(": ");
            said.push_str(why);
        }
        parts.push(said);
    }
    let base = match scored.base_from.as_str() {
        "domain" => {
            let host = source
                .link()
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_default();
            match scorer.tiers.matching_entry(&host) {
                Some(entry) => format!(
                    "{host}: {} tier ({entry}) {:.2}",
                    entry.tier.name(),
                    scored.base
                ),
                None => format!("{host}: unknown domain {:.2}", scored.base),
            }
        }
        "agent" => format!("configured agent reliability {:.2}", scored.base),
        "kind" => format!(
            "{} source reliability {:.2}",
            source.kind.as_str(),
            scored.base
        ),
        other => format!("{other} {:.2}", scored.base),
    };
    parts.push(base);
    if let Some(agent) = scored.agent_confidence {
        parts.push(format!("agent confidence {agent:.2}"));
    }
    let comparison = if credibility > threshold { ">" } else { "≤" };
    format!(
        "{credibility:.2} {comparison} {threshold:.2}: {}",
        parts.join(" · ")
    )
}
