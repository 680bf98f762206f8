//! What scoring computes about sources and the answer: each source's credibility and
//! what it is made of (source type, published rating, page signals, search score), and
//! the answer's confidence. Filled in by `crate::score`; the data lives in the model so
//! that the model depends on no stage.

use serde::{Deserialize, Serialize};

/// A source's credibility and what it is made of.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceCredibility {
    /// The final score, 0.0–1.0.
    pub value: f64,
    /// The starting score (domain tier, kind or agent registry; 0.0 without a URL).
    pub base: f64,
    /// Where the base came from: `domain`, `kind`, `agent` or `no_url`.
    pub base_from: String,
    /// What the verdict added or took.
    pub verification: f64,
    /// The agent's own confidence, if it gave one (clamped to 0–1).
    pub agent_confidence: Option<f64>,
    /// For search-results input: the result's search score and its parts (domain,
    /// recency, snippet, position); `null` otherwise.
    #[serde(default)]
    pub search: Option<SearchComponents>,
    /// What kind of publication the source is (`unknown` when nothing says, and for
    /// sources that are not web pages).
    #[serde(default)]
    pub source_type: SourceType,
    /// The published quality rating of its domain (0–1), when a ratings file is loaded
    /// and rates it; `null` otherwise.
    #[serde(default)]
    pub rating: Option<f64>,
    /// What the credibility model's other signals (the rating, the source type, the
    /// path depth) added to the domain tier's score, already in `base`; 0 when the
    /// base is not from the domain or the model is off.
    #[serde(default)]
    pub adjustment: f64,
}

/// What kind of publication a source is, judged from its URL and, when its page was
/// read, from what the page says about itself.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum SourceType {
    /// A peer-reviewed journal, a scholarly publisher or a preprint server.
    Journal,
    /// A government, intergovernmental or standards body.
    Government,
    /// A university or other academic institution (not its journals).
    Academic,
    /// An encyclopedia or dictionary.
    Encyclopedia,
    /// A product's or project's official documentation.
    Documentation,
    /// A news organisation.
    News,
    /// A company's own pages.
    Company,
    /// A forum or question-and-answer site.
    Forum,
    /// A personal blog or blog platform.
    Blog,
    /// A social-media post or profile, or a video platform.
    Social,
    /// A content farm, essay mill or homework-answer site.
    ContentFarm,
    /// A commercial landing page: a shop, a product or pricing page.
    Landing,
    /// Nothing says which.
    #[default]
    Unknown,
}

impl SourceType {
    /// Every type, in the order above.
    pub const ALL: [SourceType; 13] = [
        SourceType::Journal,
        SourceType::Government,
        SourceType::Academic,
        SourceType::Encyclopedia,
        SourceType::Documentation,
        SourceType::News,
        SourceType::Company,
        SourceType::Forum,
        SourceType::Blog,
        SourceType::Social,
        SourceType::ContentFarm,
        SourceType::Landing,
        SourceType::Unknown,
    ];

    /// The name used in JSON and settings (`journal`, `content_farm`…).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceType::Journal => "journal",
            SourceType::Government => "government",
            SourceType::Academic => "academic",
            SourceType::Encyclopedia => "encyclopedia",
            SourceType::Documentation => "documentation",
            SourceType::News => "news",
            SourceType::Company => "company",
            SourceType::Forum => "forum",
            SourceType::Blog => "blog",
            SourceType::Social => "social",
            SourceType::ContentFarm => "content_farm",
            SourceType::Landing => "landing",
            SourceType::Unknown => "unknown",
        }
    }
}

/// What a fetched page shows about itself: signals of care that a reader would look
/// for. Read from the page's markup (meta tags, structured data) and its text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageSignals {
    /// The page names an author (a byline, an `author` meta tag or structured data).
    pub author: bool,
    /// When the page says it was published, as `YYYY-MM-DD` (or `YYYY-MM`, `YYYY`).
    pub published: Option<String>,
    /// When the page says it was last updated, in the same form.
    pub updated: Option<String>,
    /// References to other sources: entries of a references section, DOIs, and
    /// citation markers in the text.
    pub references: usize,
    /// The page mentions a corrections policy or carries a correction notice.
    pub corrections: bool,
    /// Advertising slots in the markup (ad containers, ad-network scripts and frames).
    pub ad_slots: usize,
    /// Scholarly metadata (`citation_title`, `citation_doi`, `dc.identifier`…): the page
    /// presents itself as a scholarly article.
    pub scholarly: bool,
    /// Words in the page's main text (to put `ad_slots` and `references` in proportion).
    pub words: usize,
}

/// A search result's component scores and value, without the result itself: what a
/// source collected from search-results input carries beside its credibility.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchComponents {
    /// Reputation of the link's domain.
    pub domain: f64,
    /// How recent the result is.
    pub recency: f64,
    /// How informative the snippet is.
    pub snippet: f64,
    /// Rank score.
    pub position: f64,
    /// `0.4·domain + 0.3·recency + 0.2·snippet + 0.1·position`, rounded to 4 decimals.
    pub value: f64,
    /// Whether `value` is above the search-score threshold
    /// (`crate::score::search::DEFAULT_CREDIBILITY_THRESHOLD`).
    pub above_threshold: bool,
}

/// The answer's confidence and its parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerConfidence {
    /// `credibility × mean + diversity × diversity`, clamped; exactly 0.0 without
    /// citations.
    pub value: f64,
    /// `high` (≥ 0.85), `medium` (≥ 0.6) or `low`; `not checked` when none of the
    /// answer's sources could be checked and none of its pages read (the value is then
    /// at most 0.59).
    pub label: String,
    /// The mean credibility of the cited sources.
    pub mean_credibility: f64,
    /// Unique registrable domains over cited sources, at most 1.0.
    pub diversity: f64,
    /// Cited sources.
    pub sources: usize,
    /// Unique registrable domains among them.
    pub domains: usize,
    /// The share of claims that cite a source (1.0 when there are no claims).
    pub coverage: f64,
    /// After a support check: the share of judged claims that a cited page supports
    /// (fully or partly). `None` when no claim was judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported_share: Option<f64>,
}
