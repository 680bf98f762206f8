//! A fake Slack for hermetic tests of the bot: the Web API methods the bot calls
//! (`auth.test`, `chat.postMessage`, `chat.postEphemeral`, `chat.update`, `chat.delete`,
//! `chat.getPermalink`, `conversations.history`, `conversations.replies`,
//! `apps.connections.open`, and `views.open`, which refuses a `trigger_id` more than 3 s
//! old and a view outside a modal's limits), `users.info` and `views.publish` (in
//! `slack_people.rs`, with the user builders and [`FakeSlack::refuse_block_type`]), the
//! `response_url` hooks of slash commands and interactions, and the Socket Mode
//! WebSocket. It is an axum server on `127.0.0.1:0` that answers in the shapes Slack
//! documents, so slack-morphism's client parses them, records every call (query string,
//! form and JSON body merged into one object), keeps per-channel message history, lets a
//! test make the next calls to a method fail (rate limit, HTTP 500, a Slack error code, a
//! 503 from Slack's edge, or a hang), and lets a test push Socket Mode envelopes and read
//! the acks. Dropping the [`FakeSlack`] stops it: the listener closes and every open
//! connection, hung request and WebSocket is cut. [`FakeSlack::go_away`] does the same
//! while keeping the fake's state, so a client sees Slack unreachable (connection
//! refused), and [`FakeSlack::come_back`] listens again on the same port;
//! [`FakeSlack::start_away`] starts a fake that is away from the start.
//!
//! Messages are kept as the JSON objects Slack returns, so a test can seed one in any
//! shape Slack sends ([`FakeSlack::add_raw_message`], [`bot_message`]) and read it back
//! whole through `conversations.history` and `conversations.replies`; the thread fields
//! Slack adds to a parent (`reply_count`, `latest_reply`, `reply_users`, …) are computed
//! when read. The event builders ([`message_event`], [`message_changed_event`],
//! [`message_deleted_event`], [`tombstone_event`], [`event_callback`]) give the Events
//! API shapes of what happens to those messages.
//!
//! Files: this one holds the server, its store and the test-facing handle;
//! `slack_methods.rs` the Web API methods; `slack_payloads.rs` what Slack sends the bot;
//! `slack_people.rs` users and the App Home; `slack_listener.rs` the listener that can
//! go away.

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::ws::{Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::JoinHandle;

#[path = "slack_people.rs"]
mod people;
pub use people::{admin_user, bot_user, member_user, owner_user, primary_owner_user};
#[path = "slack_payloads.rs"]
mod payloads;
pub use payloads::*;
#[path = "slack_methods.rs"]
mod methods;
use methods::{base64_decode, check_blocks, check_blocks_up_to, dispatch};
pub use methods::{OAuthGrant, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET};
#[path = "slack_listener.rs"]
mod listener;
use listener::StopListener;

/// The workspace id the fake reports (`auth.test`, envelopes).
pub const TEAM_ID: &str = "T0001";
/// The workspace name `auth.test` reports.
pub const TEAM_NAME: &str = "Fake Slack";
/// The bot's user id: `auth.test` reports it and messages the bot posts carry it.
pub const BOT_USER_ID: &str = "UBOT";
/// The bot's bot id: `auth.test` reports it and messages the bot posts carry it.
pub const BOT_ID: &str = "BBOT";
/// The bot's user name `auth.test` reports.
pub const BOT_NAME: &str = "sourcebot";
/// The app id in the Socket Mode `hello` and in envelopes.
pub const APP_ID: &str = "A0001";
/// The workspace's subdomain: `https://fakeslack.slack.com/` (`auth.test`, permalinks).
pub const WORKSPACE_DOMAIN: &str = "fakeslack";
/// Posts Slack accepts on one `response_url`; later ones get HTTP 404 `used_url`.
pub const RESPONSE_URL_MAX_POSTS: usize = 5;
/// The first generated message ts is this many microseconds past the epoch plus 100.
const FIRST_TS_MICROS: u64 = 1_700_000_000_000_000;
/// How long [`FakeSlack::socket_send`] waits for a Socket Mode connection.
const SOCKET_WAIT: Duration = Duration::from_secs(10);

/// One request the fake received.
#[derive(Clone, Debug)]
pub struct Call {
    /// The Web API method (`"chat.postMessage"`), or `"response_url"` for a post to a
    /// [`FakeSlack::response_url`].
    pub method: String,
    /// The query string, form fields and JSON body merged into one object. Form and query
    /// values that hold a JSON array or object (`blocks`, `attachments`) are decoded;
    /// other form values stay strings. For `response_url` calls it also has `"id"`.
    pub params: Value,
    /// The token from `Authorization: Bearer …`, else from a `token` parameter.
    pub token: Option<String>,
    /// When the request arrived.
    pub at: Instant,
    /// The HTTP verb, e.g. `"POST"`.
    pub http_method: String,
    /// The request's `Content-Type`, if any.
    pub content_type: Option<String>,
}

impl Call {
    /// The parameter `key`, if sent.
    pub fn param(&self, key: &str) -> Option<&Value> {
        self.params.get(key)
    }

    /// The parameter `key` if it is a string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.params.get(key).and_then(Value::as_str)
    }
}

