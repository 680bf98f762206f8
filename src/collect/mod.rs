//! The collector: from an [`Answer`] to the deduplicated list of sources it rests on,
//! its claims, and the citations that lead nowhere. It scans the text for every citation
//! form ([`scan`]), resolves `[n]` markers against the answer's reference list or the
//! agent's structured sources, canonicalises each link ([`canon`]) so that duplicates
//! collapse, classifies the kind of each source ([`kind`]), and splits the text into
//! claims ([`claims`]) to find the ones a reader would want a source for and that cite
//! nothing. No network, no I/O: plain data in, plain data out.

pub mod canon;
pub mod claims;
pub mod input;
pub mod kind;
pub mod scan;
pub mod slack_message;

use crate::model::{
    Answer, Claim, ClaimSignal, DanglingCitation, FoundBy, InputShape, KindCounts, LinkTitle,
    Metrics, Source, SourceKind, Span, StructuredSource, Verdict,
};
use canon::CanonError;
use kind::KindRules;
use scan::{RefEntry, RefId, Scan};
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
    let scan = scan::scan(&answer.text);
    let mut builder = Builder::new(options);
    let opaque = scan.citations();
    let sentences = if answer.text.len() >= PARALLEL_FROM_BYTES {
        // Large answers: a second core splits the sentences (which needs no source)
        // while this one gathers the sources; then each reads the signals of half of
        // the sentences.
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
    let claims = claims_of(sentences, &builder.citation_targets);
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

/// Where a candidate's source is named, before it is keyed and merged.
#[derive(Debug, Clone)]
struct Candidate<'a> {
    /// Position in reading order (text offset; structured sources after the text).
    order: usize,
    /// The link as written, if any.
    url: Option<&'a str>,
    /// A name for URL-less sources (`#channel`, a page title).
    name: Option<&'a str>,
    /// A title or label, if given.
    title: Option<&'a str>,
    /// A kind the answer declared.
    declared_kind: Option<SourceKind>,
    found_by: FoundBy,
    /// Whether this mention counts as a reference (definitions that markers point at
    /// do not: the markers count instead).
    counts: bool,
    /// The citation span in the text, for claims.
    citation: Option<Span>,
    citation_number: Option<u32>,
    structured: Option<&'a StructuredSource>,
}

