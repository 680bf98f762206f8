//! What the support scorer measures between a claim and the passages that best match
//! it: how many of the claim's content words, word pairs, numbers and names the
//! passages contain, the longest run of the claim's words they repeat in order, whether
//! one side negates what the other states, how strongly the best sentence matches, and
//! which of its numbers, dates and names the page never mentions ([`super::missing`]),
//! how much of the claim the passages hold when each word is weighed by how rare it is
//! in English ([`super::rarity`]), whether the claim's names and figures stand together
//! in one passage, and whether a negation stands next to the words the passage shares
//! with the claim. Each measure is a plain number in [`FEATURE_NAMES`] order, so the fitted model in
//! [`super::model`] can weigh them.

use super::passages::{Page, Window};
use super::text::{tokenize, Token};
use std::collections::HashSet;

/// How many features there are.
pub const FEATURE_COUNT: usize = 24;

/// The names of the features, in the order [`features`] returns them.
pub const FEATURE_NAMES: [&str; FEATURE_COUNT] = [
    "recall_best",
    "recall_top3",
    "recall_page",
    "bigram_recall_top3",
    "longest_run",
    "numbers_found",
    "numbers_missing",
    "names_found",
    "negation_mismatch",
    "bm25_best_per_term",
    "claim_words_log",
    "best_window_share",
    "recall_best_part",
    "unmatched_words_log",
    "page_words_log",
    "long_word_recall",
    "missing_salient_log",
    "missing_any",
    "rule_missing_log",
    "rare_recall_best",
    "rare_recall_top3",
    "rare_recall_page",
    "salient_together",
    "negation_near",
];

/// The direction each feature may push the score in (1: more means more support, -1:
/// less, 0: either), in [`FEATURE_NAMES`] order. The fitted model keeps to them, so
/// that less overlap never raises the score, however the features lean on each other.
pub const FEATURE_SIGNS: [i8; FEATURE_COUNT] = [
    1, 1, 1, 1, 1, 1, -1, 1, -1, 1, 0, 0, 1, -1, 0, 1, -1, -1, -1, 1, 1, 1, 1, -1,
];

/// The index of `recall_page` in [`FEATURE_NAMES`].
pub const RECALL_PAGE: usize = 2;

/// How many of the best windows make the "top 3" measures.
const TOP: usize = 3;

/// What the passages say about one claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The feature values, in [`FEATURE_NAMES`] order.
    pub values: [f64; FEATURE_COUNT],
    /// The claim's salient words the page never mentions
    /// ([`super::missing::missing_words`]).
    pub missing: Vec<String>,
    /// The best window (its sentences), to quote; `None` when the page has no text.
    pub best: Option<Window>,
    /// The claim's figures that the best window gives differently
    /// ([`super::differs::differs_in`]).
    pub differs: Vec<crate::model::Differ>,
}

/// The claim's tokens that carry content (not stop words).
fn content(tokens: &[Token]) -> Vec<&Token> {
    tokens.iter().filter(|t| !t.stop).collect()
}

/// The share of `wanted` found in `have` (1 when nothing is wanted).
fn recall<'a>(wanted: impl IntoIterator<Item = &'a str>, have: &HashSet<&str>) -> (f64, usize) {
    let mut total = 0usize;
    let mut found = 0usize;
    let mut seen = HashSet::new();
    for word in wanted {
        if !seen.insert(word) {
            continue;
        }
        total += 1;
        if have.contains(word) {
            found += 1;
        }
    }
    if total == 0 {
        (1.0, 0)
    } else {
        (found as f64 / total as f64, total)
    }
}

