//! The non-streamed answers of the three APIs (MODEL-1, REL-1): any bytes
//! read as a chat completion, a Responses answer or an Anthropic message
//! give an answer or a typed error, never a panic; an answer read becomes
//! an assistant message that carries every call it named, each with a
//! name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_ctx::anthropic::parse_message;
use strata_ctx::openai::{parse_completion, parse_response};
use strata_ctx::{LlmResponse, Role};

fn check(answer: LlmResponse) {
    assert!(answer.tool_calls.iter().all(|c| !c.name.is_empty()), "a call without a name");
    let message = answer.to_message();
    assert_eq!(message.role, Role::Assistant);
    assert_eq!(message.tool_calls, answer.tool_calls);
}

fuzz_target!(|data: &[u8]| {
    for read in [parse_completion, parse_response, parse_message] {
        if let Ok(answer) = read(data) {
            check(answer);
        }
    }
});
