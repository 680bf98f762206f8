//! Signals from words: superlatives, magnitudes and CJK words (a hand-written scanner
//! that finds exactly what the word regular expression would), and quotations.

use super::*;

/// Applies the word rules (superlatives, magnitudes, CJK words).
///
/// A hand-written scanner finds exactly the matches of [`WORD_RE`], much faster. The one
/// thing it does not know is Unicode case folding of the two non-ASCII letters that fold
/// onto ASCII ones (`ſ` onto `s`, the Kelvin sign `K` onto `k`); for the rare text with
/// one of those it gives up and the regular expression runs instead.
pub(super) fn scan_words(s: &str, found: &mut SignalSet) {
    let mut words = SignalSet::default();
    if scan_words_fast(s, &mut words) {
        found.0 |= words.0;
        return;
    }
    for m in WORD_RE.find_iter(s) {
        if let Some(signal) = word_signal(s, m.start(), m.end()) {
            found.add(signal);
        }
    }
}

/// The matches of [`WORD_RE`], leftmost first, without the regex engine: each match is
/// classified by [`word_signal`] as the regex's would be. Returns `false` (with `found`
/// incomplete) if the text has a char that folds onto an ASCII letter.
///
/// A match can only start where a run of ASCII word characters starts (the regex's
/// `\b`), at `#`, or at a non-ASCII char. The text is read in blocks of 64 bytes, each
/// turned into bit masks of those places (see [`BlockMasks`]), so that the scan visits
/// only them and, for words, checks their length and first and last letters against the
/// lists before anything else; branching byte by byte on word boundaries would cost a
/// mispredicted branch per word. A run of CJK text is read in one go by
/// [`scan_cjk_run`].
pub(super) fn scan_words_fast(s: &str, found: &mut SignalSet) -> bool {
    let words = &*WORD_INDEX;
    let cjk_starts = &*CJK_WORD_STARTS;
    let b = s.as_bytes();
    // Matches found so far end here; nothing before it may start another.
    let mut resume = 0;
    // A run of CJK text read already ends here.
    let mut read: usize = 0;
    // Whether the byte before the current block is a word character.
    let mut word_before = false;
    let mut ahead = BlockMasks::at(b, 0);
    for base in (0..b.len()).step_by(masks::BLOCK) {
        // This block's masks, and the next one's, for runs that go on into it.
        let here = ahead;
        let next = base + masks::BLOCK;
        ahead = if next < b.len() {
            BlockMasks::at(b, next)
        } else {
            BlockMasks { word: 0, other: 0 }
        };
        let run_starts = here.word & !((here.word << 1) | u64::from(word_before));
        word_before = here.word >> 63 == 1;
        let mut stops = words.long_enough(run_starts, here.word) | here.other;
        // Nothing in a CJK run read already is a stop.
        stops &= !low_bits(read.saturating_sub(base).min(masks::BLOCK));
        while stops != 0 {
            let k = stops.trailing_zeros() as usize;
            stops &= stops - 1;
            let i = base + k;
            let run_start = here.word >> k & 1 == 1;
            if !run_start && b[i] >= 0x80 {
                if folds_to_ascii(&b[i..]) {
                    return false;
                }
                if is_three_byte_lead(b[i]) {
                    // CJK text: read its run of three-byte chars at once.
                    match scan_cjk_run(s, i, &mut resume, found, cjk_starts) {
                        Some(end) => read = end,
                        None => return false,
                    }
                    stops &= !low_bits((read - base).min(masks::BLOCK));
                    continue;
                }
            }
            if i < resume {
                continue;
            }
            let matched = if run_start {
                // The run ends at the first non-word byte, maybe in a later block.
                let mut run = i + (!(here.word >> k)).trailing_zeros() as usize;
                if run == next {
                    run += (!ahead.word).trailing_zeros() as usize;
                }
                if run == next + masks::BLOCK {
                    run += b[run..]
                        .iter()
                        .take_while(|&&c| is_ascii_word_byte(c))
                        .count();
                }
                words.match_at(s, i, run)
            } else if b[i] == b'#' {
                // `#1` followed by a word boundary.
                let hash_one = b.get(i + 1) == Some(&b'1')
                    && !b.get(i + 2).is_some_and(|&c| is_ascii_word_byte(c));
                hash_one.then_some(i + 2)
            } else {
                s[i..]
                    .chars()
                    .next()
                    .and_then(|c| cjk_word_match(s, i, c, cjk_starts))
            };
            if let Some(end) = matched {
                if let Some(signal) = word_signal(s, i, end) {
                    found.add(signal);
                }
                resume = end;
            }
        }
    }
    true
}

