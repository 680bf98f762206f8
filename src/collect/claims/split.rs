//! Sentence splitting: [`split_claims`] walks the text line by line, ends sentences at
//! terminators (minding abbreviations, decimals, quotes, citations and CJK), and keeps
//! the sentences that are claims.

use super::*;

// ---------------------------------------------------------------------------------------
// Sentence splitting
// ---------------------------------------------------------------------------------------

/// Splits answer text into claim sentences.
///
/// - `opaque`: sorted, non-overlapping spans that must never be split inside and count as
///   part of the sentence they stand in: links, URLs, citation markers like `[1]`, `[1, 3]`.
///   A citation marker (`[…]`) that starts right after a terminator, optionally after
///   spaces on the same line, belongs to the sentence before; so does any opaque span
///   that is the last thing on its line.
/// - `excluded`: sorted, non-overlapping spans that are not prose at all (code blocks, code
///   spans, reference-list lines): no sentence includes them; a sentence may not run across
///   an excluded span (it ends before it).
///
/// Returns the spans of the sentences that are claims, in order, trimmed of surrounding
/// whitespace and list bullets/numbering (`- `, `* `, `• `, `1. `, `1) `), with headings and
/// non-claims (greetings, sign-offs, meta lines, bare summing-up, questions, fragments)
/// left out. Every span lies on char boundaries of `text`. Spans that are out of range,
/// unsorted or overlapping are repaired rather than trusted; opaque spans that overlap
/// excluded ones are ignored.
pub fn split_claims(text: &str, opaque: &[Span], excluded: &[Span]) -> Vec<Span> {
    if text.is_empty() {
        return Vec::new();
    }
    let excluded = clean_spans(text, excluded);
    let opaque = without_overlaps(clean_spans(text, opaque), &excluded);
    let mut splitter = Splitter::new(text, &opaque, &excluded);
    splitter.run();
    splitter.out
}

/// One line of the text, without its line break.
#[derive(Clone, Copy)]
pub(super) struct Line {
    start: usize,
    end: usize,
    newline: bool,
}

pub(super) fn lines_of(text: &str) -> Vec<Line> {
    let bytes = text.as_bytes();
    let mut lines = Vec::with_capacity(bytes.len() / 64 + 1);
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', bytes) {
        let end = if nl > start && bytes[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        lines.push(Line {
            start,
            end,
            newline: true,
        });
        start = nl + 1;
    }
    if start < bytes.len() {
        lines.push(Line {
            start,
            end: bytes.len(),
            newline: false,
        });
    }
    lines
}

/// What a line is, for sentence splitting.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum LineKind {
    /// Only whitespace: ends the sentence.
    Blank,
    /// A heading, label, rule or table row: ends the sentence, is no claim.
    Skip,
    /// A list item whose text starts at the byte given: starts a new sentence.
    Item(usize),
    /// Prose whose text starts at the byte given: continues the sentence.
    Text(usize),
}

/// Bytes that may begin a terminator: `.`, `!`, `?`, and the lead bytes of `…` (E2),
/// `。` (E3) and `！？` (EF).
pub(super) static TERMINATOR_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    table[b'.' as usize] = true;
    table[b'!' as usize] = true;
    table[b'?' as usize] = true;
    table[0xE2] = true;
    table[0xE3] = true;
    table[0xEF] = true;
    table
};

/// The next match of a search in a text, kept until the reading position passes it, so
/// that a text is searched about once however often the reader asks.
pub(super) struct NextMatch {
    /// Where the first match in a haystack starts.
    search: fn(&[u8]) -> Option<usize>,
    /// `(searched from, found at)` of the last search; "found" is the haystack's length
    /// when there was none.
    last: Option<(usize, usize)>,
}

impl NextMatch {
    pub(super) fn new(search: fn(&[u8]) -> Option<usize>) -> Self {
        NextMatch { search, last: None }
    }

