//! The fast OpenAI reader gives exactly what the general one gives, or
//! steps aside.

use proptest::prelude::*;
use serde_json::{json, Value};
use strata_ctx_core::{from_openai_messages, from_openai_slice};

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

#[test]
fn fast_reader_takes_plain_lists_and_steps_aside_for_others() {
    let plain = br#"{"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, "b"]},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{\"p\": 1}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}"#;
    let fast = from_openai_slice(plain).unwrap();
    assert_eq!(fast[0].content, "a\nb");
    assert_eq!(fast[1].tool_calls[0].arguments, json!({"p": 1}));
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
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/corpus");
    let mut fast_ones = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let bytes = std::fs::read(&path).unwrap();
            let value: Value = serde_json::from_slice(&bytes).unwrap();
            let list = value.get("messages").unwrap_or(&value);
            if let Some(fast) = from_openai_slice(&bytes) {
                assert_eq!(fast, from_openai_messages(list).unwrap(), "{}", path.display());
                fast_ones += 1;
            }
        }
    }
    assert!(fast_ones >= 4, "{fast_ones}");
}
