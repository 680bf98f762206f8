//! Candidates merged into the answer's unique sources: each link canonicalised once and
//! keyed so that duplicates collapse, titles and structured fields merged (first value
//! wins), the source limit applied, and every link that could not be kept counted and
//! warned about.

use super::*;

/// The key sources are deduplicated on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum SourceKey {
    /// A canonical http/https URL.
    Url(String),
    /// A link that could not be canonicalised, as written (trimmed).
    Raw(String),
    /// A source named without a link: its kind and lower-cased name.
    Named(SourceKind, String),
}

/// Why a candidate has no key.
#[derive(Debug, Clone, Copy)]
pub(super) enum KeyError {
    /// Its link is longer than [`canon::MAX_URL_BYTES`].
    TooLong,
    /// It has neither a link nor a name.
    Unnamed,
}

/// Accumulates sources from candidates.
pub(super) struct Builder<'o, 'a> {
    pub(super) options: &'o CollectOptions,
    pub(super) sources: Vec<Source>,
    /// Where each link, as written, went: every mention of a URL after the first
    /// (markers pointing at one reference, repeated links) skips canonicalisation.
    pub(super) placed_by_raw: HashMap<&'a str, Placed>,
    /// Whether each source's title is only made up from its URL (so a real one may replace it).
    pub(super) provisional_title: Vec<bool>,
    pub(super) index: HashMap<SourceKey, usize>,
    /// Citation spans in the text and the source index each points at.
    pub(super) citation_targets: Vec<(Span, usize)>,
    pub(super) dangling: Dangling,
    pub(super) warnings: Vec<String>,
    pub(super) links_skipped: usize,
    pub(super) too_long: usize,
    pub(super) over_limit: usize,
    pub(super) invalid: Vec<String>,
}

/// What became of a link.
#[derive(Debug, Clone, Copy)]
pub(super) enum Placed {
    /// It is (part of) the source at this index.
    Source(usize),
    /// It is longer than [`canon::MAX_URL_BYTES`].
    TooLong,
    /// It came after the source limit was reached.
    OverLimit,
}

impl<'o, 'a> Builder<'o, 'a> {
    pub(super) fn new(options: &'o CollectOptions) -> Self {
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

    pub(super) fn add_all(&mut self, candidates: Vec<Candidate<'a>>) {
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
    pub(super) fn add(&mut self, candidate: &Candidate<'a>) -> Option<usize> {
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
    pub(super) fn place(&mut self, candidate: &Candidate<'_>) -> Option<Placed> {
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

    pub(super) fn key_of(
        &mut self,
        candidate: &Candidate<'_>,
    ) -> Result<(SourceKey, Option<Url>), KeyError> {
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

    pub(super) fn new_source(
        &mut self,
        candidate: &Candidate<'_>,
        canonical: Option<Url>,
    ) -> usize {
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
            page: None,
            read_via: None,
        });
        self.provisional_title.push(provisional);
        self.sources.len() - 1
    }

    pub(super) fn merge(&mut self, index: usize, candidate: &Candidate<'_>) {
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
    pub(super) fn apply_link_titles(&mut self, titles: &[LinkTitle]) {
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

    pub(super) fn warn_about_scan(&mut self, scan: &Scan) {
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

    pub(super) fn warn_about_dangling(&mut self) {
        let unlisted = self.dangling.total - self.dangling.listed.len();
        if unlisted > 0 {
            self.warnings.push(format!(
                "{unlisted} more repeated citation(s) with no reference are counted but not listed"
            ));
        }
    }

    pub(super) fn finish(mut self, answer: &Answer, claims: ClaimTally) -> Collected {
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
pub(super) fn merge_structured(source: &mut Source, structured: &StructuredSource) {
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
pub(super) fn is_real_title(title: &str, source: &Source) -> bool {
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
pub(super) fn clean_label(label: &str) -> String {
    let collapsed: String = label.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed
        .trim_matches(|c| matches!(c, '*' | '_' | '`'))
        .trim()
        .to_string()
}

/// At most `max` characters of `s`, with `…` when cut.
pub(super) fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}