/// How the next calls to a method fail (see [`FakeSlack::fail_next`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// HTTP 429 with `Retry-After: retry_after_secs` and `{"ok":false,"error":"ratelimited"}`.
    RateLimited {
        /// The `Retry-After` value in seconds.
        retry_after_secs: u64,
    },
    /// HTTP 500 with a plain-text body.
    ServerError,
    /// HTTP 503 with a plain-text body, as Slack's edge answers while Slack is down.
    Unavailable,
    /// HTTP 200 `{"ok":false,"error":CODE}` (with `errors` and `response_metadata` for
    /// `invalid_blocks`, as Slack sends). On a `response_url` it is a plain-text body
    /// `CODE` with the status Slack's hooks use (404, 403, 410 or 400).
    SlackError(String),
    /// No answer: the request is held until the fake is dropped or goes away, then the
    /// connection is cut.
    Hang,
}

/// A message in a channel's history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Message {
    /// Its timestamp, which is its id within the channel, e.g. `"1700000000.000100"`.
    pub ts: String,
    /// The thread parent's ts for a reply (a parent may carry its own ts here too).
    pub thread_ts: Option<String>,
    /// The author's user id.
    pub user: Option<String>,
    /// The author's bot id for a bot's message.
    pub bot_id: Option<String>,
    /// The text (mrkdwn).
    pub text: String,
}

impl Message {
    /// A message by `user`, not in a thread.
    pub fn from_user(ts: &str, user: &str, text: &str) -> Message {
        Message {
            ts: ts.to_string(),
            user: Some(user.to_string()),
            text: text.to_string(),
            ..Message::default()
        }
    }

    /// A message by a bot (`bot_id`, no user), not in a thread.
    pub fn from_bot(ts: &str, bot_id: &str, text: &str) -> Message {
        Message {
            ts: ts.to_string(),
            bot_id: Some(bot_id.to_string()),
            text: text.to_string(),
            ..Message::default()
        }
    }

    /// The same message as a reply in the thread whose parent has ts `thread_ts`.
    pub fn in_thread(mut self, thread_ts: &str) -> Message {
        self.thread_ts = Some(thread_ts.to_string());
        self
    }
}

/// How the bot stands with a channel (see [`FakeSlack::set_channel`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Access {
    /// The bot is a member: everything works.
    #[default]
    Member,
    /// A public channel the bot is not in: `chat.postMessage` and `chat.postEphemeral`
    /// fail with `not_in_channel`; reads still work.
    NotMember,
    /// A channel the bot cannot see: every call naming it fails with `channel_not_found`.
    Hidden,
}

/// A message as stored: the JSON object Slack returns for it, without the thread fields
/// computed when read, and what indexes it (taken from that JSON).
#[derive(Clone, Debug)]
struct Stored {
    ts: String,
    thread_ts: Option<String>,
    user: Option<String>,
    bot_id: Option<String>,
    json: Map<String, Value>,
}

impl Stored {
    /// Indexes `message`, which must be a JSON object with a string `ts`.
    fn new(message: Value) -> Result<Stored, String> {
        let Value::Object(json) = message else {
            return Err(format!("a message must be a JSON object, not {message}"));
        };
        let field = |key: &str| json.get(key).and_then(Value::as_str).map(str::to_string);
        let Some(ts) = field("ts") else {
            return Err(format!(
                "a message needs a string `ts`: {}",
                Value::Object(json.clone())
            ));
        };
        let (thread_ts, user, bot_id) = (field("thread_ts"), field("user"), field("bot_id"));
        Ok(Stored {
            ts,
            thread_ts,
            user,
            bot_id,
            json,
        })
    }

    /// Whether this is a reply (in a thread and not its parent).
    fn is_reply(&self) -> bool {
        self.thread_ts.as_deref().is_some_and(|t| t != self.ts)
    }

    /// Whether this reply was also sent to the channel (`reply_broadcast`).
    fn is_broadcast(&self) -> bool {
        self.json.get("subtype").and_then(Value::as_str) == Some("thread_broadcast")
    }

    /// Whether the bot posted it, so that its token may update or delete it.
    fn is_bots(&self) -> bool {
        self.user.as_deref() == Some(BOT_USER_ID) || self.bot_id.as_deref() == Some(BOT_ID)
    }

    fn to_message(&self) -> Message {
        Message {
            ts: self.ts.clone(),
            thread_ts: self.thread_ts.clone(),
            user: self.user.clone(),
            bot_id: self.bot_id.clone(),
            text: self
                .json
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        }
    }
}

/// Something to do with one Socket Mode connection.
enum SocketCmd {
    Send(String),
    Close,
}

/// Everything the fake remembers; behind one lock.
struct Inner {
    calls: Vec<Call>,
    failures: HashMap<String, VecDeque<Failure>>,
    access: HashMap<String, Access>,
    channels: HashMap<String, Vec<Stored>>,
    last_ts: u64,
    response_posts: HashMap<String, usize>,
    sockets: Vec<(u64, mpsc::UnboundedSender<SocketCmd>)>,
    socket_ids: u64,
    socket_urls: u64,
    socket_frames: Vec<Value>,
    /// Install codes not yet exchanged, and refresh tokens not yet used.
    oauth_codes: HashMap<String, OAuthGrant>,
    refresh_tokens: HashMap<String, OAuthGrant>,
    tokens_issued: u64,
    /// Files `files.info` knows, by id.
    files: HashMap<String, Value>,
    /// A snippet's text, which `files.info` gives beside the file (`content`), by id.
    file_contents: HashMap<String, String>,
    /// Channels (`C…`) that are private, as `conversations.info` tells.
    private_channels: HashSet<String>,
    /// Users, Home tabs and refused block types (`slack_people.rs`).
    people: people::People,
}

