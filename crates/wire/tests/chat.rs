//! The chat-completions reader gives the same messages from bytes, from a
//! reader and from a parsed value, or steps aside.

// Test code: unwrapping and panicking are how it reports.
#![allow(clippy::unwrap_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::{json, Value};
use strata_ctx_testkit::corpus_files;
use strata_ctx_wire::chat::{from_openai_messages, from_openai_slice, read_openai_list, OpenAiList};

fn content() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z \\n\"\\\\é]{0,20}".prop_map(Value::from),
        Just(Value::Null),
        Just(json!(7)),
        Just(json!({"text": "an object"})),
        proptest::collection::vec(
            prop_oneof![
                "[a-z]{0,8}".prop_map(Value::from),
                "[a-z]{0,8}".prop_map(|t| json!({"type": "text", "text": t})),
                Just(json!({"type": "image_url", "image_url": {"url": "x"}})),
                Just(json!({"text": 3})),
                Just(json!(["nested"])),
                Just(json!({"type": "tool_use", "id": "t", "name": "n", "input": {}})),
            ],
            0..4
        )
        .prop_map(Value::Array),
    ]
}

fn call() -> impl Strategy<Value = Value> {
    let arguments = prop_oneof![
        Just(json!("{\"path\":\"a.rs\"}")),
        Just(json!("{not json")),
        Just(json!({"already": "an object"})),
        Just(Value::Null),
        Just(json!(5)),
        // Every kind of JSON, as a string and as itself.
        Just(json!(
            "{\"cmd\": \"cat <<'EOF'\\nprint(\\\"hi\\\")\\nEOF\", \"n\": [1, -2, 3.5e3, true, null]}"
        )),
        Just(json!("[1, \"two\"]")),
        Just(json!("-0.25")),
        Just(json!("")),
        Just(json!([1, {"nested": ["a\"b", false]}])),
        Just(json!(-7)),
        Just(json!(2.5)),
        Just(json!(true)),
        // A command of any text, its JSON written as a string (read in one
        // pass, `json_nested`), and text that may or may not be JSON.
        "[a-z \\n\"\\\\é😀\u{1}\u{7f}/]{0,40}"
            .prop_map(|command| Value::from(json!({"command": command, "timeout": 30}).to_string())),
        "[a-z{}\\[\\]:,\"\\\\ \\n0-9.eu-]{0,30}".prop_map(Value::from),
    ];
    (
        prop_oneof![Just(Some("c1")), Just(Some("c2")), Just(None)],
        arguments,
        any::<bool>(),
    )
        .prop_map(|(id, arguments, named)| {
            let mut function = json!({"arguments": arguments});
            if named {
                function["name"] = json!("Read");
            }
            let mut call = json!({"type": "function", "function": function});
            if let Some(id) = id {
                call["id"] = json!(id);
            }
            call
        })
}

