//! The `sourcebot` command line: a thin shell over the library. `check` reads an answer
//! from a file or standard input and prints its sources in the chosen format; `feedback
//! export` prints the feedback people gave on reports in Slack as JSON Lines.

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use sourcebot::api::ApiSettings;
use sourcebot::audit;
use sourcebot::collect::input::{parse_answer_owned, read_limited, FormatHint, InputError};
use sourcebot::config::Config;
use sourcebot::install::{self, oauth::OAuthSettings};
use sourcebot::model::{Answer, Origin, Report};
use sourcebot::pipeline::Pipeline;
use sourcebot::render;
use sourcebot::slack::api::SlackApi;
use sourcebot::slack::{self, SlackSettings};
use sourcebot::verify::Progress;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "sourcebot",
    version,
    about = "Shows what an AI answer rests on: its sources, grouped by type, and the claims that cite nothing.",
    after_help = "Settings come from the environment (see .env.example). Exit codes: 0 success, 1 input could not be read or parsed, 2 bad usage or settings."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Collect the sources an answer cites, check its links, and show them.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// Run the Slack bot: over HTTP (Slack posts to /slack/events, /slack/commands,
    /// /slack/interactions) or, when SLACK_APP_TOKEN is set, over Socket Mode.
    #[command(after_help = SERVE_HELP)]
    Serve,
    /// Audit research reports: verify and score every citation, judge every claim
    /// against the pages it cites, and pass only when every citation has a URL and
    /// scores above the threshold (and, with --min-supported, enough claims are
    /// supported).
    #[command(after_help = AUDIT_HELP)]
    Audit(AuditArgs),
    /// Judge whether evidence supports claims: JSON Lines in ({"claim", "evidence"}),
    /// the same lines out with "support" (0-1), "verdict", "quote" and "missing" added.
    #[command(after_help = SUPPORT_HELP)]
    Support(SupportArgs),
    /// Serve MCP (the Model Context Protocol) over standard input and output, for an
    /// agent to check its own draft: the tools check_answer, check_links and
    /// judge_claims. Reads the same settings (and .env) as `check`; logs go to standard
    /// error.
    Mcp(McpArgs),
    /// The feedback people gave on reports in Slack (👍/👎, what was wrong, comments).
    #[command(subcommand)]
    Feedback(FeedbackCommand),
}

#[derive(Subcommand, Debug)]
enum FeedbackCommand {
    /// Print the feedback given since --since as JSON Lines, oldest first: one object a
    /// line with the vote, what was wrong, the comment, who and when, the workspace,
    /// channel and report, and what the report counted and the evidence it kept.
    #[command(after_help = FEEDBACK_EXPORT_HELP)]
    Export(FeedbackExportArgs),
}

const FEEDBACK_EXPORT_HELP: &str = "\
Reads the database `sourcebot serve` keeps its workspaces' data in: SOURCEBOT_DATABASE_URL
(from the environment or a .env file in the working directory; default
sqlite://sourcebot.db, or postgres://… for replicas). A SQLite file that does not exist
is an error, not an empty export. Each line has \"vote\" (up, down), \"wrong\",
\"comment\" (as the person wrote it: escape it before showing it anywhere), \"user_id\",
\"at\" (unix seconds), \"workspace\", \"channel\", \"message_ts\", and from the report
(null when it was not recorded) \"assistant\", \"asked_by\", \"counts\", \"judge\",
\"posted_at\" and \"evidence\".

Exit codes: 0 exported (perhaps nothing), 1 the database could not be read, 2 bad usage.

Examples:
  sourcebot feedback export > feedback.jsonl
  sourcebot feedback export --since 7d --team T0123ABCD
  sourcebot feedback export --since 2026-01-01 --team T0123ABCD --team T0456EFGH
  sourcebot feedback export --since 2026-01-31T09:00:00Z | jq -c 'select(.vote == \"down\")'";

#[derive(clap::Args, Debug)]
struct McpArgs {
    #[command(flatten)]
    links: LinkArgs,
}

#[derive(clap::Args, Debug)]
struct FeedbackExportArgs {
    /// Feedback given at or after this: a span back from now (`30d`, `12h`, `90m`,
    /// `2w`, `45s`), a date (`2026-01-31`, midnight UTC) or an RFC 3339 date and time
    /// (`2026-01-31T09:00:00Z`, `2026-01-31T10:00:00+01:00`).
    #[arg(long, value_name = "WHEN", default_value = "30d")]
    since: String,

    /// Only this workspace: its team id (`T…`; the organization's `E…` id for an
    /// org-wide install). Repeat for several; none means every workspace.
    #[arg(long = "team", value_name = "ID")]
    teams: Vec<String>,
}

const SUPPORT_HELP: &str = "\
Each input line is an object with \"claim\" (a string) and \"evidence\" (a string or a
list of strings: the passages to judge against). Each output line is that object with
its fields kept and \"support\" (0 to 1), \"verdict\" (supported, partly supported,
not supported; unreadable for empty evidence), \"quote\" (the best passage, the page's own
words) and \"missing\" (the claim's numbers, dates and names the evidence never mentions)
added.
A bad line is reported on standard error by its number and skipped; the rest are
still scored, in order.

