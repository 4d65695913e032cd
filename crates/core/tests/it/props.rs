use proptest::prelude::*;
use strata_ctx_core::{
    json_chars, message_model_text, rounds, CharCounter, Message, Pairs, Provider, ProviderItem, Role,
    TokenCounter, ToolCall, MESSAGE_OVERHEAD,
};
use strata_ctx_testkit::strategy::{self, HistoryShape};

proptest! {
    #![proptest_config(strata_ctx_testkit::strategy::cases(512))]

    /// CORE-1: every message survives its canonical JSON form unchanged,
    /// alone and as a JSONL line.
    #[test]
    fn core_1_message_json_round_trip(message in strategy::message()) {
        let text = serde_json::to_string(&message).unwrap();
        prop_assert!(!text.contains('\n'), "one message is one JSONL line");
        let back: Message = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&back, &message);
        let value = serde_json::to_value(&message).unwrap();
        prop_assert_eq!(serde_json::from_value::<Message>(value).unwrap(), message);
    }

    /// CORE-4: rounds partition any history: in order, disjoint, each
    /// starting at a user message and holding no other user message, and
    /// together covering everything from the first user message on.
    #[test]
    fn core_4_rounds_partition(roles in proptest::collection::vec(strategy::role(), 0..60)) {
        let history: Vec<Message> = roles.into_iter().map(|r| Message::new(r, "")).collect();
        check_partition(&history)?;
    }

    /// CORE-4 on well-formed conversations with summaries before the rounds.
    #[test]
    fn core_4_rounds_partition_conversations(history in strategy::history(HistoryShape::default().with_orphans(true))) {
        check_partition(&history)?;
        let leading = history.iter().take_while(|m| m.role != Role::User).count();
        prop_assert!(history[..leading].iter().all(|m| m.role == Role::Summary));
        let user_messages = history.iter().filter(|m| m.role == Role::User).count();
        prop_assert_eq!(rounds(&history).len(), user_messages);
    }

    /// HIST-2: on generated histories without orphans, every call has
    /// exactly one result, found after it.
    #[test]
    fn hist_2_pairs_found(history in strategy::history(HistoryShape::default())) {
        let pairs = Pairs::new(&history);
        prop_assert!(pairs.is_complete());
        for (i, m) in history.iter().enumerate() {
            for call in &m.tool_calls {
                let r = pairs.result_of(&call.id).unwrap();
                prop_assert!(r > i);
                prop_assert_eq!(history[r].tool_call_id.as_deref(), Some(call.id.as_str()));
                prop_assert_eq!(pairs.call_of(&call.id).unwrap().message, i);
            }
        }
    }
}

fn check_partition(history: &[Message]) -> Result<(), TestCaseError> {
    let rs = rounds(history);
    let first_user = history.iter().position(|m| m.role == Role::User);
    match first_user {
        None => prop_assert!(rs.is_empty()),
        Some(first) => {
            prop_assert_eq!(rs[0].start, first);
            prop_assert_eq!(rs.last().unwrap().end, history.len());
            for w in rs.windows(2) {
                prop_assert_eq!(w[0].end, w[1].start);
            }
            for r in &rs {
                prop_assert!(r.start < r.end);
                prop_assert_eq!(history[r.start].role, Role::User);
                prop_assert!(history[r.start + 1..r.end].iter().all(|m| m.role != Role::User));
            }
        }
    }
    Ok(())
}

/// Any JSON value, floats and control characters included.
fn any_json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        strategy::json_value(),
        any::<f64>().prop_map(Value::from),
        "[\\x00-\\x1f\"\\\\a-zé✓😀]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[\\x00-\\x1f\"a-zé]{0,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(strategy::cases(512))]

    /// CORE-5: the characters of a value's JSON are counted without
    /// writing it, exactly.
    #[test]
    fn json_chars_is_the_written_length(value in any_json()) {
        prop_assert_eq!(json_chars(&value), value.to_string().chars().count());
    }

    /// CORE-5: the character counter counts characters (with SIMD) as
    /// `str::chars` does, for text of every width at any length.
    #[test]
    fn char_counter_counts_characters(
        parts in proptest::collection::vec(prop_oneof![any::<String>(), "[a-z \n]{0,80}", "[é€😀]{0,20}"], 0..12),
    ) {
        let text: String = parts.concat();
        prop_assert_eq!(CharCounter.count_text(&text), text.chars().count() / 3);
        let message = strata_ctx_core::Message::user(text.clone());
        prop_assert_eq!(CharCounter.count_message(&message), MESSAGE_OVERHEAD + text.chars().count() / 3);
    }

    /// CORE-5: the character counter's own message count equals
    /// the default count of the joined text.
    #[test]
    fn char_counter_counts_as_the_default(
        mut message in strategy::message(),
        summary in proptest::option::of("[a-z é\\n]{0,30}"),
        args in proptest::collection::vec(any_json(), 0..3),
    ) {
        if let Some(text) = summary {
            message.provider_items.push(ProviderItem::new(
                Provider::Anthropic,
                serde_json::json!({"type": "compaction", "content": text}),
            ));
        }
        for (i, a) in args.into_iter().enumerate() {
            message.tool_calls.push(ToolCall::new(format!("c{i}"), "Run", a));
        }
        let joined = MESSAGE_OVERHEAD + CharCounter.count_text(&message_model_text(&message));
        prop_assert_eq!(CharCounter.count_message(&message), joined);
    }
}
