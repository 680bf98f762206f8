//! Claims whose sources do not suit them, as every format shows them: a health, law,
//! money, statistics or code claim cited only to sources that suit its type poorly is
//! quoted with its type, what it cites and what would suit it; claims that are general,
//! well sourced or uncited are not. Reports come from the real collector and scorer on
//! answers as assistants write them; hostile claim text and agent names stay text.

use sourcebot::collect::CollectOptions;
use sourcebot::model::{
    Answer, ClaimClassification, ClassificationMethod, Report, SourceRecommendation,
};
use sourcebot::render::{self, check_limits, RenderOptions};
use sourcebot::score::{CredibilityMethod, ScoreSettings, Scorer};

/// Collects and scores `answer` with the rules (no network), as `check --no-verify`.
fn scored(answer: &str) -> Report {
    let scorer = Scorer::from_settings(&ScoreSettings {
        credibility: CredibilityMethod::Tiers,
        ..ScoreSettings::default()
    });
    sourcebot::check_with(
        &Answer::from_text(answer),
        &CollectOptions::default(),
        &scorer,
    )
}

/// The three renderings of `report` with the default options; the Block Kit message
/// is checked against Slack's limits and given as its texts joined.
fn rendered(report: &Report) -> (String, String, String) {
    let opts = RenderOptions::default();
    let message = render::blocks(report, &opts);
    check_limits(&message).expect("the blocks keep Slack's limits");
    let blocks: Vec<String> = message
        .blocks
        .iter()
        .flat_map(|b| {
            let section = b.pointer("/text/text").and_then(|t| t.as_str());
            let context = b
                .get("elements")
                .and_then(|e| e.as_array())
                .into_iter()
                .flatten()
                .filter_map(|e| e.get("text").and_then(|t| t.as_str()));
            section.into_iter().chain(context).map(str::to_string)
        })
        .collect();
    (
        render::mrkdwn(report, &opts),
        blocks.join("\n"),
        render::text(report, &opts),
    )
}

const HEALTH_ON_A_FORUM: &str =
    "The usual adult dose of ibuprofen is 400 mg every four to six hours [1].\n\n\
     [1] https://www.reddit.com/r/AskDocs/comments/abc/ibuprofen_dose - r/AskDocs thread";

#[test]
fn a_health_claim_cited_only_to_a_forum_is_pointed_out_in_every_format() {
    let report = scored(HEALTH_ON_A_FORUM);
    let (mrkdwn, blocks, text) = rendered(&report);
    let advice =
        "health claim cited only to a forum; check it against official and scholarly sources";
    for slack in [&mrkdwn, &blocks] {
        assert!(
            slack.contains(":mag: 1 claim rests on sources that do not suit it:"),
            "{slack}"
        );
        assert!(
            slack.contains(&format!(
                "> “The usual adult dose of ibuprofen is 400 mg every four to six hours [1].” — _{advice}_"
            )),
            "{slack}"
        );
    }
    assert!(
        text.contains("Claims whose sources do not suit them (1):"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  - The usual adult dose of ibuprofen is 400 mg every four to six hours [1]. — {advice}"
        )),
        "{text}"
    );
}

#[test]
fn well_sourced_general_and_uncited_claims_are_not_pointed_out() {
    let report = scored(
        "The usual adult dose of ibuprofen is 400 mg every four to six hours [1]. \
         Many people prefer the blue packaging [2]. \
         Revenue grew by 45% last year.\n\n\
         [1] https://www.nhs.uk/medicines/ibuprofen-for-adults/ - NHS\n\
         [2] https://www.reddit.com/r/pharmacy/comments/x/packaging - a thread",
    );
    let (mrkdwn, blocks, text) = rendered(&report);
    for out in [&mrkdwn, &blocks, &text] {
        assert!(!out.contains("do not suit"), "{out}");
        assert!(!out.contains("check it against"), "{out}");
    }
    // The revenue claim wants a source and has none: that is the uncited note's job.
    assert!(mrkdwn.contains("1 claim cites nothing"), "{mrkdwn}");
}

