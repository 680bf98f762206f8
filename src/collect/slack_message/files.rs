//! Files shared in a message (`files`, as message events, `conversations.history` and
//! `files.info` give them: docs.slack.dev/reference/objects/file-object). Slack shows
//! each as a card under the message, titled by the file's `title` (its `name` when it
//! has none), that opens the file's page in Slack: its `permalink`. Each card is a
//! source; the collector classifies the permalink (a workspace's `…/files/U…/F…/name`
//! page) as a file, checked through `files.info` when a token is there. A remote file
//! (`mode: external`, added by an app) is a pointer to a document that lives elsewhere:
//! its card opens `external_url`, so that is the source, as for the `file` block. A file
//! a `file` block already showed is not shown twice.
//!
//! A file Slack no longer shows — deleted (`mode: tombstone`) or hidden by the
//! workspace's plan (`mode: hidden_by_limit`), both without a permalink — has nothing to
//! click: it is noted as [`SkipReason::Unavailable`], not read.

use super::context::Context;
use super::doc::Path;
use super::SkipReason;
use serde_json::Value;

/// Reads each file of a message's `files` into a link titled as its card shows it.
pub(super) fn read_files(context: &mut Context<'_>, files: &[Value], path: &Path<'_>) {
    context.doc.paragraph();
    context.each(files, path, |context, file, at| {
        read_file(context, file, at)
    });
}

fn read_file(context: &mut Context<'_>, file: &Value, path: &Path<'_>) {
    let Some(object) = file.as_object() else {
        context
            .doc
            .skip(SkipReason::WrongType, path, "a file that is not an object");
        return;
    };
    let text = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    if text("id").is_some_and(|id| context.doc.shown_files.iter().any(|shown| shown == id)) {
        return;
    }
    let title = text("title").or_else(|| text("name"));
    let remote = text("mode") == Some("external") && text("external_url").is_some();
    let link = if remote {
        text("external_url")
    } else {
        text("permalink")
    };
    match link {
        Some(permalink) => {
            context.doc.line();
            context.doc.link(permalink, title);
        }
        None => {
            let mode = text("mode").unwrap_or("no permalink");
            context.doc.skip(
                SkipReason::Unavailable,
                path,
                &format!("a file Slack does not show ({mode})"),
            );
        }
    }
}
