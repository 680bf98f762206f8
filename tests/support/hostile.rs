//! A hostile HTTP/1.1 server for link-checking tests. Each route decides per request
//! what to do: answer with any status, headers and body (including a huge one generated
//! lazily), wait first, hang without answering, send headers and then stall mid-body,
//! or close the connection. It listens on any loopback address (127.x.y.z), keeps
//! connections alive as HTTP/1.1 clients expect, counts connections, requests and body
//! bytes, and stops every task it started when dropped. The wire handling is written by
//! hand so a test sees exactly what went out.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// Largest request head (request line and headers, up to `\r\n\r\n`) the server reads;
/// a longer one gets `431` and the connection is closed.
pub const MAX_HEAD: usize = 16 * 1024;

/// The most request-body bytes kept in [`RequestInfo::body`].
pub const MAX_KEPT_BODY: usize = 64 * 1024;

/// The `Content-Length` that [`Action::HeadersThenStall`] announces.
pub const STALL_CONTENT_LENGTH: u64 = 1_000_000;

/// The body bytes [`Action::HeadersThenStall`] sends before stalling.
pub const STALL_PREFIX: &[u8] = b"0123456789";

/// What [`Action::Trickle`] sends after each wait.
pub const TRICKLE_PIECE: &[u8] = b"<p>still coming</p>\n";

/// Size of the chunks in which [`Body::Huge`] is written.
const CHUNK: usize = 64 * 1024;

/// The filler that [`Body::Huge`] bodies are made of.
static FILL: [u8; CHUNK] = [b'x'; CHUNK];

/// One request head as the server read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestInfo {
    /// The method as sent, e.g. `"HEAD"` or `"GET"`.
    pub method: String,
    /// The path of the request target, without query or fragment.
    pub path: String,
    /// The query of the request target, without the `?` (empty when there is none).
    pub query: String,
    /// The header fields in the order sent, names as sent.
    pub headers: Vec<(String, String)>,
    /// The first [`MAX_KEPT_BODY`] bytes of a `Content-Length` request body (a form
    /// posted to a token endpoint); the rest is read and dropped.
    pub body: Vec<u8>,
}

impl RequestInfo {
    /// The value of the first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The body of a [`Action::Respond`]. It is never sent for `HEAD` (the headers are).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// No body: `Content-Length: 0`.
    Empty,
    /// This text, with its length as `Content-Length`.
    Text(String),
    /// `Content-Length: n` and n filler bytes written in 64 KiB chunks as the client
    /// reads them; writing stops as soon as the client goes away.
    Huge(u64),
    /// These bytes, as they are (any encoding, compressed or binary).
    Bytes(Vec<u8>),
}

impl Body {
    /// The `Content-Length` this body announces.
    pub fn len(&self) -> u64 {
        match self {
            Body::Empty => 0,
            Body::Text(text) => text.len() as u64,
            Body::Huge(n) => *n,
            Body::Bytes(bytes) => bytes.len() as u64,
        }
    }

    /// Whether the body has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What the server does with one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Answer with this status, these headers and this body. `Content-Length` is added
    /// from the body unless `headers` has one (then theirs is sent as is) or the status is
    /// 1xx or 204. A `Connection: close` header closes the connection after the answer.
    Respond {
        /// Status code; the reason phrase is the standard one or `Unknown`.
        status: u16,
        /// Extra header fields, sent in this order.
        headers: Vec<(String, String)>,
        /// The body.
        body: Body,
    },
    /// Wait this long, then do the action.
    Delay(Duration, Box<Action>),
    /// Never answer; keep the socket open until the server is dropped.
    Hang,
    /// Send `200 OK` with `Content-Length: 1000000` and the 10 bytes of
    /// [`STALL_PREFIX`] (headers only for `HEAD`), then stall until the server is dropped.
    HeadersThenStall,
    /// Send `200 OK` with `Content-Type: text/html` and `Content-Length: 1000000`, then
    /// one [`TRICKLE_PIECE`] after each wait, until the client goes away or the server is
    /// dropped: a page that never finishes arriving yet is never silent.
    Trickle(Duration),
    /// Close the connection right after reading the request head, writing nothing.
    Close,
}

