//! sourcebot's link extraction beside lychee's, whole process against whole process:
//! `sourcebot check FILE --format json|text --no-verify` and `lychee --dump FILE` on the
//! 100 DeepResearch Bench reports joined into one file (2.2 MB), and on a 1 MB
//! synthetic answer of 10,000 links. Each command runs 15 times, alternating; the
//! median wall time, lychee's median over sourcebot's, and each one's peak RSS (from
//! `/usr/bin/time`, when it is there) are printed.
//!
//! ```sh
//! cargo install lychee --locked       # once, outside the repository
//! cargo build --release --bin sourcebot
//! cargo run --release --example vs_lychee
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

#[path = "../benches/support/mod.rs"]
mod support;

const ROUNDS: usize = 15;

fn main() {
    let sourcebot = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/sourcebot");
    if !sourcebot.exists() {
        eprintln!("build it first: cargo build --release --bin sourcebot");
        return;
    }
    let lychee = which("lychee");
    if lychee.is_none() {
        eprintln!("lychee not found on PATH (cargo install lychee --locked): sourcebot alone");
    }
    let dir = std::env::temp_dir().join(format!("sourcebot-vs-lychee-{}", std::process::id()));
    if let Err(error) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot make {}: {error}", dir.display());
        return;
    }
    let mut inputs = Vec::new();
    match support::drb_articles() {
        Some(articles) => inputs.push((
            "DeepResearch Bench, 100 reports joined",
            articles.join("\n\n"),
        )),
        None => eprintln!("../shared/corpora not found: the corpus file is left out"),
    }
    inputs.push((
        "synthetic, 10,000 links",
        support::synthetic_answer(1_000_000, 10_000),
    ));
    for (name, text) in inputs {
        let file = dir.join("answer.md");
        if let Err(error) = std::fs::write(&file, &text) {
            eprintln!("cannot write {}: {error}", file.display());
            return;
        }
        println!("{name} ({:.2} MB):", text.len() as f64 / 1e6);
        let mut runs: Vec<(String, Vec<String>)> = vec![
            (
                "sourcebot check --format json --no-verify".into(),
                args(
                    &sourcebot,
                    &["check", path(&file), "--format", "json", "--no-verify"],
                ),
            ),
            (
                "sourcebot check --format text --no-verify".into(),
                args(
                    &sourcebot,
                    &["check", path(&file), "--format", "text", "--no-verify"],
                ),
            ),
        ];
        if let Some(lychee) = &lychee {
            runs.push((
                "lychee --dump".into(),
                args(lychee, &["--dump", path(&file)]),
            ));
        }
        let mut medians = Vec::new();
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); runs.len()];
        for _ in 0..ROUNDS {
            for (i, (_, command)) in runs.iter().enumerate() {
                times[i].push(run_ms(command));
            }
        }
        for ((label, command), mut t) in runs.iter().zip(times) {
            t.sort_by(f64::total_cmp);
            let median = t[t.len() / 2];
            medians.push(median);
            let rss = peak_rss_kb(command)
                .map(|kb| format!("{:.1} MB peak RSS", kb as f64 / 1024.0))
                .unwrap_or_default();
            println!("  {label:45} {median:7.1} ms  {rss}");
        }
        if medians.len() == 3 {
            println!(
                "  lychee / sourcebot: json {:.2}x, text {:.2}x (3x is the goal)",
                medians[2] / medians[0],
                medians[2] / medians[1]
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

fn args(program: &Path, rest: &[&str]) -> Vec<String> {
    std::iter::once(path(program).to_string())
        .chain(rest.iter().map(|s| s.to_string()))
        .collect()
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file())
}

/// One run's wall time in milliseconds, output discarded.
fn run_ms(command: &[String]) -> f64 {
    let started = Instant::now();
    let status = Command::new(&command[0])
        .args(&command[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let elapsed = started.elapsed().as_secs_f64() * 1e3;
    match status {
        Ok(s) if s.success() => elapsed,
        other => {
            eprintln!("{command:?} failed: {other:?}");
            f64::NAN
        }
    }
}

/// Peak resident set of one run, from `/usr/bin/time -f %M`.
fn peak_rss_kb(command: &[String]) -> Option<u64> {
    let output = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .args(command)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}
