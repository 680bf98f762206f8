//! The whole pipeline behind one value, for Rust programs that check answers without
//! HTTP or Slack: [`Pipeline::builder`] takes the settings (the environment's, or your
//! own), whether to probe links, and optionally a verifier, scorer or metrics of your
//! own; [`Pipeline::check`] reads an [`Answer`] into a scored [`Report`]; the
//! renderers turn it into Slack mrkdwn, Block Kit, text or JSON with the pipeline's
//! render settings. `serve` (the Slack bot and the HTTP service) runs on one of these.

use crate::collect::input::{parse_answer, FormatHint, InputError};
use crate::config::Config;
use crate::llm::classifier::LlmClassifier;
use crate::metrics::Metrics;
use crate::model::{Answer, Report};
use crate::render::{self, blocks::BlockMessage};
use crate::score::Scorer;
use crate::support::check::{check_support, SupportJudges, SupportOutcome};
use crate::support::judge::LlmJudge;
use crate::support::SupportScorer;
use crate::verify::{InternalChecker, Progress, Verifier, VerifyError};
use std::sync::Arc;

/// Why [`Pipeline::score_support_lines`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum SupportLinesError {
    /// The built-in scorer's model could not be loaded.
    #[error("cannot load the support scorer: {0}")]
    Scorer(crate::support::model::ModelError),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Collect, verify, score and render, with one set of settings.
#[derive(Debug)]
pub struct Pipeline {
    config: Config,
    verifier: Option<Verifier>,
    scorer: Scorer,
    /// Judges whether cited pages support their claims (`None` when turned off).
    support: Option<SupportJudges>,
    /// The language-model claim classifier (`None` unless `SOURCEBOT_CLASSIFIER=llm`).
    classifier: Option<LlmClassifier>,
}

/// Builds a [`Pipeline`]. Links are probed unless [`PipelineBuilder::verify`] is given
/// `false`.
#[derive(Default)]
pub struct PipelineBuilder {
    config: Option<Config>,
    verify: Option<bool>,
    verifier: Option<Verifier>,
    scorer: Option<Scorer>,
    metrics: Option<Arc<Metrics>>,
    internal: Option<Arc<dyn InternalChecker>>,
    shared: Option<Arc<dyn crate::state::BotState>>,
}

