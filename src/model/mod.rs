//! The plain data that flows through the pipeline: an [`Answer`] goes in, a
//! [`Report`] comes out. Every type here derives serde, because the JSON form of a
//! [`Report`] is a contract with programs that call sourcebot (`--format json`, the
//! HTTP service): field names are `snake_case` and enum values are lower-case strings.
//! Adding a field is fine; renaming or removing one breaks callers.
//!
//! Answers, sources, verdicts and the report are here; claims are in `claim.rs` and
//! what scoring computes in `credibility.rs`, all re-exported as `crate::model::*`.
//! What a workspace decides and what sourcebot keeps of its work there (settings,
//! report history, feedback) is in [`workspace`], outside the report's contract.

use serde::{Deserialize, Serialize};
use std::fmt;

mod claim;
mod credibility;
pub mod workspace;

pub use claim::*;
pub use credibility::*;

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
    /// A Confluence page, or a Jira issue: Atlassian's.
    Confluence,
    /// A file or document: Slack files, Google Drive and Docs, SharePoint and OneDrive,
    /// Notion pages, GitHub Enterprise and private repositories, Dropbox, Box.
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
            "confluence" | "wiki" | "confluence_page" | "jira" | "jira_issue" => {
                Some(SourceKind::Confluence)
            }
            "file" | "files" | "doc" | "docs" | "document" | "drive" | "gdrive"
            | "google_drive" | "sharepoint" | "onedrive" | "dropbox" | "box" | "pdf" | "notion" => {
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
    /// How the support check read the source's text, when it did: from the public web,
    /// or with sourcebot's own credentials (a product's API, the bot's Slack token),
    /// whose words are quoted only to people entitled to see them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_via: Option<ReadVia>,
}

/// How sourcebot read a source's text, and so who may see it quoted. A page from the
/// public web may be quoted anywhere; what was read with sourcebot's own credentials is
/// quoted only to someone entitled to see it (the evidence modal of the person who
/// pressed its button, the command line and API caller), never into a channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "via", rename_all = "snake_case")]
pub enum ReadVia {
    /// Fetched from the public web, as anyone could.
    Web,
    /// Read through a product's API with sourcebot's credentials.
    Product {
        /// The product, as people name it (`Confluence`, `Jira`, `Google Drive`,
        /// `Microsoft 365`, `Notion`, `GitHub`).
        product: String,
    },
    /// A Slack message or file read with the bot's token.
    Slack {
        /// The conversation it is in (for a file: the first one it was shared in),
        /// when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        channel: Option<String>,
        /// Whether that conversation is private (a private channel, a direct or group
        /// message), or could not be told to be public: its words are then never
        /// shown outside it.
        private: bool,
    },
}

impl ReadVia {
    /// Whether sourcebot read it with credentials of its own rather than as anyone
    /// could.
    pub fn is_internal(&self) -> bool {
        !matches!(self, ReadVia::Web)
    }
}

impl Source {
    /// The link to show and judge: the canonical URL, else the link as written.
    pub fn link(&self) -> Option<&str> {
        self.canonical_url.as_deref().or(self.url.as_deref())
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

    /// Puts every source in the group of its kind again (after a check found a
    /// source's kind: a file in a private repository is internal): groups in the
    /// default kind order, sources by first appearance, empty groups dropped.
    pub fn regroup(&mut self) {
        let mut sources: Vec<Source> = std::mem::take(&mut self.groups)
            .into_iter()
            .flat_map(|g| g.sources)
            .collect();
        sources.sort_by_key(|s| s.id);
        self.groups = SourceKind::ALL
            .into_iter()
            .map(|kind| SourceGroup {
                kind,
                sources: Vec::new(),
            })
            .collect();
        for source in sources {
            if let Some(group) = self.groups.iter_mut().find(|g| g.kind == source.kind) {
                group.sources.push(source);
            }
        }
        self.groups.retain(|g| !g.sources.is_empty());
    }
}
