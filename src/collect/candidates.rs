//! Every mention of a source in an answer, before it is keyed and merged: inline links,
//! `via` notes, `[n]` markers resolved against the answer's reference list or the
//! agent's structured sources, and the structured sources themselves, in reading order.
//! Markers that resolve to nothing are kept aside as dangling citations.

use super::*;

/// Where a candidate's source is named, before it is keyed and merged.
#[derive(Debug, Clone)]
pub(super) struct Candidate<'a> {
    /// Position in reading order (text offset; structured sources after the text).
    pub(super) order: usize,
    /// The link as written, if any.
    pub(super) url: Option<&'a str>,
    /// A name for URL-less sources (`#channel`, a page title).
    pub(super) name: Option<&'a str>,
    /// A title or label, if given.
    pub(super) title: Option<&'a str>,
    /// A kind the answer declared.
    pub(super) declared_kind: Option<SourceKind>,
    pub(super) found_by: FoundBy,
    /// Whether this mention counts as a reference (definitions that markers point at
    /// do not: the markers count instead).
    pub(super) counts: bool,
    /// The citation span in the text, for claims.
    pub(super) citation: Option<Span>,
    pub(super) citation_number: Option<u32>,
    pub(super) structured: Option<&'a StructuredSource>,
}

impl<'a> Candidate<'a> {
    pub(super) fn new(order: usize, found_by: FoundBy) -> Self {
        Candidate {
            order,
            url: None,
            name: None,
            title: None,
            declared_kind: None,
            found_by,
            counts: true,
            citation: None,
            citation_number: None,
            structured: None,
        }
    }
}

/// Every mention of a source in the answer, in reading order.
pub(super) fn candidates<'a>(
    answer: &'a Answer,
    scan: &'a Scan,
    dangling: &mut Dangling,
) -> Vec<Candidate<'a>> {
    let refs = ReferenceIndex::new(&scan.refs, &answer.sources);
    let mut cited_refs = vec![false; scan.refs.len()];
    let mut cited_structured = vec![false; answer.sources.len()];
    let mut out = Vec::new();

    for link in &scan.links {
        let mut c = Candidate::new(link.span.start, FoundBy::Inline);
        c.url = Some(&link.url);
        c.title = link.label.as_deref();
        c.declared_kind = link.declared_kind;
        c.citation = Some(link.span);
        out.push(c);
    }
    for note in &scan.via_notes {
        let mut c = Candidate::new(note.span.start, FoundBy::ViaNote);
        c.name = Some(&note.name);
        c.declared_kind = Some(note.kind);
        c.citation = Some(note.span);
        out.push(c);
    }
    for marker in &scan.markers {
        if is_bracketed_year(marker, &refs) {
            continue;
        }
        for &number in &marker.numbers {
            match refs.resolve_number(number) {
                Some(Target::Ref(i)) => {
                    cited_refs[i] = true;
                    out.push(ref_candidate(&scan.refs[i], marker.span, true));
                }
                Some(Target::Structured(i)) => {
                    cited_structured[i] = true;
                    out.push(structured_candidate(
                        answer,
                        i,
                        marker.span.start,
                        Some(marker.span),
                    ));
                }
                None => dangling.push(DanglingCitation {
                    number,
                    span: marker.span,
                }),
            }
        }
    }
    for label_use in &scan.label_uses {
        if let Some(&i) = refs.by_label.get(label_use.id.as_str()) {
            cited_refs[i] = true;
            out.push(ref_candidate(&scan.refs[i], label_use.span, true));
        }
    }
    for (i, entry) in scan.refs.iter().enumerate() {
        let mut c = ref_candidate(entry, entry.span, false);
        c.counts = !cited_refs[i];
        out.push(c);
    }
    let text_len = answer.text.len();
    for (i, cited) in cited_structured.into_iter().enumerate() {
        let mut c = structured_candidate(answer, i, text_len + i, None);
        c.counts = !cited;
        out.push(c);
    }
    out.sort_by_key(|c| c.order);
    out
}

/// `[2024]` or `[2019-2024]` that no reference answers to is a year in brackets, not a
/// citation: reports write "[2024 and Beyond]" and "(forecast [2025-2030])". A marker
/// is read as years only when every number in it is from 1900 to 2100 and none
/// resolves.
pub(super) fn is_bracketed_year(marker: &scan::Marker, refs: &ReferenceIndex<'_>) -> bool {
    marker
        .numbers
        .iter()
        .all(|&n| (1900..=2100).contains(&n) && refs.resolve_number(n).is_none())
}

