//! The plain data that flows through the pipeline: an [`Answer`] goes in, a
//! [`Report`] comes out. Every type here derives serde, because the JSON form of a
//! [`Report`] is a contract with programs that call sourcebot (`--format json`, the
//! HTTP service): field names are `snake_case` and enum values are lower-case strings.
//! Adding a field is fine; renaming or removing one breaks callers.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where an answer came from. The pipeline never looks at it; adapters set it so that
/// reports can say what they are about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Origin {
    /// Built by a library caller that said nothing more.
    #[default]
    Unknown,
    /// Read from a file by the command line.
    File {
        /// The path as given on the command line.
        path: String,
    },
    /// Read from standard input by the command line.
    Stdin,
    /// A Slack message.
    Slack {
        /// The channel it was posted in, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        channel: Option<String>,
        /// Its `ts` (its id within the channel), when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ts: Option<String>,
    },
}

/// The shape the input had, as detected by the collector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum InputShape {
    /// Plain text, Markdown or Slack mrkdwn.
    #[default]
    Text,
    /// JSON `{text, sources: [...]}`.
    AnswerJson,
    /// JSON `[{subagent, success, data: {sources}}]`.
    AgentResults,
    /// JSON `{title, phase, citations: [...], generatedAt}`.
    ResearchReport,
    /// JSON `{organic: [{title, link, snippet, date?, position}]}`.
    SearchResults,
    /// A Slack message object (as `conversations.history`, events and interactions
    /// deliver it), read as a person sees it: blocks, attachments, text as fallback.
    SlackMessage,
}

/// A synthesized answer to check: its text and any sources the agent gave alongside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Answer {
    /// The answer as written (Markdown, Slack mrkdwn or plain text). May be empty when
    /// the input is only a list of sources (search results, agent results).
    pub text: String,
    /// Sources the agent listed in structured form, in the order given.
    #[serde(default)]
    pub sources: Vec<StructuredSource>,
    /// Where the answer came from.
    #[serde(default)]
    pub origin: Origin,
    /// The shape the input had.
    #[serde(default)]
    pub shape: InputShape,
    /// Agent results that reported `success: false` and were therefore not used.
    #[serde(default)]
    pub failed_agent_results: usize,
    /// Titles of links the text cites, from previews of them (Slack's link unfurls).
    /// A preview names a source; it is not a citation, so it adds no reference.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_titles: Vec<LinkTitle>,
}

/// A title for a link, from somewhere other than the link itself (a preview).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkTitle {
    /// The link as written.
    pub url: String,
    /// The title the preview shows.
    pub title: String,
}

impl Answer {
    /// An answer made of text alone.
    pub fn from_text(text: impl Into<String>) -> Self {
        Answer {
            text: text.into(),
            ..Answer::default()
        }
    }
}

/// A source as an agent hands it over, before canonicalisation and deduplication.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct StructuredSource {
    /// The link, if the source has one.
    #[serde(default)]
    pub url: Option<String>,
    /// The title the agent gave.
    #[serde(default)]
    pub title: Option<String>,
    /// The type the agent gave (`slack`, `confluence`, `file`, `web`, or anything else;
    /// unknown values fall back to classification by URL).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// A short excerpt.
    #[serde(default)]
    pub snippet: Option<String>,
    /// A date, as the agent wrote it.
    #[serde(default)]
    pub date: Option<String>,
    /// Rank or citation number (search position, `[n]` number).
    #[serde(default)]
    pub position: Option<u32>,
    /// The agent's own confidence, 0.0–1.0.
    #[serde(default)]
    pub confidence: Option<f64>,
    /// The citation id a research report gave it (`"1"`, `"c3"`…).
    #[serde(default)]
    pub citation_id: Option<String>,
    /// Which sub-agent found it, for agent results.
    #[serde(default)]
    pub subagent: Option<String>,
}

/// What kind of place a source lives in. Internal kinds come first on display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A Slack message permalink (or a channel named with `(via slack: #channel)`).
    Slack,
    /// A Confluence page.
    Confluence,
    /// A file: Slack files, Google Drive and Docs, SharePoint and OneDrive, Dropbox, Box.
    File,
    /// Anything else on the web.
    Web,
}

impl SourceKind {
    /// Every kind, in the default display order (internal first).
    pub const ALL: [SourceKind; 4] = [
        SourceKind::Slack,
        SourceKind::Confluence,
        SourceKind::File,
        SourceKind::Web,
    ];

