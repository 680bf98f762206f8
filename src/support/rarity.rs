//! How much a word tells: the rarer a word is in English at large, the more a claim
//! rests on it. "Beulah" or "malpositioned" on the page says far more than "company"
//! or "year" does. Frequencies come from a general list, not from the claims being
//! judged, so that a word weighs the same whatever corpus it comes from.
//!
//! The list is `english_zipf.txt` beside this file. It holds wordfreq 3.1.1's `small_en`
//! list (Robyn Speer, CC BY-SA 4.0): 28,511 words at or above Zipf 3, meaning once per
//! million words. Wikipedia, subtitles, news, books, the web, Twitter and Reddit are
//! blended into it (docs/support.md cites it).
//!
//! A word's weight is its information in log10 units, `9 − Zipf`: "the" weighs 1.3,
//! "company" about 3.7, and a word absent from the list weighs [`UNLISTED_WEIGHT`].
//! The table is keyed by Snowball stem, the way the scorer compares words, with the
//! frequencies of one stem's forms added together. It is built once, on first use.

use super::text::stem;
use std::collections::HashMap;
use std::sync::LazyLock;

/// The list: lines of `ZIPF word word …`; `#` lines are comments.
const LIST: &str = include_str!("english_zipf.txt");

/// The weight of a word the list does not hold (rarer than Zipf 3): a name, a figure,
/// a technical term. It is set to Zipf 2.5.
pub const UNLISTED_WEIGHT: f64 = 6.5;

/// Occurrences per billion words, by stem.
static TABLE: LazyLock<HashMap<String, f64>> = LazyLock::new(|| {
    let mut table: HashMap<String, f64> = HashMap::with_capacity(24_000);
    for line in LIST.lines().filter(|l| !l.starts_with('#')) {
        let mut fields = line.split(' ');
        let Some(zipf) = fields.next().and_then(|z| z.parse::<f64>().ok()) else {
            continue;
        };
        let per_billion = 10f64.powf(zipf);
        for word in fields.filter(|w| !w.is_empty()) {
            *table.entry(stem(word)).or_default() += per_billion;
        }
    }
    table
});

/// The Zipf frequency of a stem (log10 of occurrences per billion words), `None` when
/// the list does not hold it.
pub fn zipf(stem: &str) -> Option<f64> {
    TABLE.get(stem).map(|per_billion| per_billion.log10())
}

/// How much a stem tells: `9 − Zipf`, at least 0.5; [`UNLISTED_WEIGHT`] when unlisted.
pub fn weight(stem: &str) -> f64 {
    zipf(stem).map_or(UNLISTED_WEIGHT, |z| (9.0 - z).max(0.5))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_words_weigh_less_than_rare_ones() {
        let of = |word: &str| weight(&stem(word));
        assert!(of("the") < of("company"), "{} {}", of("the"), of("company"));
        assert!(of("company") < of("malpositioned"));
        assert!(of("year") < of("archipelago"));
        assert_eq!(of("zzyzxq"), UNLISTED_WEIGHT);
    }

    #[test]
    fn the_forms_of_a_word_share_one_frequency() {
        let years = zipf(&stem("years")).expect("listed");
        let year = zipf(&stem("year")).expect("listed");
        assert_eq!(years, year);
        assert!(years > 5.5 && years < 7.0, "{years}");
    }

    #[test]
    fn the_list_is_read_whole() {
        assert!(TABLE.len() > 15_000, "{} stems", TABLE.len());
        assert!(TABLE.values().all(|v| v.is_finite() && *v >= 999.0));
    }
}