/// Reads the run of three-byte chars (CJK text is made of them) that starts at `i`, as
/// [`scan_words_fast`] would one char at a time: it matches the CJK words at every char
/// from `resume` on (moving `resume` past each match) and looks for the Kelvin sign.
/// Returns where the run ends, or `None` if it has a Kelvin sign. The chars are read
/// without decoding, and only the few that may start a CJK word are looked at further.
pub(super) fn scan_cjk_run(
    s: &str,
    i: usize,
    resume: &mut usize,
    found: &mut SignalSet,
    starts: &CjkStarts,
) -> Option<usize> {
    let b = s.as_bytes();
    let mut j = i;
    while let Some(&[lead, b1, b2]) = b.get(j..j + 3) {
        if !is_three_byte_lead(lead) {
            break;
        }
        if folds_to_ascii(&b[j..]) {
            return None;
        }
        if j >= *resume && starts.any.contains_code(three_byte_code(lead, b1, b2)) {
            let matched = s[j..]
                .chars()
                .next()
                .and_then(|c| cjk_word_match(s, j, c, starts));
            if let Some(end) = matched {
                if let Some(signal) = word_signal(s, j, end) {
                    found.add(signal);
                }
                *resume = end;
            }
        }
        j += 3;
    }
    Some(j)
}

/// Whether `b` is the first byte of a three-byte UTF-8 char (U+0800 to U+FFFF).
pub(super) fn is_three_byte_lead(b: u8) -> bool {
    b & 0xF0 == 0xE0
}

/// The code point of the three-byte UTF-8 char `lead b1 b2`.
pub(super) fn three_byte_code(lead: u8, b1: u8, b2: u8) -> usize {
    usize::from(lead & 0x0F) << 12 | usize::from(b1 & 0x3F) << 6 | usize::from(b2 & 0x3F)
}

/// Whether `b` starts with one of the two non-ASCII chars that Unicode case folding
/// maps onto ASCII letters: `ſ` (onto `s`) and the Kelvin sign `K` (onto `k`).
pub(super) fn folds_to_ascii(b: &[u8]) -> bool {
    matches!(b.first(), Some(0xC5 | 0xE2))
        && (b.starts_with("ſ".as_bytes()) || b.starts_with("\u{212A}".as_bytes()))
}

/// Bit masks over the first [`masks::BLOCK`] bytes of a text: bit `k` stands for byte
/// `k`.
#[derive(Clone, Copy)]
pub(super) struct BlockMasks {
    /// ASCII word characters `[0-9A-Za-z_]`.
    word: u64,
    /// `#` and the first bytes of non-ASCII chars (0xC0 and up).
    other: u64,
}

impl BlockMasks {
    /// The masks of the block of `text` that starts at `start`.
    pub(super) fn at(text: &[u8], start: usize) -> Self {
        BlockMasks {
            word: masks::at(text, start, is_ascii_word_byte),
            other: masks::at(text, start, |c| c == b'#' || c >= 0xC0),
        }
    }
}

/// Bit masks of byte classes over blocks of text, for scans that would otherwise branch
/// byte by byte. Each mask is built in two loops the compiler turns into vector
/// instructions: one sets a flag byte (0x80 or 0) per input byte, the other packs the
/// flags eight at a time into bits. A class is a plain test on one byte.
pub(super) mod masks {
    /// The most bytes one mask covers.
    pub const BLOCK: usize = 64;

