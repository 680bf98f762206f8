//! sourcebot as a library: check an answer file with the same pipeline `serve` runs,
//! without HTTP or Slack, and print its sources as Slack mrkdwn with the confidence.
//!
//! ```sh
//! cargo run --example library -- examples/answer.md            # links not probed
//! cargo run --example library -- examples/answer.json --verify # probe the links too
//! ```
//!
//! Settings come from the environment (`SOURCEBOT_*`, see .env.example).

use sourcebot::collect::input::FormatHint;
use sourcebot::config::Config;
use sourcebot::pipeline::Pipeline;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "examples/answer.md".to_string());
    let verify = args.any(|a| a == "--verify");
    let pipeline = Pipeline::builder()
        .config(Config::from_env()?)
        .verify(verify)
        .build()?;
    let bytes = std::fs::read(&path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    let hint = if path.ends_with(".json") {
        FormatHint::Json
    } else {
        FormatHint::Auto
    };
    let answer = pipeline
        .parse(&bytes, hint)
        .map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    let report = pipeline.check(&answer).await;
    println!("{}", pipeline.mrkdwn(&report));
    if let Some(confidence) = &report.confidence {
        println!(
            "\nconfidence {:.2} ({}), {} sources from {} domains, coverage {:.0}%",
            confidence.value,
            confidence.label,
            confidence.sources,
            confidence.domains,
            confidence.coverage * 100.0
        );
    }
    Ok(())
}
