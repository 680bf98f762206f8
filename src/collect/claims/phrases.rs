//! Fast lookups over the word tables: phrase lists by first byte, a filter on the
//! first letters of a sentence, and sets of short words.

use super::*;

/// Whether `s` starts with one of the phrases (ASCII case-insensitive, `’` read as `'`),
/// ending at a word boundary when the phrase ends with a letter.
pub(super) fn starts_with_any(s: &str, phrases: &Phrases) -> bool {
    phrases.first_match(s).is_some()
}

/// A phrase list for [`starts_with_any`] (at most 64 phrases), indexed by first byte:
/// bit `k` of `by_first[b]` is set when phrase `k` starts with byte `b`.
pub(super) struct Phrases {
    list: &'static [&'static str],
    by_first: [u64; 256],
}

impl Phrases {
    /// The first phrase of the list (in list order) that `s` starts with, as
    /// [`starts_with_phrase`] reads it. Only the phrases that start with the right byte
    /// are tried.
    pub(super) fn first_match(&self, s: &str) -> Option<&'static str> {
        let first = s.as_bytes().first()?.to_ascii_lowercase();
        self.find(first, |p| starts_with_phrase(s, p))
    }

    /// Whether `s` starts with one of the phrases, byte for byte (case-sensitive).
    pub(super) fn any_exact_prefix(&self, s: &str) -> bool {
        s.as_bytes()
            .first()
            .is_some_and(|&first| self.find(first, |p| s.starts_with(p)).is_some())
    }

    /// The first phrase (in list order) starting with byte `first` that `matches`.
    pub(super) fn find(&self, first: u8, matches: impl Fn(&str) -> bool) -> Option<&'static str> {
        let mut bits = self.by_first[first as usize];
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(p) = self.list.get(k).filter(|p| matches(p)) {
                return Some(p);
            }
        }
        None
    }

    pub(super) const fn new(list: &'static [&'static str]) -> Self {
        assert!(list.len() <= 64, "a phrase list has at most 64 phrases");
        let mut by_first = [0u64; 256];
        let mut i = 0;
        while i < list.len() {
            if let Some(b) = list[i].as_bytes().first() {
                by_first[*b as usize] |= 1 << i;
            }
            i += 1;
        }
        Phrases { list, by_first }
    }
}

/// A quick test that says "no" only when a text starts with none of the phrases of
/// [`SIGN_OFFS`], [`GREETINGS`], [`META_PREFIXES`] and [`CONCLUSION_PREFIXES`] (as
/// [`starts_with_phrase`] reads them), from the text's first three bytes (two, for the
/// two-byte phrases) hashed into bit sets. Most sentences start with none of them.
pub(super) struct LeadFilter {
    three: [u64; 64],
    two: [u64; 64],
}

impl LeadFilter {
    pub(super) const fn new(lists: &[&[&str]]) -> Self {
        let mut filter = LeadFilter {
            three: [0; 64],
            two: [0; 64],
        };
        let mut l = 0;
        while l < lists.len() {
            let mut i = 0;
            while i < lists[l].len() {
                filter.add(lists[l][i].as_bytes());
                i += 1;
            }
            l += 1;
        }
        filter
    }

    pub(super) const fn add(&mut self, p: &[u8]) {
        assert!(
            p.len() >= 2 && p[0] != b'\'' && (p.len() >= 3 || p[1] != b'\''),
            "lead phrases have two bytes or more, and no `'` among their first two"
        );
        if p.len() < 3 {
            set_bit(&mut self.two, lead_hash(p[0], p[1], 0));
            return;
        }
        set_bit(&mut self.three, lead_hash(p[0], p[1], p[2]));
        // In a text, `’` (0xE2 0x80 0x99) may stand for a phrase's `'`.
        if p[1] == b'\'' {
            set_bit(&mut self.three, lead_hash(p[0], 0xE2, 0x80));
        }
        if p[2] == b'\'' {
            set_bit(&mut self.three, lead_hash(p[0], p[1], 0xE2));
        }
    }

    pub(super) fn may_start(&self, s: &str) -> bool {
        let low = |i: usize| s.as_bytes().get(i).map(u8::to_ascii_lowercase);
        let (Some(a), Some(b)) = (low(0), low(1)) else {
            return false;
        };
        has_bit(&self.two, lead_hash(a, b, 0))
            || low(2).is_some_and(|c| has_bit(&self.three, lead_hash(a, b, c)))
    }
}

