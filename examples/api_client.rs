//! Calling sourcebot's HTTP API from an answer pipeline: send an answer file to
//! `POST /v1/check` of a running `sourcebot serve` and print what came back — or, with
//! `--post CHANNEL [THREAD_TS]`, send it to `POST /v1/answers`, which also posts the
//! answer and its sources to Slack.
//!
//! ```sh
//! export SOURCEBOT_URL=http://127.0.0.1:3000 SOURCEBOT_API_TOKEN=…   # the server's token
//! cargo run --example api_client -- examples/answer.md
//! cargo run --example api_client -- examples/answer.md --post C0123456789
//! ```
//!
//! The same two calls with curl:
//!
//! ```sh
//! curl -sS -H "Authorization: Bearer $SOURCEBOT_API_TOKEN" -H 'content-type: text/markdown' \
//!      --data-binary @examples/answer.md "$SOURCEBOT_URL/v1/check?verify=true"
//! curl -sS -H "Authorization: Bearer $SOURCEBOT_API_TOKEN" -H 'content-type: application/json' \
//!      -d '{"channel":"C0123456789","text":"Rust 1.0 shipped in 2015 [1].\n\n[1] https://blog.rust-lang.org/2015/05/15/Rust-1.0.html","post_answer":true}' \
//!      "$SOURCEBOT_URL/v1/answers"
//! ```

use anyhow::Context;
use serde_json::{json, Value};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .context("usage: api_client FILE [--post CHANNEL [THREAD_TS]]")?;
    let base = std::env::var("SOURCEBOT_URL").unwrap_or_else(|_| "http://127.0.0.1:3000".into());
    let token = std::env::var("SOURCEBOT_API_TOKEN")
        .context("set SOURCEBOT_API_TOKEN to one of the server's tokens")?;
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    // sourcebot's one TLS stack is rustls with ring: install it before any client.
    sourcebot::verify::install_crypto_provider();
    let client = reqwest::Client::builder().build()?;
    let request = match args.iter().position(|a| a == "--post") {
        Some(at) => {
            let channel = args.get(at + 1).context("--post needs a channel id")?;
            let thread_ts = args.get(at + 2);
            let body = json!({
                "channel": channel,
                "thread_ts": thread_ts,
                "text": text,
                "post_answer": thread_ts.is_none(),
            });
            client
                .post(format!("{base}/v1/answers"))
                .header("content-type", "application/json")
                .body(body.to_string())
        }
        None => client
            .post(format!("{base}/v1/check"))
            .header(
                "content-type",
                if path.ends_with(".json") {
                    "application/json"
                } else {
                    "text/markdown"
                },
            )
            .body(text),
    };
    let response = request
        .bearer_auth(token)
        .send()
        .await
        .with_context(|| format!("cannot reach {base}"))?;
    let status = response.status();
    let body: Value =
        serde_json::from_str(&response.text().await?).context("the server did not answer JSON")?;
    if !status.is_success() {
        anyhow::bail!(
            "{status}: {} ({})",
            body["error"]["message"].as_str().unwrap_or("no message"),
            body["error"]["code"].as_str().unwrap_or("no code")
        );
    }
    println!(
        "{}",
        body["rendered"]["mrkdwn"].as_str().unwrap_or_default()
    );
    println!(
        "\nconfidence {} ({}) · {}",
        body["confidence"]["value"],
        body["confidence"]["label"].as_str().unwrap_or("?"),
        body["verification"]["note"].as_str().unwrap_or_default()
    );
    if let Some(posted) = body.get("posted") {
        println!("posted: {posted}");
    }
    Ok(())
}
