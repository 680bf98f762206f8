//! What the Google Drive and Microsoft Graph tests share (tests/products_cloud.rs checks
//! links, tests/products_read_drive.rs and tests/products_read_graph.rs read the
//! documents, through the fakes of `cloud_docs`): the throwaway service account's key
//! file, Google's token endpoint (which verifies the RS256 JWT of the signed-JWT grant
//! with the test key's public half and the scope asked), Microsoft's client-credentials
//! token endpoint, a bearer check for the APIs' routes, each product's error body, and
//! the settings that point sourcebot at the fakes. The token replies and error bodies
//! have the shapes of each product's own reference:
//!
//! - Google's token reply and `invalid_grant`: "Using OAuth 2.0 for Server to Server
//!   Applications" (developers.google.com/identity/protocols/oauth2/service-account).
//! - Drive's error body: "Resolve errors" (developers.google.com/workspace/drive/api/
//!   guides/handle-errors).
//! - Microsoft's token reply: "Microsoft identity platform and the OAuth 2.0 client
//!   credentials flow" (learn.microsoft.com/entra/identity-platform/
//!   v2-oauth2-client-creds-grant-flow).
//! - Graph's error body: "Microsoft Graph error responses and resource types"
//!   (learn.microsoft.com/graph/errors).

use super::{Action, HostileServer, RequestInfo, Route};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The throwaway test key (see tests/data/README.md).
pub const TEST_KEY: &str = include_str!("../data/products/throwaway-service-account.pem");
/// The service account the key file names.
pub const SERVICE_ACCOUNT: &str = "sourcebot@acme-sourcebot.iam.gserviceaccount.com";
/// The access token the fake Google token endpoint hands out.
pub const GOOGLE_TOKEN: &str = "ya29.c.fake-drive-token";
/// The only scope sourcebot may ask Google for: files and their contents, read-only.
pub const DRIVE_SCOPE: &str = "https://www.googleapis.com/auth/drive.readonly";
/// The access token the fake Microsoft token endpoint hands out.
pub const GRAPH_TOKEN: &str = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.fake-graph-token";
/// The Microsoft Entra tenant.
pub const TENANT: &str = "acme.onmicrosoft.com";
/// The app registration's client id.
pub const MS_CLIENT_ID: &str = "11111111-2222-3333-4444-555555555555";
/// The client secret the fake Microsoft token endpoint accepts.
pub const MS_CLIENT_SECRET: &str = "fake~client~secret";
/// Where the fake Google token endpoint listens.
pub const GOOGLE_TOKEN_PATH: &str = "/token";

/// A JSON response.
pub fn json_reply(status: u16, body: &Value) -> Action {
    Action::bytes(
        status,
        &[("Content-Type", "application/json; charset=UTF-8")],
        body.to_string().into_bytes(),
    )
}

/// The fields of a URL-encoded form body.
pub fn form(request: &RequestInfo) -> HashMap<String, String> {
    url::form_urlencoded::parse(&request.body)
        .into_owned()
        .collect()
}

/// The parameters of a request's query.
pub fn query(request: &RequestInfo) -> HashMap<String, String> {
    url::form_urlencoded::parse(request.query.as_bytes())
        .into_owned()
        .collect()
}

/// Whether `request` carries our bearer `token`.
pub fn bears(request: &RequestInfo, token: &str) -> bool {
    request.header("authorization") == Some(format!("Bearer {token}").as_str())
}

/// The 401 Google and Graph give a request without a valid token.
pub fn unauthorised() -> Action {
    json_reply(
        401,
        &json!({"error": {"code": 401, "message": "Request had invalid authentication credentials."}}),
    )
}

/// A route answering `action` only to requests with our bearer `token` (else Google's
/// or Graph's 401), counting them.
pub fn authorised(
    token: &'static str,
    action: impl Fn(usize) -> Action + Send + Sync + 'static,
) -> Route {
    Route::new(move |request: &RequestInfo, hit| {
        if !bears(request, token) {
            return unauthorised();
        }
        action(hit)
    })
}

