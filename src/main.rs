//! The `sourcebot` command line: a thin shell over the library. `check` reads an answer
//! from a file or standard input and prints its sources in the chosen format.

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use sourcebot::collect::input::{parse_answer, FormatHint, InputError};
use sourcebot::config::Config;
use sourcebot::model::Origin;
use sourcebot::render;
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

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
    /// Collect and show the sources an answer cites.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
}

const CHECK_EXAMPLES: &str = "\
Input: Markdown, Slack mrkdwn or plain text; or JSON — {text, sources}, agent results
[{subagent, success, data: {sources}}], a research report {title, phase, citations}, or
search results {organic: [...]}. The shape is detected from the content.

Examples:
  sourcebot check examples/answer.md
  sourcebot check examples/answer.json --format json
  pbpaste | sourcebot check - --format mrkdwn --max-per-kind 10
  sourcebot check examples/search-results.json --format blocks";

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
    /// must be JSON); `text` never parses JSON; `json` always does.
    #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
    input: InputFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Mrkdwn,
    Blocks,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum InputFormat {
    Auto,
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(error) => {
            eprintln!("sourcebot: {error}");
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Check(args) => check(args, config),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
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
    let (name, origin, bytes) = read_input(args.file.as_deref(), config.max_input_bytes)?;
    let hint = match args.input {
        InputFormat::Text => FormatHint::Text,
        InputFormat::Json => FormatHint::Json,
        InputFormat::Auto if name.ends_with(".json") => FormatHint::Json,
        InputFormat::Auto => FormatHint::Auto,
    };
    let mut answer =
        parse_answer(&bytes, hint, config.max_input_bytes).map_err(|e| input_error(&name, e))?;
    answer.origin = origin;
    let report = sourcebot::check(&answer, &config.collect);
    let output = match args.format {
        Format::Text => render::text(&report, &config.render),
        Format::Mrkdwn => render::mrkdwn(&report, &config.render),
        Format::Blocks => serde_json::to_string_pretty(&render::blocks(&report, &config.render))?,
        Format::Json => render::json(&report),
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", output.trim_end()).or_else(ignore_broken_pipe)?;
    Ok(())
}

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

/// Reads at most `max_bytes + 1` bytes, so an oversized input is refused without being
/// loaded whole.
fn read_input(file: Option<&str>, max_bytes: usize) -> anyhow::Result<(String, Origin, Vec<u8>)> {
    let limit = u64::try_from(max_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut bytes = Vec::new();
    match file {
        None | Some("-") => {
            std::io::stdin()
                .lock()
                .take(limit)
                .read_to_end(&mut bytes)
                .context("standard input: cannot read")?;
            Ok(("standard input".to_string(), Origin::Stdin, bytes))
        }
        Some(path) => {
            let opened = std::fs::File::open(Path::new(path))
                .with_context(|| format!("{path}: cannot open"))?;
            opened
                .take(limit)
                .read_to_end(&mut bytes)
                .with_context(|| format!("{path}: cannot read"))?;
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