    /// Bit `k` set when byte `start + k` of `text` is in the class (for the bytes up to
    /// the end of the text; `start` < `text.len()`). A block that runs past the end is
    /// read as the last [`BLOCK`] bytes of the text, shifted, or, in a text shorter than
    /// a block, from a zero-padded copy (a class must leave the zero byte out).
    #[inline]
    pub fn at(text: &[u8], start: usize, class: impl Fn(u8) -> bool) -> u64 {
        if let Some(block) = text.get(start..).and_then(|rest| rest.first_chunk()) {
            return of(block, class);
        }
        let tail = text.len().saturating_sub(start);
        if let Some(last) = text.last_chunk::<BLOCK>() {
            return of(last, class) >> (BLOCK - tail);
        }
        let mut padded = [0u8; BLOCK];
        padded[..text.len()].copy_from_slice(text);
        of(&padded, class) >> start.min(BLOCK - 1)
    }

    /// Bit `k` set when byte `k` of `block` is in the class.
    #[inline]
    pub(super) fn of(block: &[u8; BLOCK], class: impl Fn(u8) -> bool) -> u64 {
        let mut flags = [0u8; BLOCK];
        for (flag, &c) in flags.iter_mut().zip(block) {
            *flag = if class(c) { 0x80 } else { 0 };
        }
        let words = flags.chunks_exact(8).map(|eight| {
            let mut word = [0u8; 8];
            word.copy_from_slice(eight);
            u64::from_le_bytes(word)
        });
        // Blocks without a byte of the class are common; they skip the packing.
        if words.clone().fold(0, |any, w| any | w) == 0 {
            return 0;
        }
        words
            .enumerate()
            .fold(0, |mask, (j, w)| mask | high_bits(w) << (8 * j))
    }

    /// The high bits of the eight bytes of `x`, as bits 0 to 7. The multiplication
    /// moves the high bit of byte `k` (shifted down to bit `8k`) to bit `56 + k`, and no
    /// two partial products meet.
    pub(super) fn high_bits(x: u64) -> u64 {
        ((x >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56
    }

    /// Finds the bytes of one class in a text, left to right, building the mask of each
    /// block of [`BLOCK`] bytes (at multiples of [`BLOCK`]) once.
    pub struct Finder<'t, C> {
        text: &'t [u8],
        class: C,
        /// The block last built: its start and mask.
        block: Option<(usize, u64)>,
    }

    impl<'t, C: Fn(u8) -> bool + Copy> Finder<'t, C> {
        pub fn new(text: &'t [u8], class: C) -> Self {
            Finder {
                text,
                class,
                block: None,
            }
        }

        /// The first index at or after `from` whose byte is in the class, or the
        /// length of the text.
        #[inline]
        pub fn next(&mut self, from: usize) -> usize {
            let mut pos = from;
            while pos < self.text.len() {
                let base = pos - pos % BLOCK;
                let mask = match self.block {
                    Some((start, mask)) if start == base => mask,
                    _ => {
                        let mask = at(self.text, base, self.class);
                        self.block = Some((base, mask));
                        mask
                    }
                };
                let ahead = mask >> (pos - base);
                if ahead != 0 {
                    return pos + ahead.trailing_zeros() as usize;
                }
                pos = base + BLOCK;
            }
            self.text.len()
        }
    }
}

/// `[0-9A-Za-z_]`: the word characters of the regex's ASCII word boundary `(?-u:\b)`.
pub(super) fn is_ascii_word_byte(c: u8) -> bool {
    // Written as arithmetic, so that the loops of `masks` vectorise: `| 0x20` lower-cases
    // ASCII letters and maps no other byte into `a..=z`.
    (c | 0x20).wrapping_sub(b'a') < 26 || c.wrapping_sub(b'0') < 10 || c == b'_'
}

/// The phrases of the ASCII word alternatives of [`WORD_RE`], grouped by their first
/// word (in the regex's order within a group), in a small open-addressing hash table
/// keyed by the lower-cased first word packed into a `u128`. A filter on the length and
/// the first and last letters of the first words turns most words of a text away before
/// any hashing.
pub(super) struct WordIndex {
    /// `(key, group)`; key 0 marks an empty slot (no word packs to 0).
    slots: Vec<(u128, usize)>,
    groups: Vec<Vec<&'static str>>,
    /// For each first letter and length, the set of last letters (bit 0: `a`).
    filter: Vec<u32>,
    /// The length of the shortest first word.
    min_len: usize,
}

/// The longest first word [`WordIndex`] can hold: the bytes of a `u128`.
pub(super) const MAX_WORD_LEN: usize = 16;

/// Slots in [`WordIndex`]: a power of two, at least twice the number of words.
pub(super) const WORD_SLOTS: usize = 512;

impl WordIndex {
    pub(super) fn build() -> Self {
        let mut index = WordIndex {
            slots: vec![(0, 0); WORD_SLOTS],
            groups: Vec::new(),
            filter: vec![0; 26 * (MAX_WORD_LEN + 1)],
            min_len: MAX_WORD_LEN,
        };
        for phrase in SUPERLATIVE_WORDS.iter().chain(MAGNITUDE_WORDS) {
            let first = phrase.split(' ').next().unwrap_or(phrase);
            let Some(key) = word_key(first.as_bytes()) else {
                continue;
            };
            if let Some((k, bit)) = Self::filter_entry(first.as_bytes()) {
                index.filter[k] |= bit;
            }
            index.min_len = index.min_len.min(first.len());
            let slot = index.slot(key);
            if index.slots[slot].0 == key {
                index.groups[index.slots[slot].1].push(*phrase);
            } else {
                index.slots[slot] = (key, index.groups.len());
                index.groups.push(vec![*phrase]);
            }
        }
        index
    }

