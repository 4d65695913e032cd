//! A failure line that announces its message on the lines under it, and
//! that message.

use std::sync::OnceLock;

use regex::Regex;

use super::{compiled, line_kind, LineKind};

/// Whether a failure line announces its message on the next line: it
/// ends with a colon, as Rust's `thread 'x' panicked at src/a.rs:3:5:`
/// above `called `Option::unwrap()` on a `None` value`, or with nothing
/// but a diagnostic's code, as GHC's `src/A.hs:3:5: error: [GHC-83865]`
/// above `• Couldn't match expected type …`, or it is RSpec's
/// `Failure/Error:` line, which quotes the failing code above the
/// matcher's message (`expected {:qty => 1} to include {:qty => 2}`), or
/// PHPUnit TestDox's `✘ Qty missing` over its message.
/// Asked of a line already known to be a failure; the history form keeps
/// the line after it, and the digest's last error joins the two.
///
/// ```
/// use strata_ctx_compress::announces_message;
/// assert!(announces_message("thread 'main' panicked at src/main.rs:4:5:"));
/// assert!(announces_message("src/Shop/Order.hs:30:14: error: [GHC-83865]"));
/// assert!(announces_message("     Failure/Error: expect(cart.total).to eq(16.0)"));
/// assert!(!announces_message("error[E0425]: cannot find value `x` in this scope"));
/// ```
pub fn announces_message(failure: &str) -> bool {
    /// RSpec's heading of a failure's details.
    const RSPEC_FAILURE: &str = "Failure/Error: ";
    /// PHPUnit's TestDox mark of a failed test, over its message in a
    /// gutter (`   │ Undefined array key "zz"`).
    const TESTDOX_FAILURE: &str = "✘ ";
    static RE: OnceLock<Regex> = OnceLock::new();
    let failure = failure.trim_end();
    failure.ends_with(':')
        || failure.trim_start().starts_with(RSPEC_FAILURE)
        || failure.trim_start().starts_with(TESTDOX_FAILURE)
        || compiled(&RE, r"(?:error|warning): \[[\w-]+\]$").is_match(failure)
}

/// Whether `line` can be the message a failure announced: a plain line
/// with some text ([`announces_message`]).
pub fn is_announced_message(line: &str) -> bool {
    !line.trim().is_empty() && line_kind(line) == LineKind::Plain
}

/// The message a failure line announces ([`announces_message`]), given
/// `after`, the text that follows the failure line (from the end of the
/// line): the first line with text among the next two, when it can be one
/// ([`is_announced_message`]). Node's assertions leave a blank line
/// between the two, TestDox a gutter (`   │`).
///
/// ```
/// use strata_ctx_compress::announced_message;
/// assert_eq!(announced_message("\ncalled `Option::unwrap()` on a `None` value\n"), Some("called `Option::unwrap()` on a `None` value"));
/// assert_eq!(announced_message("\n\n18 !== 20\n"), Some("18 !== 20"));
/// assert_eq!(announced_message("\n\n\n18 !== 20\n"), None);
/// ```
pub fn announced_message(after: &str) -> Option<&str> {
    after
        .split('\n')
        .skip(1)
        .take(2)
        .map(|l| l.trim_end_matches('\r'))
        .find(|l| !l.trim().trim_start_matches('│').trim().is_empty())
        .filter(|l| is_announced_message(l))
}
