//! Reading an internal document through its product's API, for the support check:
//! what every product's `read` shares. A document is read with the same credentials,
//! API base, caps and rate-limit back-off as its link's check, within a read's own
//! time ([`ProductApi::read_deadline`]: the verifier's `fetch_timeout`) and the page
//! size cap; its text is marked as read through the product ([`ReadVia::Product`]),
//! so that it is quoted only to people entitled to see it. A failure is a document
//! that cannot be read, with the reason in people's words (the same words as the
//! link's verdict: "Confluence does not let sourcebot read it"), never a verdict on
//! the claim. Nothing here logs a document's text.

use super::api::{judged_failure, ApiFailure, Download, ProductApi};
use crate::model::ReadVia;
use crate::page::{self, PageRead};

/// How a document read through `api` is marked.
pub fn via(api: &ProductApi) -> ReadVia {
    ReadVia::Product {
        product: api.product.to_string(),
    }
}

/// The document a failed call leaves: unreadable, saying why (`setting` names the
/// credentials to fix when the product refuses them).
pub fn failed(api: &ProductApi, failure: &ApiFailure, setting: &str) -> PageRead {
    let (_, _, reason) = judged_failure(api, failure, setting, true);
    PageRead::unreadable(reason)
}

/// A document made of the `parts` its product's API gave (each already plain: blocks
/// separated by `"\n\n"`; an issue's summary, description and comments, say), blank
/// ones left out, titled `title`; `truncated` when a paginated API stopped at its cap.
pub fn text(
    api: &ProductApi,
    parts: impl IntoIterator<Item = String>,
    title: Option<String>,
    truncated: bool,
) -> PageRead {
    let text = parts
        .into_iter()
        .filter(|part| !part.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    page::document(text, title, truncated, via(api))
}

/// Types a download may be served as that say nothing about what it is: the type the
/// product's metadata gives is used instead.
const UNTYPED: [&str; 5] = [
    "application/octet-stream",
    "binary/octet-stream",
    "application/unknown",
    "application/vnd.github.raw",
    "application/vnd.github.raw+json",
];

/// A downloaded file read by the page reader that handles its type (PDF, Office,
/// text, CSV, HTML), on the blocking pool (a PDF or an Office file can take a while):
/// the type it was served with, or `declared` (the product's metadata) when that says
/// nothing; titled `title` when the file names none itself.
pub async fn file(
    api: &ProductApi,
    download: Download,
    declared: Option<&str>,
    title: Option<String>,
) -> PageRead {
    let served = download.content_type.as_deref().filter(|served| {
        let mime = served.split(';').next().unwrap_or_default().trim();
        !mime.is_empty() && !UNTYPED.iter().any(|u| mime.eq_ignore_ascii_case(u))
    });
    let content_type = served.or(declared).map(str::to_string);
    let reading = tokio::task::spawn_blocking(move || {
        page::extract(content_type.as_deref(), &download.bytes, false)
    });
    let read = match reading.await {
        Ok(read) => read,
        Err(_) => return PageRead::unreadable("the file could not be read"),
    };
    match read {
        PageRead::Read(mut read) => {
            if read.title.is_none() {
                read.title = title.filter(|t| !t.trim().is_empty());
            }
            read.final_url = None;
            PageRead::Read(read).read_via(via(api))
        }
        PageRead::Unreadable(reason) => PageRead::Unreadable(as_file(&reason)),
    }
}

/// A page reader's reason, said of a file rather than a web page.
fn as_file(reason: &str) -> String {
    if reason == page::NO_TEXT {
        return "the file has no readable text (a scanned document has only images)".into();
    }
    match reason.strip_prefix("can't read this kind of page") {
        Some(rest) => format!("can't read this kind of file{rest}"),
        None => reason.replace("the page", "the file"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::VerifySettings;

    fn api() -> ProductApi {
        let env = super::super::ProductEnv {
            verify: VerifySettings::default(),
            ..Default::default()
        };
        let base = url::Url::parse("https://api.example.com").expect("url");
        ProductApi::new("Acme Docs", base, &env).expect("client")
    }

    fn download(bytes: &[u8], content_type: Option<&str>) -> Download {
        Download {
            bytes: bytes.to_vec(),
            content_type: content_type.map(str::to_string),
        }
    }

    #[tokio::test]
    async fn files_are_read_by_their_served_type_else_the_declared_one() {
        let api = api();
        let read = file(
            &api,
            download(b"Deploys freeze at 18:00 on Fridays.", Some("text/plain")),
            Some("application/pdf"),
            Some("Runbook.txt".into()),
        )
        .await;
        let page = read.page().expect("read");
        assert_eq!(page.text, "Deploys freeze at 18:00 on Fridays.");
        assert_eq!(page.title.as_deref(), Some("Runbook.txt"));
        assert_eq!(
            page.read_via,
            ReadVia::Product {
                product: "Acme Docs".into()
            }
        );
        // Served untyped: the metadata's type decides, and an image is not read.
        let image = file(
            &api,
            download(&[0x89, b'P', b'N', b'G', 0, 0, 0, 13], None),
            Some("image/png"),
            None,
        )
        .await;
        assert_eq!(
            image.unreadable_reason(),
            Some("can't read this kind of file (image/png)")
        );
        let empty = file(&api, download(b"  \n ", Some("text/plain")), None, None).await;
        assert!(empty
            .unreadable_reason()
            .is_some_and(|r| r.starts_with("the file has no readable text")));
    }

    #[test]
    fn failures_read_as_the_links_verdicts_do() {
        let api = api();
        let forbidden = ApiFailure::Status {
            status: 403,
            retry_after: None,
        };
        assert_eq!(
            failed(&api, &forbidden, "X").unreadable_reason(),
            Some("Acme Docs does not let sourcebot read it")
        );
        assert_eq!(
            failed(&api, &ApiFailure::TooLarge(2 << 20), "X").unreadable_reason(),
            Some("the document is larger than sourcebot reads (2 MiB)")
        );
        assert_eq!(
            text(&api, [String::new(), " ".into()], None, false).unreadable_reason(),
            Some(page::NO_DOCUMENT_TEXT)
        );
    }
}
