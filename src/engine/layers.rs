//! The layers around the history (CTX-1, CTX-2, PROMPT-1, REACT-3,
//! HIST-10): the system prompt and tools, the project rules, the todo
//! recap, the topic anchor and the id hints.

use strata_ctx_core::{Message, TokenCounter};
use strata_ctx_prompt::{recap_of, todo_board, topic_anchor, Context, Rules, SystemLayer};
use strata_ctx_tools::TodoBoard;

/// The layers that frame the history, and what they cost: the one owner
/// of L1 (the system prompt and tools), L2 (the rules, re-read when a
/// rule file changes), the todo recap, and the per-message id hints.
#[derive(Debug)]
pub(super) struct Layers {
    system: SystemLayer,
    rules: Rules,
    rules_text: String,
    rules_warnings: Vec<String>,
    /// Tokens of L1 and L2, the request's tools included; 0 until first
    /// counted.
    prefix_tokens: usize,
    /// Tokens of L2 alone, part of `prefix_tokens`.
    rules_tokens: usize,
    /// The todo list as the agent's calls left it, behind the recap.
    todos: TodoBoard,
    recap: Option<String>,
    recap_tokens: usize,
    topic_anchor: bool,
    /// The tokens one id hint costs, when hints are on (HIST-10).
    hint_tokens: Option<usize>,
}

impl Layers {
    /// The layers of `system` and `rules`; `topic_anchor` adds the anchor
    /// to each input, `hint_tokens` is what one id hint costs when hints
    /// are on.
    pub(super) fn new(
        system: SystemLayer,
        rules: Rules,
        topic_anchor: bool,
        hint_tokens: Option<usize>,
    ) -> Layers {
        Layers {
            system,
            rules,
            rules_text: String::new(),
            rules_warnings: Vec::new(),
            prefix_tokens: 0,
            rules_tokens: 0,
            todos: TodoBoard::new(),
            recap: None,
            recap_tokens: 0,
            topic_anchor,
            hint_tokens,
        }
    }

    /// The system layer (L1).
    pub(super) fn system(&self) -> &SystemLayer {
        &self.system
    }

    /// Re-reads the rule files when they changed and counts L1 and L2
    /// again when the rules did. Returns the rules' warnings when they
    /// changed, to be reported.
    pub(super) fn refresh(&mut self, counter: &dyn TokenCounter) -> Option<Vec<String>> {
        let layer = self.rules.build();
        let warnings = (layer.warnings != self.rules_warnings).then(|| {
            self.rules_warnings = layer.warnings;
            self.rules_warnings.clone()
        });
        if layer.text != self.rules_text || self.prefix_tokens == 0 {
            self.rules_text = layer.text;
            let prefix = Context::new(self.system.clone()).with_rules(self.rules_text.clone());
            // In native mode the tools travel beside the messages and
            // count as much (MODEL-1).
            let tools: usize = self
                .system
                .request_tools()
                .iter()
                .map(|t| {
                    let schema = t.input_schema().to_string();
                    counter.count_text(&t.name)
                        + counter.count_text(&t.full_description())
                        + counter.count_text(&schema)
                })
                .sum();
            self.prefix_tokens = counter.count_messages(&prefix.messages()) + tools;
            let system = counter.count_messages(&Context::new(self.system.clone()).messages()) + tools;
            self.rules_tokens = self.prefix_tokens.saturating_sub(system);
        }
        warnings
    }

    /// Tokens of L1 and L2.
    pub(super) fn prefix_tokens(&self) -> usize {
        self.prefix_tokens
    }

    /// Tokens of L2 alone (the project rules), part of
    /// [`Layers::prefix_tokens`].
    pub(super) fn rules_tokens(&self) -> usize {
        self.rules_tokens
    }

    /// Takes in the todo calls of `messages` (a step as recorded, or a
    /// whole log on resume) and, when there were any, writes the recap of
    /// the list as it now stands (CTX-5).
    pub(super) fn observe_todos(&mut self, messages: &[Message], counter: &dyn TokenCounter) {
        let step = todo_board(messages);
        if step.is_set() {
            self.todos.merge(&step);
            self.set_recap(recap_of(&self.todos), counter);
        }
    }

