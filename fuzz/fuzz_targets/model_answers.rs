//! The model's JSON answers (MEM-2, MEM-3, REL-1): any text answered to
//! the memory extraction is applied whole or refused with nothing
//! written, and the log reopens to the facts in memory; any text answered
//! for suggestions gives at most the asked number, each on one line, at
//! most 100 characters and none twice, or a typed error.
#![no_main]

use std::time::Duration;

use async_trait::async_trait;
use libfuzzer_sys::fuzz_target;
use strata_ctx::memory::{suggest, LongTermMemory};
use strata_ctx::{LlmClient, LlmRequest, LlmResponse, LlmResult, Message, Usage};

/// A model that answers every request with the same text.
struct Answers(String);

#[async_trait]
impl LlmClient for Answers {
    async fn complete(&self, _request: LlmRequest) -> LlmResult<LlmResponse> {
        Ok(LlmResponse::new(self.0.clone(), Usage::default()))
    }
}

fn facts(memory: &LongTermMemory) -> Vec<(String, String)> {
    memory.facts().iter().map(|f| (f.id.clone(), f.text.clone())).collect()
}

fn extraction(text: &str) {
    let Ok(dir) = tempfile::tempdir() else { return };
    let Ok(mut memory) = LongTermMemory::open(dir.path(), "fuzz") else {
        return;
    };
    for seed in ["the tests run with cargo nextest", "the user prefers tabs"] {
        if memory.save(seed).is_err() {
            return;
        }
    }
    let before = facts(&memory);
    let applied = memory.apply_extraction(text);
    if applied.is_err() {
        assert_eq!(facts(&memory), before, "a refused answer changed the facts");
    }
    let kept = facts(&memory);
    drop(memory);
    let again = LongTermMemory::open(dir.path(), "fuzz").expect("the log reopens");
    assert_eq!(facts(&again), kept, "the log and the memory differ");
}

fn suggestions(text: &str, count: usize) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_time().build() else {
        return;
    };
    let earlier = vec!["Run the tests again".to_owned()];
    let conversation = [Message::user("fix the parser")];
    let client = Answers(text.to_owned());
    let asked = suggest(&client, &conversation, &earlier, count, Duration::from_secs(5));
    if let Ok(list) = runtime.block_on(asked) {
        assert!(list.len() <= count.clamp(2, 4));
        for (i, s) in list.iter().enumerate() {
            assert!(!s.contains('\n') && s.chars().count() <= 100, "{s:?}");
            assert!(!list[..i].contains(s), "{s:?} twice");
            assert!(!earlier.contains(s), "{s:?} repeats an earlier one");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    extraction(&text);
    suggestions(&text, usize::from(count % 6));
});