    /// The lower-case name used in JSON and configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Slack => "slack",
            SourceKind::Confluence => "confluence",
            SourceKind::File => "file",
            SourceKind::Web => "web",
        }
    }

    /// The heading shown above this kind's sources.
    pub fn heading(self) -> &'static str {
        match self {
            SourceKind::Slack => "Slack",
            SourceKind::Confluence => "Confluence",
            SourceKind::File => "Files",
            SourceKind::Web => "Web",
        }
    }

    /// Parses a kind name as agents write it (`slack`, `Confluence`, `file`, `files`,
    /// `doc`, `document`, `drive`, `web`, `website`, `url`…). `None` for anything else.
    pub fn parse_loose(name: &str) -> Option<SourceKind> {
        match name.trim().to_ascii_lowercase().as_str() {
            "slack" | "slack_message" | "message" | "thread" | "channel" => Some(SourceKind::Slack),
            "confluence" | "wiki" | "confluence_page" => Some(SourceKind::Confluence),
            "file" | "files" | "doc" | "docs" | "document" | "drive" | "gdrive"
            | "google_drive" | "sharepoint" | "onedrive" | "dropbox" | "box" | "pdf" => {
                Some(SourceKind::File)
            }
            "web" | "website" | "webpage" | "url" | "link" | "article" | "search" => {
                Some(SourceKind::Web)
            }
            _ => None,
        }
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a source was found in the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FoundBy {
    /// A link written in the text (Slack, Markdown, autolink, bare URL).
    Inline,
    /// An entry of a numbered reference list or a reference definition.
    ReferenceList,
    /// A `(via slack: #channel)` style note with no link.
    ViaNote,
    /// A structured source given by the agent.
    Structured,
    /// A citation of a research report.
    ResearchReport,
    /// A search result.
    SearchResult,
    /// A source inside an agent result.
    AgentResult,
}

/// What checking a source's link found. Only [`VerdictClass::NotChecked`] is produced
/// until the verifier exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictClass {
    /// The final response was 2xx after at most 5 redirects.
    Verified,
    /// 404, 410, or a host that does not resolve: typical of invented links.
    Broken,
    /// 401, 403, 429, 999: the page exists but refuses robots.
    Restricted,
    /// 5xx.
    ServerError,
    /// No answer within the time allowed.
    TimedOut,
    /// Connection refused or reset, TLS failure.
    Unreachable,
    /// Points at a private or local address; never contacted.
    Blocked,
    /// Not an http or https URL, or not a URL at all.
    Invalid,
    /// Not checked: internal kinds with no API to ask, verification turned off, or no
    /// link to check.
    NotChecked,
}

impl VerdictClass {
    /// The lower-case name used in JSON and in plain text.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictClass::Verified => "verified",
            VerdictClass::Broken => "broken",
            VerdictClass::Restricted => "restricted",
            VerdictClass::ServerError => "server_error",
            VerdictClass::TimedOut => "timed_out",
            VerdictClass::Unreachable => "unreachable",
            VerdictClass::Blocked => "blocked",
            VerdictClass::Invalid => "invalid",
            VerdictClass::NotChecked => "not_checked",
        }
    }

    /// Words for people: "verified", "not checked", "server error"…
    pub fn label(self) -> &'static str {
        match self {
            VerdictClass::Verified => "verified",
            VerdictClass::Broken => "broken",
            VerdictClass::Restricted => "restricted",
            VerdictClass::ServerError => "server error",
            VerdictClass::TimedOut => "timed out",
            VerdictClass::Unreachable => "unreachable",
            VerdictClass::Blocked => "blocked",
            VerdictClass::Invalid => "invalid",
            VerdictClass::NotChecked => "not checked",
        }
    }

    /// The mark shown before a source: ✓ verified; ⚠ broken, unreachable, timed out or
    /// server error; 🔒 restricted; ⊘ blocked or invalid; – not checked.
    pub fn mark(self) -> &'static str {
        match self {
            VerdictClass::Verified => "✓",
            VerdictClass::Broken
            | VerdictClass::ServerError
            | VerdictClass::TimedOut
            | VerdictClass::Unreachable => "⚠",
            VerdictClass::Restricted => "🔒",
            VerdictClass::Blocked | VerdictClass::Invalid => "⊘",
            VerdictClass::NotChecked => "–",
        }
    }
}

/// The outcome of checking one source, with the evidence behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The class of outcome.
    pub class: VerdictClass,
    /// The last HTTP status seen, if any.
    #[serde(default)]
    pub status_code: Option<u16>,
    /// The URL the last request went to, after redirects.
    #[serde(default)]
    pub final_url: Option<String>,
    /// How long the check took, in milliseconds.
    #[serde(default)]
    pub elapsed_ms: Option<u64>,
    /// Why, in a few words ("verification not run", "no link", "dns: no such host"…).
    #[serde(default)]
    pub reason: Option<String>,
}

impl Verdict {
    /// A "not checked" verdict with its reason.
    pub fn not_checked(reason: impl Into<String>) -> Self {
        Verdict {
            class: VerdictClass::NotChecked,
            status_code: None,
            final_url: None,
            elapsed_ms: None,
            reason: Some(reason.into()),
        }
    }
}

