//! The long-term memory's log (MEM-2, REL-1): any bytes in a namespace's
//! log open as facts or give a typed error, never a panic; a log that
//! opens holds facts with distinct ids, and a fact saved after it (a torn
//! last line cut off first) is there, with every earlier fact, when the
//! log is opened again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_ctx::memory::{LongTermMemory, MemoryChange};

fn facts(memory: &LongTermMemory) -> Vec<(String, String)> {
    memory.facts().iter().map(|f| (f.id.clone(), f.text.clone())).collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else { return };
    if std::fs::write(dir.path().join("fuzz.memory.jsonl"), data).is_err() {
        return;
    }
    let Ok(mut memory) = LongTermMemory::open(dir.path(), "fuzz") else {
        return;
    };
    let mut expected = facts(&memory);
    let mut ids: Vec<&String> = expected.iter().map(|(id, _)| id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), expected.len(), "two facts share an id");
    match memory.save("the fuzzed log is read back whole") {
        Ok(MemoryChange::Added(fact)) => expected.push((fact.id, fact.text)),
        Ok(_) => {}
        Err(e) => panic!("a save after an opened log failed: {e}"),
    }
    assert_eq!(facts(&memory), expected);
    drop(memory);
    let again = LongTermMemory::open(dir.path(), "fuzz").expect("a log the memory wrote opens again");
    assert_eq!(facts(&again), expected, "reopening changed the facts");
});