impl PipelineBuilder {
    /// Use `config` (default: [`Config::default`]; [`Config::from_env`] reads the
    /// environment).
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
        self
    }

    /// Probe links (`true`, the default) or mark every source "not checked".
    pub fn verify(mut self, verify: bool) -> Self {
        self.verify = Some(verify);
        self
    }

    /// Probe links with this verifier rather than one built from the settings
    /// (implies `verify(true)` unless `verify(false)` is also given).
    pub fn verifier(mut self, verifier: Verifier) -> Self {
        self.verifier = Some(verifier);
        self
    }

    /// Score with this scorer rather than one built from the settings (to plug in a
    /// claim classifier of your own, say).
    pub fn scorer(mut self, scorer: Scorer) -> Self {
        self.scorer = Some(scorer);
        self
    }

    /// Count links checked, probe latency and cache hits in `metrics` (for a verifier
    /// built from the settings).
    pub fn metrics(mut self, metrics: Arc<Metrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Check internal links (Slack permalinks…) with `checker` (for a verifier built
    /// from the settings).
    pub fn internal_checker(mut self, checker: Arc<dyn InternalChecker>) -> Self {
        self.internal = Some(checker);
        self
    }

    /// Share verdicts with other replicas through `state` (for a verifier built from
    /// the settings).
    pub fn shared_state(mut self, state: Arc<dyn crate::state::BotState>) -> Self {
        self.shared = Some(state);
        self
    }

    /// The pipeline. Fails only when link checking is on and its resolver or HTTP
    /// client cannot be set up.
    pub fn build(self) -> Result<Pipeline, VerifyError> {
        let config = self.config.unwrap_or_default();
        // One state for every model client and product API, so that a daily token
        // budget counts them all and a product's `Retry-After` holds back every call,
        // in this process or across replicas.
        let model_state: Arc<dyn crate::state::BotState> = self
            .shared
            .clone()
            .unwrap_or_else(|| Arc::new(crate::state::MemoryState::new()));
        let verifier = match (self.verify.unwrap_or(true), self.verifier) {
            (false, _) => None,
            (true, Some(verifier)) => Some(verifier),
            (true, None) => {
                let mut builder = Verifier::builder().settings(config.verify.clone());
                if let Some(metrics) = &self.metrics {
                    builder = builder.metrics(metrics.clone());
                }
                let products = crate::products::checker(
                    &config.products,
                    &crate::products::ProductEnv {
                        verify: config.verify.clone(),
                        metrics: self.metrics.clone(),
                        state: Some(model_state.clone()),
                    },
                );
                if let Some(checker) =
                    crate::verify::Checkers::chain(self.internal.as_ref(), products.as_ref())
                {
                    builder = builder.internal_checker(checker);
                }
                if let Some(state) = &self.shared {
                    builder = builder.shared_state(state.clone());
                }
                Some(builder.build()?)
            }
        };
        let scorer = self
            .scorer
            .unwrap_or_else(|| Scorer::from_settings(&config.score));
        let support = support_judges(&config, Some(model_state.clone()), self.metrics.clone());
        let classifier = claim_classifier(&config, model_state, self.metrics);
        Ok(Pipeline {
            config,
            verifier,
            scorer,
            support,
            classifier,
        })
    }
}

/// The language-model claim classifier for `config`: `None` unless
/// `SOURCEBOT_CLASSIFIER=llm` (which needs a model) and its client can be set up.
pub fn claim_classifier(
    config: &Config,
    state: Arc<dyn crate::state::BotState>,
    metrics: Option<Arc<Metrics>>,
) -> Option<LlmClassifier> {
    let settings = config.llm.as_ref().filter(|_| config.classify_with_model)?;
    match crate::llm::LlmClient::new(settings.clone(), Some(state), metrics.clone()) {
        Ok(client) => Some(LlmClassifier::new(Arc::new(client), metrics)),
        Err(error) => {
            tracing::warn!(%error, "the language model is off; the rules classify claims");
            None
        }
    }
}

/// For callers without a [`Pipeline`] (the command line): classifies `report`'s claims
/// with the language model when `SOURCEBOT_CLASSIFIER=llm`, then scores it again so
/// that relevance follows the model. Nothing happens otherwise.
pub async fn classify_claims_with_model(config: &Config, scorer: &Scorer, report: &mut Report) {
    let state: Arc<dyn crate::state::BotState> = Arc::new(crate::state::MemoryState::new());
    if let Some(classifier) = claim_classifier(config, state, None) {
        classify_report_with(&classifier, config, scorer, report).await;
        scorer.score_report(report);
    }
}

/// One answer's classification by `classifier`, which may take two model timeouts
/// at most.
async fn classify_report_with(
    classifier: &LlmClassifier,
    config: &Config,
    scorer: &Scorer,
    report: &mut Report,
) {
    let timeout = config
        .llm
        .as_ref()
        .map_or(crate::llm::DEFAULT_TIMEOUT, |s| s.timeout);
    let available =
        crate::score::classify::available_sources(report, &scorer.tiers, &scorer.registry);
    classifier
        .classify_report(report, &available, std::time::Instant::now() + 2 * timeout)
        .await;
}

/// The support check's judges for `config`: `None` when the check is off (or its model
/// cannot load); the language model judges too when configured and allowed.
pub fn support_judges(
    config: &Config,
    state: Option<Arc<dyn crate::state::BotState>>,
    metrics: Option<Arc<Metrics>>,
) -> Option<SupportJudges> {
    if !config.support.enabled {
        return None;
    }
    let builtin = match SupportScorer::builtin() {
        Ok(scorer) => Arc::new(scorer),
        Err(error) => {
            tracing::warn!(%error, "the support check is off");
            return None;
        }
    };
    let llm = match &config.llm {
        Some(settings) if config.support.use_model => {
            match crate::llm::LlmClient::new(settings.clone(), state, metrics.clone()) {
                Ok(client) => Some(LlmJudge::new(Arc::new(client))),
                Err(error) => {
                    tracing::warn!(%error, "the language model is off; the built-in scorer judges support");
                    None
                }
            }
        }
        _ => None,
    };
    Some(SupportJudges {
        builtin,
        llm,
        metrics,
    })
}

impl Pipeline {
    /// A builder with the default settings and link checking on.
    pub fn builder() -> PipelineBuilder {
        PipelineBuilder::default()
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Reads the cited pages of a verified `report` and records on each claim whether
    /// its sources support it, then scores the report again (support counts in the
    /// answer's confidence). Nothing happens when links are not probed or the check is
    /// off; `None` then.
    pub async fn check_support(&self, report: &mut Report) -> Option<SupportOutcome> {
        self.check_support_with(report, None, None).await
    }

    /// [`Pipeline::check_support`], reading internal sources (Slack messages) through
    /// `internal` (a workspace's own checker) before the pipeline's, and within
    /// `budget` when one is given (for callers with a deadline of their own; the
    /// configured budget is the most it takes).
    pub async fn check_support_with(
        &self,
        report: &mut Report,
        internal: Option<&Arc<dyn InternalChecker>>,
        budget: Option<std::time::Duration>,
    ) -> Option<SupportOutcome> {
        let (verifier, judges) = (self.verifier.as_ref()?, self.support.as_ref()?);
        if !report.verification.performed {
            return None;
        }
        let settings = crate::support::check::SupportSettings {
            budget: budget.map_or(self.config.support.budget, |budget| {
                budget.min(self.config.support.budget)
            }),
            ..self.config.support.clone()
        };
        let outcome = check_support(report, verifier, internal, judges, &settings).await;
        self.scorer.score_report(report);
        Some(outcome)
    }

    /// Whether the support check runs (links probed and the check on).
    pub fn checks_support(&self) -> bool {
        self.verifier.is_some() && self.support.is_some()
    }

    /// Whether links are probed.
    pub fn verifies(&self) -> bool {
        self.verifier.is_some()
    }

    /// The scorer reports are scored with.
    pub fn scorer(&self) -> &Scorer {
        &self.scorer
    }

    /// The second half of a check for many [`Pipeline::collect`]ed reports at once (an
    /// audit): their links probed together (when the pipeline probes links), shared
    /// links once, `progress` counting them; then each report classified and scored.
    pub async fn verify_and_score_all(&self, reports: &mut [Report], progress: Option<&Progress>) {
        if let Some(verifier) = &self.verifier {
            verifier.verify_reports(reports, progress).await;
        }
        for report in reports.iter_mut() {
            self.classify_with_model(report).await;
            self.scorer.score_report(report);
        }
    }

    /// Judges claim and evidence lines (`sourcebot support`: JSON Lines in, each line
    /// out with its support, verdict, quote and missing words) with the built-in
    /// support scorer the support check uses (loaded on its own when the check is off).
    pub fn score_support_lines(
        &self,
        input: &mut impl std::io::BufRead,
        output: &mut impl std::io::Write,
        on_error: &mut impl FnMut(&crate::support::jsonl::LineError),
    ) -> Result<crate::support::jsonl::Summary, SupportLinesError> {
        let builtin = self.builtin_support().map_err(SupportLinesError::Scorer)?;
        crate::support::jsonl::score_lines(&builtin, input, output, on_error)
            .map_err(SupportLinesError::Io)
    }

    /// The built-in support scorer the support check uses (loaded on its own when the
    /// check is off): what `sourcebot support` and MCP's `judge_claims` judge with.
    pub fn builtin_support(&self) -> Result<Arc<SupportScorer>, crate::support::model::ModelError> {
        match &self.support {
            Some(judges) => Ok(judges.builtin.clone()),
            None => SupportScorer::builtin().map(Arc::new),
        }
    }

    /// Reads `bytes` (Markdown, mrkdwn, text, or any JSON answer shape) into an
    /// [`Answer`], refusing more than the configured input size.
    pub fn parse(&self, bytes: &[u8], hint: FormatHint) -> Result<Answer, InputError> {
        parse_answer(bytes, hint, self.config.max_input_bytes)
    }

    /// Collects, verifies (when the pipeline probes links) and scores `answer`.
    pub async fn check(&self, answer: &Answer) -> Report {
        self.check_with_progress(answer, true, None).await
    }

    /// [`Pipeline::check`], probing links only when `verify` is true and the pipeline
    /// probes links at all; `progress`, if given, counts the links as they are checked.
    pub async fn check_with_progress(
        &self,
        answer: &Answer,
        verify: bool,
        progress: Option<&Progress>,
    ) -> Report {
        let mut report = self.collect(answer);
        self.verify_and_score(&mut report, verify, progress).await;
        report
    }

    /// The first half of a check: `answer`'s sources and claims, nothing probed or
    /// scored yet — enough to count what a check would cost.
    pub fn collect(&self, answer: &Answer) -> Report {
        crate::build_report(
            answer,
            crate::collect::collect(answer, &self.config.collect),
        )
    }

    /// The second half: probes the links of a [`Pipeline::collect`]ed report (when
    /// `verify` is true and the pipeline probes links) and scores it.
    pub async fn verify_and_score(
        &self,
        report: &mut Report,
        verify: bool,
        progress: Option<&Progress>,
    ) {
        if let Some(verifier) = self.verifier.as_ref().filter(|_| verify) {
            verifier
                .verify_report_reading(report, progress, None, self.pages_to_read())
                .await;
        }
        self.classify_with_model(report).await;
        self.scorer.score_report(report);
    }

    /// Asks the language model to classify the report's claims, when it is the
    /// classifier; the scorer's rules classify whatever it does not.
    async fn classify_with_model(&self, report: &mut Report) {
        if let Some(classifier) = &self.classifier {
            classify_report_with(classifier, &self.config, &self.scorer, report).await;
        }
    }

    /// [`Pipeline::check`] with `internal` checking the internal links instead of the
    /// pipeline's own checker: a Slack workspace's permalinks with its own token.
    pub async fn check_with(
        &self,
        answer: &Answer,
        internal: Option<&Arc<dyn InternalChecker>>,
    ) -> Report {
        let mut report = self.collect(answer);
        self.verify_and_score_with(&mut report, true, internal)
            .await;
        report
    }

    /// [`Pipeline::verify_and_score`] with `internal` checking the internal links
    /// instead of the pipeline's own checker.
    pub async fn verify_and_score_with(
        &self,
        report: &mut Report,
        verify: bool,
        internal: Option<&Arc<dyn InternalChecker>>,
    ) {
        if let Some(verifier) = self.verifier.as_ref().filter(|_| verify) {
            verifier
                .verify_report_reading(report, None, internal, self.pages_to_read())
                .await;
        }
        self.scorer.score_report(report);
    }

    /// Pages of a report read with their probes: those the support check will read
    /// when it is on (so each costs one request), none when it is off.
    fn pages_to_read(&self) -> usize {
        if self.support.is_some() {
            self.config.support.max_pages
        } else {
            0
        }
    }

    /// The report as Slack mrkdwn, as posted.
    pub fn mrkdwn(&self, report: &Report) -> String {
        render::mrkdwn(report, &self.config.render)
    }

    /// The report as a Block Kit message (`{text, blocks}`).
    pub fn blocks(&self, report: &Report) -> BlockMessage {
        render::blocks(report, &self.config.render)
    }

    /// The report as text for a terminal.
    pub fn text(&self, report: &Report) -> String {
        render::text(report, &self.config.render)
    }

    /// The report as JSON.
    pub fn json(&self, report: &Report) -> String {
        render::json(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_pipeline_without_verification_scores_and_renders() {
        let pipeline = Pipeline::builder().verify(false).build().expect("pipeline");
        assert!(!pipeline.verifies());
        let answer = pipeline
            .parse(
                b"Rust 1.0 shipped in 2015 [1].\n\n[1] https://blog.rust-lang.org/ - Rust blog",
                FormatHint::Auto,
            )
            .expect("answer");
        let report = pipeline.check(&answer).await;
        assert_eq!(report.metrics.unique_sources, 1);
        assert!(!report.verification.performed);
        assert!(report.confidence.is_some());
        assert!(pipeline
            .mrkdwn(&report)
            .contains("<https://blog.rust-lang.org/|Rust blog>"));
        assert!(!pipeline.blocks(&report).blocks.is_empty());
        assert!(pipeline.text(&report).contains("Rust blog"));
        assert!(pipeline.json(&report).starts_with('{'));
    }

    #[tokio::test]
    async fn the_input_limit_is_the_configured_one() {
        let config = Config {
            max_input_bytes: 10,
            ..Config::default()
        };
        let pipeline = Pipeline::builder()
            .config(config)
            .verify(false)
            .build()
            .expect("pipeline");
        assert!(matches!(
            pipeline.parse(b"far more than ten bytes", FormatHint::Auto),
            Err(InputError::TooLarge { limit: 10 })
        ));
    }
}
