//! The audit as text for a terminal or a CI log: the verdict and details, the link and
//! claim counts, the claims of each report, the least supported reports, the worst
//! citations, the files that could not be read, and why the audit fails. Every string
//! from a file is put on one line without control, zero-width or bidi characters, so a
//! report cannot write escape sequences to the terminal. Nothing a page says is shown:
//! only counts and citation numbers.

use super::claims::{ClaimCounts, LeastSupported};
use super::report::{AuditReport, AuditStatus};
use crate::render::escape::clean_text;

/// Citation numbers shown per list before `…and N more`.
const NUMBERS_SHOWN: usize = 20;

/// The audit as text for a terminal.
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
    claims_summary(report, &mut out);
    per_report(report, &mut out);
    least_supported(report, &mut out);
    worst_citations(report, &mut out);
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
    if !report.failures.is_empty() {
        out.push_str("\nThe audit fails:\n");
        for failure in &report.failures {
            out.push_str(&format!("  - {}\n", clean_text(failure)));
        }
    }
    out
}

/// `claims: …` over all reports, and the supported share against `--min-supported`.
fn claims_summary(report: &AuditReport, out: &mut String) {
    let Some(counts) = report.support.as_ref().filter(|_| report.support_checked) else {
        let why = if report.verified {
            "the cited pages were not read: --no-support, SOURCEBOT_SUPPORT=off, or the support check could not start"
        } else {
            "the cited pages are read only when links are checked"
        };
        out.push_str(&format!("claims: not judged ({why})\n"));
        return;
    };
    out.push_str(&format!("claims: {}\n", counts_line(counts)));
    if counts.pages_skipped > 0 {
        out.push_str(&format!(
            "pages: {} read · {} not read (over the page limit, or past SOURCEBOT_SUPPORT_TIMEOUT)\n",
            counts.pages_read, counts.pages_skipped
        ));
    }
    if let Some(min) = report.min_supported {
        out.push_str(&format!(
            "supported: {}/{} judged claims ({:.1}%) · --min-supported {min}\n",
            counts.supported,
            counts.judged,
            counts.supported_rate * 100.0
        ));
    }
}

/// `3 of 4 judged · ✓ 2 supported · ◐ 1 partly · 1 not read`: the parts that are not
/// zero; `none cites a source` without claims.
fn counts_line(counts: &ClaimCounts) -> String {
    if counts.claims == 0 {
        return "none cites a source".to_string();
    }
    let mut parts = vec![format!(
        "{} of {} judged",
        counts.judged,
        plural_claims(counts.claims)
    )];
    for (n, said) in [
        (counts.supported, "✓ {} supported"),
        (counts.partly_supported, "◐ {} partly"),
        (counts.not_supported, "✗ {} not supported"),
        (counts.unreadable, "– {} unreadable"),
        (counts.not_read, "{} not read"),
    ] {
        if n > 0 {
            parts.push(said.replace("{}", &n.to_string()));
        }
    }
    parts.join(" · ")
}

fn plural_claims(n: usize) -> String {
    if n == 1 {
        "1 claim".to_string()
    } else {
        format!("{n} claims")
    }
}

/// `Claims per report:`, each report whose claims were judged.
fn per_report(report: &AuditReport, out: &mut String) {
    if !report.support_checked || report.reports.is_empty() {
        return;
    }
    out.push_str("\nClaims per report:\n");
    for file in &report.reports {
        if let Some(counts) = &file.support {
            out.push_str(&format!(
                "  {}: {}\n",
                clean_text(&file.path),
                counts_line(counts)
            ));
        }
    }
}

/// `Least supported reports:`, most claims not supported first, each with the numbers
/// of the citations behind them.
fn least_supported(report: &AuditReport, out: &mut String) {
    if report.least_supported.is_empty() {
        return;
    }
    out.push_str("\nLeast supported reports:\n");
    for least in &report.least_supported {
        let LeastSupported { counts, .. } = least;
        out.push_str(&format!(
            "  ✗ {} ◐ {} of {} judged ({:.0}% supported)  {}\n",
            counts.not_supported,
            counts.partly_supported,
            counts.judged,
            counts.supported_rate * 100.0,
            clean_text(&least.file)
        ));
        let mut lists = Vec::new();
        if let Some(numbers) = numbers(&least.not_supported_citations) {
            lists.push(format!("not supported {numbers}"));
        }
        if let Some(numbers) = numbers(&least.partly_supported_citations) {
            lists.push(format!("partly {numbers}"));
        }
        if !lists.is_empty() {
            out.push_str(&format!("        {}\n", lists.join(" · ")));
        }
    }
    if report.least_supported_omitted > 0 {
        out.push_str(&format!(
            "  …and {} more reports with claims not fully supported\n",
            report.least_supported_omitted
        ));
    }
}

/// `[3][7]`, the first [`NUMBERS_SHOWN`] and `…and N more`; `None` when empty.
fn numbers(numbers: &[u32]) -> Option<String> {
    if numbers.is_empty() {
        return None;
    }
    let mut shown: String = numbers
        .iter()
        .take(NUMBERS_SHOWN)
        .map(|n| format!("[{n}]"))
        .collect();
    if numbers.len() > NUMBERS_SHOWN {
        shown.push_str(&format!(" …and {} more", numbers.len() - NUMBERS_SHOWN));
    }
    Some(shown)
}

/// `Worst citations:`, lowest credibility first, each with why.
fn worst_citations(report: &AuditReport, out: &mut String) {
    if report.worst.is_empty() {
        return;
    }
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
