//! The prompt texts of Strata (PROMPT-1): the Markdown files beside this
//! crate's `Cargo.toml`, embedded at compile time. Edit a text there and
//! every crate that sends it sends the new one.
//!
//! Each crate that sends a prompt takes it as a setting whose default is
//! the text here, so an embedder overrides a prompt by passing its own
//! text. Placeholders are written `{{name}}` and filled by [`fill`].

/// The archived-summary template and instructions (HIST-5):
/// placeholders `{{start}}` and `{{end}}`, the covered time span.
pub const SUMMARY: &str = include_str!("../summary.md");

/// The prompt of the optional LLM summary of one tool result (TOOL-12):
/// placeholders `{{tool}}` and `{{output}}`.
pub const TOOL_RESULT_SUMMARY: &str = include_str!("../tool_result_summary.md");

/// The instructions of the ReAct text format (REACT-1).
pub const REACT_SYSTEM: &str = include_str!("../react_system.md");

/// The system prompt for native tool calling (MODEL-1): the same working
/// rules as [`REACT_SYSTEM`], without its text format.
pub const NATIVE_SYSTEM: &str = include_str!("../native_system.md");

/// The prompt that extracts long-term facts about the user from a round
/// (MEM-2): placeholder `{{facts}}`, the facts held now, one per line with
/// its id; the round follows as messages.
pub const MEMORY_EXTRACT: &str = include_str!("../memory_extract.md");

/// The prompt of follow-up suggestions after a round (MEM-3):
/// placeholders `{{count}}` and `{{earlier}}`, the suggestions already
/// made, one per line; the conversation follows as messages.
pub const SUGGESTIONS: &str = include_str!("../suggestions.md");

/// Replaces each `{{name}}` of `template` with its value from `values`.
/// Placeholders without a value are left as they are; values are inserted
/// verbatim, never scanned for placeholders themselves.
///
/// # Example
///
/// ```
/// use strata_ctx_prompts as prompts;
///
/// let text = prompts::fill("Output of `{{tool}}`: {{output}}", &[("tool", "Bash"), ("output", "{{x}}")]);
/// assert_eq!(text, "Output of `Bash`: {{x}}");
/// ```
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let replaced = after.find("}}").and_then(|close| {
            let name = &after[..close];
            values.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v, close))
        });
        match replaced {
            Some((value, close)) => {
                out.push_str(value);
                rest = &after[close + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_1_prompts_are_embedded_with_their_placeholders() {
        assert!(SUMMARY.contains("## 📌 Archived Session Summary"));
        for section in [
            "Objectives & Status",
            "Technical Context",
            "Completed Milestones",
            "Key Insights & Decisions",
            "File System State",
        ] {
            assert!(SUMMARY.contains(section), "{section}");
        }
        assert!(SUMMARY.contains("{{start}}") && SUMMARY.contains("{{end}}"));
        assert!(TOOL_RESULT_SUMMARY.contains("{{tool}}") && TOOL_RESULT_SUMMARY.contains("{{output}}"));
        assert!(REACT_SYSTEM.contains("Action: Finish["));
        // MODEL-1: the native prompt carries no ReAct format rules.
        assert!(!NATIVE_SYSTEM.contains("Action:") && !NATIVE_SYSTEM.contains("Thought:"));
    }

    #[test]
    fn fill_leaves_unknown_and_unclosed_placeholders() {
        assert_eq!(fill("{{a}} {{b}} {{a", &[("a", "1")]), "1 {{b}} {{a");
        assert_eq!(fill("", &[]), "");
        assert_eq!(fill("{{}}", &[("", "empty")]), "empty");
    }
}