/// Measures `claim` against `page`.
pub fn features(claim: &str, page: &Page<'_>) -> Measured {
    let claim_tokens = tokenize(claim);
    let claim_content = content(&claim_tokens);
    let query: Vec<&str> = claim_content.iter().map(|t| t.stem.as_str()).collect();
    let windows = page.best_windows(&query, TOP);
    let best = windows.first().cloned();

    let best_stems: HashSet<&str> = best
        .as_ref()
        .map(|w| page.window_tokens(w).map(|t| t.stem.as_str()).collect())
        .unwrap_or_default();
    let top_tokens: Vec<&Token> = windows.iter().flat_map(|w| page.window_tokens(w)).collect();
    let top_stems: HashSet<&str> = top_tokens.iter().map(|t| t.stem.as_str()).collect();
    let page_stems: HashSet<&str> = page
        .tokens
        .iter()
        .flatten()
        .map(|t| t.stem.as_str())
        .collect();

    let (recall_best, _) = recall(query.iter().copied(), &best_stems);
    let (recall_top3, _) = recall(query.iter().copied(), &top_stems);
    let (recall_page, words) = recall(query.iter().copied(), &page_stems);

    let claim_pairs = pairs(&claim_content);
    let top_pairs: HashSet<(String, String)> = windows
        .iter()
        .flat_map(|w| {
            let tokens: Vec<&Token> = page.window_tokens(w).filter(|t| !t.stop).collect();
            pairs(&tokens)
        })
        .collect();
    let bigram_recall_top3 = if claim_pairs.is_empty() {
        recall_top3
    } else {
        claim_pairs
            .iter()
            .filter(|p| top_pairs.contains(*p))
            .count() as f64
            / claim_pairs.len() as f64
    };

    let longest_run = longest_run(&claim_content, &top_tokens) as f64 / query.len().max(1) as f64;

    let numbers: Vec<&str> = claim_content
        .iter()
        .filter(|t| t.number && !looks_like_list_index(&t.stem))
        .map(|t| t.stem.as_str())
        .collect();
    let (numbers_found, number_count) = recall(numbers.iter().copied(), &top_stems);
    let numbers_missing = if number_count == 0 {
        0.0
    } else {
        (1.0 - numbers_found) * (number_count as f64).min(3.0)
    };
    let (names_found, _) = recall(
        claim_content
            .iter()
            .filter(|t| t.name)
            .map(|t| t.stem.as_str()),
        &top_stems,
    );

    let claim_negated = claim_tokens.iter().filter(|t| t.negation).count() % 2 == 1;
    let best_negated = best
        .as_ref()
        .map(|w| page.tokens[w.center].iter().filter(|t| t.negation).count() % 2 == 1)
        .unwrap_or(false);
    let negation_mismatch = if claim_negated != best_negated {
        1.0
    } else {
        0.0
    };

    let bm25_best_per_term = best
        .as_ref()
        .map(|w| w.score / query.len().max(1) as f64)
        .unwrap_or(0.0);
    let total_score: f64 = windows.iter().map(|w| w.score).sum();
    let best_window_share = match &best {
        Some(w) if total_score > 0.0 => w.score / total_score,
        _ => 0.0,
    };

    let recall_best_part = page
        .parts
        .iter()
        .map(|part| {
            let stems: HashSet<&str> = page.tokens[part.clone()]
                .iter()
                .flatten()
                .map(|t| t.stem.as_str())
                .collect();
            recall(query.iter().copied(), &stems).0
        })
        .fold(0.0, f64::max);
    let unmatched = query
        .iter()
        .collect::<HashSet<_>>()
        .iter()
        .filter(|w| !page_stems.contains(**w))
        .count();
    let page_words: usize = page.tokens.iter().map(Vec::len).sum();
    let (long_word_recall, _) = recall(
        claim_content
            .iter()
            .filter(|t| !t.number && t.stem.chars().count() >= 7)
            .map(|t| t.stem.as_str()),
        &page_stems,
    );

    let rare_recall_best = rare_recall(&query, &best_stems);
    let rare_recall_top3 = rare_recall(&query, &top_stems);
    let rare_recall_page = rare_recall(&query, &page_stems);
    let salient: Vec<&str> = claim_content
        .iter()
        .filter(|t| t.name || (t.number && !looks_like_list_index(&t.stem)))
        .map(|t| t.stem.as_str())
        .collect();
    let salient_together = together(&salient, page);
    let negation_near = match &best {
        Some(window) => {
            let near = negated_near(page, window, &query);
            if claim_negated != near {
                1.0
            } else {
                0.0
            }
        }
        None => 0.0,
    };

    let missing = super::missing::missing_words(claim, &page.index);
    let differs = match &best {
        // Only a figure the whole page lacks: one it has elsewhere is not contradicted.
        Some(window) if !missing.is_empty() => super::differs::differs_in(claim, page, window)
            .into_iter()
            .filter(|d| missing.iter().any(|m| d.claim.contains(m.as_str())))
            .collect(),
        _ => Vec::new(),
    };
    Measured {
        differs,
        values: [
            recall_best,
            recall_top3,
            recall_page,
            bigram_recall_top3,
            longest_run,
            numbers_found,
            numbers_missing,
            names_found,
            negation_mismatch,
            bm25_best_per_term,
            ((words + 1) as f64).ln(),
            best_window_share,
            recall_best_part,
            ((unmatched + 1) as f64).ln(),
            ((page_words + 1) as f64).ln(),
            long_word_recall,
            ((missing.len() + 1) as f64).ln(),
            if missing.is_empty() { 0.0 } else { 1.0 },
            ((super::missing::rule_missing_count(claim, &page.index) + 1) as f64).ln(),
            rare_recall_best,
            rare_recall_top3,
            rare_recall_page,
            salient_together,
            negation_near,
        ],
        best,
        missing,
    }
}

/// The share of `wanted`'s weight ([`super::rarity::weight`]) that `have` holds, each
/// distinct stem once (1 when nothing is wanted).
fn rare_recall(wanted: &[&str], have: &HashSet<&str>) -> f64 {
    let mut seen = HashSet::new();
    let (mut total, mut found) = (0.0, 0.0);
    for stem in wanted.iter().copied().filter(|s| seen.insert(*s)) {
        let weight = super::rarity::weight(stem);
        total += weight;
        if have.contains(stem) {
            found += weight;
        }
    }
    if total == 0.0 {
        1.0
    } else {
        found / total
    }
}

