//! The spans the splitter is given, repaired rather than trusted: clamped to the
//! text, widened to char boundaries, sorted, overlaps merged.

use super::*;

/// Returns `spans` if they are usable as they are, or a repaired copy: clamped to the
/// text, widened to char boundaries, sorted, overlaps merged, empty spans dropped.
pub(super) fn clean_spans<'a>(text: &str, spans: &'a [Span]) -> Cow<'a, [Span]> {
    if spans_are_valid(text, spans) {
        return Cow::Borrowed(spans);
    }
    let mut fixed: Vec<Span> = spans.iter().filter_map(|s| fit_span(text, *s)).collect();
    fixed.sort_unstable();
    let mut merged: Vec<Span> = Vec::with_capacity(fixed.len());
    for span in fixed {
        match merged.last_mut() {
            Some(last) if span.start < last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    Cow::Owned(merged)
}

pub(super) fn spans_are_valid(text: &str, spans: &[Span]) -> bool {
    let mut prev_end = 0;
    spans.iter().all(|s| {
        let ok = s.start >= prev_end
            && s.start < s.end
            && s.end <= text.len()
            && text.is_char_boundary(s.start)
            && text.is_char_boundary(s.end);
        prev_end = s.end;
        ok
    })
}

pub(super) fn fit_span(text: &str, span: Span) -> Option<Span> {
    let mut start = span.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start < end).then(|| Span::new(start, end))
}

/// Drops the spans of `spans` that overlap one of `other` (both sorted).
pub(super) fn without_overlaps<'a>(spans: Cow<'a, [Span]>, other: &[Span]) -> Cow<'a, [Span]> {
    if other.is_empty() || !spans.iter().any(|s| overlaps_any(*s, other)) {
        return spans;
    }
    Cow::Owned(
        spans
            .iter()
            .copied()
            .filter(|s| !overlaps_any(*s, other))
            .collect(),
    )
}

pub(super) fn overlaps_any(span: Span, sorted: &[Span]) -> bool {
    let k = sorted.partition_point(|s| s.end <= span.start);
    sorted.get(k).is_some_and(|s| s.start < span.end)
}