impl Action {
    /// `Respond` with this status, no extra headers and no body.
    pub fn status(status: u16) -> Action {
        Action::Respond {
            status,
            headers: Vec::new(),
            body: Body::Empty,
        }
    }

    /// `Respond` with this status and these extra headers, no body.
    pub fn status_with(status: u16, headers: &[(&str, &str)]) -> Action {
        Action::Respond {
            status,
            headers: owned_headers(headers),
            body: Body::Empty,
        }
    }

    /// `Respond` with this status, `Content-Type: text/html; charset=utf-8` and this body.
    pub fn text(status: u16, body: &str) -> Action {
        Action::Respond {
            status,
            headers: owned_headers(&[("Content-Type", "text/html; charset=utf-8")]),
            body: Body::Text(body.to_owned()),
        }
    }

    /// `Respond` with this status, `Content-Type: application/octet-stream` and a
    /// [`Body::Huge`] of `len` bytes.
    pub fn huge(status: u16, len: u64) -> Action {
        Action::Respond {
            status,
            headers: owned_headers(&[("Content-Type", "application/octet-stream")]),
            body: Body::Huge(len),
        }
    }

    /// `Respond` with this status, these extra headers and these bytes as the body.
    pub fn bytes(status: u16, headers: &[(&str, &str)], bytes: Vec<u8>) -> Action {
        Action::Respond {
            status,
            headers: owned_headers(headers),
            body: Body::Bytes(bytes),
        }
    }

    /// `Respond` with this status, `Content-Type: text/html` and a [`Body::Huge`] of
    /// `len` bytes.
    pub fn huge_html(status: u16, len: u64) -> Action {
        Action::Respond {
            status,
            headers: owned_headers(&[("Content-Type", "text/html")]),
            body: Body::Huge(len),
        }
    }

    /// `Respond` with this status and `Location: location`, no body.
    pub fn redirect(status: u16, location: &str) -> Action {
        Action::status_with(status, &[("Location", location)])
    }

    /// `Delay(wait, self)`.
    pub fn after(self, wait: Duration) -> Action {
        Action::Delay(wait, Box::new(self))
    }
}

fn owned_headers(headers: &[(&str, &str)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

type Decide = dyn Fn(&RequestInfo, usize) -> Action + Send + Sync;

/// Decides what to do with each request to one path. The function gets the request and
/// `hit`, the number of earlier requests to the same path (0 for the first).
#[derive(Clone)]
pub struct Route(Arc<Decide>);

impl fmt::Debug for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Route(..)")
    }
}

impl Route {
    /// A route that calls `decide(request, hit)` for every request.
    pub fn new(decide: impl Fn(&RequestInfo, usize) -> Action + Send + Sync + 'static) -> Route {
        Route(Arc::new(decide))
    }

    /// The same action for every request.
    pub fn always(action: Action) -> Route {
        Route::new(move |_, _| action.clone())
    }

    /// This status, no body, for every request.
    pub fn status(status: u16) -> Route {
        Route::always(Action::status(status))
    }

    /// This status with these extra headers, no body, for every request.
    pub fn status_with(status: u16, headers: &[(&str, &str)]) -> Route {
        Route::always(Action::status_with(status, headers))
    }

    /// This status with an HTML body, for every request.
    pub fn text(status: u16, body: &str) -> Route {
        Route::always(Action::text(status, body))
    }

    /// This redirect status with `Location: location`, for every request.
    pub fn redirect(status: u16, location: &str) -> Route {
        Route::always(Action::redirect(status, location))
    }