#[test]
fn the_answers_own_better_source_is_named_when_it_has_one() {
    // The answer cites a government page elsewhere: the rules recommend it for the
    // statistics claim that rests on a blog.
    let report = scored(
        "Unemployment in the euro area was 6.3% in October [1]. \
         About 45% of respondents said they trust the figures [2].\n\n\
         [1] https://ec.europa.eu/eurostat/news/euro-indicators - Eurostat\n\
         [2] https://someone.blogspot.com/2024/trust - a blog post",
    );
    let (mrkdwn, _, text) = rendered(&report);
    let advice = "statistics claim cited only to a blog; check it against the answer's official or scholarly web pages";
    assert!(mrkdwn.contains(advice), "{mrkdwn}");
    assert!(text.contains(advice), "{text}");
    assert!(
        !mrkdwn.contains("Unemployment in the euro area was 6.3% in October [1].” —"),
        "the well-sourced claim is not listed: {mrkdwn}"
    );
}

#[test]
fn at_most_three_are_quoted_then_and_n_more() {
    let claims: Vec<String> = (1..=5)
        .map(|n| format!("Patients should take {n}00 mg of the drug each day [{n}]."))
        .collect();
    let references: Vec<String> = (1..=5)
        .map(|n| format!("[{n}] https://www.reddit.com/r/AskDocs/comments/{n}/dose - thread {n}"))
        .collect();
    let report = scored(&format!(
        "{}\n\n{}",
        claims.join(" "),
        references.join("\n")
    ));
    let (mrkdwn, blocks, text) = rendered(&report);
    for slack in [&mrkdwn, &blocks] {
        assert!(
            slack.contains(":mag: 5 claims rest on sources that do not suit them:"),
            "{slack}"
        );
        assert_eq!(slack.matches("health claim cited only to").count(), 3);
        assert!(slack.contains("_…and 2 more_"), "{slack}");
    }
    assert!(text.contains("Claims whose sources do not suit them (5):"));
    assert_eq!(text.matches("health claim cited only to").count(), 3);
    assert!(text.contains("  …and 2 more"), "{text}");
}

#[test]
fn a_model_classification_is_shown_as_it_recommends_and_stays_text() {
    let mut report = scored(
        "Patients should take <!channel> 500 mg <@U123ABC> of it daily [1].\n\n\
         [1] https://www.reddit.com/r/AskDocs/comments/1/dose - thread",
    );
    let claim = report
        .claims
        .iter_mut()
        .find(|c| c.text.contains("500 mg"))
        .expect("the dose claim");
    // As the LLM classifier leaves it: its own relevance and an agent it recommends,
    // whose name comes from the agent and is untrusted.
    claim.relevance = Some(0.15);
    claim.classification = Some(ClaimClassification {
        method: ClassificationMethod::Llm,
        recommendations: vec![
            SourceRecommendation {
                source: "agent:<!here> pubmed <https://evil.example|click>".to_string(),
                relevance: 0.95,
                reason: "medical literature".to_string(),
            },
            SourceRecommendation {
                source: "web:user-generated".to_string(),
                relevance: 0.15,
                reason: "a forum".to_string(),
            },
        ],
    });
    let (mrkdwn, blocks, text) = rendered(&report);
    for slack in [&mrkdwn, &blocks] {
        assert!(
            slack.contains(
                "check it against the answer's &lt;!here&gt; pubmed &lt;https://evil.example|click&gt;'s results"
            ),
            "{slack}"
        );
        // The claim reads as a person reads it (mentions as `@…`), never as markup.
        assert!(
            slack.contains("take @channel 500 mg @U123ABC of it"),
            "{slack}"
        );
        for raw in ["<!here>", "<!channel>", "<@U123ABC>", "<https://evil"] {
            assert!(!slack.contains(raw), "{raw} became markup: {slack}");
        }
    }
    assert!(
        text.contains("the answer's <!here> pubmed <https://evil.example|click>'s results"),
        "{text}"
    );
}

#[test]
fn control_characters_in_an_agent_name_never_reach_the_terminal() {
    let mut report = scored(HEALTH_ON_A_FORUM);
    let claim = report
        .claims
        .iter_mut()
        .find(|c| c.relevance.is_some())
        .expect("the dose claim");
    claim.classification = Some(ClaimClassification {
        method: ClassificationMethod::Llm,
        recommendations: vec![SourceRecommendation {
            source: "agent:med\u{1b}[31mred\u{202e}evil\ncheck".to_string(),
            relevance: 0.9,
            reason: String::new(),
        }],
    });
    let (mrkdwn, _, text) = rendered(&report);
    for out in [&mrkdwn, &text] {
        assert!(!out.contains('\u{1b}'), "{out:?}");
        assert!(!out.contains('\u{202e}'), "{out:?}");
        let line = out
            .lines()
            .find(|l| l.contains("check it against"))
            .expect("the advice");
        assert!(line.contains("evil check's results"), "{line:?}");
    }
}
