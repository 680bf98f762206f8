//! `POST /v1/answers`: the request read field by field, checked, and posted to Slack
//! (the answer with its markers, then its sources in the thread, or the sources alone).

use super::*;

/// A `/v1/answers` request, read field by field so that each problem names its field.
#[derive(Debug)]
pub(super) struct AnswerRequest {
    /// The workspace to post in, when the app is installed in several.
    team_id: Option<String>,
    channel: String,
    thread_ts: Option<String>,
    post_answer: bool,
    answer: Answer,
}

pub(super) fn answer_request(bytes: &[u8], state: &ApiState) -> Result<AnswerRequest, ApiError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "malformed",
            format!(
                "invalid JSON at line {}, column {}: {e}",
                e.line(),
                e.column()
            ),
        )
        .at(format!("line {}, column {}", e.line(), e.column()))
    })?;
    let Value::Object(object) = value else {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "malformed",
            "expected a JSON object {channel, thread_ts?, text, sources?, post_answer?}",
        )
        .at("$"));
    };
    let channel = string_field(&object, "channel")?
        .map(|c| c.trim().to_string())
        .ok_or_else(|| missing("channel"))?;
    if channel.is_empty() || channel.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(unusable(
            "channel",
            "expected a channel id such as C0123456789",
        ));
    }
    let thread_ts = string_field(&object, "thread_ts")?.map(|t| t.trim().to_string());
    if let Some(ts) = &thread_ts {
        let valid = ts.split_once('.').is_some_and(|(s, us)| {
            !s.is_empty()
                && !us.is_empty()
                && s.chars().chain(us.chars()).all(|c| c.is_ascii_digit())
        });
        if !valid {
            return Err(unusable(
                "thread_ts",
                "expected a message ts such as 1712345678.123456",
            ));
        }
    }
    let post_answer = match object.get("post_answer") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(wrong_type("post_answer", "a boolean")),
    };
    let text = string_field(&object, "text")?.unwrap_or_default();
    if !post_answer && thread_ts.is_none() {
        return Err(unusable(
            "thread_ts",
            "the sources go in a thread: give the answer's thread_ts, or set post_answer to post the answer too",
        ));
    }
    if post_answer && text.trim().is_empty() {
        return Err(unusable("text", "post_answer needs the answer's text"));
    }
    let mut shape = Map::new();
    shape.insert("text".into(), Value::from(text));
    if let Some(sources) = object.get("sources").filter(|s| !s.is_null()) {
        shape.insert("sources".into(), sources.clone());
    }
    let shape = Value::Object(shape).to_string();
    let answer = state
        .pipeline
        .parse(shape.as_bytes(), FormatHint::Json)
        .map_err(malformed)?;
    let team_id = string_field(&object, "team_id")?.map(|t| t.trim().to_string());
    if let Some(team) = &team_id {
        if team.is_empty() || !team.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(unusable(
                "team_id",
                "expected a workspace id such as T0123456789",
            ));
        }
    }
    Ok(AnswerRequest {
        team_id,
        channel,
        thread_ts,
        post_answer,
        answer,
    })
}

pub(super) fn string_field(
    object: &Map<String, Value>,
    name: &str,
) -> Result<Option<String>, ApiError> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(wrong_type(name, "a string")),
    }
}

pub(super) fn wrong_type(field: &str, expected: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "malformed",
        format!("$.{field}: expected {expected}"),
    )
    .at(format!("$.{field}"))
}

pub(super) fn missing(field: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "missing_field",
        format!("$.{field} is required"),
    )
    .at(format!("$.{field}"))
}

pub(super) fn unusable(field: &str, why: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_field",
        format!("$.{field}: {why}"),
    )
    .at(format!("$.{field}"))
}

pub(super) async fn answers(
    State(state): State<Arc<ApiState>>,
    query: Result<Query<CheckQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let _permit = admit(&state, &headers).await?;
    // Posting needs Slack: say so before any work while it has not answered.
    state.slack()?;
    let verify = read_query(query)?.verify()?;
    format_hint(&headers, true)?;
    let key = idempotency_key(&headers)?;
    let bytes = read_body(body, &headers, state.settings.max_body_bytes).await?;
    let Some(key) = key else {
        return check_and_post(state.clone(), bytes, verify)
            .await
            .map(Json)
            .map(IntoResponse::into_response);
    };
    // The token is part of the key: one caller cannot replay another's answer.
    let token = bearer(&headers).unwrap_or_default().to_string();
    let asked = fingerprint(&bytes, verify);
    let cell = state.replies.cell(&token, &key, asked)?;
    let mut replayed = true;
    let (reply, from_another_replica) = cell
        .get_or_try_init(|| {
            replayed = false;
            let state = state.clone();
            let shared_state = state.shared.clone();
            let shared_key = shared_key(&token, &key);
            async move {
                once_across_replicas(&shared_state, &shared_key, asked, || async move {
                    match check_and_post(state, bytes, verify).await {
                        Ok(body) => Ok(StoredReply::ok(body)),
                        // Something went to Slack: a retry must not post it again.
                        Err(error)
                            if error
                                .extra
                                .as_ref()
                                .is_some_and(|e| e.get("posted_answer_ts").is_some()) =>
                        {
                            Ok(StoredReply::from_error(&error))
                        }
                        Err(error) => Err(error),
                    }
                })
                .await
            }
        })
        .await?
        .clone();
    let mut response = reply.response();
    if replayed || from_another_replica {
        response
            .headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    Ok(response)
}

/// Checks the answer of a `/v1/answers` body and posts it; the response body.
pub(super) async fn check_and_post(
    state: Arc<ApiState>,
    bytes: Bytes,
    verify: bool,
) -> Result<Value, ApiError> {
    let request = answer_request(&bytes, &state)?;
    check_source_count(&request.answer, state.settings.max_sources)?;
    let bot = state.slack()?.clone();
    let workspace = answer_workspace(&bot, request.team_id.as_deref()).await?;
    let report = run_check(&state, request.answer.clone(), verify, Some(&workspace)).await?;
    let answer_text = request
        .post_answer
        .then(|| answer_mrkdwn(&request.answer.text, &report));
    if let Some(text) = &answer_text {
        let chars = text.chars().count();
        if chars > MAX_ANSWER_CHARS {
            return Err(unusable(
                "text",
                &format!("the answer is {chars} characters as posted; Slack takes at most {MAX_ANSWER_CHARS}"),
            ));
        }
    }
    // Posting runs in a task of its own, to its end: a caller who hangs up half-way
    // must not leave half a post behind for a retry to double.
    let posting = tokio::spawn(async move {
        let posted =
            post_to_slack(&bot, &workspace, &request, answer_text.as_deref(), &report).await?;
        response_body(&state, &report, Some(posted))
    });
    posting.await.map_err(|error| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("posting failed: {error}"),
        )
    })?
}