    /// Where a word's first letter and length sit in `filter`, and its last letter's bit.
    /// `None` for a word that is too long or does not start and end with a letter.
    pub(super) fn filter_entry(word: &[u8]) -> Option<(usize, u32)> {
        // `| 0x20` lower-cases an ASCII letter; digits and `_` stay non-letters.
        let first = word.first()? | 0x20;
        let last = word.last()? | 0x20;
        let letters = first.is_ascii_lowercase() && last.is_ascii_lowercase();
        (letters && word.len() <= MAX_WORD_LEN).then(|| {
            let k = usize::from(first - b'a') * (MAX_WORD_LEN + 1) + word.len();
            (k, 1 << (last - b'a'))
        })
    }

    /// The bits of `run_starts` (starts of runs of word characters in a block, whose
    /// mask is `word`) whose runs are at least as long as the shortest first word. Bits
    /// shifted in past the block's end count as word characters: a run there may go on.
    pub(super) fn long_enough(&self, run_starts: u64, word: u64) -> u64 {
        (1..self.min_len).fold(run_starts, |starts, k| {
            starts & ((word >> k) | !(u64::MAX >> k))
        })
    }

    /// Whether `word` may be the first word of a phrase (no false negatives).
    pub(super) fn may_start(&self, word: &[u8]) -> bool {
        Self::filter_entry(word).is_some_and(|(k, bit)| self.filter[k] & bit != 0)
    }

    /// The slot holding `key`, or the empty slot where it would go.
    pub(super) fn slot(&self, key: u128) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64);
        let mut slot = (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % WORD_SLOTS;
        while self.slots[slot].0 != key && self.slots[slot].0 != 0 {
            slot = (slot + 1) % WORD_SLOTS;
        }
        slot
    }

    /// Where the ASCII word alternative of [`WORD_RE`] that matches at `start` ends, if
    /// one does; `start..run` is a maximal run of ASCII word characters.
    pub(super) fn match_at(&self, s: &str, start: usize, run: usize) -> Option<usize> {
        ascii_word_match(s, start, run, self)
    }

    /// The phrases whose first word packs to `key`, in the regex's order.
    pub(super) fn phrases(&self, key: u128) -> &[&'static str] {
        let (k, group) = self.slots[self.slot(key)];
        if k == key {
            &self.groups[group]
        } else {
            &[]
        }
    }
}

pub(super) static WORD_INDEX: LazyLock<WordIndex> = LazyLock::new(WordIndex::build);

/// A word of ASCII letters, lower-cased and packed into a `u128` (little-endian), or
/// `None` if it has another character or more than [`MAX_WORD_LEN`] bytes.
pub(super) fn word_key(word: &[u8]) -> Option<u128> {
    if word.len() > MAX_WORD_LEN {
        return None;
    }
    let mut key = 0u128;
    for (k, &c) in word.iter().enumerate() {
        if !c.is_ascii_alphabetic() {
            return None;
        }
        // `| 0x20` lower-cases an ASCII letter.
        key |= u128::from(c | 0x20) << (8 * k);
    }
    Some(key)
}

