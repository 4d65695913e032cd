//! The Anthropic importer and the repair of what it imports (HIST-2,
//! REL-1): any JSON gives messages or a typed error; repaired messages are
//! always paired, render to paired Anthropic and OpenAI bodies, and
//! repairing twice changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_ctx::history::repair;
use strata_ctx::{from_anthropic_messages, Pairs};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(messages) = from_anthropic_messages(&value) else {
        return;
    };
    let (fixed, _) = repair(&messages);
    assert!(Pairs::new(&fixed).is_complete());
    assert_eq!(repair(&fixed).0, fixed);
    let _ = strata_ctx::prompt::anthropic_messages(&fixed);
    let _ = strata_ctx::prompt::openai_messages(&fixed);
});