    /// Sets the todo recap and counts it as the window's tail counts it.
    pub(super) fn set_recap(&mut self, recap: Option<String>, counter: &dyn TokenCounter) {
        self.recap_tokens = crate::engine::session::tail_tokens(
            counter,
            Context::new(SystemLayer::new("")).with_recap(recap.clone()),
        );
        self.recap = recap;
    }

    /// Tokens of the todo recap.
    pub(super) fn recap_tokens(&self) -> usize {
        self.recap_tokens
    }

    /// What the id hints of `messages` history messages cost.
    pub(super) fn hint_tokens(&self, messages: usize) -> usize {
        self.hint_tokens.map_or(0, |n| n * messages)
    }

    /// Whether the window shows each message's id (HIST-10).
    pub(super) fn hints_on(&self) -> bool {
        self.hint_tokens.is_some()
    }

    /// The topic anchor of the user's `text` after `previous`, when it is
    /// on (REACT-3).
    pub(super) fn anchor(&self, previous: Option<&str>, text: &str) -> Option<String> {
        self.topic_anchor.then(|| topic_anchor(previous, text))
    }

    /// A context with these layers: L1, L2 and the recap.
    pub(super) fn context(&self) -> Context {
        Context::new(self.system.clone())
            .with_rules(self.rules_text.clone())
            .with_recap(self.recap.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_ctx_core::CharCounter;

    /// CTX-2: the rules are counted once, again only when a rule file
    /// changed, and a change of warnings is reported once.
    #[test]
    fn ctx_2_rules_are_counted_again_when_they_change() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::new(dir.path());
        let mut layers = Layers::new(SystemLayer::new("Be terse."), rules, false, None);
        assert_eq!(layers.refresh(&CharCounter), None);
        let bare = layers.prefix_tokens();
        assert!(bare > 0);
        std::fs::write(dir.path().join("CODE_LAW.md"), "Never use unwrap.").unwrap();
        layers.refresh(&CharCounter);
        assert!(layers.prefix_tokens() > bare);
        assert!(layers.context().render_react().contains("Never use unwrap."));
    }

    /// MODEL-1: in native mode the request's tools count with the prefix,
    /// each its name, description and schema.
    #[test]
    fn model_1_native_tools_count_with_the_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let tool = strata_ctx_prompt::ToolSpec::new(
            "Read",
            "Reads a file.",
            serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        );
        let native = || SystemLayer::for_mode(strata_ctx_prompt::ToolMode::Native).with_prompt("Be terse.");
        let mut bare = Layers::new(native(), Rules::new(dir.path()), false, None);
        bare.refresh(&CharCounter);
        let mut with_tool = Layers::new(
            native().with_tools(vec![tool.clone()]),
            Rules::new(dir.path()),
            false,
            None,
        );
        with_tool.refresh(&CharCounter);
        let c = CharCounter;
        let expected = c.count_text(&tool.name)
            + c.count_text(&tool.full_description())
            + c.count_text(&tool.input_schema().to_string());
        assert_eq!(with_tool.prefix_tokens() - bare.prefix_tokens(), expected);
    }

    /// The recap is counted as it shows; hints cost per message; the
    /// anchor follows the switch.
    #[test]
    fn recap_hints_and_anchor() {
        let dir = tempfile::tempdir().unwrap();
        let mut layers = Layers::new(SystemLayer::new(""), Rules::new(dir.path()), true, Some(6));
        layers.set_recap(Some("- [ ] write tests".into()), &CharCounter);
        assert!(layers.recap_tokens() > 0);
        layers.set_recap(None, &CharCounter);
        assert_eq!(layers.recap_tokens(), 0);
        assert_eq!(layers.hint_tokens(4), 24);
        assert!(layers.hints_on());
        let anchor = layers.anchor(Some("fix the parser"), "now the lexer").unwrap();
        assert_eq!(anchor, topic_anchor(Some("fix the parser"), "now the lexer"));
        let off = Layers::new(SystemLayer::new(""), Rules::new(dir.path()), false, None);
        assert_eq!(off.anchor(None, "x"), None);
        assert_eq!(off.hint_tokens(4), 0);
    }
}