    /// `head_status` for `HEAD` requests, `get_status` for every other method.
    pub fn head_then_get(head_status: u16, get_status: u16) -> Route {
        Route::new(move |req, _| {
            if req.method.eq_ignore_ascii_case("HEAD") {
                Action::status(head_status)
            } else {
                Action::status(get_status)
            }
        })
    }

    /// The nth request to the path gets the nth action; the last one repeats.
    ///
    /// # Panics
    /// If `actions` is empty.
    pub fn sequence(actions: Vec<Action>) -> Route {
        assert!(!actions.is_empty(), "Route::sequence needs an action");
        Route::new(move |_, hit| actions[hit.min(actions.len() - 1)].clone())
    }

    /// What to do with `request`, the `hit`-th to its path.
    pub fn decide(&self, request: &RequestInfo, hit: usize) -> Action {
        (self.0)(request, hit)
    }
}

/// State shared between a server handle and its tasks.
pub(super) struct Shared {
    routes: HashMap<String, Route>,
    connections: AtomicUsize,
    requests: AtomicUsize,
    active: AtomicUsize,
    max_active: AtomicUsize,
    body_bytes: AtomicU64,
    log: Mutex<Vec<RequestInfo>>,
    hits: Mutex<HashMap<String, usize>>,
}

impl Shared {
    fn new(routes: Vec<(&str, Route)>) -> Shared {
        Shared {
            routes: routes
                .into_iter()
                .map(|(path, route)| (strip_query(path).to_owned(), route))
                .collect(),
            connections: AtomicUsize::new(0),
            requests: AtomicUsize::new(0),
            active: AtomicUsize::new(0),
            max_active: AtomicUsize::new(0),
            body_bytes: AtomicU64::new(0),
            log: Mutex::new(Vec::new()),
            hits: Mutex::new(HashMap::new()),
        }
    }

    /// Records a request and returns what to do with it.
    fn decide(&self, req: &RequestInfo) -> Action {
        self.requests.fetch_add(1, Ordering::SeqCst);
        self.log.lock().unwrap().push(req.clone());
        let hit = {
            let mut hits = self.hits.lock().unwrap();
            let count = hits.entry(req.path.clone()).or_insert(0);
            let hit = *count;
            *count += 1;
            hit
        };
        match self.routes.get(&req.path) {
            Some(route) => route.decide(req, hit),
            None => Action::text(404, "not found"),
        }
    }

    fn sent(&self, n: usize) {
        self.body_bytes.fetch_add(n as u64, Ordering::SeqCst);
    }
}

/// A hostile HTTP (or, from [`HostileServer::start_tls`], HTTPS) server on a loopback
/// address. Dropping it aborts the accept loop and every connection task.
pub struct HostileServer {
    addr: SocketAddr,
    scheme: &'static str,
    shared: Arc<Shared>,
    accept_task: JoinHandle<()>,
    cert_der: Option<Vec<u8>>,
}

impl fmt::Debug for HostileServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostileServer")
            .field("addr", &self.addr)
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}

impl HostileServer {
    /// Starts an HTTP server on `ip:0` (any 127.x.y.z works on Linux). Routes match the
    /// exact path, query ignored; unknown paths get `404`.
    pub async fn start(ip: IpAddr, routes: Vec<(&str, Route)>) -> HostileServer {
        launch(ip, routes, "http", None, serve_connection).await
    }

    /// [`HostileServer::start`] on 127.0.0.1.
    pub async fn start_local(routes: Vec<(&str, Route)>) -> HostileServer {
        HostileServer::start(IpAddr::V4(Ipv4Addr::LOCALHOST), routes).await
    }

    /// A server that accepts each connection and closes it at once, before reading
    /// anything. It counts connections; it never sees a request.
    pub async fn start_closing(ip: IpAddr) -> HostileServer {
        launch(ip, Vec::new(), "http", None, |stream, _| async move {
            drop(stream);
        })
        .await
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `scheme://ip:port/path` (a `/` is put before `path` if missing).
    pub fn url(&self, path: &str) -> String {
        let slash = if path.starts_with('/') { "" } else { "/" };
        format!("{}://{}{}{}", self.scheme, self.addr, slash, path)
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// Complete request heads read so far.
    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::SeqCst)
    }

