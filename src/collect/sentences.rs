//! The claim sentences of an answer with what each cites: signals read from each
//! sentence with its citations blanked, the sources cited inside it, and the counts the
//! report's metrics give.

use super::*;

/// The claims of an answer: the first [`MAX_LISTED_CLAIMS`] in full, and counts of all.
#[derive(Debug, Default)]
pub(super) struct ClaimTally {
    pub(super) listed: Vec<Claim>,
    pub(super) total: usize,
    pub(super) cited: usize,
    pub(super) uncited: usize,
}

/// A claim sentence before its sources are known: its span and what in it asks for a
/// source.
pub(super) struct Sentence {
    pub(super) span: Span,
    pub(super) signals: Vec<ClaimSignal>,
}

/// The claim sentences at `spans` of `text` and what in each asks for a source
/// (`opaque`: the citations, links and code, blanked before the signals are read).
pub(super) fn sentences_at(text: &str, spans: &[Span], opaque: &[Span]) -> Vec<Sentence> {
    spans
        .iter()
        .map(|&span| {
            let sentence = &text[span.start..span.end];
            Sentence {
                span,
                signals: claims::claim_signals(&blank_spans(sentence, span.start, opaque)),
            }
        })
        .collect()
}

/// The claims: each sentence with the sources it cites, and the counts. The first
/// [`MAX_LISTED_CLAIMS`] are listed with their text as a person reads it
/// ([`readable::readable_text`] over the scan's `shown` markup); the others only count.
pub(super) fn claims_of(
    sentences: Vec<Sentence>,
    citation_targets: &[(Span, usize)],
    text: &str,
    shown: &[scan::Shown],
) -> ClaimTally {
    let mut tally = ClaimTally {
        listed: Vec::with_capacity(sentences.len().min(MAX_LISTED_CLAIMS)),
        ..ClaimTally::default()
    };
    for sentence in sentences {
        let cites = cites_in(sentence.span, citation_targets);
        tally.total += 1;
        tally.cited += usize::from(!cites.is_empty());
        tally.uncited += usize::from(cites.is_empty() && !sentence.signals.is_empty());
        if tally.listed.len() < MAX_LISTED_CLAIMS {
            tally.listed.push(Claim {
                text: readable::readable_text(text, sentence.span, shown),
                span: sentence.span,
                cites,
                signals: sentence.signals,
                claim_type: None,
                relevance: None,
                support: Vec::new(),
                classification: None,
                stale_sources: Vec::new(),
            });
        }
    }
    tally
}

/// The ids (1-based) of the sources cited inside `span`, sorted, without repeats.
pub(super) fn cites_in(span: Span, citation_targets: &[(Span, usize)]) -> Vec<usize> {
    let first = citation_targets.partition_point(|(s, _)| s.start < span.start);
    let mut cites: Vec<usize> = citation_targets[first..]
        .iter()
        .take_while(|(s, _)| s.start < span.end)
        .map(|(_, index)| index + 1)
        .collect();
    cites.sort_unstable();
    cites.dedup();
    cites
}

/// `sentence` (which starts at `offset` in the text) with the parts covered by `spans`
/// replaced by spaces, so that citation numbers and URLs are not read as figures.
pub(super) fn blank_spans<'s>(sentence: &'s str, offset: usize, spans: &[Span]) -> Cow<'s, str> {
    let end = offset + sentence.len();
    let first = spans.partition_point(|s| s.end <= offset);
    if spans.get(first).is_none_or(|s| s.start >= end) {
        return Cow::Borrowed(sentence);
    }
    let mut out = String::with_capacity(sentence.len());
    let mut cursor = offset;
    for span in spans[first..].iter().take_while(|s| s.start < end) {
        let start = span.start.max(offset);
        if start > cursor {
            out.push_str(&sentence[cursor - offset..start - offset]);
        }
        out.push(' ');
        cursor = cursor.max(span.end.min(end));
    }
    if cursor < end {
        out.push_str(&sentence[cursor - offset..]);
    }
    Cow::Owned(out)
}

pub(super) fn metrics(
    sources: &[Source],
    claims: &ClaimTally,
    dangling: usize,
    answer: &Answer,
    links_skipped: usize,
) -> Metrics {
    let total_references: usize = sources.iter().map(|s| s.references).sum();
    let mut per_kind = KindCounts::default();
    for source in sources {
        per_kind.add(source.kind);
    }
    Metrics {
        total_references,
        unique_sources: sources.len(),
        duplicates_removed: total_references - sources.len(),
        per_kind,
        dangling_citations: dangling,
        claims: claims.total,
        cited_claims: claims.cited,
        uncited_claims: claims.uncited,
        failed_agent_results: answer.failed_agent_results,
        links_skipped,
    }
}