/// State shared by the handlers and the [`FakeSlack`] handle.
struct Shared {
    inner: Mutex<Inner>,
    changed: Notify,
    stop: watch::Receiver<()>,
    /// Ends when the connections open now are cut: the fake goes away or is dropped.
    cut: Mutex<watch::Receiver<()>>,
    base: String,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits until `check` returns something or `timeout` passes.
    async fn wait_until<T>(
        &self,
        timeout: Duration,
        check: impl Fn(&Inner) -> Option<T>,
    ) -> Option<T> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let found = {
                let inner = self.lock();
                check(&inner)
            };
            if found.is_some() {
                return found;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                let inner = self.lock();
                return check(&inner);
            }
        }
    }

    /// Resolves when the fake is dropped.
    async fn stopped(&self) {
        let mut stop = self.stop.clone();
        while stop.changed().await.is_ok() {}
    }

    /// Resolves when the connections open now are cut: the fake is dropped or goes away.
    async fn cut(&self) {
        let mut cut = self
            .cut
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        tokio::select! {
            () = self.stopped() => {}
            () = async { while cut.changed().await.is_ok() {} } => {}
        }
    }
}

/// The fake Slack server. See the module documentation.
pub struct FakeSlack {
    shared: Arc<Shared>,
    addr: SocketAddr,
    app: Router,
    /// The listener and its connections while the fake is there; `None` while away.
    serving: Mutex<Option<Serving>>,
    _stop: watch::Sender<()>,
}

/// One stretch of the fake being there: the listener (shared with the accept loop, so
/// that going away closes it at once), the task serving it, and the sender whose drop
/// cuts every connection accepted meanwhile.
struct Serving {
    listener: Arc<Mutex<Option<TcpListener>>>,
    task: JoinHandle<()>,
    _cut: watch::Sender<()>,
}

impl Serving {
    /// Serves `app` on `listener` in a task; `shared.cut` follows this stretch.
    fn start(shared: &Shared, listener: TcpListener, app: Router) -> Serving {
        let (cut_tx, cut_rx) = watch::channel(());
        *shared
            .cut
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = cut_rx.clone();
        let listener = Arc::new(Mutex::new(Some(listener)));
        let stop_listener = StopListener {
            inner: listener.clone(),
            addr: shared_addr(shared),
            stop: cut_rx,
        };
        let task = tokio::spawn(async move {
            let _ = axum::serve(stop_listener, app).await;
        });
        Serving {
            listener,
            task,
            _cut: cut_tx,
        }
    }

    /// Closes the listener now (new connections are refused), stops the accept loop
    /// and cuts every connection it accepted.
    fn end(self) {
        drop(
            self.listener
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take(),
        );
        self.task.abort();
        // `_cut` is dropped here, which fails every read and write of those connections.
    }
}

/// The address in `shared.base` (`http://127.0.0.1:PORT`).
fn shared_addr(shared: &Shared) -> SocketAddr {
    shared
        .base
        .trim_start_matches("http://")
        .parse()
        .expect("fake Slack: its own address")
}

impl Drop for FakeSlack {
    fn drop(&mut self) {
        self.go_away();
        // `_stop` is dropped right after this, which ends every hung request and socket.
    }
}