Exit codes: 0 every line scored, 1 some line could not be (or the file could not be
read).

Examples:
  sourcebot support claims.jsonl > judged.jsonl
  printf '{\"claim\":\"Water boils at 100 C.\",\"evidence\":\"At sea level water boils at 100 C.\"}\\n' | sourcebot support -";

#[derive(clap::Args, Debug)]
struct SupportArgs {
    /// The JSON Lines file (`-` for standard input).
    #[arg(value_name = "FILE")]
    file: String,
}

const AUDIT_HELP: &str = "\
Reads research reports {title, phase, citations: [{id, text, url?, confidenceScore?}]}
and any answer file `check` reads. A directory stands for every .json file under it.
Citations must score strictly above --threshold; one without a URL fails the audit.

Each claim (a research report's citation text, a sentence of an answer) is judged
against the pages it cites, as `check` judges it: web pages read with one bounded GET
(SOURCEBOT_FETCH_MAX_BYTES, SOURCEBOT_FETCH_TIMEOUT), internal documents through their
product's API, each report within SOURCEBOT_SUPPORT_TIMEOUT. The audit counts claims
supported, partly supported, not supported and unreadable per report and in all, lists
the reports with the most unsupported claims, and shows no page's words. With
--min-supported, it fails when a smaller share of the judged claims is supported.
--no-support (or SOURCEBOT_SUPPORT=off) reads no page: claims are not judged.

Exit codes: 0 pass, 1 fail (or a file could not be read), 2 bad usage or a GLOB that
matches no file.

Examples:
  sourcebot audit
  sourcebot audit 'reports/**/*.json' --threshold 0.75 --format json
  sourcebot audit docs/research --min-supported 0.8
  sourcebot audit docs/research --no-verify --worst 20";

#[derive(clap::Args, Debug)]
struct AuditArgs {
    /// Report files to audit (quote globs so the shell leaves `**` alone).
    #[arg(value_name = "GLOB", default_value = sourcebot::audit::DEFAULT_GLOB)]
    globs: Vec<String>,

    /// Citations must score strictly above this, from 0 to 1.
    #[arg(long, default_value_t = sourcebot::score::search::DEFAULT_CREDIBILITY_THRESHOLD)]
    threshold: f64,

    /// `text` for terminals, `json` for CI.
    #[arg(long, value_enum, default_value_t = AuditFormat::Text)]
    format: AuditFormat,

    /// Links probed at once.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1024))]
    concurrency: u16,

    /// Worst citations listed, and as many of the least supported reports.
    #[arg(long, value_name = "N", default_value_t = sourcebot::audit::DEFAULT_WORST)]
    worst: usize,

    /// Fail when less than this share (0 to 1) of the judged claims is supported by the
    /// pages they cite. Needs the pages read: not with --no-support or --no-verify.
    #[arg(long, value_name = "SHARE")]
    min_supported: Option<f64>,

    #[command(flatten)]
    links: LinkArgs,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum AuditFormat {
    Text,
    Json,
}

/// Link checking flags shared by `check` and `audit`.
#[derive(clap::Args, Debug)]
struct LinkArgs {
    /// Do not probe links: every source is marked "not checked".
    #[arg(long)]
    no_verify: bool,

    /// Time for the whole probe of one link, e.g. `2s`, `1500ms`. Default 2s, or
    /// SOURCEBOT_VERIFY_TIMEOUT.
    #[arg(long, value_name = "DURATION")]
    timeout: Option<String>,

    /// Do not read the cited pages to see whether they support their claims (as
    /// SOURCEBOT_SUPPORT=off): links are only probed.
    #[arg(long)]
    no_support: bool,
}

impl LinkArgs {
    /// Puts `--timeout` and `--no-support` into `config`.
    fn apply(&self, config: &mut Config) -> anyhow::Result<()> {
        if self.no_support {
            config.set_support(false);
        }
        if let Some(timeout) = &self.timeout {
            config.verify.timeout = sourcebot::config::duration(
                "--timeout",
                timeout,
                Duration::from_millis(100),
                sourcebot::config::MAX_VERIFY_TIMEOUT,
            )
            .map_err(|e| UsageError(format!("--timeout {timeout:?}: {}", e.expected)))?;
        }
        Ok(())
    }
}

const SERVE_HELP: &str = "\
Settings come from the environment and from a .env file in the working directory, if
present (see .env.example): SLACK_BOT_TOKEN (xoxb-…), SLACK_SIGNING_SECRET (HTTP mode),
SLACK_APP_TOKEN (xapp-…, turns on Socket Mode), SOURCEBOT_LISTEN (default 0.0.0.0:3000,
serves /healthz in both modes), SOURCEBOT_SLACK_API_URL, SOURCEBOT_WATCH_BOT_IDS, the
SOURCEBOT_VERIFY_* settings, and SOURCEBOT_LOG_FORMAT=json for JSON logs (RUST_LOG sets
the level, default info). A missing or malformed setting stops start-up with one line
naming it.";

const CHECK_EXAMPLES: &str = "\
Input: Markdown, Slack mrkdwn or plain text; or JSON — {text, sources}, agent results
[{subagent, success, data: {sources}}], a research report {title, phase, citations},
search results {organic: [...]}, or a Slack message (its blocks and attachments, as a
person sees it; or a conversations.history/replies response, whose latest answer is
read). The shape is detected from the content.

Examples:
  sourcebot check examples/answer.md
  sourcebot check examples/answer.json --format json
  pbpaste | sourcebot check - --format mrkdwn --max-per-kind 10
  sourcebot check examples/search-results.json --format blocks
  sourcebot check examples/slack-message.json --input slack-message
  sourcebot check examples/answer.md --no-verify
  sourcebot check examples/answer.md --timeout 5s --concurrency 8
  sourcebot check examples/answer.md --evidence

Links are probed with HEAD (GET when HEAD is refused), at most --concurrency at once
and 4 per host, never at a private or local address; a page the support check reads
is probed and read by one GET (--no-support: no page is read). Marks: ✓ verified; ⚠ broken,
unreachable, timed out or server error; 🔒 restricted (the page refuses robots);
⊘ blocked or invalid; – not checked (internal links, or --no-verify).";

#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// The answer to check; `-` or nothing reads standard input.
    #[arg(value_name = "FILE|-")]
    file: Option<String>,

    /// Output format: `text` for terminals, `mrkdwn` as posted in Slack, `blocks` for
    /// Block Kit JSON, `json` for the whole report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    /// Sources listed per kind before "…and N more" (0 lists all). Default 5, or
    /// SOURCEBOT_MAX_PER_KIND.
    #[arg(long, value_name = "N")]
    max_per_kind: Option<usize>,

    /// How to read the input: `auto` detects JSON from the content (and `.json` files
    /// must be JSON; Slack messages are recognised); `text` never parses JSON; `json`
    /// always does; `slack-message` reads a Slack message as a person sees it — a
    /// message as `conversations.history` returns it, a whole history or replies
    /// response (its latest answer), an event or an interaction payload. `--format
    /// slack-message` is taken to mean the same.
    #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
    input: InputFormat,

    #[command(flatten)]
    links: LinkArgs,

    /// Links probed at once. Default 32, or SOURCEBOT_VERIFY_CONCURRENCY.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    concurrency: Option<u16>,

    /// Under the text report, list each claim checked against the pages it cites: each
    /// page with its verdict and judge, the page's own words and the claim's words it
    /// never mentions. Text format only (`--format json` has it all in
    /// `claims[].support`).
    #[arg(long)]
    evidence: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Mrkdwn,
    Blocks,
    Json,
    /// Not an output: `--format slack-message` reads the input as a Slack message (as
    /// `--input slack-message` does) and prints text.
    #[value(hide = true)]
    SlackMessage,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum InputFormat {
    Auto,
    Text,
    Json,
    SlackMessage,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // `feedback export` reads the database `serve` uses, so the same .env.
    if matches!(
        cli.command,
        Command::Serve | Command::Feedback(_) | Command::Mcp(_)
    ) {
        if let Err(error) = load_dotenv() {
            eprintln!("sourcebot: {error}");
            return ExitCode::from(2);
        }
    }
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(error) => {
            eprintln!("sourcebot: {error}");
            return ExitCode::from(2);
        }
    };
    // The commands a person runs log warnings only (a product refusing sourcebot's
    // credentials, say), unless `RUST_LOG` asks for more; `serve` logs what it does.
    if !matches!(cli.command, Command::Serve) {
        if let Err(error) = init_logging("warn") {
            eprintln!("sourcebot: {error}");
            return ExitCode::from(2);
        }
    }
    let result = match cli.command {
        Command::Check(args) => check(args, config).map(|()| ExitCode::SUCCESS),
        Command::Serve => serve(config).map(|()| ExitCode::SUCCESS),
        Command::Audit(args) => audit(args, config),
        Command::Support(args) => support(args, config),
        Command::Mcp(args) => mcp(args, config).map(|()| ExitCode::SUCCESS),
        Command::Feedback(FeedbackCommand::Export(args)) => {
            feedback_export(args).map(|()| ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(error) if error.is::<UsageError>() => {
            eprintln!("sourcebot: {error}");
            ExitCode::from(2)
        }
        Err(error) => {
            eprintln!("sourcebot: {error:#}");
            ExitCode::from(1)
        }
    }
}

fn check(args: CheckArgs, mut config: Config) -> anyhow::Result<()> {
    if let Some(n) = args.max_per_kind {
        config.render.max_per_kind = n;
    }
    args.links.apply(&mut config)?;
    if let Some(n) = args.concurrency {
        config.verify.concurrency = usize::from(n);
    }
    let (format, input) = match args.format {
        Format::SlackMessage => (Format::Text, InputFormat::SlackMessage),
        format => (format, args.input),
    };
    if args.evidence && format != Format::Text {
        return Err(UsageError(
            "--evidence lists the evidence under the text report; with --format json each claim's support has it"
                .to_string(),
        )
        .into());
    }
    let (name, origin, bytes) = read_input(args.file.as_deref(), config.max_input_bytes)?;
    let hint = match input {
        InputFormat::Text => FormatHint::Text,
        InputFormat::Json => FormatHint::Json,
        InputFormat::SlackMessage => FormatHint::SlackMessage,
        InputFormat::Auto if name.ends_with(".json") => FormatHint::Json,
        InputFormat::Auto => FormatHint::Auto,
    };
    let mut answer = parse_answer_owned(bytes, hint, config.max_input_bytes)
        .map_err(|e| input_error(&name, e))?;
    answer.origin = origin;
    let report = check_answer(&answer, &config, !args.links.no_verify)?;
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let output = match format {
        Format::Text | Format::SlackMessage if args.evidence => format!(
            "{}\n{}",
            render::text(&report, &config.render),
            render::evidence::text::evidence_text(&report, &config.render)
        ),
        Format::Text | Format::SlackMessage => render::text(&report, &config.render),
        Format::Mrkdwn => render::mrkdwn(&report, &config.render),
        Format::Blocks => serde_json::to_string_pretty(&render::blocks(&report, &config.render))?,
        Format::Json => {
            // The largest output: streamed, not built in memory.
            render::write_json(&report, &mut stdout)
                .and_then(|()| writeln!(stdout))
                .and_then(|()| stdout.flush())
                .or_else(ignore_broken_pipe)?;
            return Ok(());
        }
    };
    writeln!(stdout, "{}", output.trim_end())
        .and_then(|()| stdout.flush())
        .or_else(ignore_broken_pipe)?;
    Ok(())
}

/// Runs `answer` through the one pipeline on a runtime of its own: its links probed
/// when `verify` (a progress line on a terminal when that takes more than half a
/// second), then its cited pages read when the support check is on.
fn check_answer(answer: &Answer, config: &Config, verify: bool) -> anyhow::Result<Report> {
    runtime()?.block_on(async {
        let pipeline = pipeline(config, verify)?;
        let progress = Arc::new(Progress::new());
        let counts = progress.clone();
        let bar = progress_line("checking links {bar:30} {pos}/{len} {elapsed}", move || {
            (counts.done(), counts.total(), String::new())
        });
        let mut report = pipeline
            .check_with_progress(answer, verify, Some(&progress))
            .await;
        end_progress_line(bar).await;
        if pipeline.checks_support() && report.verification.performed {
            let bar = progress_line("reading cited pages {elapsed}", || (0, 0, String::new()));
            pipeline.check_support(&mut report).await;
            end_progress_line(bar).await;
        }
        Ok(report)
    })
}

/// The pipeline `check` and `audit` run: `config`'s, probing links when `verify` (Slack
/// permalinks and files through `SLACK_BOT_TOKEN` when it is set, internal products
/// through their credentials).
fn pipeline(config: &Config, verify: bool) -> anyhow::Result<Pipeline> {
    let mut builder = Pipeline::builder().config(config.clone()).verify(verify);
    if verify {
        if let Some(slack) = slack_checker()? {
            builder = builder.internal_checker(slack);
        }
    }
    builder.build().context("cannot check links")
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// With `SLACK_BOT_TOKEN` set, `check` and `audit` check Slack permalinks and files
/// with it (at `SOURCEBOT_SLACK_API_URL`, Slack's by default); without it they say
/// which setting would.
fn slack_checker() -> anyhow::Result<Option<Arc<dyn sourcebot::verify::InternalChecker>>> {
    let read = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let Some(token) = read(slack::settings::BOT_TOKEN) else {
        return Ok(Some(Arc::new(slack::workspace::NoSlackToken)));
    };
    let api_url = read(slack::settings::API_URL)
        .unwrap_or_else(|| sourcebot::slack::api::SLACK_API_URL.to_string());
    let api = SlackApi::new(&api_url, token.trim(), Duration::from_secs(5))
        .context("cannot set up the Slack client")?;
    Ok(Some(Arc::new(slack::workspace::PermalinkChecker::new(
        Arc::new(api),
    ))))
}

/// `sourcebot audit`: exit 0 on pass, 1 on fail.
fn audit(args: AuditArgs, mut config: Config) -> anyhow::Result<ExitCode> {
    args.links.apply(&mut config)?;
    config.verify.concurrency = usize::from(args.concurrency);
    if !(0.0..=1.0).contains(&args.threshold) {
        return Err(UsageError(format!(
            "--threshold {}: expected a number from 0 to 1",
            args.threshold
        ))
        .into());
    }
    if let Some(min) = args.min_supported {
        min_supported_usage(min, &args.links, &config)?;
    }
    let files = audit::find_files(&args.globs).map_err(|e| UsageError(e.to_string()))?;
    let options = audit::AuditOptions {
        threshold: args.threshold,
        worst: args.worst,
        max_input_bytes: config.max_input_bytes,
        collect: config.collect.clone(),
        min_supported: args.min_supported,
    };
    let report = runtime()?.block_on(async {
        let pipeline = pipeline(&config, !args.links.no_verify)?;
        let progress = Arc::new(audit::AuditProgress::default());
        let counts = progress.clone();
        let bar = progress_line(
            "auditing {bar:30} {pos}/{len} files {msg} {elapsed}",
            move || {
                let links = &counts.links;
                let mut message = if links.total() > 0 {
                    format!("· links {}/{}", links.done(), links.total())
                } else {
                    String::new()
                };
                let judging = counts
                    .judging_total
                    .load(std::sync::atomic::Ordering::Relaxed);
                if judging > 0 {
                    message.push_str(&format!(
                        " · claims of {}/{judging} reports",
                        counts
                            .judging_done
                            .load(std::sync::atomic::Ordering::Relaxed)
                    ));
                }
                (
                    counts.files_done.load(std::sync::atomic::Ordering::Relaxed),
                    counts
                        .files_total
                        .load(std::sync::atomic::Ordering::Relaxed),
                    message,
                )
            },
        );
        let report = audit::audit_files(&files, &options, &pipeline, Some(&progress)).await;
        end_progress_line(bar).await;
        report.map_err(|e| anyhow::Error::new(UsageError(e.to_string())))
    })?;
    let output = match args.format {
        AuditFormat::Text => audit::render_text(&report),
        AuditFormat::Json => serde_json::to_string_pretty(&report)?,
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", output.trim_end()).or_else(ignore_broken_pipe)?;
    Ok(match report.status {
        audit::AuditStatus::Pass => ExitCode::SUCCESS,
        audit::AuditStatus::Fail => ExitCode::from(1),
    })
}

/// `--min-supported SHARE` is a number from 0 to 1, and the cited pages are read: not
/// with `--no-support`, `--no-verify` or `SOURCEBOT_SUPPORT=off`.
fn min_supported_usage(min: f64, links: &LinkArgs, config: &Config) -> Result<(), UsageError> {
    if !(0.0..=1.0).contains(&min) {
        return Err(UsageError(format!(
            "--min-supported {min}: expected a number from 0 to 1 (the share of judged claims that must be supported)"
        )));
    }
    let off = if links.no_support {
        "--no-support"
    } else if links.no_verify {
        "--no-verify (pages are read only when links are checked)"
    } else if !config.support.enabled {
        "SOURCEBOT_SUPPORT=off"
    } else {
        return Ok(());
    };
    Err(UsageError(format!(
        "--min-supported needs the cited pages read to judge claims, and {off} reads none: drop one of them"
    )))
}

/// On a terminal, after half a second, a progress line on stderr drawn with
/// `template` from what `read` says (done, total, message), until
/// [`end_progress_line`].
fn progress_line(
    template: &'static str,
    read: impl Fn() -> (usize, usize, String) + Send + 'static,
) -> Option<tokio::task::JoinHandle<()>> {
    std::io::stderr().is_terminal().then(|| {
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let bar = ProgressBar::new(0);
            let style = ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            let _clear = ClearOnDrop(bar.clone());
            loop {
                let (done, total, message) = read();
                bar.set_length(total as u64);
                bar.set_position(done as u64);
                bar.set_message(message);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    })
}

/// Stops and clears the progress line.
async fn end_progress_line(bar: Option<tokio::task::JoinHandle<()>>) {
    if let Some(bar) = bar {
        bar.abort();
        // The bar clears itself when its task is dropped; wait for that.
        let _ = bar.await;
    }
}

/// Clears the progress line when the progress task ends.
struct ClearOnDrop(ProgressBar);

impl Drop for ClearOnDrop {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// Loads `.env` from the working directory when there is one; variables already set
/// win. A malformed file is an error naming the line.
fn load_dotenv() -> anyhow::Result<()> {
    match dotenvy::dotenv() {
        Ok(_) => Ok(()),
        Err(dotenvy::Error::Io(error)) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(dotenvy::Error::LineParse(line, column)) => {
            anyhow::bail!(
                ".env: cannot read line {line:?} (at character {column}); expected NAME=value"
            )
        }
        Err(error) => anyhow::bail!(".env: {error}"),
    }
}

/// Logs to stderr: readable text, or one JSON object a line with
/// `SOURCEBOT_LOG_FORMAT=json`. `RUST_LOG` sets the level (default `default`).
fn init_logging(default: &str) -> anyhow::Result<()> {
    let mut filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // Libraries that log what they carry at debug level: the MCP SDK (each request and
    // result whole: answers, quotes of internal documents) and the HTML parser (page
    // text). What sourcebot reads is never logged, whatever RUST_LOG asks.
    for quiet in QUIET_LIBRARIES {
        if let Ok(directive) = quiet.parse() {
            filter = filter.add_directive(directive);
        }
    }
    let format = std::env::var("SOURCEBOT_LOG_FORMAT").unwrap_or_default();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format.trim().to_ascii_lowercase().as_str() {
        "" | "text" => builder.init(),
        "json" => builder.json().init(),
        _ => {
            return Err(UsageError(format!(
                "SOURCEBOT_LOG_FORMAT={format:?} is not valid: expected text or json"
            ))
            .into())
        }
    }
    Ok(())
}

/// Log directives that hold back libraries which log content (see [`init_logging`]).
const QUIET_LIBRARIES: [&str; 2] = ["rmcp=warn", "html5ever=warn"];

/// `sourcebot serve`: serves `/healthz`, `/readyz`, `/metrics` and the answer API at
/// once, brings up the database and Slack (trying again while they cannot be
/// reached), then serves Slack over HTTP or Socket Mode until stopped
/// ([`sourcebot::serve`]).
fn serve(config: Config) -> anyhow::Result<()> {
    init_logging("info")?;
    let settings = SlackSettings::from_env().map_err(|e| UsageError(e.to_string()))?;
    let api_settings = ApiSettings::from_env().map_err(|e| UsageError(e.to_string()))?;
    let oauth = OAuthSettings::from_lookup(|name| std::env::var(name).ok())
        .map_err(|e| UsageError(e.to_string()))?;
    runtime()?.block_on(sourcebot::serve::run(settings, api_settings, oauth, config))
}

/// A bad command-line value: exit code 2, like clap's own usage errors.
#[derive(Debug)]
struct UsageError(String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A closed pipe (`sourcebot check … | head`) is not an error worth reporting.
fn ignore_broken_pipe(error: std::io::Error) -> std::io::Result<()> {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(error)
    }
}

fn input_error(name: &str, error: InputError) -> anyhow::Error {
    match error {
        InputError::TooLarge { limit } => anyhow::anyhow!(
            "{name}: input is larger than {limit} bytes (raise SOURCEBOT_MAX_INPUT_BYTES to read it)"
        ),
        other => anyhow::anyhow!("{name}: {other}"),
    }
}

/// `sourcebot mcp`: the MCP server over standard input and output, with `check`'s
/// pipeline and `/v1/check`'s limits (`SOURCEBOT_API_MAX_SOURCES`, `_TIMEOUT`,
/// `_MAX_BODY_BYTES`), until the client closes its end.
fn mcp(args: McpArgs, mut config: Config) -> anyhow::Result<()> {
    args.links.apply(&mut config)?;
    let settings =
        sourcebot::api::ApiSettings::from_env().map_err(|e| UsageError(e.to_string()))?;
    let limits = sourcebot::api::mcp::McpLimits::from_settings(&settings);
    runtime()?.block_on(async {
        let pipeline = Arc::new(pipeline(&config, !args.links.no_verify)?);
        let server = sourcebot::api::mcp::McpServer::new(pipeline, limits);
        sourcebot::api::mcp::serve_stdio(server).await?;
        Ok(())
    })
}

/// `sourcebot support FILE`: scores every line, reporting bad ones on standard error.
fn support(args: SupportArgs, config: Config) -> anyhow::Result<ExitCode> {
    // The pipeline's own scorer; no link is probed.
    let pipeline = Pipeline::builder().config(config).verify(false).build()?;
    let stdout = std::io::stdout();
    let mut output = std::io::BufWriter::new(stdout.lock());
    let name = if args.file == "-" {
        "standard input"
    } else {
        args.file.as_str()
    };
    let mut report = |error: &sourcebot::support::jsonl::LineError| {
        eprintln!("sourcebot: {name}: {error}");
    };
    let summary = if args.file == "-" {
        let stdin = std::io::stdin();
        pipeline.score_support_lines(&mut stdin.lock(), &mut output, &mut report)
    } else {
        let file = std::fs::File::open(&args.file)
            .with_context(|| format!("{}: cannot open", args.file))?;
        let mut input = std::io::BufReader::new(file);
        pipeline.score_support_lines(&mut input, &mut output, &mut report)
    }
    .with_context(|| format!("{name}: cannot read or write"))?;
    Ok(if summary.failed == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "sourcebot: {name}: {} lines scored, {} skipped",
            summary.scored, summary.failed
        );
        ExitCode::from(1)
    })
}

/// `sourcebot feedback export`: the feedback given since `--since` in the workspaces
/// named by `--team` (every workspace when none is), oldest first, one JSON object a
/// line on standard output. A reader that stops early (`| head`) ends it quietly.
fn feedback_export(args: FeedbackExportArgs) -> anyhow::Result<()> {
    use install::feedback_export::{database_url, export, parse_since, ExportError};
    let now = sourcebot::calendar::unix_now();
    let since = parse_since(&args.since, now).ok_or_else(|| {
        UsageError(format!(
            "--since {:?}: expected a span back from now (30d, 12h, 90m, 2w, 45s), a date \
             (2026-01-31) or an RFC 3339 date and time (2026-01-31T09:00:00Z)",
            args.since
        ))
    })?;
    if let Some(blank) = args.teams.iter().find(|team| team.trim().is_empty()) {
        return Err(UsageError(format!(
            "--team {blank:?}: expected a workspace id such as T0123ABCD"
        ))
        .into());
    }
    let url = database_url(|name| std::env::var(name).ok());
    let lines = runtime()?.block_on(export(&url, since, &args.teams));
    let lines = match lines {
        Ok(lines) => lines,
        Err(error @ ExportError::NoDatabase { .. }) => anyhow::bail!("{error}"),
        Err(error) => return Err(error.into()),
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    lines
        .iter()
        .try_for_each(|line| {
            serde_json::to_writer(&mut stdout, line).map_err(std::io::Error::from)?;
            stdout.write_all(b"\n")
        })
        .and_then(|()| stdout.flush())
        .or_else(ignore_broken_pipe)?;
    Ok(())
}

/// Reads the answer from `file` (standard input for `-` or nothing), at most
/// `max_bytes + 1` bytes so an oversized input is refused without being loaded whole.
fn read_input(file: Option<&str>, max_bytes: usize) -> anyhow::Result<(String, Origin, Vec<u8>)> {
    match file {
        None | Some("-") => {
            let bytes = read_limited(std::io::stdin().lock(), max_bytes)
                .context("standard input: cannot read")?;
            Ok(("standard input".to_string(), Origin::Stdin, bytes))
        }
        Some(path) => {
            let opened = std::fs::File::open(Path::new(path))
                .with_context(|| format!("{path}: cannot open"))?;
            let bytes =
                read_limited(opened, max_bytes).with_context(|| format!("{path}: cannot read"))?;
            Ok((
                path.to_string(),
                Origin::File {
                    path: path.to_string(),
                },
                bytes,
            ))
        }
    }
}