pub(super) fn ref_candidate(entry: &RefEntry, at: Span, is_citation: bool) -> Candidate<'_> {
    let mut c = Candidate::new(at.start, FoundBy::ReferenceList);
    c.url = entry.url.as_deref();
    c.title = entry.title.as_deref();
    if entry.url.is_none() {
        c.name = entry.title.as_deref();
    }
    if is_citation {
        c.citation = Some(at);
    }
    if let RefId::Number(n) = entry.id {
        c.citation_number = Some(n);
    }
    c
}

pub(super) fn structured_candidate(
    answer: &Answer,
    index: usize,
    order: usize,
    citation: Option<Span>,
) -> Candidate<'_> {
    let source = &answer.sources[index];
    let found_by = match answer.shape {
        InputShape::ResearchReport => FoundBy::ResearchReport,
        InputShape::SearchResults => FoundBy::SearchResult,
        InputShape::AgentResults => FoundBy::AgentResult,
        InputShape::Text | InputShape::AnswerJson | InputShape::SlackMessage => FoundBy::Structured,
    };
    let mut c = Candidate::new(order, found_by);
    c.url = source.url.as_deref().filter(|u| !u.trim().is_empty());
    c.title = source.title.as_deref();
    if c.url.is_none() {
        c.name = source.title.as_deref();
    }
    c.declared_kind = source.kind.as_deref().and_then(SourceKind::parse_loose);
    c.citation = citation;
    c.citation_number = citation.and(source.position);
    c.structured = Some(source);
    c
}

/// Markers that resolve to nothing: every distinct number, repeats up to a cap, and
/// the count of all.
#[derive(Debug, Default)]
pub(super) struct Dangling {
    pub(super) listed: Vec<DanglingCitation>,
    pub(super) numbers: std::collections::HashSet<u32>,
    pub(super) repeats_listed: usize,
    pub(super) total: usize,
}

impl Dangling {
    pub(super) fn push(&mut self, citation: DanglingCitation) {
        self.total += 1;
        if self.numbers.insert(citation.number) {
            self.listed.push(citation);
        } else if self.repeats_listed < MAX_LISTED_DANGLING_REPEATS {
            self.repeats_listed += 1;
            self.listed.push(citation);
        }
    }
}

/// What a `[n]` marker points at.
#[derive(Debug, Clone, Copy)]
pub(super) enum Target {
    Ref(usize),
    Structured(usize),
}

/// Lookup from citation numbers and labels to reference entries and structured sources.
pub(super) struct ReferenceIndex<'a> {
    pub(super) by_number: HashMap<u32, usize>,
    pub(super) by_label: HashMap<&'a str, usize>,
    pub(super) structured_by_number: HashMap<u32, usize>,
    pub(super) structured_len: usize,
    pub(super) structured_positional: bool,
}

impl<'a> ReferenceIndex<'a> {
    pub(super) fn new(refs: &'a [RefEntry], structured: &'a [StructuredSource]) -> Self {
        let mut by_number = HashMap::new();
        let mut by_label = HashMap::new();
        for (i, entry) in refs.iter().enumerate() {
            match &entry.id {
                RefId::Number(n) => {
                    by_number.entry(*n).or_insert(i);
                }
                RefId::Label(label) => {
                    by_label.entry(label.as_str()).or_insert(i);
                }
            }
        }
        let mut structured_by_number = HashMap::new();
        for (i, source) in structured.iter().enumerate() {
            if let Some(n) = source.position {
                structured_by_number.entry(n).or_insert(i);
            }
            if let Some(n) = source
                .citation_id
                .as_deref()
                .and_then(|id| id.trim().parse::<u32>().ok())
            {
                structured_by_number.entry(n).or_insert(i);
            }
        }
        ReferenceIndex {
            by_number,
            by_label,
            structured_positional: structured_by_number.is_empty(),
            structured_by_number,
            structured_len: structured.len(),
        }
    }

    /// The answer's own reference list first, then the agent's sources by position or
    /// id, then — when no structured source carries a number — by their order.
    pub(super) fn resolve_number(&self, n: u32) -> Option<Target> {
        if let Some(&i) = self.by_number.get(&n) {
            return Some(Target::Ref(i));
        }
        if let Some(&i) = self.structured_by_number.get(&n) {
            return Some(Target::Structured(i));
        }
        let index = usize::try_from(n).ok()?.checked_sub(1)?;
        (self.structured_positional && index < self.structured_len)
            .then_some(Target::Structured(index))
    }
}
