use strata_ctx::{rounds, Message, Pairs, Role};

use crate::workspace_path;

fn documented_history() -> Vec<String> {
    let doc = std::fs::read_to_string(workspace_path("docs/format.md")).unwrap();
    let start = doc.find("```jsonl\n").expect("a jsonl block") + "```jsonl\n".len();
    let end = start + doc[start..].find("```").unwrap();
    doc[start..end].lines().map(str::to_owned).collect()
}

/// CORE-1: the history in docs/format.md is valid, in canonical form (each
/// line is exactly what serialising the message gives back), and shaped as
/// the text says: a summary, two rounds, parallel calls, all pairs intact.
#[test]
fn core_1_documented_history_is_canonical() {
    let lines = documented_history();
    let messages: Vec<Message> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("line {}: {e}", i + 1)))
        .collect();
    for (line, message) in lines.iter().zip(&messages) {
        assert_eq!(&serde_json::to_string(message).unwrap(), line);
    }
    assert_eq!(messages[0].role, Role::Summary);
    assert_eq!(rounds(&messages), vec![1..8, 8..10]);
    assert!(Pairs::new(&messages).is_complete());
    assert!(messages.iter().any(|m| m.tool_calls.len() == 2));
    let ids = strata_ctx::types::ShortIds::new(messages.iter().map(|m| m.id));
    for m in &messages {
        assert_eq!(ids.short(&m.id).unwrap().len(), 8, "no collisions in the example");
    }
}
