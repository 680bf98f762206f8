//! One piece of work per key however many ask at once: the verdict cache and the page
//! cache both run one probe (or fetch) per URL, and checks asking for a URL that is
//! being worked on wait for that work instead of starting their own. If the work is
//! abandoned (its caller's deadline passed and its future was dropped), the next
//! waiter takes it over.

use dashmap::DashMap;
use std::future::Future;
use std::sync::Arc;
use tokio::sync::OnceCell;

/// The work under way, by key.
pub(crate) struct Flights<T> {
    table: DashMap<String, Arc<OnceCell<T>>>,
}

impl<T> Default for Flights<T> {
    fn default() -> Self {
        Flights {
            table: DashMap::new(),
        }
    }
}

impl<T> Flights<T> {
    /// Runs `work` for `key`, or joins the run already under way; `read` gets the
    /// result, whoever produced it.
    pub(crate) async fn run<R>(
        &self,
        key: &str,
        work: impl Future<Output = T>,
        read: impl FnOnce(&T) -> R,
    ) -> R {
        let cell = self
            .table
            .entry(key.to_string())
            .or_insert_with(|| Arc::new(OnceCell::new()))
            .clone();
        let joined = Joined {
            table: &self.table,
            key,
            cell,
        };
        read(joined.cell.get_or_init(|| work).await)
    }

    /// Whether no work is under way (the caches' tests check that nothing is left
    /// behind).
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

/// Takes a key out of the table when its run ends: always once the work finished
/// (later callers read their cache), and when it was abandoned only if nobody else
/// waits on it (a waiter takes the work over). Runs under the table's shard lock, so
/// a caller that joins concurrently is counted.
struct Joined<'a, T> {
    table: &'a DashMap<String, Arc<OnceCell<T>>>,
    key: &'a str,
    cell: Arc<OnceCell<T>>,
}

impl<T> Drop for Joined<'_, T> {
    fn drop(&mut self) {
        let finished = self.cell.initialized();
        self.table.remove_if(self.key, |_, running| {
            Arc::ptr_eq(running, &self.cell) && (finished || Arc::strong_count(running) <= 2)
        });
    }
}