/// Where the ASCII word alternative of [`WORD_RE`] that matches at `start` ends, if one
/// does; `start..run` is a maximal run of ASCII word characters. A phrase's spaces match
/// any run of whitespace, and its last word must end at a word boundary.
pub(super) fn ascii_word_match(
    s: &str,
    start: usize,
    run: usize,
    index: &WordIndex,
) -> Option<usize> {
    let b = s.as_bytes();
    if !index.may_start(&b[start..run]) {
        return None;
    }
    let key = word_key(&b[start..run])?;
    index.phrases(key).iter().find_map(|phrase| {
        let mut end = run;
        for part in phrase.split(' ').skip(1) {
            let gap = s[end..]
                .char_indices()
                .find(|(_, c)| !c.is_whitespace())
                .map_or(s.len() - end, |(k, _)| k);
            let next = end + gap;
            let len = b[next..]
                .iter()
                .take_while(|&&c| is_ascii_word_byte(c))
                .count();
            if gap == 0 || !b[next..next + len].eq_ignore_ascii_case(part.as_bytes()) {
                return None;
            }
            end = next + len;
        }
        Some(end)
    })
}

/// Where the CJK alternative of [`WORD_RE`] that matches at `i` (where the char `c`
/// starts) ends, if one does. In the regex's order: a numeral (optional) and `万元` or
/// `亿元`; the CJK words of [`CJK_WORD_RULES`] but `万`; a numeral and `万`.
pub(super) fn cjk_word_match(s: &str, i: usize, c: char, starts: &CjkStarts) -> Option<usize> {
    if !starts.any.contains(c) {
        return None;
    }
    let after = i + c.len_utf8();
    let numeral = starts.numerals.contains(c);
    if numeral {
        if let Some(unit) = ["万元", "亿元"].iter().find(|u| s[after..].starts_with(*u)) {
            return Some(after + unit.len());
        }
    }
    let rest = &s[i..];
    if let Some(word) = starts
        .words
        .iter()
        .find(|(first, w)| *first == c && rest.starts_with(w))
    {
        return Some(i + word.1.len());
    }
    (numeral && s[after..].starts_with('万')).then(|| after + '万'.len_utf8())
}

/// What [`cjk_word_match`] looks up: the chars a match can start with, the numerals, and
/// the CJK words of [`CJK_WORD_RULES`] but `万` (in order, each with its first char).
pub(super) struct CjkStarts {
    any: CharSet,
    numerals: CharSet,
    words: Vec<(char, &'static str)>,
}

impl CjkStarts {
    pub(super) fn build() -> Self {
        let words: Vec<(char, &'static str)> = CJK_WORD_RULES
            .iter()
            .filter(|(w, _)| *w != "万")
            .filter_map(|(w, _)| Some((w.chars().next()?, *w)))
            .collect();
        CjkStarts {
            any: CharSet::of(CJK_NUMERALS.chars().chain(words.iter().map(|(c, _)| *c))),
            numerals: CharSet::of(CJK_NUMERALS.chars()),
            words,
        }
    }
}

/// A set of chars, as a bitmap indexed by code point.
pub(super) struct CharSet(Vec<u64>);

impl CharSet {
    pub(super) fn of(chars: impl Iterator<Item = char> + Clone) -> Self {
        let words = chars
            .clone()
            .map(|c| c as usize / 64 + 1)
            .max()
            .unwrap_or(0);
        let mut bits = vec![0u64; words];
        for c in chars {
            let k = c as usize;
            bits[k / 64] |= 1 << (k % 64);
        }
        CharSet(bits)
    }

    pub(super) fn contains(&self, c: char) -> bool {
        self.contains_code(c as usize)
    }

