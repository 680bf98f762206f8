//! Credibility audit over research reports: `sourcebot audit`. Finds report files by
//! glob, reads each as the collector reads any answer (research-report JSON, agent
//! results, search results, Markdown answers), verifies every distinct external link
//! once across all of them, scores every citation, and sums up: how many citations
//! have a URL (coverage), how many of those score above the threshold, and which are
//! the worst and why. The audit passes only when every citation has a URL and none
//! scores at or below the threshold.
//!
//! A *citation* is a place a report cites a source: each entry of a research report's
//! `citations`, each numbered reference or inline link of an answer (a source cited
//! under two numbers counts twice), and each `[n]` marker whose number has no
//! reference (a citation without a URL). Its credibility is its source's
//! (see [`crate::score`]); a citation without a URL scores 0.0.
//!
//! Files are handled in chunks of [`CHUNK_FILES`], so memory stays bounded by the
//! chunk, the per-file summaries and the [`AuditOptions::worst`] worst citations,
//! however many files match.

use crate::collect::input::{parse_answer_owned, read_limited, FormatHint, InputError};
use crate::collect::CollectOptions;
use crate::model::{Origin, Report, Source, VerdictClass, VerdictCounts};
use crate::pipeline::Pipeline;
use crate::render::escape::clean_text;
use crate::score::search::DEFAULT_CREDIBILITY_THRESHOLD;
use crate::score::Scorer;
use crate::verify::Progress;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use thiserror::Error;

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
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            threshold: DEFAULT_CREDIBILITY_THRESHOLD,
            worst: DEFAULT_WORST,
            max_input_bytes: crate::collect::input::DEFAULT_MAX_INPUT_BYTES,
            collect: CollectOptions::default(),
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
}

/// A cited source of one file, scored: one or more citations (one per number it is
/// cited under).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditedCitation {
    /// The file it is in.
    pub file: String,
    /// Its number(s) in the report (`[3]`), when it has any.
    pub numbers: Vec<u32>,
    /// How many citations it stands for (at least 1).
    pub citations: usize,
    /// What it is titled.
    pub title: String,
    /// Its link, if it has one.
    pub url: Option<String>,
    /// Its credibility, 0.0–1.0.
    pub credibility: f64,
    /// The link's verdict (`verified`, `broken`…).
    pub verdict: VerdictClass,
    /// Why it scores what it does.
    pub reason: String,
}

/// One file's part of the audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileSummary {
    /// The file.
    pub path: String,
    /// Citations in it.
    pub citations: usize,
    /// Of which with a URL.
    pub with_url: usize,
    /// Of which above the threshold.
    pub above_threshold: usize,
    /// The report's answer confidence.
    pub confidence: f64,
}

/// A file the audit could not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileError {
    /// The file.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

/// The audit's figures, named as the report format specifies.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditMetrics {
    /// Citations in all files read.
    pub total_citations: usize,
    /// Of which with a URL.
    pub citations_with_url: usize,
    /// Citations with a URL scoring strictly above the threshold.
    pub citations_above_threshold: usize,
    /// Citations with a URL scoring at or below the threshold.
    pub below_threshold_count: usize,
    /// `citationsWithUrl / totalCitations` (0.0 without citations).
    pub coverage_rate: f64,
    /// `citationsAboveThreshold / citationsWithUrl` (0.0 when nothing has a URL).
    pub above_threshold_rate: f64,
    /// Files read.
    pub reports_scanned: usize,
}

/// `pass` or `fail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AuditStatus {
    /// Every citation has a URL and scores above the threshold, and every file was read.
    Pass,
    /// Anything else.
    Fail,
}

/// What an audit found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditReport {
    /// Pass or fail.
    pub status: AuditStatus,
    /// `Scanned {reportsScanned} reports, {totalCitations} citations. Coverage: {x.x}%.
    /// Above threshold: {a}/{b}`.
    pub details: String,
    /// The figures.
    pub metrics: AuditMetrics,
    /// The threshold used.
    pub threshold: f64,
    /// Whether links were checked.
    pub verified: bool,
    /// Verdicts of the cited sources, over all files (each source once per file).
    pub verdicts: VerdictCounts,
    /// The worst cited sources, lowest credibility first.
    pub worst: Vec<AuditedCitation>,
    /// Cited sources at or below the threshold (or without URL) not listed in `worst`.
    pub worst_omitted: usize,
    /// Each file read.
    pub reports: Vec<FileSummary>,
    /// Files that could not be read; any makes the audit fail.
    pub errors: Vec<FileError>,
}