/// Drive's error body (the shape its "Resolve errors" guide shows for each status).
pub fn drive_error(code: u16, reason: &str, message: &str) -> Value {
    json!({"error": {
        "code": code,
        "message": message,
        "errors": [{"message": message, "domain": "global", "reason": reason}]
    }})
}

/// Graph's error body.
pub fn graph_error(code: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message, "innerError": {
        "date": "2025-01-15T10:00:00", "request-id": "b1e1a6c2-0000-4000-8000-000000000000"
    }}})
}

/// A service account key file whose `token_uri` is `token_uri`.
pub fn key_file(token_uri: &str) -> tempfile::NamedTempFile {
    let key = json!({
        "type": "service_account",
        "project_id": "acme-sourcebot",
        "private_key_id": "4f1c0ffee0123456789abcdef0123456789abcde",
        "private_key": TEST_KEY,
        "client_email": SERVICE_ACCOUNT,
        "client_id": "109876543210987654321",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": token_uri,
    });
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(key.to_string().as_bytes())
        .expect("write key file");
    file
}

/// The public half of the test key (an RSAPublicKey, as ring verifies with).
pub fn test_public_key() -> Vec<u8> {
    let base64: String = TEST_KEY
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(base64)
        .expect("the test key is PEM");
    let key = ring::signature::RsaKeyPair::from_pkcs8(&der).expect("the test key is PKCS#8 RSA");
    key.public().as_ref().to_vec()
}

/// Whether `jwt` is signed RS256 by the key whose public half is `public_key`.
pub fn signed_by(jwt: &str, public_key: &[u8]) -> bool {
    let Some((signed, signature)) = jwt.rsplit_once('.') else {
        return false;
    };
    let Ok(signature) = URL_SAFE_NO_PAD.decode(signature) else {
        return false;
    };
    ring::signature::UnparsedPublicKey::new(
        &ring::signature::RSA_PKCS1_2048_8192_SHA256,
        public_key,
    )
    .verify(signed.as_bytes(), &signature)
    .is_ok()
}

/// Google's token endpoint at `token_uri`: checks the signed-JWT grant (its
/// signature with `public_key`, its claims, the [`DRIVE_SCOPE`]) and answers with a
/// token, or with Google's `invalid_grant`.
pub fn google_token_reply(request: &RequestInfo, token_uri: &str, public_key: &[u8]) -> Action {
    let form = form(request);
    let claims = form
        .get("assertion")
        .and_then(|jwt| jwt.split('.').nth(1))
        .and_then(|c| URL_SAFE_NO_PAD.decode(c).ok())
        .and_then(|c| serde_json::from_slice::<Value>(&c).ok())
        .unwrap_or(Value::Null);
    let good = request.method == "POST"
        && request.header("content-type") == Some("application/x-www-form-urlencoded")
        && form.get("grant_type").map(String::as_str)
            == Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
        && form
            .get("assertion")
            .is_some_and(|jwt| signed_by(jwt, public_key))
        && claims["iss"] == SERVICE_ACCOUNT
        && claims["aud"] == token_uri
        && claims["scope"] == DRIVE_SCOPE;
    if !good {
        return json_reply(
            400,
            &json!({"error": "invalid_grant", "error_description": "Invalid JWT Signature."}),
        );
    }
    json_reply(
        200,
        &json!({"access_token": GOOGLE_TOKEN, "expires_in": 3599, "token_type": "Bearer"}),
    )
}

/// A fake Google sign-in: the token endpoint's route (at [`GOOGLE_TOKEN_PATH`], counting
/// the requests in `hits`) for a server's routes, then, once that server runs, the key
/// file naming it as the `token_uri` (which the JWT's `aud` must name).
pub struct GoogleSignIn {
    token_uri: Arc<OnceLock<String>>,
    /// Requests to the token endpoint.
    pub hits: Arc<AtomicUsize>,
}

