//! What an audit finds, and the [`Tally`] that adds it up file by file: every citation
//! counted, only the worst kept in full; every report's claim counts, only the least
//! supported reports kept with the numbers of their unsupported citations; and the
//! reasons the audit fails, one line each.

use super::claims::{ratio, ClaimCounts, LeastSupported};
use crate::model::{VerdictClass, VerdictCounts};
use serde::Serialize;

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
    /// Its claims judged against the pages they cite; `None` when no page was read
    /// (`--no-support`, `--no-verify`).
    pub support: Option<ClaimCounts>,
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
    /// Every citation has a URL and scores above the threshold, every file was read,
    /// and (with a minimum) enough of the judged claims are supported.
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
    /// Why the audit fails, one sentence each (empty when it passes).
    pub failures: Vec<String>,
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
    /// Whether the cited pages were read and the claims judged against them.
    pub support_checked: bool,
    /// The claims of all files read, judged against their pages; `None` when
    /// `support_checked` is false.
    pub support: Option<ClaimCounts>,
    /// The least share of judged claims that must be supported, when one was set.
    pub min_supported: Option<f64>,
    /// The reports with the most claims their pages do not (fully) support, most first.
    pub least_supported: Vec<LeastSupported>,
    /// Reports with claims not fully supported that are not listed in
    /// `least_supported`.
    pub least_supported_omitted: usize,
    /// Each file read.
    pub reports: Vec<FileSummary>,
    /// Files that could not be read; any makes the audit fail.
    pub errors: Vec<FileError>,
}

/// Accumulates citations, claims and files into an [`AuditReport`], keeping only the
/// worst citations and the least supported reports.
#[derive(Debug, Clone)]
pub struct Tally {
    threshold: f64,
    min_supported: Option<f64>,
    worst_kept: usize,
    total: usize,
    with_url: usize,
    above: usize,
    worst: Vec<AuditedCitation>,
    worst_seen: usize,
    verdicts: VerdictCounts,
    support: ClaimCounts,
    least: Vec<LeastSupported>,
    least_seen: usize,
    reports: Vec<FileSummary>,
    errors: Vec<FileError>,
}

impl Tally {
    /// An empty tally against `threshold`, keeping the `worst` lowest citations (and as
    /// many least supported reports).
    pub fn new(threshold: f64, worst: usize) -> Tally {
        Tally {
            threshold,
            min_supported: None,
            worst_kept: worst,
            total: 0,
            with_url: 0,
            above: 0,
            worst: Vec::new(),
            worst_seen: 0,
            verdicts: VerdictCounts::default(),
            support: ClaimCounts::default(),
            least: Vec::new(),
            least_seen: 0,
            reports: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The audit fails when less than `min` of the judged claims are supported.
    pub fn with_min_supported(mut self, min: Option<f64>) -> Tally {
        self.min_supported = min;
        self
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

    /// Counts the claims of one file judged against their pages; the file is kept among
    /// the least supported when some of its judged claims are not fully supported and
    /// it ranks among the worst.
    pub fn add_claims(&mut self, report: LeastSupported) {
        self.support.add(&report.counts);
        if report.counts.not_supported + report.counts.partly_supported == 0 {
            return;
        }
        self.least_seen += 1;
        if self.worst_kept == 0 {
            return;
        }
        let at = self
            .least
            .partition_point(|kept| !report.ranks_before(kept));
        if at < self.worst_kept {
            self.least.insert(at, report);
            self.least.truncate(self.worst_kept);
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

    /// The audit's result: links were probed when `verified`, the claims judged
    /// against their pages when `support_checked`.
    pub fn finish(self, verified: bool, support_checked: bool) -> AuditReport {
        let metrics = AuditMetrics {
            total_citations: self.total,
            citations_with_url: self.with_url,
            citations_above_threshold: self.above,
            below_threshold_count: self.with_url - self.above,
            coverage_rate: ratio(self.with_url, self.total),
            above_threshold_rate: ratio(self.above, self.with_url),
            reports_scanned: self.reports.len(),
        };
        let support = support_checked.then_some(self.support);
        let failures = failures(
            &metrics,
            self.threshold,
            self.errors.len(),
            support.as_ref(),
            self.min_supported,
        );
        let status = if failures.is_empty() {
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
            failures,
            metrics,
            threshold: self.threshold,
            verified,
            verdicts: self.verdicts,
            worst_omitted: self.worst_seen - self.worst.len(),
            worst: self.worst,
            support_checked,
            support,
            min_supported: self.min_supported,
            least_supported_omitted: self.least_seen - self.least.len(),
            least_supported: self.least,
            reports: self.reports,
            errors: self.errors,
        }
    }
}

/// Why the audit fails, one sentence each: coverage, the threshold, files not read,
/// and the share of supported claims against `min_supported`.
fn failures(
    metrics: &AuditMetrics,
    threshold: f64,
    errors: usize,
    support: Option<&ClaimCounts>,
    min_supported: Option<f64>,
) -> Vec<String> {
    let mut failures = Vec::new();
    let without_url = metrics.total_citations - metrics.citations_with_url;
    if metrics.total_citations == 0 {
        failures.push("no citation was found to audit".to_string());
    } else if without_url > 0 {
        failures.push(format!(
            "{} no URL",
            plural(without_url, "citation has", "citations have")
        ));
    }
    if metrics.below_threshold_count > 0 {
        failures.push(format!(
            "{} at or below the threshold {threshold:.2}",
            plural(
                metrics.below_threshold_count,
                "citation scores",
                "citations score"
            )
        ));
    }
    if errors > 0 {
        failures.push(format!(
            "{} not be read",
            plural(errors, "file could", "files could")
        ));
    }
    if let Some(min) = min_supported {
        match support {
            None => failures.push(format!(
                "the claims were not judged against their pages, so --min-supported {min} cannot be met"
            )),
            Some(counts) if counts.judged == 0 && min > 0.0 => failures.push(format!(
                "no claim could be judged against the pages it cites, so --min-supported {min} cannot be met"
            )),
            Some(counts) if counts.judged > 0 && counts.supported_rate < min => {
                failures.push(format!(
                    "{} of {} judged claims are supported ({:.1}%), below --min-supported {min}",
                    counts.supported,
                    counts.judged,
                    counts.supported_rate * 100.0
                ))
            }
            Some(_) => {}
        }
    }
    failures
}

/// `1 file could`, `2 files could`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
