//! Google Drive files, Docs, Sheets, Slides, Forms and folders through the Drive API
//! (`GET /drive/v3/files/{id}?fields=name,mimeType,trashed&supportsAllDrives=true`),
//! as a service account (`SOURCEBOT_GOOGLE_CREDENTIALS`, the path of its JSON key)
//! with the `drive.readonly` scope; the files must be shared with the service
//! account's address. For the support check a file is read: Docs and Slides exported
//! as plain text, a Sheet's first sheet as CSV (`/files/{id}/export`), any other file
//! downloaded (`?alt=media&supportsAllDrives=true`) and read by its type. The access token comes from the signed-JWT grant (RFC 7523): a
//! JWT signed RS256 with the account's key (with `ring`) is traded at the key's
//! `token_uri` for a token kept until a minute before it expires ([`TokenCache`]).
//!
//! Links ([`drive_link`]): `docs.google.com/{document,spreadsheets,presentation,forms,
//! drawings,file}/d/ID/…` (also after `/u/N/` or `/a/DOMAIN/`),
//! `drive.google.com/file/d/ID/…`, `drive.google.com/{open,uc}?id=ID` and folders
//! `drive.google.com/drive/[u/N/]folders/ID`. A published form's public link
//! (`/forms/d/e/ID/viewform`) has no Drive id and is answered not checked.

use super::api::{self, Auth, ProductApi, ProductEnv};
use super::token::{read_token_reply, token_failure, Token, TokenCache};
use super::{api_base, document};
use crate::model::{SourceKind, Verdict};
use crate::page::PageRead;
use crate::setting::ConfigError;
use crate::verify::{Checked, InternalChecker};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use futures_util::future::BoxFuture;
use ring::signature::{RsaKeyPair, RSA_PKCS1_SHA256};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use url::Url;

/// `SOURCEBOT_GOOGLE_CREDENTIALS`: the path of a service account's JSON key.
pub const GOOGLE_CREDENTIALS: &str = "SOURCEBOT_GOOGLE_CREDENTIALS";
/// `SOURCEBOT_GOOGLE_API_URL`: Google's API (default `https://www.googleapis.com`).
pub const GOOGLE_API_URL: &str = "SOURCEBOT_GOOGLE_API_URL";
/// The only scope asked for: files and their contents, read-only (the support check
/// reads what claims cite).
pub const DRIVE_SCOPE: &str = "https://www.googleapis.com/auth/drive.readonly";
/// Google's token endpoint, when a key file does not name one.
const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
/// The grant type of RFC 7523's JWT bearer grant.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// How long a signed assertion is valid (Google's maximum).
const ASSERTION_LIFETIME_SECS: u64 = 3600;
/// The largest key file read.
const MAX_KEY_FILE_BYTES: u64 = 64 * 1024;
/// The longest Drive id accepted (real ones are 19 to 44 characters).
const MAX_ID_CHARS: usize = 128;

/// A service account, read from its JSON key.
#[derive(Clone, PartialEq, Eq)]
pub struct GoogleSettings {
    /// The account's address (`name@project.iam.gserviceaccount.com`).
    pub client_email: String,
    /// The key's id, sent as the JWT's `kid`.
    pub private_key_id: String,
    /// The private key, PKCS#8 DER (never printed).
    private_key: Vec<u8>,
    /// Where tokens are asked for.
    pub token_uri: Url,
    /// The Drive API's base.
    pub api_url: Url,
}

impl std::fmt::Debug for GoogleSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoogleSettings")
            .field("client_email", &self.client_email)
            .field("private_key_id", &self.private_key_id)
            .field("private_key", &"<redacted>")
            .field("token_uri", &self.token_uri.as_str())
            .field("api_url", &self.api_url.as_str())
            .finish()
    }
}

impl GoogleSettings {
    /// `None` without a key file; a `ConfigError` naming the setting when the file
    /// cannot be read or is not a service account's key.
    pub fn from_lookup(
        get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    ) -> Result<Option<GoogleSettings>, ConfigError> {
        let Some((_, path)) = get(GOOGLE_CREDENTIALS) else {
            return Ok(None);
        };
        let path = path.trim().to_string();
        let error = |expected: String| ConfigError {
            name: GOOGLE_CREDENTIALS,
            value: path.clone(),
            expected,
        };
        let text = read_key_file(&path).map_err(&error)?;
        let mut settings = GoogleSettings::from_key_json(&text).map_err(&error)?;
        settings.api_url = api_base(get, GOOGLE_API_URL, "https://www.googleapis.com")?;
        Ok(Some(settings))
    }