impl Default for GoogleSignIn {
    fn default() -> Self {
        GoogleSignIn::new()
    }
}

impl GoogleSignIn {
    /// A sign-in no server serves yet.
    pub fn new() -> GoogleSignIn {
        GoogleSignIn {
            token_uri: Arc::new(OnceLock::new()),
            hits: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The token endpoint's path and route.
    pub fn route(&self) -> (&'static str, Route) {
        let token_uri = self.token_uri.clone();
        let hits = self.hits.clone();
        let public_key = test_public_key();
        (
            GOOGLE_TOKEN_PATH,
            Route::new(move |request: &RequestInfo, _| {
                hits.fetch_add(1, Ordering::SeqCst);
                let uri = token_uri.get().map_or("", String::as_str);
                google_token_reply(request, uri, &public_key)
            }),
        )
    }

    /// The key file whose `token_uri` is `server`'s token endpoint (the server the
    /// route was given to).
    pub fn key_file(&self, server: &HostileServer) -> tempfile::NamedTempFile {
        let uri = server.url(GOOGLE_TOKEN_PATH);
        let _ = self.token_uri.set(uri.clone());
        key_file(&uri)
    }

    /// Requests to the token endpoint so far.
    pub fn token_requests(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// The settings that point sourcebot's Google Drive checker at `api` with `key`.
pub fn google_settings(
    api: &HostileServer,
    key: &tempfile::NamedTempFile,
) -> Vec<(&'static str, String)> {
    vec![
        (
            "SOURCEBOT_GOOGLE_CREDENTIALS",
            key.path().display().to_string(),
        ),
        ("SOURCEBOT_GOOGLE_API_URL", api.url("/")),
    ]
}

/// Where the fake Microsoft token endpoint listens: the tenant's v2.0 token endpoint.
pub fn microsoft_token_path() -> &'static str {
    Box::leak(format!("/{TENANT}/oauth2/v2.0/token").into_boxed_str())
}

/// Microsoft's token endpoint: checks the client-credentials grant ([`MS_CLIENT_ID`],
/// [`MS_CLIENT_SECRET`], Graph's `.default` scope) and answers with a token, or with
/// Entra's `invalid_client`; counts the requests in `hits`.
pub fn microsoft_token_route(hits: Arc<AtomicUsize>) -> (&'static str, Route) {
    (
        microsoft_token_path(),
        Route::new(move |request: &RequestInfo, _| {
            hits.fetch_add(1, Ordering::SeqCst);
            let form = form(request);
            let field = |name: &str| form.get(name).map(String::as_str);
            if request.method != "POST"
                || field("client_id") != Some(MS_CLIENT_ID)
                || field("client_secret") != Some(MS_CLIENT_SECRET)
                || field("scope") != Some("https://graph.microsoft.com/.default")
                || field("grant_type") != Some("client_credentials")
            {
                return json_reply(
                    401,
                    &json!({"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client secret provided."}),
                );
            }
            json_reply(
                200,
                &json!({"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": GRAPH_TOKEN}),
            )
        }),
    )
}

/// The settings that point sourcebot's Microsoft 365 checker at `server` (sign-in and
/// Graph both), signing in with `secret`.
pub fn microsoft_settings(server: &HostileServer, secret: &str) -> Vec<(&'static str, String)> {
    vec![
        ("SOURCEBOT_MS_TENANT_ID", TENANT.to_string()),
        ("SOURCEBOT_MS_CLIENT_ID", MS_CLIENT_ID.to_string()),
        ("SOURCEBOT_MS_CLIENT_SECRET", secret.to_string()),
        ("SOURCEBOT_MS_LOGIN_URL", server.url("/")),
        ("SOURCEBOT_MS_GRAPH_URL", server.url("/")),
    ]
}