    /// The most requests this server was handling at one moment (from reading a request
    /// head to finishing its answer).
    pub fn max_concurrent(&self) -> usize {
        self.shared.max_active.load(Ordering::SeqCst)
    }

    /// The methods of the requests to `path` (query ignored), in the order read.
    pub fn requests_to(&self, path: &str) -> Vec<String> {
        let path = strip_query(path);
        self.shared
            .log
            .lock()
            .unwrap()
            .iter()
            .filter(|req| req.path == path)
            .map(|req| req.method.clone())
            .collect()
    }

    /// Every request head read so far, in order.
    pub fn request_log(&self) -> Vec<RequestInfo> {
        self.shared.log.lock().unwrap().clone()
    }

    /// Body bytes written to clients so far, over all routes and connections.
    pub fn body_bytes_sent(&self) -> u64 {
        self.shared.body_bytes.load(Ordering::SeqCst)
    }

    /// The DER of the self-signed certificate of a TLS server; `None` for plain HTTP.
    pub fn cert_der(&self) -> Option<&[u8]> {
        self.cert_der.as_deref()
    }
}

impl Drop for HostileServer {
    fn drop(&mut self) {
        // The accept task owns the listener and the JoinSet of connection tasks:
        // aborting it closes the listener and aborts every connection.
        self.accept_task.abort();
    }
}

/// Binds `ip:0` and runs the accept loop, handing each connection to `on_conn` on a task
/// of its own.
pub(super) async fn launch<F, Fut>(
    ip: IpAddr,
    routes: Vec<(&str, Route)>,
    scheme: &'static str,
    cert_der: Option<Vec<u8>>,
    on_conn: F,
) -> HostileServer
where
    F: Fn(TcpStream, Arc<Shared>) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind((ip, 0))
        .await
        .unwrap_or_else(|e| panic!("hostile server: bind {ip}:0: {e}"));
    let addr = listener.local_addr().expect("hostile server: local_addr");
    let shared = Arc::new(Shared::new(routes));
    let state = Arc::clone(&shared);
    let accept_task = tokio::spawn(async move {
        let mut conns = JoinSet::new();
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    state.connections.fetch_add(1, Ordering::SeqCst);
                    let _ = stream.set_nodelay(true);
                    conns.spawn(on_conn(stream, Arc::clone(&state)));
                    while conns.try_join_next().is_some() {}
                }
                // Out of file descriptors and the like: back off, keep serving.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
    });
    HostileServer {
        addr,
        scheme,
        shared,
        accept_task,
        cert_der,
    }
}

/// Serves HTTP/1.1 requests on one connection until the client closes it, an action
/// ends it, or the task is aborted.
pub(super) async fn serve_connection<S>(mut stream: S, shared: Arc<Shared>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    loop {
        let head_len = match read_head(&mut stream, &mut buf).await {
            Head::Complete(len) => len,
            Head::Eof => return,
            Head::TooLarge => {
                refuse(&mut stream, 431).await;
                return;
            }
        };
        let Some(parsed) = parse_head(&buf[..head_len]) else {
            refuse(&mut stream, 400).await;
            return;
        };
        buf.drain(..head_len);
        let Parsed {
            mut req,
            mut keep_alive,
            body_len,
        } = parsed;
        match body_len {
            Some(len) => {
                if !read_body(&mut stream, &mut buf, len, &mut req.body).await {
                    return;
                }
            }
            // A chunked request body: not read, so the connection cannot be reused.
            None => keep_alive = false,
        }
        let action = shared.decide(&req);
        let now_active = shared.active.fetch_add(1, Ordering::SeqCst) + 1;
        shared.max_active.fetch_max(now_active, Ordering::SeqCst);
        let next = perform(&mut stream, &shared, &req, action).await;
        shared.active.fetch_sub(1, Ordering::SeqCst);
        match next {
            Next::Serve if keep_alive => {}
            Next::Serve => {
                let _ = stream.shutdown().await;
                return;
            }
            Next::Drop => return,
        }
    }
}