/// A byte range `[start, end)` in the answer text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// Whether the two spans share at least one byte.
    pub fn overlaps(&self, other: &Span) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// Whether the span is empty.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// One unique source after deduplication.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// Stable number, 1-based, in order of first appearance. Claims refer to it.
    pub id: usize,
    /// The canonical URL the source was deduplicated on (`None` for a source named
    /// without a link, e.g. `(via confluence: Page Title)`, or a link that is not a
    /// valid http/https URL).
    pub canonical_url: Option<String>,
    /// The link as first written.
    pub url: Option<String>,
    /// A readable title: the first one given that is more than the URL itself, or one
    /// made from the URL. Never empty.
    pub title: String,
    /// Where the source lives.
    pub kind: SourceKind,
    /// How many times the answer points at it (inline links, resolved `[n]` markers,
    /// structured entries). At least 1.
    pub references: usize,
    /// Every way it was found, without repeats, in order of first finding.
    pub found_by: Vec<FoundBy>,
    /// The citation numbers (`[n]`) that resolve to it.
    #[serde(default)]
    pub citation_numbers: Vec<u32>,
    /// Agents that found it (agent results), without repeats.
    #[serde(default)]
    pub agents: Vec<String>,
    /// An excerpt, if one was given.
    #[serde(default)]
    pub snippet: Option<String>,
    /// A date, as given.
    #[serde(default)]
    pub date: Option<String>,
    /// Search rank or citation position, as given.
    #[serde(default)]
    pub position: Option<u32>,
    /// The agent's own confidence, 0.0–1.0, as given.
    #[serde(default)]
    pub agent_confidence: Option<f64>,
    /// What checking it found.
    pub verdict: Verdict,
    /// How far it can be trusted, and why (computed by [`crate::score`]).
    #[serde(default)]
    pub credibility: Option<SourceCredibility>,
    /// What the source's page shows about itself, when it was read (the support check
    /// reads cited pages); `null` otherwise.
    #[serde(default)]
    pub page: Option<PageSignals>,
}

impl Source {
    /// The link to show and judge: the canonical URL, else the link as written.
    pub fn link(&self) -> Option<&str> {
        self.canonical_url.as_deref().or(self.url.as_deref())
    }
}

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
    /// The sentence, with citation markers left in.
    pub text: String,
    /// Where it stands in the answer text.
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

/// How far one cited source supports a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimSupport {
    /// The source's id.
    pub source: usize,
    /// 0 (the page does not say it) to 1 (it says it).
    pub score: f64,
    /// The verdict the score gives.
    pub verdict: SupportVerdict,
    /// The passage of the page that best supports the claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
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

/// A `[n]` marker that resolves to no reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DanglingCitation {
    /// The number cited.
    pub number: u32,
    /// Where the marker stands.
    pub span: Span,
}

/// Sources of one kind, in display order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceGroup {
    /// The kind.
    pub kind: SourceKind,
    /// Its sources, in order of first appearance.
    pub sources: Vec<Source>,
}

/// Counts describing what the collector found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metrics {
    /// Every pointer to a source (sum of `references`).
    pub total_references: usize,
    /// Sources after deduplication.
    pub unique_sources: usize,
    /// `total_references - unique_sources`.
    pub duplicates_removed: usize,
    /// Unique sources of each kind.
    pub per_kind: KindCounts,
    /// `[n]` markers that resolve to nothing.
    pub dangling_citations: usize,
    /// Sentences considered.
    pub claims: usize,
    /// Sentences that cite at least one source.
    pub cited_claims: usize,
    /// Sentences that want a source and cite none.
    pub uncited_claims: usize,
    /// Agent results with `success: false`, ignored.
    pub failed_agent_results: usize,
    /// Links that were found but not kept as sources (too long, or over the source
    /// limit); each is also described in `warnings`.
    pub links_skipped: usize,
}

/// Unique sources per kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCounts {
    /// Slack.
    pub slack: usize,
    /// Confluence.
    pub confluence: usize,
    /// Files.
    pub file: usize,
    /// Web.
    pub web: usize,
}

impl KindCounts {
    /// Adds one source of `kind`.
    pub fn add(&mut self, kind: SourceKind) {
        *self.get_mut(kind) += 1;
    }

    /// The count for `kind`.
    pub fn get(&self, kind: SourceKind) -> usize {
        match kind {
            SourceKind::Slack => self.slack,
            SourceKind::Confluence => self.confluence,
            SourceKind::File => self.file,
            SourceKind::Web => self.web,
        }
    }