impl<'a> Candidate<'a> {
    fn new(order: usize, found_by: FoundBy) -> Self {
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
fn candidates<'a>(
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
fn is_bracketed_year(marker: &scan::Marker, refs: &ReferenceIndex<'_>) -> bool {
    marker
        .numbers
        .iter()
        .all(|&n| (1900..=2100).contains(&n) && refs.resolve_number(n).is_none())
}

fn ref_candidate(entry: &RefEntry, at: Span, is_citation: bool) -> Candidate<'_> {
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

fn structured_candidate(
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
struct Dangling {
    listed: Vec<DanglingCitation>,
    numbers: std::collections::HashSet<u32>,
    repeats_listed: usize,
    total: usize,
}

impl Dangling {
    fn push(&mut self, citation: DanglingCitation) {
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
enum Target {
    Ref(usize),
    Structured(usize),
}

/// Lookup from citation numbers and labels to reference entries and structured sources.
struct ReferenceIndex<'a> {
    by_number: HashMap<u32, usize>,
    by_label: HashMap<&'a str, usize>,
    structured_by_number: HashMap<u32, usize>,
    structured_len: usize,
    structured_positional: bool,
}

impl<'a> ReferenceIndex<'a> {
    fn new(refs: &'a [RefEntry], structured: &'a [StructuredSource]) -> Self {
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
    fn resolve_number(&self, n: u32) -> Option<Target> {
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

/// The key sources are deduplicated on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum SourceKey {
    /// A canonical http/https URL.
    Url(String),
    /// A link that could not be canonicalised, as written (trimmed).
    Raw(String),
    /// A source named without a link: its kind and lower-cased name.
    Named(SourceKind, String),
}

/// Why a candidate has no key.
#[derive(Debug, Clone, Copy)]
enum KeyError {
    /// Its link is longer than [`canon::MAX_URL_BYTES`].
    TooLong,
    /// It has neither a link nor a name.
    Unnamed,
}

/// Accumulates sources from candidates.
struct Builder<'o, 'a> {
    options: &'o CollectOptions,
    sources: Vec<Source>,
    /// Where each link, as written, went: every mention of a URL after the first
    /// (markers pointing at one reference, repeated links) skips canonicalisation.
    placed_by_raw: HashMap<&'a str, Placed>,
    /// Whether each source's title is only made up from its URL (so a real one may replace it).
    provisional_title: Vec<bool>,
    index: HashMap<SourceKey, usize>,
    /// Citation spans in the text and the source index each points at.
    citation_targets: Vec<(Span, usize)>,
    dangling: Dangling,
    warnings: Vec<String>,
    links_skipped: usize,
    too_long: usize,
    over_limit: usize,
    invalid: Vec<String>,
}

/// What became of a link.
#[derive(Debug, Clone, Copy)]
enum Placed {
    /// It is (part of) the source at this index.
    Source(usize),
    /// It is longer than [`canon::MAX_URL_BYTES`].
    TooLong,
    /// It came after the source limit was reached.
    OverLimit,
}

impl<'o, 'a> Builder<'o, 'a> {
    fn new(options: &'o CollectOptions) -> Self {
        Builder {
            options,
            sources: Vec::new(),
            placed_by_raw: HashMap::new(),
            provisional_title: Vec::new(),
            index: HashMap::new(),
            citation_targets: Vec::new(),
            dangling: Dangling::default(),
            warnings: Vec::new(),
            links_skipped: 0,
            too_long: 0,
            over_limit: 0,
            invalid: Vec::new(),
        }
    }

    fn add_all(&mut self, candidates: Vec<Candidate<'a>>) {
        for candidate in candidates {
            if let Some(index) = self.add(&candidate) {
                if let Some(span) = candidate.citation {
                    self.citation_targets.push((span, index));
                }
            }
        }
        self.citation_targets
            .sort_unstable_by_key(|(span, index)| (span.start, *index));
        self.citation_targets.dedup();
    }

    /// Merges one candidate; returns the index of its source, or `None` when it was
    /// not kept (counted and warned about).
    fn add(&mut self, candidate: &Candidate<'a>) -> Option<usize> {
        let placed = match candidate.url.and_then(|raw| self.placed_by_raw.get(raw)) {
            Some(&placed) => placed,
            None => {
                let placed = self.place(candidate)?;
                if let Some(raw) = candidate.url {
                    self.placed_by_raw.insert(raw, placed);
                }
                placed
            }
        };
        match placed {
            Placed::Source(index) => {
                self.merge(index, candidate);
                Some(index)
            }
            Placed::TooLong => {
                self.too_long += 1;
                self.links_skipped += 1;
                None
            }
            Placed::OverLimit => {
                self.over_limit += 1;
                self.links_skipped += 1;
                None
            }
        }
    }

    /// Finds or makes the source a candidate names. `None` for a candidate with neither
    /// a link nor a name (counted as skipped).
    fn place(&mut self, candidate: &Candidate<'_>) -> Option<Placed> {
        let (key, canonical) = match self.key_of(candidate) {
            Ok(keyed) => keyed,
            Err(KeyError::TooLong) => return Some(Placed::TooLong),
            Err(KeyError::Unnamed) => {
                self.links_skipped += 1;
                return None;
            }
        };
        if let Some(&index) = self.index.get(&key) {
            return Some(Placed::Source(index));
        }
        if self.sources.len() >= self.options.max_sources {
            return Some(Placed::OverLimit);
        }
        let index = self.new_source(candidate, canonical);
        self.index.insert(key, index);
        Some(Placed::Source(index))
    }

    fn key_of(&mut self, candidate: &Candidate<'_>) -> Result<(SourceKey, Option<Url>), KeyError> {
        if let Some(url) = candidate.url {
            return match canon::canonical_url(url) {
                Ok(canonical) => Ok((
                    SourceKey::Url(canonical.as_str().to_string()),
                    Some(canonical),
                )),
                Err(CanonError::TooLong { .. }) => Err(KeyError::TooLong),
                Err(error) => {
                    if self.invalid.len() < 5 {
                        self.invalid.push(format!("{} ({error})", shorten(url, 80)));
                    }
                    Ok((SourceKey::Raw(url.trim().to_string()), None))
                }
            };
        }
        let name = candidate
            .name
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .ok_or(KeyError::Unnamed)?;
        let kind = candidate.declared_kind.unwrap_or(SourceKind::Web);
        Ok((SourceKey::Named(kind, name.to_lowercase()), None))
    }

    fn new_source(&mut self, candidate: &Candidate<'_>, canonical: Option<Url>) -> usize {
        let kind = match &canonical {
            Some(url) => match kind::classify_url(url, &self.options.kind_rules) {
                SourceKind::Web => candidate.declared_kind.unwrap_or(SourceKind::Web),
                internal => internal,
            },
            None => candidate.declared_kind.unwrap_or(SourceKind::Web),
        };
        let verdict = match (&canonical, candidate.url) {
            (Some(_), _) => Verdict::not_checked("links are not verified yet"),
            (None, Some(_)) => Verdict::not_checked("not a valid http or https link"),
            (None, None) => Verdict::not_checked("no link to check"),
        };
        let (title, provisional) = match &canonical {
            Some(url) => (canon::title_from_canonical(url), true),
            None => match candidate.url {
                Some(raw) => (canon::title_from_url(raw), true),
                None => (clean_label(candidate.name.unwrap_or_default()), false),
            },
        };
        self.sources.push(Source {
            id: self.sources.len() + 1,
            canonical_url: canonical.map(String::from),
            url: candidate.url.map(|u| u.trim().to_string()),
            title,
            kind,
            references: 0,
            found_by: Vec::new(),
            citation_numbers: Vec::new(),
            agents: Vec::new(),
            snippet: None,
            date: None,
            position: None,
            agent_confidence: None,
            verdict,
            credibility: None,
        });
        self.provisional_title.push(provisional);
        self.sources.len() - 1
    }

    fn merge(&mut self, index: usize, candidate: &Candidate<'_>) {
        let provisional = &mut self.provisional_title[index];
        let source = &mut self.sources[index];
        if candidate.counts {
            source.references += 1;
        }
        if !source.found_by.contains(&candidate.found_by) {
            source.found_by.push(candidate.found_by);
        }
        if let Some(n) = candidate.citation_number {
            if !source.citation_numbers.contains(&n) {
                source.citation_numbers.push(n);
            }
        }
        if *provisional {
            if let Some(title) = candidate
                .title
                .map(clean_label)
                .filter(|t| is_real_title(t, source))
            {
                source.title = title;
                *provisional = false;
            }
        }
        if let Some(structured) = candidate.structured {
            merge_structured(source, structured);
        }
    }

    /// Gives a source whose title is only made up from its URL the title a preview of
    /// that link shows. Previews add no reference and no source of their own.
    fn apply_link_titles(&mut self, titles: &[LinkTitle]) {
        for preview in titles {
            let placed = match self.placed_by_raw.get(preview.url.as_str()) {
                Some(&placed) => Some(placed),
                None => canon::canonical_url(&preview.url).ok().and_then(|url| {
                    self.index
                        .get(&SourceKey::Url(url.as_str().to_string()))
                        .map(|&i| Placed::Source(i))
                }),
            };
            let Some(Placed::Source(index)) = placed else {
                continue;
            };
            let title = clean_label(&preview.title);
            if self.provisional_title[index] && is_real_title(&title, &self.sources[index]) {
                self.sources[index].title = title;
                self.provisional_title[index] = false;
            }
        }
    }

    fn warn_about_scan(&mut self, scan: &Scan) {
        if scan.links_not_read > 0 {
            self.links_skipped += scan.links_not_read;
            self.warnings.push(format!(
                "{} link(s) beyond the first {} were not read",
                scan.links_not_read,
                scan::MAX_LINKS_READ
            ));
        }
        if scan.markers_not_read > 0 {
            self.warnings.push(format!(
                "{} citation marker(s) beyond the first {} were not read",
                scan.markers_not_read,
                scan::MAX_MARKERS_READ
            ));
        }
        if !scan.unsupported.is_empty() {
            let examples: Vec<String> = scan
                .unsupported
                .iter()
                .take(3)
                .map(|u| shorten(&u.url, 60))
                .collect();
            self.warnings.push(format!(
                "{} link(s) with a scheme other than http/https were not treated as sources: {}",
                scan.unsupported.len(),
                examples.join(", ")
            ));
        }
        let mut seen: HashMap<u32, &Option<String>> = HashMap::new();
        let mut redefined = Vec::new();
        for entry in &scan.refs {
            if let RefId::Number(n) = entry.id {
                match seen.get(&n) {
                    Some(first) if **first != entry.url => redefined.push(n),
                    Some(_) => {}
                    None => {
                        seen.insert(n, &entry.url);
                    }
                }
            }
        }
        if !redefined.is_empty() {
            redefined.dedup();
            let numbers: Vec<String> = redefined
                .iter()
                .take(10)
                .map(|n| format!("[{n}]"))
                .collect();
            self.warnings.push(format!(
                "reference number(s) {} are defined more than once with different links; markers use the first",
                numbers.join(", ")
            ));
        }
    }

    fn warn_about_dangling(&mut self) {
        let unlisted = self.dangling.total - self.dangling.listed.len();
        if unlisted > 0 {
            self.warnings.push(format!(
                "{unlisted} more repeated citation(s) with no reference are counted but not listed"
            ));
        }
    }

    fn finish(mut self, answer: &Answer, claims: ClaimTally) -> Collected {
        for source in &mut self.sources {
            source.references = source.references.max(1);
        }
        if self.too_long > 0 {
            self.warnings.push(format!(
                "{} link(s) longer than {} bytes were not kept as sources",
                self.too_long,
                canon::MAX_URL_BYTES
            ));
        }
        if self.over_limit > 0 {
            self.warnings.push(format!(
                "{} more link(s) were not kept: at most {} sources are kept per answer",
                self.over_limit, self.options.max_sources
            ));
        }
        if !self.invalid.is_empty() {
            self.warnings.push(format!(
                "links that are not valid http/https URLs: {}",
                self.invalid.join(", ")
            ));
        }
        if claims.total > claims.listed.len() {
            self.warnings.push(format!(
                "only the first {} of {} sentences are listed; every one is counted",
                claims.listed.len(),
                claims.total
            ));
        }
        let metrics = metrics(
            &self.sources,
            &claims,
            self.dangling.total,
            answer,
            self.links_skipped,
        );
        Collected {
            sources: self.sources,
            claims: claims.listed,
            dangling: self.dangling.listed,
            metrics,
            warnings: self.warnings,
        }
    }
}

/// Copies what a structured source adds: first value wins for each field.
fn merge_structured(source: &mut Source, structured: &StructuredSource) {
    if let Some(agent) = &structured.subagent {
        if !source.agents.contains(agent) {
            source.agents.push(agent.clone());
        }
    }
    if source.snippet.is_none() {
        source.snippet = structured.snippet.clone();
    }
    if source.date.is_none() {
        source.date = structured.date.clone();
    }
    if source.position.is_none() {
        source.position = structured.position;
    }
    if source.agent_confidence.is_none() {
        source.agent_confidence = structured.confidence;
    }
}

/// Whether a cleaned label says more than the URL: not empty, not the URL itself, not
/// a bare citation number.
fn is_real_title(title: &str, source: &Source) -> bool {
    if title.is_empty()
        || title
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'[' | b']' | b'^'))
    {
        return false;
    }
    let url = source
        .url
        .as_deref()
        .or(source.canonical_url.as_deref())
        .unwrap_or_default();
    !canon::title_is_just_url(title, url)
}

/// Collapses whitespace and strips Markdown emphasis around a label.
fn clean_label(label: &str) -> String {
    let collapsed: String = label.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed
        .trim_matches(|c| matches!(c, '*' | '_' | '`'))
        .trim()
        .to_string()
}

/// At most `max` characters of `s`, with `…` when cut.
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

/// The claims of an answer: the first [`MAX_LISTED_CLAIMS`] in full, and counts of all.
#[derive(Debug, Default)]
struct ClaimTally {
    listed: Vec<Claim>,
    total: usize,
    cited: usize,
    uncited: usize,
}

/// A claim sentence before its sources are known: its span, and its text and signals
/// when it is among the first [`MAX_LISTED_CLAIMS`] (the others only count).
struct Sentence<'t> {
    span: Span,
    text: &'t str,
    signals: Vec<ClaimSignal>,
}

/// The claim sentences at `spans` of `text` and what in each asks for a source
/// (`opaque`: the citations and links, blanked before the signals are read).
fn sentences_at<'t>(text: &'t str, spans: &[Span], opaque: &[Span]) -> Vec<Sentence<'t>> {
    spans
        .iter()
        .map(|&span| {
            let sentence = &text[span.start..span.end];
            Sentence {
                span,
                text: sentence,
                signals: claims::claim_signals(&blank_spans(sentence, span.start, opaque)),
            }
        })
        .collect()
}

/// The claims: each sentence with the sources it cites, and the counts.
fn claims_of(sentences: Vec<Sentence<'_>>, citation_targets: &[(Span, usize)]) -> ClaimTally {
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
                text: sentence.text.to_string(),
                span: sentence.span,
                cites,
                signals: sentence.signals,
                claim_type: None,
                relevance: None,
                support: Vec::new(),
            });
        }
    }
    tally
}