/// Accumulates citations and files into an [`AuditReport`], keeping only the worst
/// citations.
#[derive(Debug, Clone)]
pub struct Tally {
    threshold: f64,
    worst_kept: usize,
    total: usize,
    with_url: usize,
    above: usize,
    worst: Vec<AuditedCitation>,
    worst_seen: usize,
    verdicts: VerdictCounts,
    reports: Vec<FileSummary>,
    errors: Vec<FileError>,
}

impl Tally {
    /// An empty tally against `threshold`, keeping the `worst` lowest citations.
    pub fn new(threshold: f64, worst: usize) -> Tally {
        Tally {
            threshold,
            worst_kept: worst,
            total: 0,
            with_url: 0,
            above: 0,
            worst: Vec::new(),
            worst_seen: 0,
            verdicts: VerdictCounts::default(),
            reports: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// Counts the citations of one cited source (`citation.citations`, at least 1).
    /// Returns whether they are above the threshold.
    pub fn add_citation(&mut self, mut citation: AuditedCitation) -> bool {
        citation.citations = citation.citations.max(1);
        let times = citation.citations;
        let has_url = citation.url.is_some();
        let above = has_url && citation.credibility > self.threshold;
        self.total += times;
        self.with_url += if has_url { times } else { 0 };
        self.above += if above { times } else { 0 };
        if !above {
            self.worst_seen += 1;
            self.keep_if_worst(citation);
        }
        above
    }

    fn keep_if_worst(&mut self, citation: AuditedCitation) {
        if self.worst_kept == 0 {
            return;
        }
        let at = self
            .worst
            .partition_point(|kept| kept.credibility <= citation.credibility);
        if at < self.worst_kept {
            self.worst.insert(at, citation);
            self.worst.truncate(self.worst_kept);
        }
    }

    /// Counts one file read.
    pub fn add_file(&mut self, summary: FileSummary) {
        self.reports.push(summary);
    }

    /// Counts one file that could not be read.
    pub fn add_error(&mut self, error: FileError) {
        self.errors.push(error);
    }

    /// Counts the verdicts of one report's sources.
    pub fn add_verdicts(&mut self, counts: &VerdictCounts) {
        self.verdicts.merge(counts);
    }

    /// The audit's result.
    pub fn finish(self, verified: bool) -> AuditReport {
        let metrics = AuditMetrics {
            total_citations: self.total,
            citations_with_url: self.with_url,
            citations_above_threshold: self.above,
            below_threshold_count: self.with_url - self.above,
            coverage_rate: ratio(self.with_url, self.total),
            above_threshold_rate: ratio(self.above, self.with_url),
            reports_scanned: self.reports.len(),
        };
        let status = if metrics.coverage_rate == 1.0
            && metrics.below_threshold_count == 0
            && self.errors.is_empty()
        {
            AuditStatus::Pass
        } else {
            AuditStatus::Fail
        };
        let details = format!(
            "Scanned {} reports, {} citations. Coverage: {:.1}%. Above threshold: {}/{}",
            metrics.reports_scanned,
            metrics.total_citations,
            metrics.coverage_rate * 100.0,
            metrics.citations_above_threshold,
            metrics.citations_with_url
        );
        AuditReport {
            status,
            details,
            metrics,
            threshold: self.threshold,
            verified,
            verdicts: self.verdicts,
            worst_omitted: self.worst_seen - self.worst.len(),
            worst: self.worst,
            reports: self.reports,
            errors: self.errors,
        }
    }
}

/// `part / whole`, 0.0 when `whole` is 0.
fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Audits `files`: reads and collects each, checks the links with `verifier` when
/// given (every distinct link once per chunk, each with its full timeout), scores
/// every citation with `scorer`. A file that cannot be read or understood is listed
/// in the report's errors.
pub async fn audit_files(
    files: &[PathBuf],
    options: &AuditOptions,
    pipeline: &Pipeline,
    progress: Option<&AuditProgress>,
) -> Result<AuditReport, AuditError> {
    if !(0.0..=1.0).contains(&options.threshold) {
        return Err(AuditError::BadThreshold(options.threshold));
    }
    let mut tally = Tally::new(options.threshold, options.worst);
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
        for report in &reports {
            tally_report(&mut tally, report, options.threshold, pipeline.scorer());
        }
        if let Some(progress) = progress {
            progress
                .files_done
                .fetch_add(chunk.len(), Ordering::Relaxed);
        }
    }
    Ok(tally.finish(pipeline.verifies()))
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

/// Adds the citations of one scored report to the tally.
fn tally_report(tally: &mut Tally, report: &Report, threshold: f64, scorer: &Scorer) {
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

/// The audit as text for a terminal: the verdict and details, the link counts, the
/// worst citations and the files that could not be read. Every string from a file is
/// put on one line without control, zero-width or bidi characters, so a report cannot
/// write escape sequences to the terminal.
pub fn render_text(report: &AuditReport) -> String {
    let mut out = String::new();
    let status = match report.status {
        AuditStatus::Pass => "PASS",
        AuditStatus::Fail => "FAIL",
    };
    out.push_str(&format!("{status}  {}\n", report.details));
    let m = &report.metrics;
    out.push_str(&format!(
        "threshold {:.2} · {} without URL · {} at or below the threshold\n",
        report.threshold,
        m.total_citations - m.citations_with_url,
        m.below_threshold_count
    ));
    if report.verified {
        out.push_str(&format!(
            "links: {}\n",
            crate::render::counts_summary(&report.verdicts)
        ));
    } else {
        out.push_str("links: not checked (--no-verify)\n");
    }
    if !report.worst.is_empty() {
        out.push_str("\nWorst citations:\n");
        for citation in &report.worst {
            let numbers: Vec<String> = citation.numbers.iter().map(|n| format!("[{n}]")).collect();
            let target = match &citation.url {
                Some(url) => clean_text(url),
                None => format!("“{}”", clean_text(&citation.title)),
            };
            out.push_str(&format!(
                "  {:.2}  {} {} {}\n        {}\n",
                citation.credibility,
                clean_text(&citation.file),
                numbers.join(""),
                target,
                clean_text(&citation.reason)
            ));
        }
        if report.worst_omitted > 0 {
            out.push_str(&format!(
                "  …and {} more sources at or below the threshold\n",
                report.worst_omitted
            ));
        }
    }
    if !report.errors.is_empty() {
        out.push_str("\nFiles that could not be read:\n");
        for error in &report.errors {
            out.push_str(&format!(
                "  {}: {}\n",
                clean_text(&error.path),
                clean_text(&error.message)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cited(url: Option<&str>, credibility: f64) -> AuditedCitation {
        AuditedCitation {
            file: "r.json".into(),
            numbers: Vec::new(),
            citations: 1,
            title: "t".into(),
            url: url.map(str::to_string),
            credibility,
            verdict: VerdictClass::NotChecked,
            reason: String::new(),
        }
    }

    fn audit(citations: Vec<AuditedCitation>) -> AuditReport {
        let mut tally = Tally::new(DEFAULT_CREDIBILITY_THRESHOLD, DEFAULT_WORST);
        for citation in citations {
            tally.add_citation(citation);
        }
        tally.add_file(FileSummary {
            path: "r.json".into(),
            citations: 0,
            with_url: 0,
            above_threshold: 0,
            confidence: 0.0,
        });
        tally.finish(false)
    }

    fn five(scores: [f64; 5]) -> Vec<AuditedCitation> {
        scores
            .iter()
            .enumerate()
            .map(|(i, s)| cited(Some(&format!("https://site{i}.example/")), *s))
            .collect()
    }

    #[test]
    fn five_citations_above_the_threshold_pass() {
        let report = audit(five([0.81, 0.9, 0.95, 0.85, 1.0]));
        let m = &report.metrics;
        assert_eq!(m.total_citations, 5);
        assert_eq!(m.citations_with_url, 5);
        assert_eq!(m.citations_above_threshold, 5);
        assert_eq!(m.below_threshold_count, 0);
        assert_eq!(m.coverage_rate, 1.0);
        assert_eq!(m.above_threshold_rate, 1.0);
        assert_eq!(report.status, AuditStatus::Pass);
        assert_eq!(
            report.details,
            "Scanned 1 reports, 5 citations. Coverage: 100.0%. Above threshold: 5/5"
        );
        assert!(report.worst.is_empty());
    }

    #[test]
    fn a_citation_without_url_fails_on_coverage() {
        let mut citations = five([0.9; 5]);
        citations[2] = cited(None, 0.0);
        let report = audit(citations);
        assert_eq!(report.metrics.citations_with_url, 4);
        assert_eq!(report.metrics.citations_above_threshold, 4);
        assert_eq!(report.metrics.below_threshold_count, 0);
        assert!(report.metrics.coverage_rate < 1.0);
        assert_eq!(report.metrics.coverage_rate, 0.8);
        assert_eq!(report.status, AuditStatus::Fail);
        assert!(report
            .details
            .ends_with("Coverage: 80.0%. Above threshold: 4/4"));
        assert_eq!(report.worst.len(), 1);
    }

    #[test]
    fn a_citation_at_0_7_fails_on_the_threshold() {
        let report = audit(five([0.9, 0.9, 0.7, 0.9, 0.9]));
        assert_eq!(report.metrics.citations_above_threshold, 4);
        assert_eq!(report.metrics.below_threshold_count, 1);
        assert_eq!(report.metrics.coverage_rate, 1.0);
        assert_eq!(report.metrics.above_threshold_rate, 0.8);
        assert_eq!(report.status, AuditStatus::Fail);
        assert_eq!(report.worst[0].credibility, 0.7);
    }

    #[test]
    fn the_threshold_itself_is_not_above_it() {
        let report = audit(five([0.9, 0.9, 0.8, 0.9, 0.9]));
        assert_eq!(report.metrics.below_threshold_count, 1);
        assert_eq!(report.status, AuditStatus::Fail);
    }

    #[test]
    fn no_citations_means_zero_rates_and_fail() {
        let report = audit(Vec::new());
        assert_eq!(report.metrics.total_citations, 0);
        assert_eq!(report.metrics.coverage_rate, 0.0);
        assert_eq!(report.metrics.above_threshold_rate, 0.0);
        assert_eq!(report.status, AuditStatus::Fail);
        // Nothing with a URL: the rate is 0.0, not NaN.
        let report = audit(vec![cited(None, 0.0)]);
        assert_eq!(report.metrics.above_threshold_rate, 0.0);
    }

    #[test]
    fn pass_needs_both_full_coverage_and_nothing_below() {
        for (coverage_full, none_below, pass) in [
            (true, true, true),
            (true, false, false),
            (false, true, false),
            (false, false, false),
        ] {
            let mut citations = five([0.9; 5]);
            if !coverage_full {
                citations.push(cited(None, 0.0));
            }
            if !none_below {
                citations.push(cited(Some("https://low.example/"), 0.2));
            }
            let status = audit(citations).status;
            assert_eq!(
                status == AuditStatus::Pass,
                pass,
                "{coverage_full} {none_below}"
            );
        }
    }

    #[test]
    fn a_file_that_cannot_be_read_fails_the_audit() {
        let mut tally = Tally::new(0.8, 10);
        for citation in five([0.9; 5]) {
            tally.add_citation(citation);
        }
        tally.add_error(FileError {
            path: "bad.json".into(),
            message: "invalid JSON".into(),
        });
        let report = tally.finish(true);
        assert_eq!(report.status, AuditStatus::Fail);
        assert_eq!(report.metrics.reports_scanned, 0);
    }

    #[test]
    fn a_source_cited_twice_is_two_citations_and_one_row() {
        let mut tally = Tally::new(0.8, 10);
        let mut twice = cited(None, 0.0);
        twice.citations = 2;
        tally.add_citation(twice);
        tally.add_citation(cited(Some("https://a.example/"), 0.9));
        let report = tally.finish(false);
        assert_eq!(report.metrics.total_citations, 3);
        assert_eq!(report.metrics.citations_with_url, 1);
        assert_eq!(report.worst.len(), 1);
        assert_eq!(report.worst[0].citations, 2);
    }

    #[test]
    fn only_the_worst_are_kept_lowest_first() {
        let mut tally = Tally::new(0.8, 3);
        for score in [0.5, 0.1, 0.7, 0.3, 0.6, 0.9, 0.2] {
            tally.add_citation(cited(Some("https://x.example/"), score));
        }
        let report = tally.finish(false);
        let kept: Vec<f64> = report.worst.iter().map(|c| c.credibility).collect();
        assert_eq!(kept, vec![0.1, 0.2, 0.3]);
        assert_eq!(report.worst_omitted, 3);
        let text = render_text(&report);
        assert!(text.contains("…and 3 more sources"), "{text}");
    }

    #[test]
    fn text_output_cannot_carry_terminal_escapes() {
        let mut tally = Tally::new(0.8, 3);
        let mut evil = cited(None, 0.0);
        evil.title = "\u{1b}[2J\u{1b}]0;owned\u{7}title\u{202e}".into();
        evil.file = "a\u{1b}[31m.json".into();
        tally.add_citation(evil);
        let text = render_text(&tally.finish(false));
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(!text.contains('\u{7}'));
        assert!(!text.contains('\u{202e}'));
    }

    #[test]
    fn globs_must_match_and_directories_stand_for_their_json() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("r/deep")).expect("dirs");
        for file in ["r/a.json", "r/deep/b.json", "r/notes.md"] {
            std::fs::write(root.join(file), "{}").expect("write");
        }
        let at = |p: &str| root.join(p).to_string_lossy().into_owned();
        let found = find_files(&[at("r")]).expect("directory");
        assert_eq!(
            found,
            vec![root.join("r/a.json"), root.join("r/deep/b.json")]
        );
        let found = find_files(&[at("r/**/*.json"), at("r/a.json"), at("r/*.md")]).expect("globs");
        assert_eq!(found.len(), 3, "union without repeats: {found:?}");
        let missing = at("r/**/*.yaml");
        match find_files(&[at("r/a.json"), missing.clone()]) {
            Err(AuditError::NoMatch { pattern }) => assert_eq!(pattern, missing),
            other => panic!("expected no match, got {other:?}"),
        }
        assert!(matches!(
            find_files(&["r/***/x".to_string()]),
            Err(AuditError::BadPattern { .. })
        ));
    }

    #[tokio::test]
    async fn files_are_read_scored_and_counted() {
        let dir = tempfile::tempdir().expect("temp dir");
        let report_json = r#"{"title":"T","phase":"final","generatedAt":"2026-01-01","citations":[
            {"id":"1","text":"Official statistics","url":"https://www.census.gov/data"},
            {"id":"2","text":"A forum thread","url":"https://www.reddit.com/r/x"},
            {"id":"3","text":"Uncited claim with no link"},
            {"id":"4","text":"Again the census","url":"https://www.census.gov/data"}]}"#;
        std::fs::write(dir.path().join("a.json"), report_json).expect("write");
        std::fs::write(
            dir.path().join("b.md"),
            "Rust is memory safe [1] and fast [2].\n\n[1] https://doc.rust-lang.org/book/ - The Book\n",
        )
        .expect("write");
        std::fs::write(dir.path().join("c.json"), "[1, 2").expect("write");
        let mut files =
            find_files(&[dir.path().join("*").to_string_lossy().into_owned()]).expect("files");
        files.sort();
        let pipeline = Pipeline::builder().verify(false).build().expect("pipeline");
        let report = audit_files(&files, &AuditOptions::default(), &pipeline, None)
            .await
            .expect("audit");
        let m = &report.metrics;
        // a.json: 4 citations, 3 with URL (census ×2 at 0.9, reddit at 0.35);
        // b.md: [1] the Book (0.9) and [2] dangling, without URL.
        assert_eq!(m.reports_scanned, 2);
        assert_eq!(m.total_citations, 6);
        assert_eq!(m.citations_with_url, 4);
        assert_eq!(m.citations_above_threshold, 3);
        assert_eq!(m.below_threshold_count, 1);
        assert_eq!(report.status, AuditStatus::Fail);
        assert_eq!(report.errors.len(), 1);
        assert!(report.errors[0].path.ends_with("c.json"));
        let reasons: Vec<&str> = report.worst.iter().map(|c| c.reason.as_str()).collect();
        assert!(reasons.iter().any(|r| r.contains("no URL")), "{reasons:?}");
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("lists no source under that number")),
            "{reasons:?}"
        );
        assert!(
            reasons.iter().any(|r| r.contains("user-generated tier")),
            "{reasons:?}"
        );
    }
}