    /// The first match at or after `from`, or `hay.len()`.
    pub(super) fn at_or_after(&mut self, hay: &[u8], from: usize) -> usize {
        match self.last {
            Some((searched, found)) if searched <= from && from <= found => found,
            _ => {
                let found = hay
                    .get(from..)
                    .and_then(self.search)
                    .map_or(hay.len(), |k| from + k);
                self.last = Some((from, found));
                found
            }
        }
    }
}

/// Finders for the wide terminators, which CJK text is full of near misses of (`，`,
/// `、`, `「`… share their first bytes), so each is looked for as a whole.
pub(super) static ELLIPSIS: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("…"));
pub(super) static IDEOGRAPHIC_STOP: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("。"));
pub(super) static WIDE_EXCLAMATION: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("！"));
pub(super) static WIDE_QUESTION: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("？"));

/// The searches for the bytes that may end a sentence: `.`, `!`, `?` and the wide
/// terminators (see [`TERMINATOR_BYTES`]).
pub(super) fn terminator_searches() -> [NextMatch; 5] {
    [
        NextMatch::new(|h| memchr::memchr3(b'.', b'!', b'?', h)),
        NextMatch::new(|h| ELLIPSIS.find(h)),
        NextMatch::new(|h| IDEOGRAPHIC_STOP.find(h)),
        NextMatch::new(|h| WIDE_EXCLAMATION.find(h)),
        NextMatch::new(|h| WIDE_QUESTION.find(h)),
    ]
}

/// The state of one splitting pass.
pub(super) struct Splitter<'t, 's> {
    text: &'t str,
    bytes: &'t [u8],
    opaque: &'s [Span],
    excluded: &'s [Span],
    out: Vec<Span>,
    /// Start of the sentence being read.
    cur: Option<usize>,
    /// End of the prose read so far for the current sentence.
    tail: usize,
    /// Everything before this byte has been read.
    pos: usize,
    /// Index of the first opaque span that ends after the reading position.
    next_opaque: usize,
    /// Index of the first excluded span that ends after the reading position.
    next_excluded: usize,
    /// Start of the current paragraph or list item, for quote pairing.
    paragraph: usize,
    /// Index of the first excluded span that ends after the start of the line being
    /// classified.
    line_excluded: usize,
    /// Index of the first opaque span that ends after the start of the last sentence
    /// emitted.
    claim_opaque: usize,
    /// The next terminator of each kind.
    terminators: [NextMatch; 5],
}

impl<'t, 's> Splitter<'t, 's> {
    pub(super) fn new(text: &'t str, opaque: &'s [Span], excluded: &'s [Span]) -> Self {
        Splitter {
            text,
            bytes: text.as_bytes(),
            opaque,
            excluded,
            out: Vec::new(),
            cur: None,
            tail: 0,
            pos: 0,
            next_opaque: 0,
            next_excluded: 0,
            paragraph: 0,
            line_excluded: 0,
            claim_opaque: 0,
            terminators: terminator_searches(),
        }
    }

    pub(super) fn run(&mut self) {
        let lines = lines_of(self.text);
        let mut prev = LineKind::Blank;
        let mut prev_last: Option<char> = None;
        let mut fence: Option<&str> = None;
        let mut prev_quoted = false;
        for i in 0..lines.len() {
            let line = lines[i];
            // Text already read, or excluded, is not classified on its own.
            let covered = line.start < self.pos || self.line_start_excluded(line.start);
            // A block quote is its own piece of text: no sentence runs into or out of it.
            let quoted = quote_prefix_len(&self.text[line.start..line.end]) > 0;
            let quote_edge = !covered && quoted != prev_quoted;
            prev_quoted = quoted;
            let next = lines.get(i + 1).copied();
            let mut kind = self.classify(line, next, prev, prev_last, covered);
            if let Some(marker) = self.fence_marker(line, covered) {
                fence = match fence {
                    Some(open) if open == marker => None,
                    None => Some(marker),
                    other => other,
                };
                kind = LineKind::Skip;
            } else if fence.is_some() {
                kind = LineKind::Skip;
            }
            match kind {
                LineKind::Blank | LineKind::Skip => {
                    self.flush();
                    self.paragraph = line.end;
                }
                LineKind::Item(from) => {
                    self.flush();
                    self.paragraph = from;
                    self.scan_line(from, line.end);
                }
                LineKind::Text(from) => {
                    if line.start >= self.pos
                        && (quote_edge || !self.joins(prev_last, from, line.end))
                    {
                        self.flush();
                    }
                    self.scan_line(from, line.end);
                }
            }
            prev_last = self.text[line.start..line.end]
                .trim_end()
                .chars()
                .next_back();
            if matches!(prev_last, Some(':' | '：')) {
                self.flush();
            }
            prev = kind;
        }
        self.flush();
    }