/// A hash of three bytes into 0..4096.
pub(super) const fn lead_hash(a: u8, b: u8, c: u8) -> usize {
    let key = (a as u32) << 16 | (b as u32) << 8 | c as u32;
    (key.wrapping_mul(0x9E37_79B1) >> 20) as usize
}

pub(super) const fn set_bit(bits: &mut [u64; 64], k: usize) {
    bits[k / 64] |= 1 << (k % 64);
}

pub(super) fn has_bit(bits: &[u64; 64], k: usize) -> bool {
    bits[k / 64] & (1 << (k % 64)) != 0
}

pub(super) static LEAD_FILTER: LeadFilter = LeadFilter::new(&[
    SIGN_OFFS,
    GREETINGS,
    META_PREFIXES,
    CONCLUSION_PREFIXES,
    STAMP_PREFIXES,
]);

pub(super) static SIGN_OFF_PHRASES: Phrases = Phrases::new(SIGN_OFFS);
pub(super) static GREETING_PHRASES: Phrases = Phrases::new(GREETINGS);
pub(super) static META_PHRASES: Phrases = Phrases::new(META_PREFIXES);
pub(super) static CONCLUSION_PHRASES: Phrases = Phrases::new(CONCLUSION_PREFIXES);
pub(super) static STAMP_PHRASES: Phrases = Phrases::new(STAMP_PREFIXES);
pub(super) static PERCENT_PHRASES: Phrases = Phrases::new(PERCENT_WORDS);
pub(super) static CURRENCY_PHRASES: Phrases = Phrases::new(CURRENCY_WORDS);
pub(super) static MONEY_MAGNITUDE_PHRASES: Phrases = Phrases::new(MONEY_MAGNITUDES);
pub(super) static CJK_CURRENCY_PHRASES: Phrases = Phrases::new(CJK_CURRENCY_WORDS);

pub(super) fn starts_with_phrase(s: &str, phrase: &str) -> bool {
    // Byte by byte: an ASCII byte of the phrase matches the same byte of `s` in either
    // case, a byte of a non-ASCII char only itself (so whole chars match whole chars),
    // and `'` also matches all three bytes of `’`.
    let b = s.as_bytes();
    let mut i = 0;
    for &p in phrase.as_bytes() {
        if p == b'\'' && b[i..].starts_with("’".as_bytes()) {
            i += "’".len();
        } else if b.get(i).is_some_and(|c| c.to_ascii_lowercase() == p) {
            i += 1;
        } else {
            return false;
        }
    }
    let needs_boundary = phrase
        .as_bytes()
        .last()
        .is_some_and(u8::is_ascii_alphanumeric);
    !needs_boundary || !s[i..].chars().next().is_some_and(char::is_alphanumeric)
}

pub(super) fn contains_ignore_case(list: &[&str], word: &str) -> bool {
    list.iter().any(|w| w.eq_ignore_ascii_case(word))
}

/// A word list with the lengths of its shortest and longest words, so that words of
/// other lengths (most words before a `.`, say) are turned away without a look at the
/// list.
pub(super) struct WordSet {
    list: &'static [&'static str],
    min_len: usize,
    max_len: usize,
}

impl WordSet {
    pub(super) const fn new(list: &'static [&'static str]) -> Self {
        let (mut min_len, mut max_len) = (usize::MAX, 0);
        let mut i = 0;
        while i < list.len() {
            let len = list[i].len();
            if len < min_len {
                min_len = len;
            }
            if len > max_len {
                max_len = len;
            }
            i += 1;
        }
        WordSet {
            list,
            min_len,
            max_len,
        }
    }

    pub(super) fn fits(&self, word: &str) -> bool {
        (self.min_len..=self.max_len).contains(&word.len())
    }

    pub(super) fn contains(&self, word: &str) -> bool {
        self.fits(word) && self.list.contains(&word)
    }

    pub(super) fn contains_ignore_case(&self, word: &str) -> bool {
        self.fits(word) && contains_ignore_case(self.list, word)
    }
}

pub(super) static ALWAYS_ABBREVIATION_SET: WordSet = WordSet::new(ALWAYS_ABBREVIATIONS);
pub(super) static AMBIGUOUS_ABBREVIATION_SET: WordSet = WordSet::new(AMBIGUOUS_ABBREVIATIONS);
pub(super) static CURRENCY_CODE_SET: WordSet = WordSet::new(CURRENCY_CODES);

/// The `n` lowest bits set (`n` <= 64).
pub(super) fn low_bits(n: usize) -> u64 {
    u64::MAX.checked_shr(64 - n as u32).unwrap_or(0)
}

/// Han, kana, Hangul and CJK compatibility characters.
pub(super) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x20000..=0x2FA1F)
}
