//! The contract every [`Backend`] keeps (STORE-4, STORE-6), as a check a
//! backend's tests run against a real instance: records in order, byte
//! for byte; one writer per conversation; names, the current conversation
//! and missing conversations as the JSONL store has them; resume equals
//! live.

use std::sync::Arc;

use strata_ctx_core::{CharCounter, Config, Message, ToolCall, ToolResult};

use crate::backend::Backend;
use crate::error::Error;
use strata_ctx_history::{History, Record};

/// Which promise of the contract a backend broke, and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the backend breaks the store contract: {check}: {detail}")]
#[non_exhaustive]
pub struct ContractFailure {
    /// The promise.
    pub check: &'static str,
    /// What happened instead.
    pub detail: String,
}

fn fail(check: &'static str, detail: impl Into<String>) -> ContractFailure {
    ContractFailure {
        check,
        detail: detail.into(),
    }
}

/// The records of a small live conversation, and its window.
fn sample() -> (Vec<Record>, Vec<Message>) {
    let mut h = History::new(Config::default(), Arc::new(CharCounter));
    h.set_recording(true);
    h.begin_round(Message::user("Read a.rs and fix it."));
    let call = ToolCall::new("c1", "Read", serde_json::json!({"path": "a.rs"}));
    h.record_step(
        Message::assistant_with_calls("Reading.", vec![call.clone()]),
        vec![Message::tool_result(
            &call,
            ToolResult::success("fn main() { run() }"),
        )],
    );
    h.finish_round(Message::assistant("Fixed: main runs. Ünïcödé ✓"));
    (h.take_records(), h.window().to_vec())
}

/// Runs the contract against `backend` in `namespace`, which must be new
/// (no conversation in it). Backends run it in their tests against a real
/// instance; it stops at the first broken promise.
///
/// # Errors
///
/// The first [`ContractFailure`].
pub fn check_backend(backend: &dyn Backend, namespace: &str) -> Result<(), ContractFailure> {
    let list = |b: &dyn Backend| b.list(namespace).map_err(|e| fail("list", e.to_string()));
    if !list(backend)?.is_empty() {
        return Err(fail("a new namespace is empty", "it lists conversations"));
    }
    match backend.current(namespace) {
        Ok(None) => {}
        other => {
            return Err(fail(
                "a new namespace has no current conversation",
                format!("{other:?}"),
            ))
        }
    }
    match backend.open(namespace, "missing", false) {
        Err(Error::NotFound { .. }) => {}
        other => {
            return Err(fail(
                "opening a missing conversation without create",
                format!("{other:?}"),
            ))
        }
    }
    match backend.load(namespace, "missing") {
        Err(Error::NotFound { .. }) => {}
        other => return Err(fail("loading a missing conversation", format!("{other:?}"))),
    }
    for bad in ["", "../x", ".hidden", "a/b"] {
        if !matches!(backend.open(namespace, bad, true), Err(Error::InvalidName { .. })) {
            return Err(fail("names are plain", format!("`{bad}` was accepted")));
        }
    }

    // Records in order, byte for byte; resume equals live.
    let (records, live_window) = sample();
    let mut writer = backend
        .open(namespace, "first", true)
        .map_err(|e| fail("open with create", e.to_string()))?;
    let (head, tail) = records.split_at(2);
    writer.append(head).map_err(|e| fail("append", e.to_string()))?;
    writer.append(tail).map_err(|e| fail("append", e.to_string()))?;
    let loaded = backend
        .load(namespace, "first")
        .map_err(|e| fail("load while open", e.to_string()))?;
    if loaded.records != records {
        return Err(fail(
            "records come back in order",
            format!("{} of {}", loaded.records.len(), records.len()),
        ));
    }
    let expected: Vec<String> = records
        .iter()
        .map(|r| serde_json::to_string(r).unwrap_or_default())
        .collect();
    let lines = backend
        .lines(namespace, "first")
        .map_err(|e| fail("lines", e.to_string()))?;
    if lines != expected {
        return Err(fail("lines come back byte for byte", format!("{lines:?}")));
    }
    let resumed = History::replay(Config::default(), Arc::new(CharCounter), loaded.records);
    if resumed.window() != live_window.as_slice() {
        return Err(fail("resume equals live", "the replayed window differs"));
    }

    // One writer at a time.
    match backend.open(namespace, "first", false) {
        Err(Error::Locked { .. }) => {}
        other => return Err(fail("a second writer is refused", format!("{other:?}"))),
    }
    // A line that is not a record writes nothing.
    let bad = vec![expected[0].clone(), "{\"type\":\"nonsense\"}".to_owned()];
    if !matches!(
        writer.append_lines(&bad),
        Err(Error::CorruptRecord { line: 2, .. })
    ) {
        return Err(fail(
            "append_lines checks every line first",
            "a bad line was accepted",
        ));
    }
    if backend
        .lines(namespace, "first")
        .map_err(|e| fail("lines", e.to_string()))?
        != expected
    {
        return Err(fail(
            "append_lines checks every line first",
            "something was written",
        ));
    }
    drop(writer);
    let mut again = backend
        .open(namespace, "first", false)
        .map_err(|e| fail("the lock is released when the writer is dropped", e.to_string()))?;
    again
        .append_lines(&expected[..1])
        .map_err(|e| fail("append_lines", e.to_string()))?;
    let mut doubled = expected.clone();
    doubled.push(expected[0].clone());
    if backend
        .lines(namespace, "first")
        .map_err(|e| fail("lines", e.to_string()))?
        != doubled
    {
        return Err(fail("append_lines appends byte for byte", "the lines differ"));
    }
    drop(again);

    // Names and the current conversation.
    drop(
        backend
            .open(namespace, "second", true)
            .map_err(|e| fail("open with create", e.to_string()))?,
    );
    if list(backend)? != ["first", "second"] {
        return Err(fail("list is sorted", format!("{:?}", list(backend)?)));
    }
    if backend.current(namespace).ok().flatten().as_deref() != Some("second") {
        return Err(fail("opening makes a conversation current", "it did not"));
    }
    backend
        .set_current(namespace, "first")
        .map_err(|e| fail("set_current", e.to_string()))?;
    if backend.current(namespace).ok().flatten().as_deref() != Some("first") {
        return Err(fail("set_current", "current did not change"));
    }
    let namespaces = backend
        .namespaces()
        .map_err(|e| fail("namespaces", e.to_string()))?;
    if !namespaces.iter().any(|n| n == namespace) || !namespaces.windows(2).all(|w| w[0] <= w[1]) {
        return Err(fail("namespaces are listed, sorted", format!("{namespaces:?}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonl::Store;

    /// STORE-4: the JSONL directory keeps the contract.
    #[test]
    fn store_4_jsonl_keeps_the_contract() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        check_backend(&store, "contract").unwrap();
    }
}