enum Head {
    Complete(usize),
    Eof,
    TooLarge,
}

/// Reads until `buf` holds a complete request head; returns its length.
async fn read_head<S: AsyncRead + Unpin>(stream: &mut S, buf: &mut Vec<u8>) -> Head {
    let mut scanned = 0;
    loop {
        if let Some(pos) = find_blank_line(&buf[scanned..]) {
            let len = scanned + pos + 4;
            return if len > MAX_HEAD {
                Head::TooLarge
            } else {
                Head::Complete(len)
            };
        }
        if buf.len() >= MAX_HEAD {
            return Head::TooLarge;
        }
        scanned = buf.len().saturating_sub(3);
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return Head::Eof,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn find_blank_line(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"\r\n\r\n")
}

/// Reads a request body of `len` bytes, keeping its first [`MAX_KEPT_BODY`] bytes in
/// `kept`; false if the client went away.
async fn read_body<S: AsyncRead + Unpin>(
    stream: &mut S,
    buf: &mut Vec<u8>,
    len: u64,
    kept: &mut Vec<u8>,
) -> bool {
    let mut left = len;
    loop {
        let take = left.min(buf.len() as u64) as usize;
        let keep = take.min(MAX_KEPT_BODY.saturating_sub(kept.len()));
        kept.extend_from_slice(&buf[..keep]);
        buf.drain(..take);
        left -= take as u64;
        if left == 0 {
            return true;
        }
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

struct Parsed {
    req: RequestInfo,
    keep_alive: bool,
    /// `None` for a chunked body.
    body_len: Option<u64>,
}

fn parse_head(head: &[u8]) -> Option<Parsed> {
    let text = String::from_utf8_lossy(head);
    let mut lines = text
        .trim_start_matches(['\r', '\n'])
        .split("\r\n")
        .take_while(|line| !line.is_empty());
    let mut parts = lines.next()?.split_ascii_whitespace();
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || !version.starts_with("HTTP/") {
        return None;
    }
    let mut headers = Vec::new();
    for line in lines {
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let req = RequestInfo {
        method: method.to_owned(),
        path: target_path(target).to_owned(),
        query: target
            .split_once('?')
            .map(|(_, q)| q.split('#').next().unwrap_or("").to_owned())
            .unwrap_or_default(),
        headers,
        body: Vec::new(),
    };
    let connection = req.header("connection").unwrap_or("").to_ascii_lowercase();
    let keep_alive = if version == "HTTP/1.0" {
        connection.contains("keep-alive")
    } else {
        !connection.contains("close")
    };
    let chunked = req
        .header("transfer-encoding")
        .is_some_and(|te| te.to_ascii_lowercase().contains("chunked"));
    let body_len = if chunked {
        None
    } else {
        match req.header("content-length") {
            Some(len) => Some(len.parse().ok()?),
            None => Some(0),
        }
    };
    Some(Parsed {
        req,
        keep_alive,
        body_len,
    })
}

/// The path of a request target in origin form (`/p?q`) or absolute form
/// (`http://host/p?q`).
fn target_path(target: &str) -> &str {
    let target = match target.find("://") {
        Some(i) => {
            let rest = &target[i + 3..];
            rest.find('/').map_or("/", |j| &rest[j..])
        }
        None => target,
    };
    strip_query(target)
}

fn strip_query(path: &str) -> &str {
    let end = path.find(['?', '#']).unwrap_or(path.len());
    &path[..end]
}

/// What a connection does after an action.
enum Next {
    /// Serve the next request unless the client asked to close.
    Serve,
    /// Drop the connection without writing anything more.
    Drop,
}

/// Carries out `action`.
async fn perform<S>(stream: &mut S, shared: &Shared, req: &RequestInfo, action: Action) -> Next
where
    S: AsyncWrite + Unpin,
{
    let mut action = action;
    loop {
        match action {
            Action::Delay(wait, next) => {
                tokio::time::sleep(wait).await;
                action = *next;
            }
            Action::Hang => return std::future::pending().await,
            Action::Close => return Next::Drop,
            Action::HeadersThenStall => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {STALL_CONTENT_LENGTH}\r\n\r\n"
                );
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return Next::Drop;
                }
                if !is_head(req) {
                    if stream.write_all(STALL_PREFIX).await.is_err() {
                        return Next::Drop;
                    }
                    shared.sent(STALL_PREFIX.len());
                }
                if stream.flush().await.is_err() {
                    return Next::Drop;
                }
                return std::future::pending().await;
            }
            Action::Trickle(every) => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {STALL_CONTENT_LENGTH}\r\n\r\n"
                );
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return Next::Drop;
                }
                loop {
                    if stream.flush().await.is_err() || is_head(req) {
                        return Next::Drop;
                    }
                    tokio::time::sleep(every).await;
                    if stream.write_all(TRICKLE_PIECE).await.is_err() {
                        return Next::Drop;
                    }
                    shared.sent(TRICKLE_PIECE.len());
                }
            }
            Action::Respond {
                status,
                headers,
                body,
            } => {
                return match respond(stream, shared, req, status, &headers, &body).await {
                    Ok(true) => Next::Serve,
                    Ok(false) => {
                        let _ = stream.shutdown().await;
                        Next::Drop
                    }
                    Err(_) => Next::Drop,
                };
            }
        }
    }
}

