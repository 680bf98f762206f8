//! The parts of a page that speak to a claim. A page is cut into sentences (at `.`, `!`,
//! `?` before a space and a capital or digit, and at line breaks), each tokenised once;
//! the sentences are ranked against the claim's content words with BM25 (Robertson's
//! k1 = 1.2, b = 0.75, document frequencies from the page itself), and the best ones are
//! widened by a sentence on each side into the [`Window`]s the scorer reads.

use super::text::{tokenize, Token};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A page cut into tokenised sentences.
#[derive(Debug, Clone)]
pub struct Page<'a> {
    /// The sentences, in order, as slices of the page's text.
    pub sentences: Vec<&'a str>,
    /// Their tokens.
    pub tokens: Vec<Vec<Token>>,
    /// The sentences of each text the page was made of (index ranges).
    pub parts: Vec<std::ops::Range<usize>>,
    /// Its words, numbers, dates and names, for what it never mentions.
    pub index: super::missing::PageIndex,
}

/// A run of sentences around one that matches the claim well.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// The first sentence (index into [`Page::sentences`]).
    pub first: usize,
    /// One past the last sentence.
    pub end: usize,
    /// The sentence the window was found by.
    pub center: usize,
    /// Its BM25 score against the claim.
    pub score: f64,
}

const K1: f64 = 1.2;
const B: f64 = 0.75;

impl<'a> Page<'a> {
    /// `texts` (the page, or several evidence passages) cut into sentences.
    pub fn new(texts: &[&'a str]) -> Page<'a> {
        let mut sentences = Vec::new();
        let mut parts = Vec::with_capacity(texts.len());
        for text in texts {
            let first = sentences.len();
            split_sentences(text, &mut sentences);
            parts.push(first..sentences.len());
        }
        let tokens = sentences.iter().map(|s| tokenize(s)).collect();
        let index = super::missing::PageIndex::new(texts.iter().copied());
        Page {
            sentences,
            tokens,
            parts,
            index,
        }
    }

    /// Whether the page has no sentence at all.
    pub fn is_empty(&self) -> bool {
        self.sentences.is_empty()
    }

    /// The `count` best windows for the content stems `query`, best first; windows do
    /// not share their center sentence.
    pub fn best_windows(&self, query: &[&str], count: usize) -> Vec<Window> {
        let scores = self.bm25(query);
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        order
            .into_iter()
            .take(count)
            .map(|center| Window {
                first: center.saturating_sub(1),
                end: (center + 2).min(self.sentences.len()),
                center,
                score: scores[center],
            })
            .collect()
    }

    /// The BM25 score of every sentence for `query`.
    pub fn bm25(&self, query: &[&str]) -> Vec<f64> {
        let n = self.tokens.len();
        if n == 0 {
            return Vec::new();
        }
        let wanted: HashSet<&str> = query.iter().copied().collect();
        let mut df: HashMap<&str, usize> = HashMap::new();
        let mut lengths = Vec::with_capacity(n);
        for sentence in &self.tokens {
            lengths.push(sentence.len() as f64);
            let mut seen: HashSet<&str> = HashSet::new();
            for token in sentence {
                if wanted.contains(token.stem.as_str()) && seen.insert(&token.stem) {
                    *df.entry(&token.stem).or_default() += 1;
                }
            }
        }
        let average = (lengths.iter().sum::<f64>() / n as f64).max(1.0);
        self.tokens
            .iter()
            .zip(&lengths)
            .map(|(sentence, &length)| {
                // Ordered, so that the sum is the same float on every run.
                let mut tf: BTreeMap<&str, f64> = BTreeMap::new();
                for token in sentence {
                    if wanted.contains(token.stem.as_str()) {
                        *tf.entry(&token.stem).or_default() += 1.0;
                    }
                }
                tf.iter()
                    .map(|(term, &f)| {
                        let d = df.get(term).copied().unwrap_or(0) as f64;
                        let idf = ((n as f64 - d + 0.5) / (d + 0.5) + 1.0).ln();
                        idf * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * length / average))
                    })
                    .sum()
            })
            .collect()
    }

    /// The tokens of `window`, in order.
    pub fn window_tokens(&self, window: &Window) -> impl Iterator<Item = &Token> {
        self.tokens[window.first..window.end].iter().flatten()
    }
}

/// Appends the sentences of `text` to `out`.
fn split_sentences<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let ends = match b {
            b'\n' => true,
            b'.' | b'!' | b'?' => {
                bytes.get(i + 1) == Some(&b' ')
                    && text[i + 2..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit() || c == '[')
            }
            _ => false,
        };
        if ends {
            push_sentence(&text[start..=i], out);
            start = i + 1;
        }
        i += 1;
    }
    push_sentence(&text[start..], out);
}

fn push_sentence<'a>(sentence: &'a str, out: &mut Vec<&'a str>) {
    let sentence = sentence.trim();
    if sentence.chars().any(char::is_alphanumeric) {
        out.push(sentence);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_split_into_sentences() {
        let page =
            Page::new(&["Deploys stop on Fridays. Version 2.1 shipped.\nA new line! And 3 more."]);
        assert_eq!(
            page.sentences,
            [
                "Deploys stop on Fridays.",
                "Version 2.1 shipped.",
                "A new line!",
                "And 3 more."
            ]
        );
        assert!(Page::new(&["", "  \n "]).is_empty());
    }

    #[test]
    fn the_matching_sentence_ranks_first_and_is_widened() {
        let page = Page::new(&[
            "Our office is in Leeds. The cafeteria opens at nine. Deploys are frozen on Fridays by policy. Holidays follow the calendar.",
        ]);
        let windows = page.best_windows(&["deploy", "frozen", "friday"], 2);
        assert_eq!(windows[0].center, 2);
        assert_eq!((windows[0].first, windows[0].end), (1, 4));
        assert!(windows[0].score > windows[1].score);
    }
}
