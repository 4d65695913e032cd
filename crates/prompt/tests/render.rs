//! CTX-4: the borrowed OpenAI rendering and the direct writer write the
//! same bytes as the `Value` rendering, for any messages and for real
//! transcripts.

// Test code: unwrapping, panicking and printing are how it reports; the
// house lints (Cargo.toml) are for library code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub
)]

use proptest::prelude::*;
use strata_ctx_core::{Message, ToolCall};
use strata_ctx_prompt::{openai_messages, OpenAiMessages};
use strata_ctx_testkit::{corpus_files, load_transcript, strategy};

fn same_bytes(messages: &[Message]) {
    let tree = serde_json::to_string(&openai_messages(messages)).unwrap();
    let direct = serde_json::to_string(&OpenAiMessages(messages)).unwrap();
    assert_eq!(direct, tree);
    let mut written = Vec::new();
    OpenAiMessages(messages).write_json(&mut written).unwrap();
    assert_eq!(String::from_utf8(written).unwrap(), tree);
}

/// Text made mostly of what JSON escapes, in runs long and short, so that
/// escapes fall on every side of the writer's 16-byte blocks.
fn escapy_text() -> impl Strategy<Value = String> {
    let chars = vec![
        'a', 'b', ' ', 'é', '€', '😀', '"', '\\', '/', '\n', '\r', '\t', '\u{0}', '\u{1}', '\u{8}', '\u{c}',
        '\u{1f}', '\u{7f}',
    ];
    prop_oneof![
        proptest::collection::vec(proptest::sample::select(chars), 0..120),
        // Long clean runs with a rare escape.
        (
            0usize..60,
            0usize..60,
            proptest::sample::select(vec!['"', '\\', '\n', '\u{2}'])
        )
            .prop_map(|(a, b, c)| {
                std::iter::repeat_n('x', a)
                    .chain([c])
                    .chain(std::iter::repeat_n('y', b))
                    .collect()
            }),
    ]
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    /// The writer's own escaping, once in texts and twice in arguments,
    /// gives `serde_json`'s bytes.
    #[test]
    fn ctx_4_escapes_as_serde_json_does(text in escapy_text(), key in escapy_text()) {
        let arguments = serde_json::json!({ key.clone(): text.clone(), "list": [text.clone(), 1, -2.5, null] });
        let call = ToolCall::new(key.clone(), text.clone(), arguments);
        same_bytes(&[
            Message::user(text.clone()),
            Message::assistant_with_calls(text.clone(), vec![call]),
            Message::tool_text(key, "Bash", text),
        ]);
    }

    #[test]
    fn ctx_4_borrowed_rendering_is_byte_identical(
        messages in proptest::collection::vec(strategy::message(), 0..12),
    ) {
        same_bytes(&messages);
    }
}

#[test]
fn ctx_4_borrowed_rendering_of_real_transcripts() {
    let mut seen = 0;
    for path in corpus_files() {
        same_bytes(&load_transcript(&path).unwrap().messages);
        seen += 1;
    }
    assert!(seen >= 5);
    // The edges: an assistant call without text, a summary, string
    // arguments, a tool message without a call id.
    let call = ToolCall::new("c1", "Bash", serde_json::Value::String("ls -la".into()));
    let nested = ToolCall::new(
        "c2",
        "Write",
        serde_json::json!({"path": "a\"b\\c", "text": "x\n\t\u{1}\u{7f}é/", "n": [1, -2.5, null, true]}),
    );
    same_bytes(&[Message::assistant_with_calls("", vec![nested])]);
    same_bytes(&[
        Message::summary("We fixed it."),
        Message::assistant_with_calls("", vec![call]),
        Message::tool_text("", "Bash", "ok"),
        Message::assistant("done"),
    ]);
}