    /// A service account from the text of its JSON key (the API base left at its
    /// default). The error says what is wrong without quoting the key.
    pub fn from_key_json(text: &str) -> Result<GoogleSettings, String> {
        let key: Value = serde_json::from_str(text).map_err(|e| {
            format!(
                "expected a service account's JSON key, but it is not JSON (line {}, column {})",
                e.line(),
                e.column()
            )
        })?;
        let field = |name: &str| {
            key.get(name)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("the key file has no \"{name}\" (a service account's JSON key has type, client_email, private_key, private_key_id and token_uri)"))
        };
        let kind = field("type")?;
        if kind != "service_account" {
            return Err(format!(
                "the key file's \"type\" is {kind:?}: expected \"service_account\" (create a key for a service account, not an OAuth client or user)"
            ));
        }
        let client_email = field("client_email")?.to_string();
        let private_key_id = field("private_key_id")?.to_string();
        let private_key = pkcs8_from_pem(field("private_key")?)?;
        let token_uri = match key.get("token_uri").and_then(Value::as_str) {
            Some(uri) => uri.trim().to_string(),
            None => DEFAULT_TOKEN_URI.to_string(),
        };
        let token_uri = Url::parse(&token_uri)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
            .ok_or_else(|| {
                format!("the key file's \"token_uri\" is not an http(s) URL: {token_uri:?}")
            })?;
        let settings = GoogleSettings {
            client_email,
            private_key_id,
            private_key,
            token_uri,
            api_url: Url::parse("https://www.googleapis.com")
                .map_err(|e| format!("the default API base: {e}"))?,
        };
        settings.key_pair()?;
        Ok(settings)
    }

    /// The RSA key pair of the private key.
    fn key_pair(&self) -> Result<RsaKeyPair, String> {
        RsaKeyPair::from_pkcs8(&self.private_key).map_err(|e| {
            format!("the key file's \"private_key\" is not a usable PKCS#8 RSA key ({e})")
        })
    }
}

/// The text of the key file at `path`, read at most [`MAX_KEY_FILE_BYTES`].
fn read_key_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| {
        format!("expected the path of a service account's JSON key; cannot open it: {e}")
    })?;
    let mut text = String::new();
    file.take(MAX_KEY_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read the service account's JSON key: {e}"))?;
    if text.len() as u64 > MAX_KEY_FILE_BYTES {
        return Err(format!(
            "the key file is larger than {MAX_KEY_FILE_BYTES} bytes: expected a service account's JSON key"
        ));
    }
    Ok(text)
}

/// The DER of a PEM `PRIVATE KEY` block (PKCS#8).
fn pkcs8_from_pem(pem: &str) -> Result<Vec<u8>, String> {
    const BEGIN: &str = "-----BEGIN PRIVATE KEY-----";
    const END: &str = "-----END PRIVATE KEY-----";
    let not_pkcs8 = || {
        "the key file's \"private_key\" is not a PEM PKCS#8 key (-----BEGIN PRIVATE KEY-----)"
            .to_string()
    };
    let start = pem.find(BEGIN).ok_or_else(not_pkcs8)? + BEGIN.len();
    let end = pem[start..].find(END).ok_or_else(not_pkcs8)? + start;
    let body: String = pem[start..end]
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    STANDARD.decode(body).map_err(|_| {
        "the key file's \"private_key\" is not valid base64 inside its PEM block".to_string()
    })
}

/// The signed JWT asserting `settings`' service account at `issued_at` (seconds since
/// the epoch), for RFC 7523's grant.
pub fn assertion(
    settings: &GoogleSettings,
    key: &RsaKeyPair,
    issued_at: u64,
) -> Result<String, String> {
    let header = json!({"alg": "RS256", "typ": "JWT", "kid": settings.private_key_id});
    let claims = json!({
        "iss": settings.client_email,
        "scope": DRIVE_SCOPE,
        "aud": settings.token_uri.as_str(),
        "iat": issued_at,
        "exp": issued_at + ASSERTION_LIFETIME_SECS,
    });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(
        &RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        signing_input.as_bytes(),
        &mut signature,
    )
    .map_err(|_| "cannot sign the token request".to_string())?;
    Ok(format!(
        "{signing_input}.{}",
        URL_SAFE_NO_PAD.encode(signature)
    ))
}

