//! The App Home tab for `views.publish`: what sourcebot does, the workspace's settings
//! (with an **Edit** button for admins), and for the last 7 and 30 days one line per
//! watched assistant and one for reports people asked for: reports posted, links
//! checked and broken, claims that cite nothing or are not supported, 👍 and 👎, with a
//! ten-character bar (`▰▰▱▱▱▱▱▱▱▱`) for the broken-link and uncited-claim shares so a
//! glance shows which assistant cites worst. The view stays within Slack's 100 blocks:
//! past its share of them, the assistants with the fewest reports are summed into one
//! "others" line. Names are untrusted and shown inert ([`inert_name`]). Pure: no
//! network, no state.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::settings_view::{edit_button, inert_name, settings_lines};
use crate::model::workspace::{ActivityLine, WorkspaceSettings};
use crate::render::blocks::section;
use crate::render::escape::clean_text;
use crate::render::plural;

/// At most this many blocks in a Home tab (Slack's limit).
pub const MAX_HOME_BLOCKS: usize = 100;
/// The width of a share bar, in characters.
pub const BAR_WIDTH: usize = 10;
/// An assistant's name is shown in at most this many characters (escaped).
const NAME_MAX: usize = 80;
/// Blocks before the figures: header, what sourcebot does, settings, divider.
const FIXED_BLOCKS: usize = 4;

/// A share as a bar of [`BAR_WIDTH`] block characters, `▰` for the part and `▱` for the
/// rest, rounded to the nearest tenth; all `▱` when `whole` is 0.
pub fn bar(part: u64, whole: u64) -> String {
    let filled = if whole == 0 {
        0
    } else {
        let part = part.min(whole) as u128;
        ((part * BAR_WIDTH as u128 * 2 + whole as u128) / (whole as u128 * 2)) as usize
    };
    let filled = filled.min(BAR_WIDTH);
    format!("{}{}", "▰".repeat(filled), "▱".repeat(BAR_WIDTH - filled))
}

/// A share in whole percent, rounded; 0 when `whole` is 0.
fn percent(part: u64, whole: u64) -> u64 {
    if whole == 0 {
        return 0;
    }
    let part = part.min(whole) as u128;
    ((part * 200 + whole as u128) / (whole as u128 * 2)) as u64
}

/// Adds `other`'s figures to `sum`.
fn add(sum: &mut ActivityLine, other: &ActivityLine) {
    sum.reports += other.reports;
    sum.links += other.links;
    sum.broken += other.broken;
    sum.uncited += other.uncited;
    sum.not_supported += other.not_supported;
    sum.claims += other.claims;
    sum.up += other.up;
    sum.down += other.down;
}

/// The figures of one line, in mrkdwn, after its (already inert) label.
fn line_text(label: &str, line: &ActivityLine) -> String {
    let n = |count: u64, one: &str, many: &str| plural(count as usize, one, many);
    format!(
        "{label} · {}\n`{}` {}% of {} broken ({})\n`{}` {}% of {} cite nothing ({}) · {} not supported\n👍 {} · 👎 {}",
        n(line.reports, "report", "reports"),
        bar(line.broken, line.links),
        percent(line.broken, line.links),
        n(line.links, "link", "links"),
        line.broken,
        bar(line.uncited, line.claims),
        percent(line.uncited, line.claims),
        n(line.claims, "claim", "claims"),
        line.uncited,
        line.not_supported,
        line.up,
        line.down,
    )
}

/// The blocks for one period, at most `budget` of them (at least 4 are needed).
fn period_blocks(
    title: &str,
    days: &str,
    lines: &[ActivityLine],
    names: &dyn Fn(&str) -> Option<String>,
    budget: usize,
) -> Vec<Value> {
    let mut blocks = vec![json!({"type": "header", "text": {"type": "plain_text", "text": title}})];
    let mut assistants: BTreeMap<&str, ActivityLine> = BTreeMap::new();
    let mut people: Option<ActivityLine> = None;
    for line in lines {
        match line.assistant.as_deref() {
            Some(bot) => add(assistants.entry(bot).or_default(), line),
            None => add(people.get_or_insert_with(ActivityLine::default), line),
        }
    }
    if assistants.is_empty() && people.is_none() {
        blocks.push(section(&format!(
            "_No reports in the last {days} yet: answers from watched assistants, and the ones people ask me to check, are counted here._"
        )));
        return blocks;
    }
    let mut assistants: Vec<(&str, ActivityLine)> = assistants.into_iter().collect();
    assistants.sort_by(|a, b| b.1.reports.cmp(&a.1.reports).then(a.0.cmp(b.0)));
    let slots = budget.saturating_sub(1 + usize::from(people.is_some()));
    let shown = if assistants.len() > slots {
        slots.saturating_sub(1)
    } else {
        assistants.len()
    };
    for (bot, line) in &assistants[..shown] {
        let name = names(bot).filter(|n| !clean_text(n).is_empty());
        let label = inert_name(name.as_deref().unwrap_or(bot), NAME_MAX);
        blocks.push(section(&line_text(&format!("*Assistant* {label}"), line)));
    }
    let rest = &assistants[shown..];
    if !rest.is_empty() {
        let mut sum = ActivityLine::default();
        for (_, line) in rest {
            add(&mut sum, line);
        }
        let label = format!(
            "*Others* ({})",
            plural(rest.len(), "assistant", "assistants")
        );
        blocks.push(section(&line_text(&label, &sum)));
    }
    if let Some(people) = &people {
        blocks.push(section(&line_text("*Asked by people*", people)));
    }
    blocks
}