fn message() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            Just("system"),
            Just("developer"),
            Just("user"),
            Just("assistant"),
            Just("tool"),
            Just("function"),
            Just("summary"),
            Just("robot")
        ],
        content(),
        proptest::option::of(proptest::collection::vec(call(), 0..3)),
        proptest::option::of(prop_oneof![Just(json!("c1")), Just(json!(9))]),
        proptest::option::of(Just(json!("Read"))),
        any::<bool>(),
    )
        .prop_map(|(role, content, calls, call_id, name, extra)| {
            let mut m = json!({"role": role, "content": content});
            if let Some(calls) = calls {
                m["tool_calls"] = Value::Array(calls);
            }
            if let Some(id) = call_id {
                m["tool_call_id"] = id;
            }
            if let Some(name) = name {
                m["name"] = name;
            }
            if extra {
                m["refusal"] = Value::Null;
            }
            m
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn fast_reader_agrees_with_the_general_one(
        list in proptest::collection::vec(message(), 0..6),
        as_object in any::<bool>(),
    ) {
        let value = Value::Array(list);
        let document = if as_object { json!({"model": "m", "messages": value}) } else { value.clone() };
        let bytes = serde_json::to_vec(&document).unwrap();
        match (from_openai_slice(&bytes), from_openai_messages(&value)) {
            (Some(fast), Ok(general)) => prop_assert_eq!(fast, general),
            (Some(fast), Err(e)) => prop_assert!(false, "fast read {fast:?} where the general one fails: {e}"),
            (None, _) => {}
        }
    }
}

/// A message the fast reader must take: a role it knows, text with
/// escapes or parts, calls with ids, names and arguments.
fn plain_message() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            Just("system"),
            Just("developer"),
            Just("user"),
            Just("assistant"),
            Just("tool")
        ],
        prop_oneof![
            "[a-z \\n\"\\\\é😀\u{1}/]{0,60}".prop_map(Value::from),
            Just(Value::Null),
            proptest::collection::vec(
                "[a-z\"\\n]{0,8}".prop_map(|t| json!({"type": "text", "text": t})),
                0..3
            )
            .prop_map(Value::Array),
        ],
        proptest::collection::vec(("[a-z0-9_]{1,8}", "[A-Za-z]{1,8}", "[a-z \"\\\\\\n]{0,30}"), 0..3),
        proptest::option::of("[a-z0-9_]{1,8}"),
    )
        .prop_map(|(role, content, calls, call_id)| {
            let mut m = json!({"role": role, "content": content});
            if !calls.is_empty() {
                let calls = calls.into_iter().map(|(id, name, text)| {
                    let arguments = json!({"cmd": text, "n": [1, -2.5, null]}).to_string();
                    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
                });
                m["tool_calls"] = calls.collect();
            }
            if let Some(id) = call_id {
                m["tool_call_id"] = json!(id);
            }
            m
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// A plain list always goes the fast way, to the general reader's
    /// messages.
    #[test]
    fn fast_reader_takes_every_plain_list(
        list in proptest::collection::vec(plain_message(), 0..6),
        as_object in any::<bool>(),
        pretty in any::<bool>(),
    ) {
        let value = Value::Array(list);
        let document = if as_object { json!({"model": "m", "n": [1.5, {"x": "]"}], "messages": value}) } else { value.clone() };
        let bytes = if pretty { serde_json::to_vec_pretty(&document) } else { serde_json::to_vec(&document) }.unwrap();
        let general = from_openai_messages(&value).unwrap();
        prop_assert_eq!(from_openai_slice(&bytes), Some(general));
    }

    /// A list cut short or with a byte changed: the fast reader refuses it,
    /// or reads what the general reader reads.
    #[test]
    fn fast_reader_refuses_or_agrees_on_damaged_lists(
        list in proptest::collection::vec(prop_oneof![message(), plain_message()], 1..4),
        at in any::<prop::sample::Index>(),
        byte in proptest::sample::select(b"\"\\,:]}0 ntu".to_vec()),
        cut in any::<bool>(),
    ) {
        let mut bytes = serde_json::to_vec(&Value::Array(list)).unwrap();
        let i = at.index(bytes.len());
        if cut {
            bytes.truncate(i);
        } else if bytes[i].is_ascii() {
            bytes[i] = byte;
        }
        if let Some(fast) = from_openai_slice(&bytes) {
            let value: Value = serde_json::from_slice(&bytes).unwrap();
            prop_assert_eq!(Some(fast), from_openai_messages(&value).ok());
        }
    }
}

#[test]
fn fast_reader_takes_plain_lists_and_steps_aside_for_others() {
    let plain = br#"{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, "b"]},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{\"p\": 1}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}"#;
    let fast = from_openai_slice(plain).unwrap();
    assert_eq!(fast[0].content, "a\nb");
    assert_eq!(*fast[1].tool_calls[0].arguments, json!({"p": 1}));
    let value: Value = serde_json::from_slice(plain).unwrap();
    assert_eq!(fast, from_openai_messages(&value["messages"]).unwrap());
    for other in [
        &br#"{"system": "s", "messages": []}"#[..],
        br#"[{"id": "1b4e28ba-2fa1-41d2-883f-0016d3cca427", "role": "user", "content": "strata"}]"#,
        br#"[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}]"#,
        br#"[{"role": "robot"}]"#,
        br#"{"role": "user"}"#,
        br#"{"role": "user", "content": "a"}
{"role": "assistant", "content": "b"}"#,
        b"[1, 2]",
        b"not json",
        br#"[{"role": "user", "content": "a", "content": "b"}]"#,
    ] {
        assert!(
            from_openai_slice(other).is_none(),
            "{}",
            String::from_utf8_lossy(other)
        );
    }
    // Every transcript the tests read goes the fast way, to the same messages.
    let mut fast_ones = 0;
    for path in corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        let list = value.get("messages").unwrap_or(&value);
        if let Some(fast) = from_openai_slice(&bytes) {
            assert_eq!(fast, from_openai_messages(list).unwrap(), "{}", path.display());
            fast_ones += 1;
        }
    }
    assert!(fast_ones >= 4, "{fast_ones}");
}

