//! Claims: the sentences of an answer, what makes them want a source, what kind of
//! statement each makes, how it was classified, and what the support check and the
//! recency check found about the pages it cites.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::Span;

/// What makes a sentence a claim that wants a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimSignal {
    /// A figure other than a list number or citation.
    Number,
    /// A year or calendar date.
    Date,
    /// A percentage.
    Percentage,
    /// An amount of money.
    Money,
    /// A quotation.
    Quotation,
    /// A superlative or record ("largest", "first", "most").
    Superlative,
}

/// A sentence of the answer and the sources it cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The sentence as a person reads it: links as their labels (or their URLs when
    /// they have none), mentions as `@name`, dates as dates, code as its code, emphasis
    /// markers dropped, whitespace collapsed; citation markers and `:emoji:` codes left
    /// as Slack shows them (see [`crate::collect::readable`]).
    pub text: String,
    /// Where the sentence stands in the answer's text as written ([`super::Answer::text`],
    /// byte offsets): the markup is there.
    pub span: Span,
    /// Ids of the sources it cites (through markers or links).
    pub cites: Vec<usize>,
    /// Why a reader would expect a source for it (empty when nothing in it asks for one).
    pub signals: Vec<ClaimSignal>,
    /// What kind of statement it makes (computed by [`crate::score`]).
    #[serde(default)]
    pub claim_type: Option<ClaimType>,
    /// How well the sources it cites suit its type, 0–1 (the mean of
    /// [`crate::score::classify::relevance`] over them; `None` when it cites nothing).
    #[serde(default)]
    pub relevance: Option<f64>,
    /// Whether each cited page says what the claim says (only after a support check,
    /// and only for sources whose page was read or tried).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub support: Vec<ClaimSupport>,
    /// How the claim was classified and which of the answer's kinds of source suit it
    /// best (computed by [`crate::score`]; `null` before scoring).
    #[serde(default)]
    pub classification: Option<ClaimClassification>,
    /// Cited pages older than a claim about the present allows (only for claims that
    /// are time-sensitive, and only among pages the support check read that give a
    /// date; computed by [`crate::score`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_sources: Vec<StaleSource>,
}

/// A cited page that is old for the time-sensitive claim citing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleSource {
    /// The source's id.
    pub source: usize,
    /// The page's latest date as it gives it (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`).
    pub dated: String,
    /// Whole days from the end of that date to the check.
    pub age_days: u64,
    /// The words of the claim that tie it to the present ("currently", "2026").
    pub because: String,
}

/// How a claim was classified, and the sources the classifier recommends for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimClassification {
    /// Who decided: `llm`, `rules` or `ml`.
    pub method: ClassificationMethod,
    /// The answer's kinds of source that suit the claim, best first, each with its
    /// relevance and a one-line reason (empty for a general claim under the rules:
    /// any source suits it).
    pub recommendations: Vec<SourceRecommendation>,
}

/// Which classifier decided a claim's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassificationMethod {
    /// A language model with structured output.
    Llm,
    /// The keyword rules.
    Rules,
    /// A trained model.
    Ml,
}

impl ClassificationMethod {
    /// `llm`, `rules` or `ml`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClassificationMethod::Llm => "llm",
            ClassificationMethod::Rules => "rules",
            ClassificationMethod::Ml => "ml",
        }
    }
}

/// One kind of source recommended for a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRecommendation {
    /// The available source's name (`web:high`, `confluence`, `agent:NAME`…).
    pub source: String,
    /// How well it suits the claim, 0–1.
    pub relevance: f64,
    /// Why, in one line.
    pub reason: String,
}

/// Whether a cited page supports a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SupportVerdict {
    /// The page says what the claim says.
    #[serde(rename = "supported")]
    Supported,
    /// The page says part of it, or something close.
    #[serde(rename = "partly supported")]
    PartlySupported,
    /// The page does not say it.
    #[serde(rename = "not supported")]
    NotSupported,
    /// There is no text to judge (the page could not be read, or is empty).
    #[serde(rename = "unreadable")]
    Unreadable,
}

impl SupportVerdict {
    /// The verdict as people read it (`"partly supported"`).
    pub fn as_str(self) -> &'static str {
        match self {
            SupportVerdict::Supported => "supported",
            SupportVerdict::PartlySupported => "partly supported",
            SupportVerdict::NotSupported => "not supported",
            SupportVerdict::Unreadable => "unreadable",
        }
    }
}

/// Who judged whether a source supports a claim.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SupportJudge {
    /// The built-in scorer (offline, fitted on expert judgements).
    #[default]
    #[serde(rename = "builtin")]
    Builtin,
    /// The language model configured with `SOURCEBOT_LLM_URL`.
    #[serde(rename = "llm")]
    Llm,
}

/// A figure of the claim that its page gives differently: the same kind of figure
/// (a year against a year, a time against a time, a sum against a sum, a count of the
/// same thing) for the same thing, with another value. Rendered "the page says
/// {page}, not {claim}".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Differ {
    /// The figure as the claim writes it (`"1,200 requests per second"`).
    pub claim: String,
    /// The figure as the page writes it (`"900 requests per second"`).
    pub page: String,
}

/// How far one cited source supports a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimSupport {
    /// The source's id.
    pub source: usize,
    /// 0 (the page does not say it) to 1 (it says it).
    pub score: f64,
    /// The verdict the score gives.
    pub verdict: SupportVerdict,
    /// The page's own sentence or sentences that best support the claim (at most
    /// [`crate::support::MAX_QUOTE_CHARS`] characters, cut with `…`; never text the page
    /// does not have).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// The claim's salient words that the page never mentions (numbers, dates, names
    /// and other content words), each as the claim writes it: what a reader should look
    /// for before trusting the claim. Empty when the page mentions them all, and for a
    /// page that could not be read.
    #[serde(default)]
    pub missing: Vec<String>,
    /// The claim's figures (numbers, dates, times, sums of money, quantities) that the
    /// page does not have and for which its best passage gives another figure of the
    /// same kind for the same thing: what the page says instead (`{"claim": "1,200
    /// requests per second", "page": "900 requests per second"}`). `page` is the page's
    /// own words, a quote: it is shown only where the quote is. Empty when no figure
    /// differs, and for a page that could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differs: Vec<Differ>,
    /// Why the page could not be judged, when it could not; the model's reason, when
    /// the model judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who judged: the built-in scorer or the language model.
    #[serde(default)]
    pub judge: SupportJudge,
}

impl Claim {
    /// A claim that wants a source and cites none.
    pub fn is_uncited(&self) -> bool {
        self.cites.is_empty() && !self.signals.is_empty()
    }
}

/// The kind of statement a claim makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimType {
    /// Figures about people or things: percentages, rates, survey results.
    Statistics,
    /// Prices, costs, revenue, salaries.
    Money,
    /// Medicine and health.
    Health,
    /// Law, regulation, compliance.
    Law,
    /// Software: APIs, versions, errors, commands.
    Code,
    /// Anything else.
    General,
}

impl ClaimType {
    /// Every type.
    pub const ALL: [ClaimType; 6] = [
        ClaimType::Health,
        ClaimType::Law,
        ClaimType::Money,
        ClaimType::Code,
        ClaimType::Statistics,
        ClaimType::General,
    ];

    /// The name used in JSON (`health`, `statistics`…).
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimType::Statistics => "statistics",
            ClaimType::Money => "money",
            ClaimType::Health => "health",
            ClaimType::Law => "law",
            ClaimType::Code => "code",
            ClaimType::General => "general",
        }
    }
}

impl fmt::Display for ClaimType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
