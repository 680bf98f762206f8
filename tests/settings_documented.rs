//! Every setting the code reads is documented: each `SOURCEBOT_…` and `SLACK_…`
//! variable named in `src/` appears in `.env.example` (as `NAME=`) and, by its full
//! name, in `docs/settings.md`.

use regex::Regex;
use std::collections::BTreeSet;
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_setting_read_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let name = Regex::new(r#""((?:SOURCEBOT|SLACK)_[A-Z0-9_]+)""#).expect("regex");
    let mut settings = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read source");
        for found in name.captures_iter(&text) {
            settings.insert(found[1].to_string());
        }
    }
    assert!(settings.len() > 20, "found only {settings:?}");
    let example = std::fs::read_to_string(root.join(".env.example")).expect(".env.example");
    let settings_page =
        std::fs::read_to_string(root.join("docs/settings.md")).expect("docs/settings.md");
    let undocumented: Vec<&String> = settings
        .iter()
        .filter(|s| !example.lines().any(|l| l.starts_with(&format!("{s}="))))
        .collect();
    assert!(
        undocumented.is_empty(),
        "missing from .env.example: {undocumented:?}"
    );
    let unexplained: Vec<&String> = settings
        .iter()
        .filter(|s| !settings_page.contains(&format!("`{s}`")))
        .collect();
    assert!(
        unexplained.is_empty(),
        "missing from docs/settings.md: {unexplained:?}"
    );
}