/// The ids (1-based) of the sources cited inside `span`, sorted, without repeats.
fn cites_in(span: Span, citation_targets: &[(Span, usize)]) -> Vec<usize> {
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
fn blank_spans<'s>(sentence: &'s str, offset: usize, spans: &[Span]) -> Cow<'s, str> {
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

fn metrics(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Collected {
        collect(&Answer::from_text(text), &CollectOptions::default())
    }

    fn urls(c: &Collected) -> Vec<&str> {
        c.sources
            .iter()
            .filter_map(|s| s.canonical_url.as_deref())
            .collect()
    }

    #[test]
    fn duplicates_collapse_on_the_canonical_url() {
        let c = run("A https://Example.com:443/a?utm_source=x#top and <https://example.com/a|Example A> and [A](https://example.com/a?fbclid=1).");
        assert_eq!(urls(&c), ["https://example.com/a"]);
        assert_eq!(c.sources[0].references, 3);
        assert_eq!(c.sources[0].title, "Example A");
        assert_eq!(c.metrics.total_references, 3);
        assert_eq!(c.metrics.duplicates_removed, 2);
    }

    #[test]
    fn markers_resolve_to_the_reference_list() {
        let c = run("Rust is fast [1]. It is safe [1][2].\n\n[1] https://a.com/fast - Fast\n[2] https://b.com/safe - Safe\n[3] https://c.com/unused - Unused\n");
        assert_eq!(
            urls(&c),
            [
                "https://a.com/fast",
                "https://b.com/safe",
                "https://c.com/unused"
            ]
        );
        let refs: Vec<usize> = c.sources.iter().map(|s| s.references).collect();
        assert_eq!(
            refs,
            [2, 1, 1],
            "markers count; an uncited entry counts once"
        );
        assert_eq!(c.sources[0].citation_numbers, [1]);
        assert_eq!(c.sources[0].found_by, [FoundBy::ReferenceList]);
        assert!(c.dangling.is_empty());
    }

    #[test]
    fn dangling_markers_are_reported() {
        let c = run("Claim [1]. Other [4].\n\n[1] https://a.com\n");
        assert_eq!(c.dangling.len(), 1);
        assert_eq!(c.dangling[0].number, 4);
        assert_eq!(c.metrics.dangling_citations, 1);
    }

    #[test]
    fn bracketed_years_are_not_dangling_citations() {
        let c = run("Forecast [2025-2030] and the outlook [2024] [3].\n\n[1] https://a.com\n");
        assert_eq!(c.dangling.iter().map(|d| d.number).collect::<Vec<_>>(), [3]);
        let c = run("See [2024].\n\n[2024] https://a.com/2024 - Report\n");
        assert!(c.dangling.is_empty());
        assert_eq!(c.sources[0].references, 1);
        assert_eq!(c.sources[0].citation_numbers, [2024]);
    }

    #[test]
    fn markers_resolve_to_structured_sources_by_position_then_order() {
        let answer = Answer {
            text: "The first claim cites two [2]. The second claim cites one [1].".into(),
            sources: vec![
                StructuredSource {
                    url: Some("https://b.com".into()),
                    position: Some(2),
                    ..Default::default()
                },
                StructuredSource {
                    url: Some("https://a.com".into()),
                    position: Some(1),
                    ..Default::default()
                },
            ],
            shape: InputShape::AnswerJson,
            ..Answer::default()
        };
        let c = collect(&answer, &CollectOptions::default());
        assert_eq!(urls(&c), ["https://b.com/", "https://a.com/"]);
        assert_eq!(c.claims[0].cites, [1]);
        assert_eq!(c.claims[1].cites, [2]);
        let answer = Answer {
            text: "A [2].".into(),
            sources: vec![
                StructuredSource {
                    url: Some("https://x.com".into()),
                    ..Default::default()
                },
                StructuredSource {
                    url: Some("https://y.com".into()),
                    ..Default::default()
                },
            ],
            ..Answer::default()
        };
        let c = collect(&answer, &CollectOptions::default());
        assert_eq!(
            urls(&c),
            ["https://y.com/", "https://x.com/"],
            "ids follow reading order"
        );
        assert_eq!(c.sources[0].references, 1);
        assert_eq!(c.sources[1].references, 1);
    }

    #[test]
    fn structured_fields_are_kept() {
        let answer = Answer {
            text: String::new(),
            sources: vec![StructuredSource {
                url: Some("https://acme.atlassian.net/wiki/spaces/X/pages/1".into()),
                title: Some("Runbook".into()),
                kind: Some("web".into()),
                snippet: Some("snip".into()),
                date: Some("2024-01-01".into()),
                position: Some(3),
                confidence: Some(0.7),
                citation_id: None,
                subagent: Some("wiki".into()),
            }],
            shape: InputShape::AgentResults,
            ..Answer::default()
        };
        let c = collect(&answer, &CollectOptions::default());
        let s = &c.sources[0];
        assert_eq!(
            s.kind,
            SourceKind::Confluence,
            "the URL says confluence; a declared 'web' does not demote it"
        );
        assert_eq!(
            (
                s.title.as_str(),
                s.snippet.as_deref(),
                s.position,
                s.agent_confidence
            ),
            ("Runbook", Some("snip"), Some(3), Some(0.7))
        );
        assert_eq!(s.agents, ["wiki"]);
        assert_eq!(s.found_by, [FoundBy::AgentResult]);
    }

    #[test]
    fn declared_kind_applies_to_unknown_hosts() {
        let c = run("[Source: confluence - Deploy Runbook](https://wiki.acme.io/pages/1)");
        assert_eq!(c.sources[0].kind, SourceKind::Confluence);
    }

    #[test]
    fn configured_hosts_classify() {
        let mut options = CollectOptions::default();
        options.kind_rules.confluence_hosts = vec!["wiki.acme.io".into()];
        let c = collect(&Answer::from_text("see https://wiki.acme.io/x"), &options);
        assert_eq!(c.sources[0].kind, SourceKind::Confluence);
    }

    #[test]
    fn via_notes_are_sources_without_links() {
        let c = run("Freeze on Friday (via slack: #eng-deploys). Also (via slack: #ENG-deploys).");
        assert_eq!(c.sources.len(), 1);
        let s = &c.sources[0];
        assert_eq!(
            (
                s.kind,
                s.title.as_str(),
                s.canonical_url.as_deref(),
                s.references
            ),
            (SourceKind::Slack, "#eng-deploys", None, 2)
        );
        assert_eq!(s.verdict.class, crate::model::VerdictClass::NotChecked);
    }

    #[test]
    fn untitled_sources_get_a_readable_title() {
        let c = run("see https://www.example.com/docs/guide/ and [1](https://a.com/x)");
        assert_eq!(c.sources[0].title, "example.com/docs/guide");
        assert_eq!(
            c.sources[1].title, "a.com/x",
            "a bare number is not a title"
        );
        assert!(c.sources.iter().all(|s| !s.title.is_empty()));
    }

    #[test]
    fn first_real_title_wins() {
        let c = run("https://a.com/x then [https://a.com/x](https://a.com/x) then [Real](https://a.com/x) then [Later](https://a.com/x)");
        assert_eq!(c.sources[0].title, "Real");
    }

    #[test]
    fn every_verdict_is_not_checked() {
        let c = run("a https://a.com b (via confluence: Page) [x](https://exa mple.com)");
        assert!(c
            .sources
            .iter()
            .all(|s| s.verdict.class == crate::model::VerdictClass::NotChecked));
    }

    #[test]
    fn source_limit_counts_what_is_left_out() {
        let text: String = (0..20).map(|i| format!("https://a{i}.com ")).collect();
        let options = CollectOptions {
            max_sources: 5,
            ..CollectOptions::default()
        };
        let c = collect(&Answer::from_text(text), &options);
        assert_eq!(c.sources.len(), 5);
        assert_eq!(c.metrics.links_skipped, 15);
        assert!(
            c.warnings.iter().any(|w| w.contains("15 more link(s)")),
            "{:?}",
            c.warnings
        );
    }

    #[test]
    fn too_long_links_are_counted_and_named() {
        let text = format!("see https://a.com/{}", "x".repeat(100_000));
        let c = run(&text);
        assert!(c.sources.is_empty());
        assert_eq!(c.metrics.links_skipped, 1);
        assert!(
            c.warnings.iter().any(|w| w.contains("longer than")),
            "{:?}",
            c.warnings
        );
    }

    #[test]
    fn unsupported_schemes_and_redefinitions_are_warned_about() {
        let c = run("[f](ftp://a.com/x) [1]\n\n[1] https://a.com/1\n[1] https://a.com/2\n");
        assert!(c.warnings.iter().any(|w| w.contains("ftp://a.com/x")));
        assert!(c
            .warnings
            .iter()
            .any(|w| w.contains("[1]") && w.contains("more than once")));
        assert_eq!(c.sources.len(), 2, "both links are still sources");
    }

    #[test]
    fn claims_cite_their_markers_and_links() {
        let c = run("Revenue grew 45% in 2023 [1]. Costs fell by half (https://b.com/costs). Profit tripled to $3 million.\n\n[1] https://a.com/rev\n");
        let cites: Vec<Vec<usize>> = c.claims.iter().map(|cl| cl.cites.clone()).collect();
        assert_eq!(cites, vec![vec![1], vec![2], vec![]]);
        assert_eq!(c.metrics.uncited_claims, 1);
        assert!(c.claims[2].is_uncited());
        assert_eq!(c.metrics.cited_claims, 2);
    }

    #[test]
    fn citation_numbers_are_not_figures() {
        let c = run("Rust is loved by developers [12].\n\n[12] https://a.com\n");
        assert_eq!(c.claims.len(), 1);
        assert!(c.claims[0].signals.is_empty(), "{:?}", c.claims[0].signals);
    }

    #[test]
    fn blank_spans_replaces_covered_text() {
        let text = "ab [1] cd https://x.y ef";
        let spans = [Span::new(3, 6), Span::new(10, 21)];
        assert_eq!(blank_spans(&text[1..], 1, &spans), "b   cd   ef");
    }
}