impl FakeSlack {
    /// Starts the fake on `127.0.0.1` at a free port.
    pub async fn start() -> FakeSlack {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("fake Slack: bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("fake Slack: local address");
        let (stop_tx, stop_rx) = watch::channel(());
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                calls: Vec::new(),
                failures: HashMap::new(),
                access: HashMap::new(),
                channels: HashMap::new(),
                last_ts: FIRST_TS_MICROS,
                response_posts: HashMap::new(),
                sockets: Vec::new(),
                socket_ids: 0,
                socket_urls: 0,
                socket_frames: Vec::new(),
                oauth_codes: HashMap::new(),
                refresh_tokens: HashMap::new(),
                tokens_issued: 0,
                files: HashMap::new(),
                file_contents: HashMap::new(),
                private_channels: HashSet::new(),
                people: people::People::default(),
            }),
            changed: Notify::new(),
            stop: stop_rx.clone(),
            cut: Mutex::new(stop_rx),
            base: format!("http://{addr}"),
        });
        let app = Router::new()
            .route("/api/{method}", any(api_handler))
            .route("/response/{id}", any(response_url_handler))
            .route("/socket", get(socket_handler))
            .with_state(shared.clone());
        let serving = Serving::start(&shared, listener, app.clone());
        FakeSlack {
            shared,
            addr,
            app,
            serving: Mutex::new(Some(serving)),
            _stop: stop_tx,
        }
    }

    /// Starts the fake already away (see [`FakeSlack::go_away`]): its port is reserved
    /// but refuses connections until [`FakeSlack::come_back`], so a bot pointed at it
    /// cannot sign in.
    pub async fn start_away() -> FakeSlack {
        let slack = FakeSlack::start().await;
        slack.go_away();
        slack
    }

    /// Slack goes down: the listener closes at once, so a new connection is refused (not
    /// left hanging, not answered with an HTTP error), and every open connection (kept
    /// alive, mid-request, hung by [`Failure::Hang`], Socket Mode) is cut. The state
    /// (calls, messages, queued failures…) is kept for [`FakeSlack::come_back`]. Nothing
    /// happens if the fake is already away.
    pub fn go_away(&self) {
        let serving = self
            .serving
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some(serving) = serving {
            serving.end();
        }
    }

    /// Slack is back: the fake listens again on the same address, with the state it had.
    /// Nothing happens if it is not away.
    ///
    /// # Panics
    /// If the port cannot be bound again within 5 s (another socket took it meanwhile).
    pub async fn come_back(&self) {
        if !self.is_away() {
            return;
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        let listener = loop {
            match TcpListener::bind(self.addr).await {
                Ok(listener) => break listener,
                Err(_) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("fake Slack: cannot listen on {} again: {e}", self.addr),
            }
        };
        let mut serving = self
            .serving
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if serving.is_none() {
            *serving = Some(Serving::start(&self.shared, listener, self.app.clone()));
        }
    }

    /// Whether the fake is away ([`FakeSlack::go_away`]).
    pub fn is_away(&self) -> bool {
        self.serving
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .is_none()
    }

    /// The address the fake listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What to pass to `SlackClientHyperConnector::with_slack_api_url`:
    /// `http://127.0.0.1:PORT/api`, without a trailing slash (slack-morphism appends
    /// `/{method}`).
    pub fn api_url(&self) -> String {
        format!("{}/api", self.shared.base)
    }

    /// A `response_url` as Slack gives a slash command or interaction. Posts to it are
    /// recorded as calls of method `"response_url"` whose params have `"id": id`. `id`
    /// should be URL-path-safe (letters, digits, `-`, `_`).
    pub fn response_url(&self, id: &str) -> String {
        format!("{}/response/{id}", self.shared.base)
    }

    /// Every call so far, in the order they arrived.
    pub fn calls(&self) -> Vec<Call> {
        self.shared.lock().calls.clone()
    }

    /// The calls to `method` so far, in order.
    pub fn calls_to(&self, method: &str) -> Vec<Call> {
        calls_to(&self.shared.lock(), method)
    }

    /// Waits until at least `n` calls to `method` were recorded or `timeout` passes, and
    /// returns the calls to `method` then (fewer than `n` on timeout).
    pub async fn wait_for(&self, method: &str, n: usize, timeout: Duration) -> Vec<Call> {
        self.shared
            .wait_until(timeout, |inner| {
                let calls = calls_to(inner, method);
                (calls.len() >= n).then_some(calls)
            })
            .await
            .unwrap_or_else(|| self.calls_to(method))
    }

    /// The next `times` calls to `method` (`"response_url"` for response URLs) fail this
    /// way; then normal behaviour resumes. Failures queue up in the order given. The
    /// calls are still recorded.
    pub fn fail_next(&self, method: &str, failure: Failure, times: usize) {
        let mut inner = self.shared.lock();
        let queue = inner.failures.entry(method.to_string()).or_default();
        queue.extend(std::iter::repeat_n(failure, times));
    }

    /// Makes `file` (a file object as `files.info` returns it, with its `id`) known.
    pub fn add_file(&self, file: Value) {
        let id = file["id"].as_str().unwrap_or_default().to_string();
        self.shared.lock().files.insert(id, file);
    }

    /// Makes the snippet `file` known with its text `content` (`files.info` gives it
    /// beside the file, as Slack does for snippets).
    pub fn add_snippet(&self, file: Value, content: &str) {
        let id = file["id"].as_str().unwrap_or_default().to_string();
        let mut inner = self.shared.lock();
        inner.file_contents.insert(id.clone(), content.to_string());
        inner.files.insert(id, file);
    }

    /// Makes the channel `channel` (a `C…` id) private, as `conversations.info` says.
    pub fn set_private(&self, channel: &str) {
        self.shared
            .lock()
            .private_channels
            .insert(channel.to_string());
    }

    /// Seeds `message` into `channel`'s history (a reply when `thread_ts` is set and
    /// differs from `ts`); a message with the same ts is replaced.
    pub fn add_message(&self, channel: &str, message: Message) {
        self.add_raw_message(channel, message_from(&message));
    }

    /// The messages of `channel` (replies included), oldest first.
    pub fn messages(&self, channel: &str) -> Vec<Message> {
        let inner = self.shared.lock();
        inner
            .channels
            .get(channel)
            .map(|list| list.iter().map(Stored::to_message).collect())
            .unwrap_or_default()
    }

    /// Seeds `message`, the full JSON object Slack returns for a message (`ts` required;
    /// `thread_ts`, `user`, `bot_id`, `app_id`, `bot_profile`, `subtype`, `text`,
    /// `blocks`, `attachments`, `edited`, `files`, `metadata`… as the test likes), into
    /// `channel`'s history: `conversations.history` and `conversations.replies` return it
    /// verbatim, with the thread fields of a parent merged in. A reply when `thread_ts` is
    /// set and differs from `ts`; a message with the same ts is replaced.
    ///
    /// # Panics
    /// If `message` is not an object with a string `ts`.
    pub fn add_raw_message(&self, channel: &str, message: Value) {
        let stored = Stored::new(message).unwrap_or_else(|e| panic!("fake Slack: {e}"));
        let mut inner = self.shared.lock();
        if let Some(micros) = ts_micros(&stored.ts) {
            inner.last_ts = inner.last_ts.max(micros);
        }
        inner.store(channel, stored);
    }

    /// Replaces the message of `channel` with the same `ts` as `message` by `message`, as
    /// an assistant's `chat.update` would (the event to go with it is
    /// [`message_changed_event`]).
    ///
    /// # Panics
    /// If `message` is not an object with a string `ts`, or no message has that ts.
    pub fn replace_raw_message(&self, channel: &str, message: Value) {
        let stored = Stored::new(message).unwrap_or_else(|e| panic!("fake Slack: {e}"));
        let mut inner = self.shared.lock();
        assert!(
            inner.find(channel, &stored.ts).is_some(),
            "fake Slack: no message {} in {channel} to replace",
            stored.ts
        );
        inner.store(channel, stored);
    }

    /// Deletes the message `ts` of `channel` outright (its replies stay); whether there
    /// was one. (`chat.delete` by the bot leaves a tombstone for a parent with replies,
    /// as Slack does; to model that for someone else's message, use
    /// [`FakeSlack::replace_raw_message`] with a [`tombstone_message`].)
    pub fn remove_message(&self, channel: &str, ts: &str) -> bool {
        self.shared.lock().remove(channel, ts)
    }

    /// What `conversations.history` would return for `channel` if it listed replies too:
    /// every message as JSON, thread fields merged in, oldest first.
    pub fn raw_messages(&self, channel: &str) -> Vec<Value> {
        let inner = self.shared.lock();
        inner
            .channels
            .get(channel)
            .map(|list| {
                list.iter()
                    .map(|s| inner.message_json(channel, s))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Sets how the bot stands with `channel` (default [`Access::Member`]).
    pub fn set_channel(&self, channel: &str, access: Access) {
        self.shared
            .lock()
            .access
            .insert(channel.to_string(), access);
    }

    /// Sends `envelope` (a Socket Mode frame such as [`events_api_envelope`]) to the most
    /// recently opened Socket Mode connection, waiting up to 10 s for one.
    ///
    /// # Panics
    /// If no connection is open within that time.
    pub async fn socket_send(&self, envelope: Value) {
        let text = envelope.to_string();
        loop {
            let sender = self
                .shared
                .wait_until(SOCKET_WAIT, |inner| {
                    inner.sockets.last().map(|(id, tx)| (*id, tx.clone()))
                })
                .await;
            let Some((id, tx)) = sender else {
                panic!("fake Slack: no Socket Mode connection within {SOCKET_WAIT:?}");
            };
            if tx.send(SocketCmd::Send(text.clone())).is_ok() {
                return;
            }
            self.shared.lock().sockets.retain(|(other, _)| *other != id);
        }
    }

    /// Closes every open Socket Mode connection (a WebSocket close frame), as Slack does
    /// when it drops a connection. A client is expected to reconnect through
    /// `apps.connections.open`.
    pub fn socket_close_all(&self) {
        let inner = self.shared.lock();
        for (_, tx) in &inner.sockets {
            let _ = tx.send(SocketCmd::Close);
        }
    }

    /// Waits until the client acked `envelope_id` or `timeout` passes; returns the ack
    /// frame (`{"envelope_id": …, "payload": …}`).
    pub async fn wait_for_ack(&self, envelope_id: &str, timeout: Duration) -> Option<Value> {
        self.shared
            .wait_until(timeout, |inner| {
                inner
                    .socket_frames
                    .iter()
                    .find(|frame| {
                        frame.get("envelope_id").and_then(Value::as_str) == Some(envelope_id)
                    })
                    .cloned()
            })
            .await
    }

    /// Every frame the clients sent over Socket Mode, in order (non-JSON text as a string).
    pub fn socket_frames(&self) -> Vec<Value> {
        self.shared.lock().socket_frames.clone()
    }

    /// How many Socket Mode connections are open now.
    pub fn socket_connections(&self) -> usize {
        self.shared.lock().sockets.len()
    }

    /// Waits until at least `n` Socket Mode connections are open or `timeout` passes;
    /// returns whether they are.
    pub async fn wait_for_socket_connections(&self, n: usize, timeout: Duration) -> bool {
        self.shared
            .wait_until(timeout, |inner| (inner.sockets.len() >= n).then_some(()))
            .await
            .is_some()
    }
}

fn calls_to(inner: &Inner, method: &str) -> Vec<Call> {
    inner
        .calls
        .iter()
        .filter(|call| call.method == method)
        .cloned()
        .collect()
}

/// How much later than its slot a post may reach the fake Slack. The bot paces the
/// moments it sends; between that and the fake server's clock lie a task waking, a
/// connection and the request's parsing, a few milliseconds on a quiet machine and tens
/// on a loaded 2-core one (CI once saw a post arrive 57 ms after its slot, so the next one
/// arrived 943 ms after it).
pub const ARRIVAL_JITTER: Duration = Duration::from_millis(250);

/// Asserts that the posts that reached the fake Slack at `times` (in any order) were sent
/// at least `pace` apart: every gap between arrivals is at least `pace` less
/// [`ARRIVAL_JITTER`], and first to last spans at least `(n - 1) * pace` less it. An unpaced
/// burst (gaps of milliseconds) fails both; one late arrival fails neither. `what` names
/// the posts in the failure message.
pub fn assert_paced(times: &[Instant], pace: Duration, what: &str) {
    let mut sorted = times.to_vec();
    sorted.sort();
    for pair in sorted.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap + ARRIVAL_JITTER >= pace,
            "{what}: two posts arrived only {gap:?} apart (pace {pace:?})"
        );
    }
    if let (Some(first), Some(last)) = (sorted.first(), sorted.last()) {
        let span = *last - *first;
        let paced_span = pace * (sorted.len().saturating_sub(1) as u32);
        assert!(
            span + ARRIVAL_JITTER >= paced_span,
            "{what}: {} posts arrived within {span:?}, paced they take {paced_span:?}",
            sorted.len()
        );
    }
}

// ---------------------------------------------------------------------------------------
// Store

impl Inner {
    fn access(&self, channel: &str) -> Access {
        self.access.get(channel).copied().unwrap_or_default()
    }

    fn next_ts(&mut self) -> String {
        self.last_ts += 100;
        format_ts(self.last_ts)
    }

    /// The `edited.ts` of an edit made now: the next whole second after the latest ts,
    /// as Slack's edit stamps end in `.000000` (no ts is used up).
    fn edit_ts(&self) -> String {
        format_ts((self.last_ts / 1_000_000 + 1) * 1_000_000)
    }

    fn store(&mut self, channel: &str, stored: Stored) {
        let list = self.channels.entry(channel.to_string()).or_default();
        list.retain(|s| s.ts != stored.ts);
        list.push(stored);
        list.sort_by(|a, b| ts_order(&a.ts, &b.ts));
    }

    /// Removes the message `ts` of `channel`; whether there was one.
    fn remove(&mut self, channel: &str, ts: &str) -> bool {
        let Some(list) = self.channels.get_mut(channel) else {
            return false;
        };
        let before = list.len();
        list.retain(|s| s.ts != ts);
        list.len() != before
    }

    fn find(&self, channel: &str, ts: &str) -> Option<&Stored> {
        self.channels.get(channel)?.iter().find(|s| s.ts == ts)
    }

    /// The replies to the parent `ts` in `channel`, oldest first.
    fn replies(&self, channel: &str, ts: &str) -> Vec<&Stored> {
        self.channels
            .get(channel)
            .map(|list| {
                list.iter()
                    .filter(|s| s.is_reply() && s.thread_ts.as_deref() == Some(ts))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A message as Slack returns it: the stored JSON, with the thread fields of a parent
    /// that has replies (`thread_ts`, `reply_count`, `reply_users_count`, `reply_users`,
    /// `latest_reply`, and `is_locked`/`subscribed` unless set) and a reply's
    /// `parent_user_id` (unless set) merged in.
    fn message_json(&self, channel: &str, stored: &Stored) -> Value {
        let mut value = stored.json.clone();
        if stored.is_reply() {
            let parent_user = stored
                .thread_ts
                .as_deref()
                .and_then(|t| self.find(channel, t))
                .and_then(|p| p.user.clone());
            if let Some(parent_user) = parent_user {
                value
                    .entry("parent_user_id")
                    .or_insert_with(|| json!(parent_user));
            }
            return Value::Object(value);
        }
        let replies = self.replies(channel, &stored.ts);
        if let Some(latest) = replies.last() {
            let mut users: Vec<String> = Vec::new();
            for reply in &replies {
                if let Some(user) = &reply.user {
                    if !users.contains(user) {
                        users.push(user.clone());
                    }
                }
            }
            value.insert("thread_ts".into(), json!(stored.ts));
            value.insert("reply_count".into(), json!(replies.len()));
            value.insert("reply_users_count".into(), json!(users.len()));
            value.insert("reply_users".into(), json!(users));
            value.insert("latest_reply".into(), json!(latest.ts));
            value.entry("is_locked").or_insert(json!(false));
            value.entry("subscribed").or_insert(json!(false));
        }
        Value::Object(value)
    }
}

/// A [`Message`] as the JSON object Slack returns for it.
fn message_from(msg: &Message) -> Value {
    let mut value = json!({
        "type": "message",
        "ts": msg.ts,
        "text": msg.text,
        "team": TEAM_ID,
    });
    if let Some(user) = &msg.user {
        value["user"] = json!(user);
    }
    if let Some(bot_id) = &msg.bot_id {
        value["bot_id"] = json!(bot_id);
        if bot_id == BOT_ID {
            value["app_id"] = json!(APP_ID);
        }
    }
    if let Some(thread_ts) = &msg.thread_ts {
        value["thread_ts"] = json!(thread_ts);
    }
    value
}

/// `"1700000000.000100"` as microseconds, if it has that shape.
fn ts_micros(ts: &str) -> Option<u64> {
    let (secs, frac) = ts.split_once('.').unwrap_or((ts, ""));
    if frac.len() > 6 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = secs.parse().ok()?;
    let mut micros: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    for _ in frac.len()..6 {
        micros *= 10;
    }
    secs.checked_mul(1_000_000)?.checked_add(micros)
}

fn format_ts(micros: u64) -> String {
    format!("{}.{:06}", micros / 1_000_000, micros % 1_000_000)
}

fn ts_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (ts_micros(a), ts_micros(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => a.cmp(b),
    }
}

// ---------------------------------------------------------------------------------------
// Requests

async fn api_handler(
    State(shared): State<Arc<Shared>>,
    Path(method): Path<String>,
    http_method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let call = new_call(method, &http_method, &uri, &headers, &body, Map::new());
    let failure = record(&shared, &call);
    match failure {
        Some(Failure::Hang) => hang(&shared).await,
        Some(failure) => api_failure(&failure),
        None => {
            let body = {
                let mut inner = shared.lock();
                dispatch(&mut inner, &shared.base, &call)
            };
            shared.changed.notify_waiters();
            json_response(StatusCode::OK, body)
        }
    }
}

async fn response_url_handler(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    http_method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut extra = Map::new();
    extra.insert("id".to_string(), json!(id));
    let call = new_call(
        "response_url".to_string(),
        &http_method,
        &uri,
        &headers,
        &body,
        extra,
    );
    let failure = record(&shared, &call);
    match failure {
        Some(Failure::Hang) => hang(&shared).await,
        Some(Failure::SlackError(code)) => webhook_error(&code),
        Some(failure) => api_failure(&failure),
        None => {
            let params = &call.params;
            let deleting = p_bool(params, "delete_original");
            if !deleting
                && p_str(params, "text").is_none_or(str::is_empty)
                && params.get("blocks").is_none()
                && params.get("attachments").is_none()
            {
                return webhook_error("no_text");
            }
            if let Some(blocks) = params.get("blocks") {
                if check_blocks(blocks).is_some() {
                    return webhook_error("invalid_blocks");
                }
            }
            let mut inner = shared.lock();
            let used = inner.response_posts.entry(id).or_default();
            if *used >= RESPONSE_URL_MAX_POSTS {
                return webhook_error("used_url");
            }
            *used += 1;
            (StatusCode::OK, "ok").into_response()
        }
    }
}

async fn socket_handler(State(shared): State<Arc<Shared>>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |socket| run_socket(shared, socket))
}

/// Serves one Socket Mode connection: `hello`, then frames both ways until either side
/// closes or the fake stops.
async fn run_socket(shared: Arc<Shared>, mut socket: WebSocket) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (id, count) = {
        let mut inner = shared.lock();
        inner.socket_ids += 1;
        let id = inner.socket_ids;
        inner.sockets.push((id, tx));
        (id, inner.sockets.len())
    };
    shared.changed.notify_waiters();
    let hello = json!({
        "type": "hello",
        "num_connections": count,
        "debug_info": {
            "host": "applink-fakeslack",
            "build_number": 1,
            "approximate_connection_time": 18060
        },
        "connection_info": { "app_id": APP_ID }
    });
    if socket
        .send(WsMessage::Text(hello.to_string().into()))
        .await
        .is_ok()
    {
        let stopped = shared.cut();
        tokio::pin!(stopped);
        loop {
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(SocketCmd::Send(text)) => {
                        if socket.send(WsMessage::Text(text.into())).await.is_err() {
                            break;
                        }
                    }
                    Some(SocketCmd::Close) | None => {
                        let _ = socket.send(WsMessage::Close(None)).await;
                        break;
                    }
                },
                frame = socket.recv() => match frame {
                    Some(Ok(WsMessage::Text(text))) => {
                        let value = serde_json::from_str(text.as_str())
                            .unwrap_or_else(|_| Value::String(text.to_string()));
                        shared.lock().socket_frames.push(value);
                        shared.changed.notify_waiters();
                    }
                    Some(Ok(WsMessage::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => {}
                },
                _ = &mut stopped => break,
            }
        }
    }
    shared.lock().sockets.retain(|(other, _)| *other != id);
    shared.changed.notify_waiters();
}

fn new_call(
    method: String,
    http_method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
    extra: Map<String, Value>,
) -> Call {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut params = Map::new();
    if let Some(query) = uri.query() {
        for (key, value) in parse_form(query.as_bytes()) {
            params.insert(key, decode_form_value(value));
        }
    }
    let kind = content_type
        .as_deref()
        .and_then(|ct| ct.split(';').next())
        .map(|ct| ct.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if !body.is_empty() {
        match kind.as_str() {
            "application/json" => match serde_json::from_slice::<Value>(body) {
                Ok(Value::Object(object)) => params.extend(object),
                _ => {
                    params.insert("_body".to_string(), json!(String::from_utf8_lossy(body)));
                }
            },
            "application/x-www-form-urlencoded" | "" => {
                for (key, value) in parse_form(body) {
                    params.insert(key, decode_form_value(value));
                }
            }
            _ => {
                params.insert("_body".to_string(), json!(String::from_utf8_lossy(body)));
            }
        }
    }
    params.extend(extra);
    // `Authorization: Basic base64(client_id:client_secret)`, as oauth.v2.access takes.
    if let Some((id, secret)) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| base64_decode(b.trim()))
        .and_then(|raw| String::from_utf8(raw).ok())
        .and_then(|pair| {
            pair.split_once(':')
                .map(|(a, b)| (a.to_string(), b.to_string()))
        })
    {
        params.insert("client_id".into(), json!(id));
        params.insert("client_secret".into(), json!(secret));
    }
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
        .or_else(|| {
            params
                .get("token")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    Call {
        method,
        params: Value::Object(params),
        token,
        at: Instant::now(),
        http_method: http_method.as_str().to_string(),
        content_type,
    }
}

/// Records `call` and takes the failure queued for its method, if any.
fn record(shared: &Shared, call: &Call) -> Option<Failure> {
    let failure = {
        let mut inner = shared.lock();
        inner.calls.push(call.clone());
        inner
            .failures
            .get_mut(&call.method)
            .and_then(VecDeque::pop_front)
    };
    shared.changed.notify_waiters();
    failure
}

/// Holds a request until the fake is dropped or goes away; the answer then goes nowhere
/// because the connection is cut.
async fn hang(shared: &Shared) -> Response {
    shared.cut().await;
    StatusCode::SERVICE_UNAVAILABLE.into_response()
}

fn api_failure(failure: &Failure) -> Response {
    match failure {
        Failure::RateLimited { retry_after_secs } => (
            StatusCode::TOO_MANY_REQUESTS,
            [
                (
                    header::CONTENT_TYPE,
                    "application/json; charset=utf-8".to_string(),
                ),
                (header::RETRY_AFTER, retry_after_secs.to_string()),
            ],
            json!({ "ok": false, "error": "ratelimited" }).to_string(),
        )
            .into_response(),
        Failure::ServerError => {
            (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response()
        }
        Failure::Unavailable => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "Service Unavailable",
        )
            .into_response(),
        Failure::SlackError(code) => json_response(StatusCode::OK, slack_error(code)),
        Failure::Hang => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

/// A failed post to a hook, as Slack's hooks answer: a status and the code as text.
fn webhook_error(code: &str) -> Response {
    let status = match code {
        "no_active_hooks" | "expired_url" | "used_url" | "channel_not_found" | "user_not_found" => {
            StatusCode::NOT_FOUND
        }
        "action_prohibited" | "posting_to_general_channel_denied" => StatusCode::FORBIDDEN,
        "channel_is_archived" => StatusCode::GONE,
        _ => StatusCode::BAD_REQUEST,
    };
    (status, code.to_string()).into_response()
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body.to_string(),
    )
        .into_response()
}

fn slack_error(code: &str) -> Value {
    if code == "invalid_blocks" {
        return invalid_blocks("invalid additional property: fake [json-pointer:/blocks/0]");
    }
    json!({ "ok": false, "error": code })
}

fn invalid_blocks(detail: &str) -> Value {
    json!({
        "ok": false,
        "error": "invalid_blocks",
        "errors": [detail],
        "response_metadata": { "messages": [format!("[ERROR] {detail}")] }
    })
}

// ---------------------------------------------------------------------------------------
// Parameters

fn p_str<'a>(params: &'a Value, key: &str) -> Option<&'a str> {
    params.get(key).and_then(Value::as_str)
}

fn p_u64(params: &Value, key: &str) -> Option<u64> {
    match params.get(key)? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn p_bool(params: &Value, key: &str) -> bool {
    match params.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => matches!(s.as_str(), "true" | "1"),
        Some(Value::Number(n)) => n.as_u64() == Some(1),
        _ => false,
    }
}

/// A form or query value: a JSON array or object is decoded, anything else stays text.
fn decode_form_value(value: String) -> Value {
    let trimmed = value.trim_start();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        if let Ok(decoded) = serde_json::from_str::<Value>(&value) {
            return decoded;
        }
    }
    Value::String(value)
}

/// `application/x-www-form-urlencoded` pairs, decoded.
fn parse_form(input: &[u8]) -> Vec<(String, String)> {
    input
        .split(|b| *b == b'&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let mut parts = pair.splitn(2, |b| *b == b'=');
            let key = percent_decode(parts.next().unwrap_or_default());
            let value = percent_decode(parts.next().unwrap_or_default());
            (key, value)
        })
        .collect()
}

fn percent_decode(input: &[u8]) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'+' => out.push(b' '),
            b'%' => match (
                input.get(i + 1).copied().and_then(hex),
                input.get(i + 2).copied().and_then(hex),
            ) {
                (Some(hi), Some(lo)) => {
                    out.push((hi << 4) | lo);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Slack's request signature: `v0=` + hex(HMAC-SHA256(secret, `v0:{timestamp}:{body}`)),
/// for tests and benchmarks that sign the requests they send to the bot.
pub fn sign_request(secret: &str, timestamp: &str, body: &str) -> String {
    use hmac::{Hmac, Mac};
    let Ok(mut mac) = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()) else {
        unreachable!("HMAC accepts keys of any length")
    };
    mac.update(format!("v0:{timestamp}:{body}").as_bytes());
    format!("v0={}", hex::encode(mac.finalize().into_bytes()))
}

/// Seconds since the Unix epoch: the `X-Slack-Request-Timestamp` of a request signed
/// now.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}