/// The largest share of the claim's names and figures (`salient`, stems) that one
/// passage holds together: any three consecutive sentences of one part of the page.
/// 1 when the claim has none.
fn together(salient: &[&str], page: &Page<'_>) -> f64 {
    let wanted: Vec<&str> = {
        let mut seen = HashSet::new();
        salient
            .iter()
            .copied()
            .filter(|s| seen.insert(*s))
            .collect()
    };
    if wanted.is_empty() {
        return 1.0;
    }
    // Which of the wanted stems each sentence holds, as a bit set (at most 64 kept).
    let wanted = &wanted[..wanted.len().min(64)];
    let held: Vec<u64> = page
        .tokens
        .iter()
        .map(|sentence| {
            sentence.iter().fold(0u64, |bits, token| {
                match wanted.iter().position(|w| *w == token.stem) {
                    Some(i) => bits | (1 << i),
                    None => bits,
                }
            })
        })
        .collect();
    let mut best = 0u32;
    for part in &page.parts {
        for start in part.clone() {
            let end = (start + 3).min(part.end);
            let bits = held[start..end].iter().fold(0u64, |a, b| a | b);
            best = best.max(bits.count_ones());
        }
    }
    f64::from(best) / wanted.len() as f64
}

/// Whether a negation ("not", "never", "n't"…) stands within three words before a word
/// the `window` shares with the claim (`query`, its content stems).
fn negated_near(page: &Page<'_>, window: &Window, query: &[&str]) -> bool {
    let tokens: Vec<&Token> = page.window_tokens(window).collect();
    tokens.iter().enumerate().any(|(i, token)| {
        !token.negation
            && query.contains(&token.stem.as_str())
            && tokens[i.saturating_sub(3)..i].iter().any(|t| t.negation)
    })
}

/// Adjacent content-word pairs.
fn pairs(tokens: &[&Token]) -> HashSet<(String, String)> {
    tokens
        .windows(2)
        .map(|w| (w[0].stem.clone(), w[1].stem.clone()))
        .collect()
}

/// The longest run of consecutive claim content words that `passage` repeats in order
/// (its stop words skipped).
fn longest_run(claim: &[&Token], passage: &[&Token]) -> usize {
    let passage: Vec<&str> = passage
        .iter()
        .filter(|t| !t.stop)
        .map(|t| t.stem.as_str())
        .collect();
    let claim: Vec<&str> = claim.iter().map(|t| t.stem.as_str()).collect();
    if claim.is_empty() || passage.is_empty() {
        return 0;
    }
    // Longest common substring by dynamic programming over one row.
    let mut best = 0;
    let mut previous = vec![0usize; passage.len() + 1];
    let mut current = vec![0usize; passage.len() + 1];
    for word in &claim {
        for (j, other) in passage.iter().enumerate() {
            current[j + 1] = if word == other { previous[j] + 1 } else { 0 };
            best = best.max(current[j + 1]);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    best
}

/// A small whole number that is more likely a list index or footnote than a figure.
fn looks_like_list_index(number: &str) -> bool {
    number.len() == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(claim: &str, page: &str) -> [f64; FEATURE_COUNT] {
        features(claim, &Page::new(&[page])).values
    }

    #[test]
    fn a_restated_claim_measures_high_and_an_unrelated_one_low() {
        let page = "The office is in Leeds. Deploys are frozen on Fridays by the release policy. Lunch is at noon.";
        let same = measure("Deploys are frozen on Fridays [1].", page);
        let other = measure("The CEO founded the company in Boston.", page);
        assert_eq!(same[0], 1.0, "every content word in the best window");
        assert!(same[4] > 0.9, "the whole claim repeated in order");
        assert!(other[1] < 0.3);
        assert!(same[9] > other[9]);
    }

    #[test]
    fn numbers_that_clash_are_missing() {
        let page = "Sorokin et al. found 1.3 to 2.4 percent of tubes were malpositioned in 2006.";
        let agrees = measure("About 1.3 to 2.4 percent of tubes were misplaced.", page);
        let clashes = measure("About 13 to 24 percent of tubes were misplaced.", page);
        assert_eq!(agrees[5], 1.0);
        assert_eq!(clashes[5], 0.0);
        assert!(clashes[6] > agrees[6]);
    }

    #[test]
    fn negation_that_differs_is_flagged() {
        let page = "The vaccine does not cause autism, the study found.";
        assert_eq!(measure("The vaccine causes autism.", page)[8], 1.0);
        assert_eq!(measure("The vaccine does not cause autism.", page)[8], 0.0);
    }

    #[test]
    fn an_empty_page_measures_nothing() {
        let measured = features("Deploys are frozen on Fridays.", &Page::new(&[""]));
        assert!(measured.best.is_none());
        assert_eq!(measured.values[1], 0.0);
    }
}