    /// Whether the line starting at `start` starts inside an excluded span. Lines come in
    /// order, so a cursor replaces a search.
    pub(super) fn line_start_excluded(&mut self, start: usize) -> bool {
        while self
            .excluded
            .get(self.line_excluded)
            .is_some_and(|e| e.end <= start)
        {
            self.line_excluded += 1;
        }
        self.excluded
            .get(self.line_excluded)
            .is_some_and(|e| e.start <= start)
    }

    /// The fence a line opens or closes (```` ``` ````, `~~~`, `$$`), outside excluded text
    /// and text already read (`covered`).
    pub(super) fn fence_marker(&self, line: Line, covered: bool) -> Option<&'static str> {
        if covered {
            return None;
        }
        let trimmed = self.text[line.start..line.end].trim();
        if trimmed == "$$" {
            return Some("$$");
        }
        ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f))
    }

    /// Whether a line continues the sentence left open by the line before: only when it
    /// starts in lower case, with a digit or with continuing punctuation, and the line
    /// before did not end in CJK text (which is never wrapped) or a citation marker.
    pub(super) fn joins(&self, prev_last: Option<char>, from: usize, to: usize) -> bool {
        if self.cur.is_none() {
            return true;
        }
        if prev_last.is_some_and(|c| is_cjk(c) || (c as u32) >= 0x3000 || c == ']') {
            return false;
        }
        let start = skip_spaces(self.text, from, to);
        match self.text[start..to].chars().next() {
            Some(c) => {
                c.is_lowercase()
                    || c.is_ascii_digit()
                    || matches!(c, '(' | ',' | ';' | '–' | '—' | '&')
            }
            None => true,
        }
    }

    /// Classifies a line from its own text (and the next line's, for setext headings).
    /// A line that starts in text already read or excluded (`covered`) is text.
    pub(super) fn classify(
        &self,
        line: Line,
        next: Option<Line>,
        prev: LineKind,
        prev_last: Option<char>,
        covered: bool,
    ) -> LineKind {
        if covered {
            return LineKind::Text(line.start.max(self.pos).min(line.end));
        }
        let raw = &self.text[line.start..line.end];
        let body_start = line.start + quote_prefix_len(raw);
        let body = &self.text[body_start..line.end];
        let trimmed = body.trim();
        if trimmed.is_empty() {
            return LineKind::Blank;
        }
        if is_rule(trimmed) || is_table_row(trimmed) || is_atx_heading(trimmed) {
            return LineKind::Skip;
        }
        if let Some(offset) = list_content_offset(body) {
            let content = body[offset..].trim();
            if is_emphasis_only(content) || (line.newline && is_label(content)) {
                return LineKind::Skip;
            }
            return LineKind::Item(body_start + offset);
        }
        if is_emphasis_only(trimmed)
            || is_display_math(trimmed)
            || self.is_setext_text(trimmed, next)
        {
            return LineKind::Skip;
        }
        if starts_with_citation(trimmed) {
            return LineKind::Item(body_start + (body.len() - body.trim_start().len()));
        }
        let prev_closed =
            prev_last.is_none_or(|c| TERMINATORS.contains(&c) || c == ':' || c == '：');
        let block_start = matches!(prev, LineKind::Blank | LineKind::Skip) || prev_closed;
        if line.newline && block_start && is_label(trimmed) {
            return LineKind::Skip;
        }
        LineKind::Text(body_start)
    }

    /// Whether `trimmed` is the text of a setext heading underlined by the next line.
    pub(super) fn is_setext_text(&self, trimmed: &str, next: Option<Line>) -> bool {
        let Some(next) = next else { return false };
        // Spans before the cursor end before this line, let alone the next.
        let ahead = &self.excluded[self.line_excluded.min(self.excluded.len())..];
        if ahead
            .iter()
            .find(|e| e.end > next.start)
            .is_some_and(|e| e.start <= next.start)
        {
            return false;
        }
        let under = self.text[next.start..next.end].trim();
        if under.len() < 2 {
            return false;
        }
        if under.bytes().all(|b| b == b'=') {
            return true;
        }
        under.len() >= 3 && under.bytes().all(|b| b == b'-') && !ends_with_terminator(trimmed)
    }

    /// Reads `[from, to)` of one line, skipping excluded spans (which end the sentence).
    pub(super) fn scan_line(&mut self, from: usize, to: usize) {
        let mut at = from.max(self.pos);
        while at < to {
            while self
                .excluded
                .get(self.next_excluded)
                .is_some_and(|e| e.end <= at)
            {
                self.next_excluded += 1;
            }
            match self.excluded.get(self.next_excluded).copied() {
                Some(ex) if ex.start < to => {
                    if ex.start > at {
                        self.scan_piece(at, ex.start);
                    }
                    self.flush();
                    at = ex.end;
                    self.pos = self.pos.max(at);
                }
                _ => {
                    self.scan_piece(at, to);
                    at = to;
                }
            }
        }
    }

    /// Reads prose `[from, to)`, emitting sentences as terminators are found.
    pub(super) fn scan_piece(&mut self, from: usize, to: usize) {
        let mut i = from.max(self.pos);
        while i < to {
            if let Some(op) = self.opaque_at(i) {
                if self.cur.is_none() {
                    self.cur = Some(i);
                }
                i = op.end;
                self.tail = self.tail.max(i);
                continue;
            }
            if self.cur.is_none() {
                match self.text[i..].chars().next() {
                    Some(c) if c.is_whitespace() => {
                        i += c.len_utf8();
                        continue;
                    }
                    _ => self.cur = Some(i),
                }
            }
            if TERMINATOR_BYTES[self.bytes[i] as usize] {
                if let Some(end) = self.terminator(i, to) {
                    self.tail = end;
                    self.emit(end);
                    i = end;
                    continue;
                }
            }
            i = self.next_candidate(i + 1, to);
        }
        self.tail = self.tail.max(to).max(i.min(self.text.len()));
        self.pos = self.pos.max(i);
    }

    /// The first byte in `[from, to)` that the reading loop of [`Self::scan_piece`] must
    /// look at while a sentence is open: a possible terminator or the start of the next
    /// opaque span. Every byte skipped would have been stepped over one at a time
    /// (continuation bytes of UTF-8 are never terminator bytes), so this only saves time.
    pub(super) fn next_candidate(&mut self, from: usize, to: usize) -> usize {
        // `opaque_at` has moved `next_opaque` past every span ending before `from`, and the
        // span it points at (if any) starts after the byte just read.
        let stop = self
            .opaque
            .get(self.next_opaque)
            .map_or(to, |s| s.start.clamp(from, to));
        let bytes = self.bytes;
        self.terminators
            .iter_mut()
            .fold(stop, |next, kind| next.min(kind.at_or_after(bytes, from)))
    }

    /// The opaque span containing byte `i`, if any (`i` only moves forward).
    pub(super) fn opaque_at(&mut self, i: usize) -> Option<Span> {
        while self
            .opaque
            .get(self.next_opaque)
            .is_some_and(|s| s.end <= i)
        {
            self.next_opaque += 1;
        }
        self.opaque
            .get(self.next_opaque)
            .copied()
            .filter(|s| s.start <= i)
    }

    /// The opaque span starting exactly at byte `i`.
    pub(super) fn opaque_starting_at(&self, i: usize) -> Option<Span> {
        // `i` lies at or ahead of the reading position, near the reading cursor.
        let k = partition_point_near(self.opaque, self.next_opaque, |s| s.start < i);
        self.opaque.get(k).copied().filter(|s| s.start == i)
    }

    /// If the terminator candidate at `i` ends a sentence, where the sentence ends
    /// (after closing quotes and attached citation markers).
    pub(super) fn terminator(&self, i: usize, limit: usize) -> Option<usize> {
        match self.bytes[i] {
            b'.' => self.period(i, limit),
            b'!' | b'?' => self.bang(i, limit),
            _ => match self.text[i..].chars().next()? {
                '…' => self.ellipsis(i + '…'.len_utf8(), limit),
                '。' | '！' | '？' => Some(self.cjk_end(i, limit)),
                _ => None,
            },
        }
    }

    pub(super) fn period(&self, i: usize, limit: usize) -> Option<usize> {
        let run = i + self.bytes[i..limit]
            .iter()
            .take_while(|&&b| b == b'.')
            .count();
        if run - i >= 2 {
            return self.ellipsis(run, limit);
        }
        let after = self.skip_closers(run, limit);
        if !self.boundary_follows(after, limit)
            || self.abbreviation_continues(i, after, limit)
            || self.lowercase_follows(after, limit)
        {
            return None;
        }
        Some(self.attach(after, limit))
    }

    pub(super) fn bang(&self, i: usize, limit: usize) -> Option<usize> {
        let run = i + self.bytes[i..limit]
            .iter()
            .take_while(|&&b| b == b'!' || b == b'?')
            .count();
        let after = self.skip_closers(run, limit);
        (self.boundary_follows(after, limit) && !self.lowercase_follows(after, limit))
            .then(|| self.attach(after, limit))
    }

    /// An ellipsis ends a sentence only before a capital letter, CJK text, a citation
    /// marker or the end of the line.
    pub(super) fn ellipsis(&self, from: usize, limit: usize) -> Option<usize> {
        let mut q = from;
        while q < limit {
            if self.bytes[q] == b'.' {
                q += 1;
            } else if self.text[q..].starts_with('…') {
                q += '…'.len_utf8();
            } else {
                break;
            }
        }
        let after = self.skip_closers(q, limit);
        if !self.boundary_follows(after, limit) {
            return None;
        }
        let next = skip_spaces(self.text, after, limit);
        if next >= limit || self.opaque_starting_at(next).is_some() {
            return Some(self.attach(after, limit));
        }
        let c = self.text[next..].chars().next()?;
        (c.is_uppercase() || is_cjk(c)).then(|| self.attach(after, limit))
    }

    pub(super) fn cjk_end(&self, i: usize, limit: usize) -> usize {
        let q = self.skip_terminators(i, limit);
        let after = self.skip_closers(q, limit);
        self.attach(after, limit)
    }

    /// Skips closing quotes, brackets and emphasis. A straight double quote closes only
    /// when the sentence has an odd number of them so far (otherwise it opens the next).
    pub(super) fn skip_closers(&self, mut q: usize, limit: usize) -> usize {
        while q < limit && self.opaque_starting_at(q).is_none() {
            match self.text[q..limit].chars().next() {
                Some('"') if !self.inside_straight_quote(q) => break,
                Some(c) if CLOSERS.contains(&c) => q += c.len_utf8(),
                _ => break,
            }
        }
        q
    }

    pub(super) fn inside_straight_quote(&self, q: usize) -> bool {
        let start = self.paragraph.min(q);
        memchr::memchr_iter(b'"', &self.bytes[start..q]).count() % 2 == 1
    }

    /// Whether what follows a terminator lets it end the sentence: whitespace, the end
    /// of the line, or an opaque span (`5.[1] Next`).
    pub(super) fn boundary_follows(&self, at: usize, limit: usize) -> bool {
        if at >= limit {
            return true;
        }
        if self.opaque_starting_at(at).is_some() {
            return true;
        }
        self.text[at..]
            .chars()
            .next()
            .is_some_and(char::is_whitespace)
    }

    /// Whether the word before the `.` at `dot` is an abbreviation that keeps the
    /// sentence going.
    pub(super) fn abbreviation_continues(&self, dot: usize, after: usize, limit: usize) -> bool {
        let word = word_before(self.text, dot);
        if word.is_empty() {
            return false;
        }
        if ALWAYS_ABBREVIATION_SET.contains_ignore_case(word) {
            return true;
        }
        let next = skip_spaces(self.text, after, limit);
        if word.eq_ignore_ascii_case("no") {
            return self.bytes.get(next).is_some_and(u8::is_ascii_digit) && next < limit;
        }
        let ambiguous = AMBIGUOUS_ABBREVIATION_SET.contains_ignore_case(word)
            || word.contains('.')
            || (word.len() == 1 && word.as_bytes()[0].is_ascii_uppercase());
        if !ambiguous || next >= limit || self.opaque_starting_at(next).is_some() {
            return false;
        }
        let next_word = ascii_word_at(self.text, next, limit);
        !SENTENCE_STARTERS.contains(&next_word)
    }

    /// Whether the next word starts with a lower-case letter ("approx. five").
    pub(super) fn lowercase_follows(&self, after: usize, limit: usize) -> bool {
        let next = skip_spaces(self.text, after, limit);
        next < limit
            && self.opaque_starting_at(next).is_none()
            && self.text[next..]
                .chars()
                .next()
                .is_some_and(char::is_lowercase)
    }

    /// Extends a sentence end over citation markers that follow it on the same line, and
    /// over a stray terminator or closing quote after them (`the U.S. [1] [4].`).
    pub(super) fn attach(&self, from: usize, limit: usize) -> usize {
        let mut end = from;
        loop {
            let j = skip_spaces(self.text, end, limit);
            match self.opaque_starting_at(j) {
                Some(op) if j <= limit && self.attachable(op, limit) => end = op.end,
                _ => break,
            }
        }
        if end > from && end < limit {
            let j = skip_spaces(self.text, end, limit);
            let k = self.skip_terminators(j, limit);
            let k = self.skip_closers(k, limit);
            if k > j && self.boundary_follows(k, limit) {
                end = k;
            }
        }
        end
    }

    pub(super) fn skip_terminators(&self, mut q: usize, limit: usize) -> usize {
        while let Some(c) = self.text[q..limit].chars().next() {
            if !TERMINATORS.contains(&c) {
                break;
            }
            q += c.len_utf8();
        }
        q
    }

    /// Citation markers attach to the sentence before; so does any opaque span that is
    /// the last thing on its line.
    pub(super) fn attachable(&self, op: Span, limit: usize) -> bool {
        let s = &self.text[op.start..op.end];
        let marker = (s.starts_with('[') && s.ends_with(']') && !s.contains("]("))
            || (s.starts_with('【') && s.ends_with('】'));
        marker || (op.end >= limit || self.text[op.end..limit].trim().is_empty())
    }

    /// Ends the current sentence at the end of the prose read so far.
    pub(super) fn flush(&mut self) {
        if self.cur.is_some() {
            let end = self.tail;
            self.emit(end);
        }
    }

    /// Ends the current sentence at `end`, keeping it if it is a claim.
    pub(super) fn emit(&mut self, end: usize) {
        if let Some(start) = self.cur.take() {
            if let Some(span) = trim_span(self.text, start, end) {
                // Sentences come in order: move the cursor for their opaque spans.
                while self
                    .opaque
                    .get(self.claim_opaque)
                    .is_some_and(|s| s.end <= span.start)
                {
                    self.claim_opaque += 1;
                }
                if self.is_claim(span) {
                    self.out.push(span);
                }
            }
        }
        self.pos = self.pos.max(end);
    }

    /// Whether a sentence is a claim: not a fragment, question, greeting, sign-off, meta
    /// line or bare summing-up.
    pub(super) fn is_claim(&self, span: Span) -> bool {
        if self.visible_counts(span, FRAGMENT_CAP).is_fragment() || self.is_question(span) {
            return false;
        }
        let lead = lead_text(&self.text[span.start..span.end]);
        if !LEAD_FILTER.may_start(lead) {
            return true;
        }
        if starts_with_any(lead, &SIGN_OFF_PHRASES) {
            return false;
        }
        if starts_with_any(lead, &GREETING_PHRASES)
            && self.visible_counts(span, COUNT_CAP).words <= GREETING_MAX_WORDS
        {
            return !self.has_figure(span);
        }
        if starts_with_any(lead, &META_PHRASES) {
            let colon = lead.trim_end().ends_with([':', '：']);
            return !colon && self.has_figure(span);
        }
        if starts_with_any(lead, &CONCLUSION_PHRASES) {
            return self.has_figure(span);
        }
        if let Some(stamp) = STAMP_PHRASES.first_match(lead) {
            if lead.get(stamp.len()..).is_some_and(starts_with_date)
                && self.visible_counts(span, STAMP_MAX_WORDS + 1).words <= STAMP_MAX_WORDS
            {
                return false;
            }
        }
        true
    }

    /// Word and CJK character counts of a span, opaque spans left out, counted up to `cap`.
    pub(super) fn visible_counts(&self, span: Span, cap: usize) -> Counts {
        let mut counts = Counts::with_cap(cap);
        let mut cursor = span.start;
        let k = partition_point_near(self.opaque, self.claim_opaque, |s| s.end <= span.start);
        for op in self.opaque[k..].iter().take_while(|s| s.start < span.end) {
            if op.start > cursor {
                counts.feed(&self.text[cursor..op.start]);
            }
            counts.separate();
            cursor = cursor.max(op.end);
        }
        if cursor < span.end {
            counts.feed(&self.text[cursor..span.end]);
        }
        counts.separate();
        counts
    }

    /// Whether the sentence ends in a question mark (before closers and markers).
    pub(super) fn is_question(&self, span: Span) -> bool {
        let mut end = span.end;
        loop {
            let head = self.text[span.start..end].trim_end();
            end = span.start + head.len();
            let k = partition_point_near(self.opaque, self.claim_opaque, |s| s.end < end);
            if let Some(op) = self
                .opaque
                .get(k)
                .filter(|s| s.end == end && s.start > span.start)
            {
                end = op.start;
                continue;
            }
            match head.chars().next_back() {
                Some(c) if CLOSERS.contains(&c) => end -= c.len_utf8(),
                Some(c) => return c == '?' || c == '？',
                None => return false,
            }
        }
    }

    /// Whether the sentence carries a figure (number, date, percentage or money) outside
    /// its opaque spans.
    pub(super) fn has_figure(&self, span: Span) -> bool {
        let mut blanked = self.text[span.start..span.end].to_string();
        let k = self.opaque.partition_point(|s| s.end <= span.start);
        for op in self.opaque[k..].iter().take_while(|s| s.start < span.end) {
            let a = op.start.max(span.start) - span.start;
            let b = op.end.min(span.end) - span.start;
            blanked.replace_range(a..b, &" ".repeat(b - a));
        }
        claim_signals(&blanked).iter().any(|s| {
            matches!(
                s,
                ClaimSignal::Number
                    | ClaimSignal::Date
                    | ClaimSignal::Percentage
                    | ClaimSignal::Money
            )
        })
    }
}