fn is_head(req: &RequestInfo) -> bool {
    req.method.eq_ignore_ascii_case("HEAD")
}

async fn respond<S>(
    stream: &mut S,
    shared: &Shared,
    req: &RequestInfo,
    status: u16,
    headers: &[(String, String)],
    body: &Body,
) -> std::io::Result<bool>
where
    S: AsyncWrite + Unpin,
{
    // Ok(false): answered, and the headers asked to close the connection.
    let has = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    let no_length = status < 200 || status == 204;
    let no_body = no_length || status == 304 || is_head(req);
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    if !no_length && !has("content-length") {
        head.push_str("Content-Length: ");
        head.push_str(&body.len().to_string());
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    if !no_body {
        match body {
            Body::Empty => {}
            Body::Text(text) => {
                stream.write_all(text.as_bytes()).await?;
                shared.sent(text.len());
            }
            Body::Bytes(bytes) => {
                stream.write_all(bytes).await?;
                shared.sent(bytes.len());
            }
            Body::Huge(len) => {
                let mut left = *len;
                while left > 0 {
                    let n = left.min(CHUNK as u64) as usize;
                    stream.write_all(&FILL[..n]).await?;
                    shared.sent(n);
                    left -= n as u64;
                }
            }
        }
    }
    stream.flush().await?;
    let close = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("connection") && v.eq_ignore_ascii_case("close"));
    Ok(!close)
}

/// Answers a request it cannot serve with a bodyless `status` and `Connection: close`,
/// then closes gracefully: it shuts down its side and discards what the client still
/// sends (for up to a second), so the client reads the answer instead of a reset.
async fn refuse<S: AsyncRead + AsyncWrite + Unpin>(stream: &mut S, status: u16) {
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        reason(status)
    );
    if stream.write_all(head.as_bytes()).await.is_err() || stream.shutdown().await.is_err() {
        return;
    }
    let drain = async {
        let mut sink = [0u8; 4096];
        while let Ok(n) = stream.read(&mut sink).await {
            if n == 0 {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
}

/// The standard reason phrase of `status`, or `Unknown`.
pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        206 => "Partial Content",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        410 => "Gone",
        418 => "I'm a teapot",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Unknown",
    }
}