/// A reader that hands out at most `step` bytes a call, so that every
/// value is cut by a read somewhere.
struct Trickle<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// What the streaming reader makes of `bytes`, read `step` bytes at a time.
fn streamed(bytes: &[u8], step: usize) -> Option<Vec<strata_ctx_core::Message>> {
    match read_openai_list(Trickle { bytes, step }).unwrap() {
        OpenAiList::Array(m) | OpenAiList::Object(m) => Some(m),
        OpenAiList::Other => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    /// The streaming reader reads what the slice reader reads, in any
    /// pieces, and steps aside where it does.
    #[test]
    fn streaming_reader_agrees_with_the_slice_reader(
        list in proptest::collection::vec(message(), 0..6),
        as_object in any::<bool>(),
        pretty in any::<bool>(),
        step in 1usize..40,
        cut in any::<prop::sample::Index>(),
    ) {
        let value = Value::Array(list);
        let document = if as_object {
            json!({"model": "m", "n": [1, {"x": "]"}], "messages": value, "t": null})
        } else {
            value
        };
        let bytes = if pretty { serde_json::to_vec_pretty(&document) } else { serde_json::to_vec(&document) }.unwrap();
        prop_assert_eq!(streamed(&bytes, step), from_openai_slice(&bytes));
        // Cut anywhere, it is never a list (unless the cut leaves one whole).
        let cut = &bytes[..cut.index(bytes.len().max(1))];
        prop_assert_eq!(streamed(cut, step), from_openai_slice(cut));
    }

    /// Any bytes: a list or `Other`, never a panic, as the slice reader.
    #[test]
    fn streaming_reader_takes_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200), step in 1usize..9) {
        prop_assert_eq!(streamed(&bytes, step), from_openai_slice(&bytes));
    }
}

#[test]
fn streaming_reader_reads_transcripts_and_steps_aside_for_others() {
    let mut read = 0;
    for path in corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let list = read_openai_list(file).unwrap();
        let shape_fits = matches!(
            (&list, bytes.first()),
            (OpenAiList::Array(_), Some(b'[')) | (OpenAiList::Object(_), Some(b'{')) | (OpenAiList::Other, _)
        );
        assert!(shape_fits, "{}", path.display());
        assert_eq!(
            streamed(&bytes, 4096),
            from_openai_slice(&bytes),
            "{}",
            path.display()
        );
        read += usize::from(list != OpenAiList::Other);
    }
    assert!(read >= 4, "{read}");
    // A byte-order mark is skipped; trailing text is not a list.
    let with_mark = "\u{feff}[{\"role\": \"user\", \"content\": \"a\"}]";
    assert_eq!(streamed(with_mark.as_bytes(), 2).map(|m| m.len()), Some(1));
    assert_eq!(streamed(br#"[{"role": "user", "content": "a"}] x"#, 3), None);
    assert_eq!(
        streamed(br#"[{"role": "user", "content": "a\"]"}]"#, 1).map(|m| m[0].content.to_string()),
        Some("a\"]".into())
    );
    // A reader's error is an error, not `Other`.
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk gone"))
        }
    }
    assert_eq!(read_openai_list(Broken).unwrap_err().to_string(), "disk gone");
}

/// CORE-2, HIST-10: the short ids of an imported transcript stay short:
/// similar messages (the same tool's `ok`, repeated commands) differ in
/// their first characters, as random ids would. Before, they shared their
/// first 64 bits and ShortIds lengthened them to 32 characters.
#[test]
fn core_2_imported_short_ids_stay_short() {
    for path in corpus_files() {
        let messages = strata_ctx_testkit::load_transcript(&path).unwrap().messages;
        assert!(messages.len() > 10);
        let ids = strata_ctx_core::ShortIds::new(messages.iter().map(|m| m.id));
        let longest = messages
            .iter()
            .filter_map(|m| ids.short(&m.id))
            .map(|s| s.len())
            .max()
            .unwrap_or(0);
        // Random ids of a few hundred messages need 8 or 9 characters.
        assert!(
            longest <= 10,
            "{}: a short id of {longest} characters",
            path.display()
        );
    }
}