    fn get_mut(&mut self, kind: SourceKind) -> &mut usize {
        match kind {
            SourceKind::Slack => &mut self.slack,
            SourceKind::Confluence => &mut self.confluence,
            SourceKind::File => &mut self.file,
            SourceKind::Web => &mut self.web,
        }
    }
}

/// Whether links were checked, and what that means for the marks shown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    /// Whether links were checked.
    pub performed: bool,
    /// One sentence for people ("Links were not checked.", "Checked 12 external links
    /// in 1.4 s.", or that the network looks down).
    pub note: String,
    /// Every link probed failed at the network level (no DNS, no route): the verdicts
    /// say nothing about the links.
    #[serde(default)]
    pub network_down: bool,
    /// How long checking took.
    #[serde(default)]
    pub elapsed_ms: Option<u64>,
    /// Sources per verdict class.
    #[serde(default)]
    pub counts: VerdictCounts,
}

/// Sources per verdict class.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictCounts {
    /// Final 2xx.
    pub verified: usize,
    /// 404, 410, or the host does not resolve.
    pub broken: usize,
    /// 401, 403, 429, 999: the page exists but refuses robots.
    pub restricted: usize,
    /// 5xx.
    pub server_error: usize,
    /// No answer in time.
    pub timed_out: usize,
    /// Refused, reset, TLS failure, no DNS, redirect loop.
    pub unreachable: usize,
    /// Points at a private or local address.
    pub blocked: usize,
    /// Not an http or https link.
    pub invalid: usize,
    /// Internal, or not probed.
    pub not_checked: usize,
}

impl VerdictCounts {
    /// Counts one more source of `class`.
    pub fn add(&mut self, class: VerdictClass) {
        *self.get_mut(class) += 1;
    }

    /// Adds every count of `other` to these.
    pub fn merge(&mut self, other: &VerdictCounts) {
        self.verified += other.verified;
        self.broken += other.broken;
        self.restricted += other.restricted;
        self.server_error += other.server_error;
        self.timed_out += other.timed_out;
        self.unreachable += other.unreachable;
        self.blocked += other.blocked;
        self.invalid += other.invalid;
        self.not_checked += other.not_checked;
    }

    /// The count for `class`.
    pub fn get(&self, class: VerdictClass) -> usize {
        match class {
            VerdictClass::Verified => self.verified,
            VerdictClass::Broken => self.broken,
            VerdictClass::Restricted => self.restricted,
            VerdictClass::ServerError => self.server_error,
            VerdictClass::TimedOut => self.timed_out,
            VerdictClass::Unreachable => self.unreachable,
            VerdictClass::Blocked => self.blocked,
            VerdictClass::Invalid => self.invalid,
            VerdictClass::NotChecked => self.not_checked,
        }
    }

    fn get_mut(&mut self, class: VerdictClass) -> &mut usize {
        match class {
            VerdictClass::Verified => &mut self.verified,
            VerdictClass::Broken => &mut self.broken,
            VerdictClass::Restricted => &mut self.restricted,
            VerdictClass::ServerError => &mut self.server_error,
            VerdictClass::TimedOut => &mut self.timed_out,
            VerdictClass::Unreachable => &mut self.unreachable,
            VerdictClass::Blocked => &mut self.blocked,
            VerdictClass::Invalid => &mut self.invalid,
            VerdictClass::NotChecked => &mut self.not_checked,
        }
    }
}

/// The result of running the pipeline over one answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The shape the input had.
    pub shape: InputShape,
    /// Where the answer came from.
    pub origin: Origin,
    /// Sources grouped by kind, groups in display order, empty groups left out.
    pub groups: Vec<SourceGroup>,
    /// Every sentence considered, in order.
    pub claims: Vec<Claim>,
    /// Markers that resolve to nothing.
    pub dangling_citations: Vec<DanglingCitation>,
    /// Counts.
    pub metrics: Metrics,
    /// Whether links were checked.
    pub verification: Verification,
    /// Things people should know about the input (limits hit, unusable links).
    pub warnings: Vec<String>,
    /// How far the answer can be trusted (computed by [`crate::score`]).
    #[serde(default)]
    pub confidence: Option<AnswerConfidence>,
}

impl Report {
    /// Every source, in display order.
    pub fn sources(&self) -> impl Iterator<Item = &Source> {
        self.groups.iter().flat_map(|g| g.sources.iter())
    }

    /// The claims that want a source and cite none.
    pub fn uncited_claims(&self) -> impl Iterator<Item = &Claim> {
        self.claims.iter().filter(|c| c.is_uncited())
    }
}

// ---------------------------------------------------------------------------------------
// What scoring computes (filled in by `crate::score`; the data lives here so that the
// model depends on no stage)
// ---------------------------------------------------------------------------------------

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
    /// `high` (≥ 0.85), `medium` (≥ 0.6) or `low`.
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
