//! Call ids as each API takes them (MODEL-2): what one API takes is sent
//! as it is, anything else is mapped to an id it takes, the same every
//! time, and mapping twice changes nothing.

// Test code: unwrapping and panicking are how it reports.
#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;
use strata_ctx_wire::anthropic::tool_use_id;
use strata_ctx_wire::chat::{call_id, MAX_CALL_ID_BYTES};

fn messages_api_takes(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

proptest! {
    #[test]
    fn chat_ids_fit_and_stay_put(id in "\\PC{0,60}") {
        let sent = call_id(&id);
        prop_assert!(sent.len() <= MAX_CALL_ID_BYTES);
        if id.len() <= MAX_CALL_ID_BYTES {
            prop_assert_eq!(&*sent, id.as_str());
        }
        prop_assert_eq!(call_id(&sent), sent.clone());
        prop_assert_eq!(call_id(&id), sent);
    }

    #[test]
    fn messages_ids_take_only_allowed_characters(id in "[a-zA-Z0-9_.:/ é-]{0,50}") {
        let sent = tool_use_id(&id);
        prop_assert!(messages_api_takes(&sent), "{}", sent);
        if messages_api_takes(&id) {
            prop_assert_eq!(&*sent, id.as_str());
        }
        prop_assert_eq!(tool_use_id(&sent), sent.clone());
    }

    /// Two ids that differ only in a character the API refuses stay
    /// apart: the hash of the original ends the mapped id.
    #[test]
    fn mapped_ids_stay_apart(head in "[a-z]{1,8}", a in "[.:/]", b in "[.:/]") {
        prop_assume!(a != b);
        let (x, y) = (format!("{head}{a}1"), format!("{head}{b}1"));
        prop_assert_ne!(tool_use_id(&x), tool_use_id(&y));
    }
}

#[test]
fn long_ids_that_share_a_head_stay_apart() {
    let a = "chatcmpl-tool-0123456789abcdef0123456789abcdef";
    let b = "chatcmpl-tool-0123456789abcdef0123456789abcdee";
    assert_ne!(call_id(a), call_id(b));
    assert!(call_id(a).starts_with("chatcmpl-tool-0123456789abcdef0"));
}