/// The App Home view (`{"type":"home","blocks":[…]}`) within [`MAX_HOME_BLOCKS`]; the
/// settings' unset values read as `defaults`' (as "not set" without them).
/// `names` gives an assistant's name from its bot id (shown by its bot id when it
/// gives none); `can_edit` adds the **Edit** button to the settings.
pub fn home_view(
    settings: &WorkspaceSettings,
    defaults: Option<&WorkspaceSettings>,
    last_7: &[ActivityLine],
    last_30: &[ActivityLine],
    names: &dyn Fn(&str) -> Option<String>,
    can_edit: bool,
) -> Value {
    let mut settings_block = section(&format!(
        "*Settings for this workspace*\n{}",
        settings_lines(settings, defaults)
    ));
    if can_edit {
        settings_block["accessory"] = edit_button();
    }
    let mut blocks = vec![
        json!({"type": "header", "text": {"type": "plain_text", "text": "sourcebot"}}),
        section("I check the sources AI answers cite: whether each link works and says what the answer claims, and which claims cite nothing.\nMention me in a thread, use `/sources`, or let me watch an assistant with `/sources watch @Assistant`."),
        settings_block,
        json!({"type": "divider"}),
    ];
    let budget = (MAX_HOME_BLOCKS - FIXED_BLOCKS) / 2;
    blocks.extend(period_blocks(
        "Last 7 days",
        "7 days",
        last_7,
        names,
        budget,
    ));
    blocks.extend(period_blocks(
        "Last 30 days",
        "30 days",
        last_30,
        names,
        budget,
    ));
    json!({"type": "home", "blocks": blocks})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::workspace::WatchedAssistant;

    fn line(bot: Option<&str>, reports: u64) -> ActivityLine {
        ActivityLine {
            assistant: bot.map(str::to_string),
            reports,
            links: reports * 4,
            broken: reports,
            uncited: reports,
            not_supported: 1,
            claims: reports * 2,
            up: 2,
            down: 1,
        }
    }

    fn no_names(_: &str) -> Option<String> {
        None
    }

    /// Every block valid for a Home tab as built here, at most 100 of them.
    fn assert_within_limits(view: &Value) {
        let blocks = view["blocks"].as_array().unwrap();
        assert!(blocks.len() <= MAX_HOME_BLOCKS, "{} blocks", blocks.len());
        for block in blocks {
            let text = block["text"]["text"].as_str().unwrap_or("");
            match block["type"].as_str().unwrap() {
                "header" => assert!((1..=150).contains(&text.chars().count())),
                "section" => assert!((1..=3000).contains(&text.encode_utf16().count())),
                "divider" => {}
                other => panic!("unexpected block {other}"),
            }
        }
    }

    fn texts(view: &Value) -> Vec<String> {
        view["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["text"]["text"].as_str().map(str::to_string))
            .collect()
    }

    #[test]
    fn bars_are_right_at_the_edges() {
        assert_eq!(bar(0, 10), "▱▱▱▱▱▱▱▱▱▱");
        assert_eq!(bar(5, 10), "▰▰▰▰▰▱▱▱▱▱");
        assert_eq!(bar(1, 2), "▰▰▰▰▰▱▱▱▱▱");
        assert_eq!(bar(10, 10), "▰▰▰▰▰▰▰▰▰▰");
        assert_eq!(bar(0, 0), "▱▱▱▱▱▱▱▱▱▱");
        assert_eq!(bar(7, 3), "▰▰▰▰▰▰▰▰▰▰");
        assert_eq!(bar(u64::MAX, u64::MAX), "▰▰▰▰▰▰▰▰▰▰");
        assert_eq!((percent(1, 2), percent(0, 0), percent(1, 3)), (50, 0, 33));
    }

    #[test]
    fn five_hundred_assistants_fit_and_the_others_are_summed() {
        let lines: Vec<ActivityLine> = (0..500)
            .map(|i| line(Some(&format!("B{i:04}")), 1 + i as u64))
            .chain([line(None, 3)])
            .collect();
        let view = home_view(
            &WorkspaceSettings::default(),
            None,
            &lines,
            &lines,
            &no_names,
            true,
        );
        assert_within_limits(&view);
        let texts = texts(&view);
        let others: Vec<&String> = texts.iter().filter(|t| t.starts_with("*Others*")).collect();
        assert_eq!(others.len(), 2);
        let shown = texts
            .iter()
            .filter(|t| t.starts_with("*Assistant*"))
            .count()
            / 2;
        let hidden = 500 - shown;
        assert!(others[0].starts_with(&format!("*Others* ({hidden} assistants) · ")));
        // The busiest are shown; the others are the `hidden` least busy: 1..=hidden.
        let reports: u64 = (1..=hidden as u64).sum();
        assert!(
            others[0].contains(&format!("· {reports} reports\n")),
            "{}",
            others[0]
        );
        assert!(others[0].contains(&format!("of {} links broken ({reports})", reports * 4)));
        assert!(others[0].contains(&format!("👍 {} · 👎 {hidden}", 2 * hidden)));
        assert!(texts.iter().any(|t| t.contains("`B0499`")));
        assert!(!texts.iter().any(|t| t.contains("`B0000`")));
        assert_eq!(
            texts
                .iter()
                .filter(|t| t.starts_with("*Asked by people*"))
                .count(),
            2
        );
    }

    #[test]
    fn lines_of_one_assistant_are_summed_and_named() {
        let lines = [
            line(Some("B1"), 2),
            line(Some("B1"), 3),
            line(None, 1),
            line(None, 1),
        ];
        let names = |bot: &str| (bot == "B1").then(|| "Glean".to_string());
        let view = home_view(
            &WorkspaceSettings::default(),
            None,
            &lines,
            &[],
            &names,
            false,
        );
        let texts = texts(&view);
        let glean = texts.iter().find(|t| t.contains("`Glean`")).unwrap();
        assert!(
            glean.contains("5 reports") && glean.contains("20 links broken (5)"),
            "{glean}"
        );
        assert!(glean.contains("`▰▰▰▱▱▱▱▱▱▱` 25%"), "{glean}");
        assert!(
            glean.contains("`▰▰▰▰▰▱▱▱▱▱` 50% of 10 claims cite nothing"),
            "{glean}"
        );
        let people = texts
            .iter()
            .find(|t| t.starts_with("*Asked by people*"))
            .unwrap();
        assert!(people.contains("2 reports"));
        assert!(texts
            .iter()
            .any(|t| t.contains("No reports in the last 30 days")));
        assert!(view["blocks"][2].get("accessory").is_none());
        let editable = home_view(
            &WorkspaceSettings::default(),
            None,
            &lines,
            &[],
            &names,
            true,
        );
        assert_eq!(
            editable["blocks"][2]["accessory"]["action_id"],
            "sourcebot_edit_settings"
        );
    }

    #[test]
    fn an_empty_history_says_so() {
        let view = home_view(
            &WorkspaceSettings::default(),
            None,
            &[],
            &[],
            &no_names,
            true,
        );
        assert_within_limits(&view);
        let texts = texts(&view);
        assert!(texts
            .iter()
            .any(|t| t.starts_with("_No reports in the last 7 days")));
        assert!(texts
            .iter()
            .any(|t| t.starts_with("_No reports in the last 30 days")));
    }

    #[test]
    fn hostile_names_never_become_markup() {
        let hostile = [
            "<!channel>",
            "*bold*",
            "<@U1>",
            "`x` <https://evil.example|click>",
            "\u{202e}\n\u{0}",
        ];
        let lines: Vec<ActivityLine> = hostile.iter().map(|name| line(Some(name), 1)).collect();
        let settings = WorkspaceSettings {
            watched: vec![WatchedAssistant {
                user_id: "U1".into(),
                bot_id: "B1".into(),
                name: "<!everyone> _x_".into(),
            }],
            ..Default::default()
        };
        let names = |bot: &str| Some(format!("{bot} {}", "<!here>".repeat(100)));
        let view = home_view(&settings, None, &lines, &lines, &names, true);
        assert_within_limits(&view);
        let all = view.to_string();
        for markup in ["<!channel>", "<@U1>", "<!here>", "<!everyone>", "<https://"] {
            assert!(!all.contains(markup), "{markup} in {all}");
        }
        let texts = texts(&view);
        assert!(
            texts.iter().any(|t| t.contains("`*bold* &lt;!here&gt;")),
            "{texts:?}"
        );
        assert!(texts
            .iter()
            .any(|t| t.contains("`'x' &lt;https://evil.example|click&gt;")));
        // A name that cleans to nothing is shown by its bot id.
        let blank = |_: &str| Some(" \u{200b} ".to_string());
        let view = home_view(&settings, None, &[line(Some("B9"), 1)], &[], &blank, false);
        assert!(texts_contain(&view, "`B9`"));
    }

    fn texts_contain(view: &Value, needle: &str) -> bool {
        texts(view).iter().any(|t| t.contains(needle))
    }
}
