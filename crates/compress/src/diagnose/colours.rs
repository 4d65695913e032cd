//! Colour codes and cursor moves (ANSI escape sequences): how a tool
//! printed, not what it said.

use std::sync::OnceLock;

use regex::Regex;

use super::compiled;

/// ANSI escape sequences: colours, cursor moves.
fn ansi() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>]")
}

/// `text` without its colour codes and cursor moves (ANSI escape
/// sequences): how a tool printed, not what it said. Borrowed when there
/// are none.
///
/// ```
/// assert_eq!(strata_ctx_compress::without_colours("\x1b[31merror\x1b[0m: x"), "error: x");
/// ```
pub fn without_colours(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\x1b') {
        ansi().replace_all(text, "")
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}