    /// Whether the code point `k` is in the set.
    pub(super) fn contains_code(&self, k: usize) -> bool {
        self.0
            .get(k / 64)
            .is_some_and(|word| word & (1 << (k % 64)) != 0)
    }
}

pub(super) static CJK_WORD_STARTS: LazyLock<CjkStarts> = LazyLock::new(CjkStarts::build);

pub(super) fn word_signal(s: &str, a: usize, e: usize) -> Option<ClaimSignal> {
    let word = &s[a..e];
    if word == "#1" {
        return Some(ClaimSignal::Superlative);
    }
    if !word.is_ascii() {
        return cjk_word_signal(s, word, e);
    }
    let mut buf = [0u8; 32];
    let key = normalize_key(word, &mut buf)?;
    if MAGNITUDE_WORDS.contains(&key) {
        // "5 million" is one figure, classified by the figure scanner.
        if s[..a].trim_end().ends_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        return Some(if money_after(&s[e..]) {
            ClaimSignal::Money
        } else {
            ClaimSignal::Number
        });
    }
    if SUPERLATIVE_WORDS.contains(&key) && !superlative_excepted(s, key, a, e) {
        return Some(ClaimSignal::Superlative);
    }
    None
}

/// Lower-cases a matched phrase and collapses its inner whitespace, into `buf`.
pub(super) fn normalize_key<'b>(word: &str, buf: &'b mut [u8; 32]) -> Option<&'b str> {
    let mut n = 0;
    let mut space = false;
    for c in word.bytes() {
        if c.is_ascii_whitespace() {
            space = true;
            continue;
        }
        if space {
            *buf.get_mut(n)? = b' ';
            n += 1;
            space = false;
        }
        *buf.get_mut(n)? = c.to_ascii_lowercase();
        n += 1;
    }
    std::str::from_utf8(&buf[..n]).ok()
}

pub(super) fn superlative_excepted(s: &str, key: &str, a: usize, e: usize) -> bool {
    SUPERLATIVE_EXCEPTIONS
        .iter()
        .filter(|(word, _, _)| *word == key)
        .any(|(_, before, after)| {
            let head = &s[..a];
            let before_ok = match *before {
                "" => true,
                "^" => head
                    .trim_matches(|c: char| c.is_whitespace() || c == '*' || c == '_')
                    .is_empty(),
                b => ends_with_ignore_case(head, b),
            };
            before_ok && starts_with_ignore_case(&s[e..], after)
        })
}

pub(super) fn ends_with_ignore_case(s: &str, suffix: &str) -> bool {
    s.len() >= suffix.len()
        && s.is_char_boundary(s.len() - suffix.len())
        && s[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

pub(super) fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len()
        && s.is_char_boundary(prefix.len())
        && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

pub(super) fn cjk_word_signal(s: &str, word: &str, e: usize) -> Option<ClaimSignal> {
    let (_, signal) = CJK_WORD_RULES.iter().find(|(w, _)| word.ends_with(w))?;
    if word == "最" && s[e..].starts_with(CJK_NOT_SUPERLATIVE_AFTER) {
        return None;
    }
    Some(*signal)
}

/// Quotations of at least three words (CJK: four characters).
pub(super) fn scan_quotations(s: &str, found: &mut SignalSet) {
    let mut i = 0;
    // Every opening quote starts with `"` or the lead byte 0xE2 (`“`) or 0xE3 (`「『`), so
    // the chars between two of those bytes can be passed over unread.
    while let Some(k) = memchr::memchr3(b'"', 0xE2, 0xE3, &s.as_bytes()[i..]) {
        i += k;
        let Some(c) = s[i..].chars().next() else {
            return;
        };
        let close = match c {
            '"' => Some('"'),
            '“' => Some('”'),
            '「' => Some('」'),
            '『' => Some('』'),
            _ => None,
        };
        i += c.len_utf8();
        let Some(close) = close else { continue };
        let Some(len) = s[i..].find(close) else {
            continue;
        };
        if long_quotation(&s[i..i + len]) {
            found.add(ClaimSignal::Quotation);
            return;
        }
        i += len + close.len_utf8();
    }
}

pub(super) fn long_quotation(inner: &str) -> bool {
    let mut counts = Counts::with_cap(FRAGMENT_CAP);
    counts.feed(inner);
    counts.separate();
    counts.words >= 3 || counts.cjk >= 4
}
