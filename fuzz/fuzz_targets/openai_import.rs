//! The OpenAI importer and the repair of what it imports (HIST-2, REL-1):
//! any JSON gives messages or a typed error; reading the bytes straight gives the
//! same messages or steps aside; repaired messages are always paired, and
//! repairing twice changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_ctx::history::repair;
use strata_ctx::{from_openai_messages, from_openai_slice, Pairs};

fuzz_target!(|data: &[u8]| {
    let fast = from_openai_slice(data);
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        assert!(fast.is_none(), "the fast reader must refuse what serde_json refuses");
        return;
    };
    // The shared corpus's files hold the list under `messages`.
    let value = value.get("messages").cloned().unwrap_or(value);
    let general = from_openai_messages(&value);
    if let Some(fast) = fast {
        assert_eq!(
            Some(&fast),
            general.as_ref().ok(),
            "the fast reader must agree or step aside"
        );
    }
    let Ok(messages) = general else {
        return;
    };
    let (fixed, _) = repair(&messages);
    assert!(Pairs::new(&fixed).is_complete());
    assert_eq!(repair(&fixed).0, fixed);
});
