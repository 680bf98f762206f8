//! What every reader of a Slack message's parts shares: the writer (`Doc`) with its
//! budget, the user whose mentions are left out, and the walk over arrays that counts
//! each item against the budget and notes a field of the wrong type. The block, rich
//! text, attachment and file readers all take a `Context`; it depends on none of them.

use super::doc::{Doc, Path};
use super::SkipReason;
use serde_json::{Map, Value};

/// The writer and what every block reader needs besides it.
pub(super) struct Context<'d> {
    pub(super) doc: &'d mut Doc,
    /// A user whose mentions are left out (the bot).
    pub(super) omit_user: Option<&'d str>,
}

impl Context<'_> {
    /// Calls `read` with each item of `items` and its path, each counted against the
    /// reader's budget; stops once the budget is spent.
    pub(super) fn each<'v>(
        &mut self,
        items: &'v [Value],
        path: &Path<'_>,
        mut read: impl FnMut(&mut Self, &'v Value, &Path<'_>),
    ) {
        for (i, item) in items.iter().enumerate() {
            let at = path.index(i);
            if !self.doc.visit(&at) || self.doc.full() {
                return;
            }
            read(self, item, &at);
        }
    }

    /// [`Context::each`] over `object[key]` when it is an array; a value of another
    /// type is noted and skipped.
    pub(super) fn each_in<'v>(
        &mut self,
        object: &'v Map<String, Value>,
        key: &str,
        path: &Path<'_>,
        read: impl FnMut(&mut Self, &'v Value, &Path<'_>),
    ) {
        if let Some(items) = array_field(self, object, key, path) {
            self.each(items, &path.key(key), read);
        }
    }

    /// `text` without mentions of the omitted user (`<@U…>`, `<@U…|name>`).
    pub(super) fn without_own_mention<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        let Some(user) = self.omit_user else {
            return text.into();
        };
        let open = format!("<@{user}");
        if !text.contains(&open) {
            return text.into();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(&open) {
            let after = &rest[at + open.len()..];
            let end = match after.as_bytes().first() {
                Some(b'>') => Some(1),
                Some(b'|') => after.find('>').map(|i| i + 1),
                _ => None,
            };
            match end {
                Some(end) => {
                    out.push_str(&rest[..at]);
                    rest = &after[end..];
                }
                None => {
                    out.push_str(&rest[..at + open.len()]);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out.trim().to_string().into()
    }
}

/// `object[key]` when it is an array; notes a value of another type.
pub(super) fn array_field<'v>(
    context: &mut Context<'_>,
    object: &'v Map<String, Value>,
    key: &str,
    path: &Path<'_>,
) -> Option<&'v Vec<Value>> {
    match object.get(key) {
        Some(Value::Array(items)) => Some(items),
        None | Some(Value::Null) => None,
        Some(_) => {
            context
                .doc
                .skip(SkipReason::WrongType, &path.key(key), "not an array");
            None
        }
    }
}
