//! A fake OpenAI-compatible chat-completions endpoint on loopback: `POST
//! /v1/chat/completions` answers as its [`LlmMode`] says (a canned judgement built from
//! the request's claims, a canned classification, raw content, an error status, or a
//! reply held back past the client's timeout) in the shape of OpenAI's documented chat-completion object, and
//! records every request (headers and JSON body) for the test to inspect.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// Picks a verdict for a claim's text.
pub type VerdictFor = Arc<dyn Fn(&str) -> &'static str + Send + Sync>;

/// Picks a claim type for a claim's text.
pub type TypeFor = Arc<dyn Fn(&str) -> &'static str + Send + Sync>;

/// How the fake answers.
#[derive(Clone)]
pub enum LlmMode {
    /// A valid judgement of every claim asked about: the verdict `VerdictFor` picks,
    /// the first passage's first sentence as the quote (none for "not supported").
    Judge(VerdictFor),
    /// A completion whose content is this text.
    Content(String),
    /// This status, headers and body.
    Status(u16, Vec<(String, String)>, String),
    /// A valid judgement, after this long.
    Slow(Duration, VerdictFor),
    /// A valid classification of every claim asked about: the type `TypeFor` picks,
    /// the first source listed recommended at 0.95 and every other at 0.15.
    Classify(TypeFor),
    /// A valid classification, after this long.
    SlowClassify(Duration, TypeFor),
}

/// A request the fake received.
#[derive(Debug, Clone)]
pub struct LlmRequest {
    /// Header names (lower-case) and values.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Value,
}

impl LlmRequest {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The user message, parsed as JSON.
    pub fn user_message(&self) -> Value {
        let content = self.body["messages"][1]["content"]
            .as_str()
            .unwrap_or("null");
        serde_json::from_str(content).unwrap_or(Value::Null)
    }
}

struct Shared {
    mode: Mutex<LlmMode>,
    requests: Mutex<Vec<LlmRequest>>,
}

/// The running fake.
pub struct FakeLlm {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

impl FakeLlm {
    /// Starts the fake on a free loopback port.
    pub async fn start(mode: LlmMode) -> FakeLlm {
        let shared = Arc::new(Shared {
            mode: Mutex::new(mode),
            requests: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the fake model");
        let addr = listener.local_addr().expect("address");
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        FakeLlm {
            addr,
            shared,
            stop: Some(stop),
        }
    }

    /// The base URL to set as `SOURCEBOT_LLM_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Answers from now on as `mode` says.
    pub fn set_mode(&self, mode: LlmMode) {
        *self.shared.mode.lock().expect("mode") = mode;
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<LlmRequest> {
        self.shared.requests.lock().expect("requests").clone()
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The canned judgement of every claim of `request`.
fn judgement(request: &LlmRequest, verdict_for: &VerdictFor) -> Value {
    let user = request.user_message();
    let first_sentence = user["passages"][0]
        .as_str()
        .unwrap_or("")
        .split_inclusive(". ")
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    let judgements: Vec<Value> = user["claims"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|claim| {
            let verdict = verdict_for(claim["text"].as_str().unwrap_or(""));
            let quote = if verdict == "not supported" {
                String::new()
            } else {
                first_sentence.clone()
            };
            json!({"claim": claim["claim"], "verdict": verdict, "quote": quote,
                   "reason": format!("canned: {verdict}")})
        })
        .collect();
    json!({"judgements": judgements})
}

/// The canned classification of every claim of `request`.
fn classification(request: &LlmRequest, type_for: &TypeFor) -> Value {
    let user = request.user_message();
    let sources: Vec<String> = user["sources"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect();
    let claims: Vec<Value> = user["claims"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|claim| {
            let claim_type = type_for(claim["text"].as_str().unwrap_or(""));
            let recommendations: Vec<Value> = sources
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let relevance = if i == 0 { 0.95 } else { 0.15 };
                    json!({"source": name, "relevance": relevance,
                           "reason": format!("canned: {name} for {claim_type}")})
                })
                .collect();
            json!({"claim": claim["claim"], "claim_type": claim_type,
                   "recommendations": recommendations})
        })
        .collect();
    json!({"claims": claims})
}

/// A chat completion holding `content`.
fn completion(content: &str) -> Response {
    let body = json!({
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 1_700_000_000,
        "model": "fake-model",
        "choices": [{"index": 0,
            "message": {"role": "assistant", "content": content, "refusal": null},
            "logprobs": null, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
    });
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn answer(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let request = LlmRequest {
        headers: headers
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    shared
        .requests
        .lock()
        .expect("requests")
        .push(request.clone());
    let mode = shared.mode.lock().expect("mode").clone();
    match mode {
        LlmMode::Judge(verdict_for) => completion(&judgement(&request, &verdict_for).to_string()),
        LlmMode::Content(content) => completion(&content),
        LlmMode::Status(status, headers, body) => {
            let mut response = (
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                body,
            )
                .into_response();
            for (name, value) in headers {
                if let (Ok(name), Ok(value)) = (
                    axum::http::HeaderName::from_bytes(name.as_bytes()),
                    axum::http::HeaderValue::from_str(&value),
                ) {
                    response.headers_mut().insert(name, value);
                }
            }
            response
        }
        LlmMode::Slow(wait, verdict_for) => {
            tokio::time::sleep(wait).await;
            completion(&judgement(&request, &verdict_for).to_string())
        }
        LlmMode::Classify(type_for) => completion(&classification(&request, &type_for).to_string()),
        LlmMode::SlowClassify(wait, type_for) => {
            tokio::time::sleep(wait).await;
            completion(&classification(&request, &type_for).to_string())
        }
    }
}