/// The workspace a `/v1/answers` request posts in: the one its `team_id` names (when
/// the app is installed in several), else the bot token's.
pub(super) async fn answer_workspace(
    bot: &Bot,
    team_id: Option<&str>,
) -> Result<Arc<Workspace>, ApiError> {
    let workspaces = bot.workspaces();
    let Some(team) = team_id else {
        return workspaces.home().cloned().ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "missing_field",
                "$.team_id is required: sourcebot is installed in several workspaces, so say which one to post in",
            )
            .at("$.team_id")
        });
    };
    let key = WorkspaceKey::new(None, Some(team), false);
    match workspaces.resolve(key.as_ref()).await {
        Ok(workspace) => Ok(workspace),
        Err(Unserved::Store(error)) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            error.to_string(),
        )),
        Err(why) => Err(unusable("team_id", &why.to_string())),
    }
}

/// Posts the answer (when given) and the sources section in its thread, each once:
/// when Slack cannot be reached the caller hears it at once (and may retry with its
/// `Idempotency-Key`) rather than waiting out the bot's retries.
pub(super) async fn post_to_slack(
    bot: &Bot,
    workspace: &Workspace,
    request: &AnswerRequest,
    answer_text: Option<&str>,
    report: &Report,
) -> Result<Posted, ApiError> {
    let slack = workspace.api.without_retries();
    let channel = request.channel.as_str();
    let answer_ts = match answer_text {
        Some(text) => Some(
            slack
                .post_text(channel, request.thread_ts.as_deref(), text)
                .await
                .map_err(|e| slack_refused(e, None))?,
        ),
        None => None,
    };
    let thread_ts = match (&request.thread_ts, &answer_ts) {
        (Some(thread), _) => thread.clone(),
        (None, Some(answer)) => answer.clone(),
        (None, None) => {
            return Err(unusable("thread_ts", "no thread to post the sources in"));
        }
    };
    let pipeline = bot.pipeline();
    let outgoing = Outgoing::new(pipeline.blocks(report), pipeline.mrkdwn(report));
    // A "Show evidence" button when the cited pages were read, and the feedback footer.
    let outgoing = bot
        .with_evidence(workspace, report, outgoing, channel)
        .await;
    let report_key = bot.report_key();
    let outgoing = bot.with_feedback(workspace, outgoing, &report_key);
    let (sources_ts, sent) = slack
        .post_report(channel, Some(&thread_ts), &outgoing)
        .await
        .map_err(|e| slack_refused(e, answer_ts.as_deref()))?;
    bot.sent(workspace, sent);
    let answered = crate::slack::Answered {
        assistant: Some(crate::slack::API_ASSISTANT.to_string()),
        asked_by: None,
    };
    bot.record_report(
        workspace,
        report,
        &report_key,
        channel,
        &sources_ts,
        &answered,
    )
    .await;
    Ok(Posted {
        channel: channel.to_string(),
        answer_ts,
        sources_ts,
        thread_ts,
    })
}

/// A Slack failure as a refusal; says what was already posted, so a caller does not
/// post the answer twice.
pub(super) fn slack_refused(error: CallError, answer_ts: Option<&str>) -> ApiError {
    let mut refusal = match &error {
        CallError::Slack { code, .. } => {
            let hint = match code.as_str() {
                "not_in_channel" => ": invite the bot to the channel (`/invite @sourcebot`)",
                "channel_not_found" => ": no such channel, or the bot cannot see it",
                _ => "",
            };
            let mut refusal = ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "slack_refused",
                format!("{error}{hint}"),
            );
            refusal.extra = Some(serde_json::json!({"slack_error": code}));
            refusal
        }
        CallError::RateLimited { .. } => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "slack_rate_limited",
            error.to_string(),
        )
        .retry_after(5),
        CallError::Timeout { .. } | CallError::Unreachable { .. } | CallError::Transport { .. } => {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "slack_unavailable",
                error.to_string(),
            )
            .retry_after(5)
        }
    };
    if let Some(ts) = answer_ts {
        let extra = refusal.extra.get_or_insert_with(|| serde_json::json!({}));
        extra["posted_answer_ts"] = Value::from(ts);
    }
    refusal
}