/// What a Google link names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriveLink {
    /// A Drive item (file, Google Doc, folder) by its id.
    Item(String),
    /// A published form's public link: its id is not a Drive id.
    PublishedForm,
}

/// Whether `id` looks like a Drive id: `[A-Za-z0-9_-]{10,}`.
fn is_id(id: &str) -> bool {
    (10..=MAX_ID_CHARS).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

/// The item a Google Docs or Drive link names, if it is one.
pub fn drive_link(url: &str) -> Option<DriveLink> {
    let url = Url::parse(url).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    let segments: Vec<&str> = url.path_segments()?.filter(|s| !s.is_empty()).collect();
    let id = |id: Option<&&str>| {
        id.filter(|id| is_id(id))
            .map(|id| DriveLink::Item(id.to_string()))
    };
    match host.as_str() {
        "docs.google.com" => {
            let rest = skip_account(&segments);
            let (kind, rest) = rest.split_first()?;
            let rest = skip_account(rest);
            if !matches!(
                *kind,
                "document" | "spreadsheets" | "presentation" | "forms" | "drawings" | "file"
            ) || rest.first() != Some(&"d")
            {
                return None;
            }
            if *kind == "forms" && rest.get(1) == Some(&"e") {
                return rest
                    .get(2)
                    .filter(|id| is_id(id))
                    .map(|_| DriveLink::PublishedForm);
            }
            id(rest.get(1))
        }
        "drive.google.com" => {
            let rest = skip_account(&segments);
            match rest {
                ["open" | "uc"] => {
                    let query_id = url.query_pairs().find(|(k, _)| k == "id")?.1;
                    is_id(&query_id).then(|| DriveLink::Item(query_id.into_owned()))
                }
                ["file", rest @ ..] => match skip_account(rest) {
                    ["d", file, ..] => id(Some(file)),
                    _ => None,
                },
                ["drive", rest @ ..] => match skip_account(rest) {
                    ["folders", folder, ..] => id(Some(folder)),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// `segments` after a leading account choice (`u/1`) or Workspace domain (`a/acme.com`).
fn skip_account<'a, 'b>(segments: &'a [&'b str]) -> &'a [&'b str] {
    match segments {
        ["u", n, rest @ ..] if n.chars().all(|c| c.is_ascii_digit()) => rest,
        ["a", _, rest @ ..] => rest,
        _ => segments,
    }
}

/// The checker: the Drive API as `settings`' service account, or, without settings,
/// one that says so.
pub fn checker(
    settings: Option<&GoogleSettings>,
    env: &ProductEnv,
) -> Result<Arc<dyn InternalChecker>, String> {
    let drive = match settings {
        Some(settings) => Some(Drive {
            api: ProductApi::new("Google Drive", settings.api_url.clone(), env)?,
            key: settings.key_pair()?,
            settings: settings.clone(),
            token: TokenCache::default(),
        }),
        None => None,
    };
    Ok(Arc::new(GoogleChecker { drive }))
}

/// The Drive API with a service account.
struct Drive {
    api: ProductApi,
    settings: GoogleSettings,
    key: RsaKeyPair,
    token: TokenCache,
}

impl Drive {
    /// A new access token from the token endpoint.
    async fn fetch_token(&self, deadline: Instant) -> Result<Token, api::ApiFailure> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let jwt = assertion(&self.settings, &self.key, now).map_err(api::ApiFailure::Malformed)?;
        let reply = self
            .api
            .post_form(
                self.settings.token_uri.clone(),
                &[("grant_type", JWT_BEARER), ("assertion", &jwt)],
                deadline,
            )
            .await?;
        read_token_reply(&reply)
    }
}

impl Drive {
    /// An access token for a call ending by `deadline`.
    async fn token(&self, deadline: Instant) -> Result<String, api::ApiFailure> {
        self.token
            .get(deadline, || self.fetch_token(deadline))
            .await
    }

    /// The text of file `id`: Google Docs and Slides exported as plain text, the first
    /// sheet of a Google Sheet as CSV, any other file downloaded and read by its type
    /// (PDF, Office, text); a folder, a form or a file over the size cap is not read.
    async fn read(&self, id: &str) -> PageRead {
        let deadline = self.api.read_deadline();
        let token = match self.token(deadline).await {
            Ok(token) => Auth::Bearer(token),
            Err(failure) => return document::failed(&self.api, &failure, GOOGLE_CREDENTIALS),
        };
        let metadata = self.api.url(
            &["drive", "v3", "files", id],
            &[
                ("fields", "name,mimeType,size,trashed"),
                ("supportsAllDrives", "true"),
            ],
        );
        let file = match self.api.get_json(metadata, &token, &[], deadline).await {
            Ok(file) => file,
            Err(failure) => return document::failed(&self.api, &failure, GOOGLE_CREDENTIALS),
        };
        let name = file.get("name").and_then(Value::as_str).map(str::to_string);
        let mime = file
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let export = match mime {
            "application/vnd.google-apps.document" | "application/vnd.google-apps.presentation" => {
                Some("text/plain")
            }
            "application/vnd.google-apps.spreadsheet" => Some("text/csv"),
            "application/vnd.google-apps.folder" => {
                return PageRead::unreadable("a folder has no text of its own")
            }
            other if other.starts_with("application/vnd.google-apps.") => {
                return PageRead::unreadable(format!(
                    "can't read this kind of file ({})",
                    what(Some(other)).trim_start_matches("the ")
                ))
            }
            _ => None,
        };
        let size = file.get("size").and_then(|s| {
            s.as_str()
                .and_then(|s| s.parse::<u64>().ok())
                .or(s.as_u64())
        });
        let max = self.api.max_document_bytes();
        if size.is_some_and(|size| size > u64::try_from(max).unwrap_or(u64::MAX)) {
            return document::failed(
                &self.api,
                &api::ApiFailure::TooLarge(max),
                GOOGLE_CREDENTIALS,
            );
        }
        let content = match export {
            Some(export) => self.api.url(
                &["drive", "v3", "files", id, "export"],
                &[("mimeType", export)],
            ),
            None => self.api.url(
                &["drive", "v3", "files", id],
                &[("alt", "media"), ("supportsAllDrives", "true")],
            ),
        };
        match self
            .api
            .get_bytes(content, &token, &[("Accept", "*/*")], deadline)
            .await
        {
            Ok(download) => document::file(&self.api, download, export.or(Some(mime)), name).await,
            Err(failure) => document::failed(&self.api, &failure, GOOGLE_CREDENTIALS),
        }
    }
}

struct GoogleChecker {
    drive: Option<Drive>,
}

/// What a Drive item is, from its MIME type.
fn what(mime_type: Option<&str>) -> &'static str {
    match mime_type {
        Some("application/vnd.google-apps.folder") => "the Google Drive folder",
        Some("application/vnd.google-apps.document") => "the Google Doc",
        Some("application/vnd.google-apps.spreadsheet") => "the Google Sheet",
        Some("application/vnd.google-apps.presentation") => "the Google Slides deck",
        Some("application/vnd.google-apps.form") => "the Google Form",
        _ => "the Google Drive file",
    }
}

/// What a Drive file resource says about `url`.
fn judge(url: &str, file: &Value) -> Checked {
    let name = file.get("name").and_then(Value::as_str).map(str::to_string);
    if file.get("trashed").and_then(Value::as_bool) == Some(true) {
        api::gone(url, name, "the file is in the Google Drive trash")
    } else {
        api::found(
            url,
            name,
            what(file.get("mimeType").and_then(Value::as_str)),
        )
    }
}

impl InternalChecker for GoogleChecker {
    fn handles(&self, _kind: SourceKind, url: &str) -> bool {
        drive_link(url).is_some()
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move { self.check_titled(url).await.verdict })
    }

    fn check_titled<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Checked> {
        Box::pin(async move {
            let id = match drive_link(url) {
                Some(DriveLink::Item(id)) => id,
                Some(DriveLink::PublishedForm) => {
                    return api::not_checked(
                        "not checked: a published form's link (/forms/d/e/…) has no Drive id; cite the form's edit link (/forms/d/ID/edit) to check it",
                    )
                }
                None => return api::not_checked("not a Google Drive link"),
            };
            let Some(drive) = &self.drive else {
                return api::not_checked(&format!(
                    "not checked (no Google credentials: set {GOOGLE_CREDENTIALS})"
                ));
            };
            let deadline = Instant::now() + drive.api.timeout();
            let token = match drive.token(deadline).await {
                Ok(token) => token,
                Err(failure) => {
                    return token_failure(&drive.api, url, &failure, GOOGLE_CREDENTIALS)
                }
            };
            let request = drive.api.url(
                &["drive", "v3", "files", &id],
                &[
                    ("fields", "name,mimeType,trashed"),
                    ("supportsAllDrives", "true"),
                ],
            );
            match drive
                .api
                .get_json(request, &Auth::Bearer(token), &[], deadline)
                .await
            {
                Ok(file) => judge(url, &file),
                Err(failure) => api::failure(&drive.api, url, &failure, GOOGLE_CREDENTIALS, true),
            }
        })
    }

    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Option<PageRead>> {
        Box::pin(async move {
            let DriveLink::Item(id) = drive_link(url)? else {
                return None;
            };
            Some(self.drive.as_ref()?.read(&id).await)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::VerdictClass;

    const ID: &str = "1aBcD_eFgH-iJkLmNoPqRsTuVwXyZ0123456789ab";

    fn item(link: &str) -> Option<DriveLink> {
        drive_link(link)
    }

    #[test]
    fn ids_come_from_every_link_form() {
        for link in [
            format!("https://docs.google.com/document/d/{ID}/edit"),
            format!("https://docs.google.com/document/d/{ID}/edit?usp=sharing#heading=h.x"),
            format!("https://docs.google.com/document/u/0/d/{ID}/edit"),
            format!("https://docs.google.com/spreadsheets/d/{ID}/edit#gid=0"),
            format!("https://docs.google.com/presentation/d/{ID}/present"),
            format!("https://docs.google.com/forms/d/{ID}/edit"),
            format!("https://docs.google.com/a/acme.com/document/d/{ID}/view"),
            format!("https://DOCS.google.com./document/d/{ID}"),
            format!("https://drive.google.com/file/d/{ID}/view?usp=drive_link"),
            format!("https://drive.google.com/file/d/{ID}"),
            format!("https://drive.google.com/open?id={ID}"),
            format!("https://drive.google.com/uc?id={ID}&export=download"),
            format!("https://drive.google.com/uc?export=download&id={ID}"),
            format!("https://drive.google.com/drive/folders/{ID}"),
            format!("https://drive.google.com/drive/folders/{ID}?usp=sharing"),
            format!("https://drive.google.com/drive/u/1/folders/{ID}"),
        ] {
            assert_eq!(item(&link), Some(DriveLink::Item(ID.into())), "{link}");
        }
    }

    #[test]
    fn published_forms_are_recognised_but_have_no_drive_id() {
        assert_eq!(
            item(&format!(
                "https://docs.google.com/forms/d/e/1FAIpQLS{ID}/viewform"
            )),
            Some(DriveLink::PublishedForm)
        );
        assert_eq!(
            item("https://docs.google.com/forms/d/e/short/viewform"),
            None
        );
    }

    #[test]
    fn malformed_ids_and_look_alikes_are_left_alone() {
        for link in [
            format!("https://docs.google.com.evil.example/document/d/{ID}/edit"),
            format!("https://evildocs.google.com/document/d/{ID}/edit"),
            format!("https://drive.google.com.evil.example/file/d/{ID}/view"),
            format!("https://google.com/document/d/{ID}"),
            format!("https://docs.google.com/unknown/d/{ID}/edit"),
            format!("https://docs.google.com/document/{ID}/edit"),
            "https://docs.google.com/document/d/short/edit".to_string(),
            "https://docs.google.com/document/d/has.dots.in.it.here/edit".to_string(),
            "https://docs.google.com/document/d/%E2%9C%93abcdefghijkl/edit".to_string(),
            "https://drive.google.com/open?id=short".to_string(),
            "https://drive.google.com/open".to_string(),
            "https://drive.google.com/drive/my-drive".to_string(),
            format!("https://drive.google.com/drive/folders/{}", "a".repeat(200)),
            format!("ftp://docs.google.com/document/d/{ID}"),
            "https://docs.google.com/".to_string(),
        ] {
            assert_eq!(item(&link), None, "{link}");
        }
    }

    const TEST_KEY: &str = include_str!("../../tests/data/products/throwaway-service-account.pem");

    fn key_json(private_key: &str) -> String {
        json!({
            "type": "service_account",
            "project_id": "acme-sourcebot",
            "private_key_id": "0123abcd",
            "private_key": private_key,
            "client_email": "sourcebot@acme-sourcebot.iam.gserviceaccount.com",
            "client_id": "1234567890",
            "token_uri": "https://oauth2.googleapis.com/token",
        })
        .to_string()
    }

    #[test]
    fn key_files_are_read_and_never_printed() {
        let settings = GoogleSettings::from_key_json(&key_json(TEST_KEY)).unwrap();
        assert_eq!(
            settings.client_email,
            "sourcebot@acme-sourcebot.iam.gserviceaccount.com"
        );
        let printed = format!("{settings:?}");
        assert!(printed.contains("<redacted>"));
        let body_line = TEST_KEY.lines().nth(1).unwrap();
        assert!(!printed.contains(body_line));
    }

    #[test]
    fn malformed_key_files_say_what_is_wrong_without_the_key() {
        let cases = [
            ("{not json".to_string(), "not JSON"),
            (
                key_json(TEST_KEY).replace("service_account", "authorized_user"),
                "expected \"service_account\"",
            ),
            (
                key_json(TEST_KEY).replace("client_email", "email"),
                "no \"client_email\"",
            ),
            (
                key_json(&TEST_KEY.replace("PRIVATE KEY", "RSA PRIVATE KEY")),
                "PKCS#8",
            ),
            (
                key_json("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n"),
                "not a usable PKCS#8 RSA key",
            ),
            (
                key_json(TEST_KEY).replace("https://oauth2.googleapis.com/token", "file:///x"),
                "token_uri",
            ),
        ];
        let body_line = TEST_KEY.lines().nth(1).unwrap();
        for (text, expected) in cases {
            let error = GoogleSettings::from_key_json(&text).unwrap_err();
            assert!(error.contains(expected), "{error}");
            assert!(!error.contains(body_line), "{error}");
        }
    }

    #[test]
    fn the_assertion_is_an_rs256_jwt_for_the_token_endpoint() {
        let settings = GoogleSettings::from_key_json(&key_json(TEST_KEY)).unwrap();
        let key = settings.key_pair().unwrap();
        let jwt = assertion(&settings, &key, 1_700_000_000).unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let decode = |part: &str| -> Value {
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
        };
        assert_eq!(
            decode(parts[0]),
            json!({"alg": "RS256", "typ": "JWT", "kid": "0123abcd"})
        );
        assert_eq!(
            decode(parts[1]),
            json!({
                "iss": "sourcebot@acme-sourcebot.iam.gserviceaccount.com",
                "scope": DRIVE_SCOPE,
                "aud": "https://oauth2.googleapis.com/token",
                "iat": 1_700_000_000u64,
                "exp": 1_700_003_600u64,
            })
        );
        let public = ring::signature::UnparsedPublicKey::new(
            &ring::signature::RSA_PKCS1_2048_8192_SHA256,
            key.public().as_ref(),
        );
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        public
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .expect("the signature verifies with the key's public half");
    }

    #[test]
    fn trashed_files_are_gone_and_names_are_titles() {
        // The shape of Drive's files.get reply with fields=name,mimeType,trashed.
        let file = json!({
            "name": "Deploy freeze policy",
            "mimeType": "application/vnd.google-apps.document",
            "trashed": false
        });
        let live = judge("https://docs.google.com/document/d/x/edit", &file);
        assert_eq!(live.verdict.class, VerdictClass::Verified);
        assert_eq!(
            live.verdict.reason.as_deref(),
            Some("the Google Doc exists")
        );
        assert_eq!(live.title.as_deref(), Some("Deploy freeze policy"));
        let mut trashed = file.clone();
        trashed["trashed"] = json!(true);
        let gone = judge("https://docs.google.com/document/d/x/edit", &trashed);
        assert_eq!(gone.verdict.class, VerdictClass::Broken);
        assert_eq!(
            gone.verdict.reason.as_deref(),
            Some("the file is in the Google Drive trash")
        );
    }
}
