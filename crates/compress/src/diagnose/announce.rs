//! A failure line that announces its message on the lines under it, and
//! that message.

use std::sync::OnceLock;

use regex::Regex;

use super::{compiled, line_kind, without_colours, LineKind};

/// Whether a failure line announces its message on the next line: it
/// ends with a colon, as Rust's `thread 'x' panicked at src/a.rs:3:5:`
/// above `called `Option::unwrap()` on a `None` value`, or with nothing
/// but a diagnostic's code, as GHC's `src/A.hs:3:5: error: [GHC-83865]`
/// above `• Couldn't match expected type …`, or it is RSpec's
/// `Failure/Error:` line, which quotes the failing code above the
/// matcher's message (`expected {:qty => 1} to include {:qty => 2}`), or
/// PHPUnit TestDox's `✘ Qty missing` over its message, or testthat's
/// ruled heading of a failed expectation (`── Failure
/// ('test-cart.R:5:3'): totals add up ────`) over the expectation's
/// words, indented too, as `R CMD check` quotes the tests' output, and
/// the same heading without its rules, as testthat 3.1 prints it, and
/// GoogleTest's place of a failed assertion (`tests/a_test.cpp:4:
/// Failure`) over what the assertion met (`Expected equality of these
/// values:`), and Robot Framework's failed test (`Discount TEN   | FAIL
/// |`) over its message, and the `error: |-` field of a TAP producer's
/// YAML block over the message it holds (node:test's `Expected values to
/// be strictly equal:`), Hspec's `uncaught exception: ErrorCall` over the
/// exception's message (`Prelude.head: empty list`), ts-loader's place of
/// a TypeScript error under webpack (`[tsl] ERROR in /app/src/a.ts(8,9)`)
/// over the error (`      TS2322: Type 'string' is not assignable to type
/// 'number'.`), dbt's failed test or model (`Failure in test
/// unique_orders_id (models/schema.yml)`, `Runtime Error in model daily
/// (models/daily.sql)`) over what it got (`Got 1 result, configured to fail
/// if != 0`, `Binder Error: …`). Asked of a line already known to be a failure; the history form keeps
/// the line after it, and the digest's last error joins the two.
///
/// ```
/// use strata_ctx_compress::announces_message;
/// assert!(announces_message("thread 'main' panicked at src/main.rs:4:5:"));
/// assert!(announces_message("src/Shop/Order.hs:30:14: error: [GHC-83865]"));
/// assert!(announces_message("     Failure/Error: expect(cart.total).to eq(16.0)"));
/// assert!(announces_message("── Failure ('test-cart.R:5:3'): totals add up ──────"));
/// assert!(announces_message("  ── Failure ('test-cart.R:5:3'): totals add up ──────"));
/// assert!(announces_message("Failure ('test-cart.R:2'): totals add up"));
/// assert!(announces_message("/home/dev/tests/ledger_test.cpp:4: Failure"));
/// assert!(announces_message("unknown file: Failure"));
/// assert!(announces_message("Discount TEN                    | FAIL |"));
/// assert!(announces_message("      error: |-"));
/// assert!(announces_message("error: |-"));
/// assert!(announces_message("       uncaught exception: ErrorCall"));
/// assert!(announces_message("[tsl] ERROR in /app/src/api/m10.ts(8,9)"));
/// assert!(announces_message("01:09:29  Failure in test unique_orders_id (models/schema.yml)"));
/// assert!(announces_message("\x1b[31mRuntime Error in model daily (models/daily.sql)\x1b[0m"));
/// assert!(!announces_message("error[E0425]: cannot find value `x` in this scope"));
/// ```
pub fn announces_message(failure: &str) -> bool {
    /// RSpec's heading of a failure's details.
    const RSPEC_FAILURE: &str = "Failure/Error: ";
    /// PHPUnit's TestDox mark of a failed test, over its message in a
    /// gutter (`   │ Undefined array key "zz"`).
    const TESTDOX_FAILURE: &str = "✘ ";
    /// testthat's rule around the heading of a failed expectation.
    const RULE: &str = "──";
    static RE: OnceLock<Regex> = OnceLock::new();
    // As it reads: a heading printed in red (dbt's) ends where its words do.
    let failure = without_colours(failure);
    let failure = failure.trim_end();
    failure.ends_with(':')
        || failure.trim_start().starts_with(RSPEC_FAILURE)
        || failure.trim_start().starts_with(TESTDOX_FAILURE)
        || (failure.trim_start().starts_with(RULE) && failure.ends_with(RULE))
        || compiled(
            &RE,
            r"(?:error|warning): \[[\w-]+\]$|^\s*(?:Failure|Error) \('[^']+:\d+(?::\d+)?'\): \S|^(?:\S.*:\d+|unknown file): Failure$|\S\s+\| FAIL \|$|^\s*error: [|>][-+]?$|^\s*uncaught exception: [\w.]+$|^\[tsl\] (?:ERROR|WARNING) in \S+\(\d+,\d+\)$|(?:^|\s)(?:Failure in test|(?:Runtime|Compilation|Database) Error in (?:model|test|seed|snapshot|analysis)) \S+ \(\S+\)$",
        )
        .is_match(failure)
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

/// The most lines of a value under its heading ([`value_under`]):
/// GoogleTest's two operands, each with what it is.
const VALUE_LINES: usize = 4;

/// How many headed values may follow a failure's message, one under the
/// other ([`values_after`]): Catch2's `with expansion:` over `with
/// message:`.
const HEADED_VALUES: usize = 3;

/// Whether `line` heads a value printed under it, indented, that says
/// what an assertion met: doctest's `Expected:` and `Got:` (under
/// `Failed example:`), Catch2's `with expansion:`, `with message:` and
/// `due to unexpected exception with message:` (under `CHECK( a == b )`),
/// GoogleTest's `Expected equality of these values:` (over each operand
/// and `Which is: 119999`), Jest 22's `Expected value to be:` and
/// `Received:`, indented under a failed test.
///
/// ```
/// # use strata_ctx_compress::is_value_heading;
/// assert!(is_value_heading("with expansion:"));
/// assert!(is_value_heading("    Expected value to equal:"));
/// assert!(is_value_heading("Expected equality of these values:"));
/// assert!(!is_value_heading("Caused by:"));
/// assert!(!is_value_heading("  Expected: 3"));
/// ```
pub fn is_value_heading(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"^(?:Expected|Got|with expansions?|with messages?|due to unexpected exception with messages?|Expected (?:in)?equality of these (?:values|C strings|wide strings)(?: \(ignoring case\))?):$|^\s*(?:Expected value to [a-z ]+|Received|received\.length):$",
    )
    .is_match(line.trim_end())
}

/// The value under a heading that says nothing else ([`is_value_heading`]),
/// given `after`, the text that follows the heading (from the end of its
/// line): the indented lines with text right under it, at most
/// [`VALUE_LINES`]. Empty for any other line.
pub(crate) fn value_under<'a>(heading: &str, after: &'a str) -> impl Iterator<Item = &'a str> {
    let heads = is_value_heading(heading);
    after
        .split('\n')
        .skip(1)
        .map(|l| l.trim_end_matches('\r'))
        .take_while(move |l| heads && is_value_line(l))
        .take(VALUE_LINES)
}

/// Whether `line` can be a line of a value under its heading: indented,
/// with text.
fn is_value_line(line: &str) -> bool {
    line.starts_with([' ', '\t']) && !line.trim().is_empty()
}

/// The headed values right under a failure's message, each heading with
/// its value ([`value_under`]), given `after`, the text that follows the
/// message's last line (from its end): Catch2 prints the assertion
/// (`  CHECK( i < 18 )`) over `with expansion:` over `  18 < 18` over
/// `with message:` over `  i = 18`. At most [`HEADED_VALUES`].
pub(crate) fn values_after(after: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = after;
    for _ in 0..HEADED_VALUES {
        let next = rest.split('\n').nth(1).map(|l| l.trim_end_matches('\r'));
        let Some(heading) = next.filter(|l| is_value_heading(l)) else {
            break;
        };
        found.push(heading);
        found.extend(value_under(heading, after_line(after, heading)));
        rest = found.last().map_or("", |last| after_line(after, last));
    }
    found
}

/// How many messages deep a failure's announced message may go: a
/// message at the line's start that ends with a colon announces one more
/// ([`announced_lines`]).
const ANNOUNCED_DEPTH: usize = 2;

/// How far under its failure an assertion's first operand may stand, and
/// each next one under the one before ([`message_lines`]; the history
/// form's messages of failures too).
pub(crate) const OPERAND_REACH: usize = 3;
/// See [`OPERAND_REACH`].
pub(crate) const NEXT_OPERAND_REACH: usize = 2;

/// What `text` holds after `line`, a slice of it.
fn after_line<'a>(text: &'a str, line: &str) -> &'a str {
    let end = (line.as_ptr() as usize + line.len()).saturating_sub(text.as_ptr() as usize);
    text.get(end..).unwrap_or_default()
}

/// The lines of the message a failure line announces
/// ([`announces_message`]), given `after`, the text that follows it (from
/// the end of its line): the message ([`announced_message`]), the lines
/// that go on with it or the value it heads (GoogleTest's `Expected
/// equality of these values:`), the headed values under it (Catch2's `with
/// expansion:`, [`values_after`]); and when the message, at the line's
/// start, ends with a colon and nothing goes on under it (Robot
/// Framework's `Lists are different:` over `Index 1: b != c`), the message
/// it announces in turn.
pub(crate) fn announced_lines(after: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = after;
    for _ in 0..ANNOUNCED_DEPTH {
        let Some(message) = announced_message(rest) else {
            break;
        };
        lines.push(message);
        let under = after_line(after, message);
        let mut last = message;
        for line in message_continued(message, under).chain(value_under(message, under)) {
            lines.push(line);
            last = line;
        }
        rest = after_line(after, last);
        let values = values_after(rest);
        let announces = std::ptr::eq(last, message)
            && values.is_empty()
            && !message.starts_with([' ', '\t'])
            && announces_message(message);
        lines.extend(values);
        if !announces {
            break;
        }
    }
    lines
}

/// The lines under `failure` that carry its message, given `after`, the
/// text that follows it (from the end of its line), in their order: the
/// message it announces ([`announced_lines`]), the deeper lines that
/// elaborate it ([`elaboration`]), and an assertion's operands (`  left:
/// 1`, ` right: 2`, `Expected: 3`) within [`OPERAND_REACH`] lines under it
/// and [`NEXT_OPERAND_REACH`] under each other, up to the next failure.
/// What the model sees of a long output shows them with their failure.
pub(crate) fn message_lines<'a>(failure: &str, after: &'a str) -> Vec<&'a str> {
    let mut lines = if announces_message(failure) {
        announced_lines(after)
    } else {
        Vec::new()
    };
    lines.extend(elaboration(failure, after));
    lines.extend(super::payload_messages(failure, after));
    let (mut anchor, mut reach) = (0, OPERAND_REACH);
    for (n, line) in after
        .split('\n')
        .skip(1)
        .map(|l| l.trim_end_matches('\r'))
        .enumerate()
    {
        let number = n + 1;
        if number > anchor + reach {
            break;
        }
        let kind = line_kind(line);
        if kind == LineKind::Failure {
            break;
        }
        if kind == LineKind::Context && super::is_operand(line) {
            lines.push(line);
            (anchor, reach) = (number, NEXT_OPERAND_REACH);
        }
    }
    lines.sort_by_key(|l| l.as_ptr() as usize);
    lines.dedup_by_key(|l| l.as_ptr() as usize);
    lines
}

/// The most lines an indented announced message may go on over
/// ([`message_continued`]).
const CONTINUED_LINES: usize = 2;

/// The lines that go on with an indented announced message `message`,
/// given `after`, the text that follows it (from the end of its line):
/// the plain lines with text right under it, indented at least as deep,
/// at most [`CONTINUED_LINES`]. GHC indents its message and its hints
/// alike (`    Variable not in scope: discont :: Int -> Int` over `
/// Suggested fix: Perhaps use 'discount'`). Empty under a message at the
/// line's start (Rust's panic message).
pub(crate) fn message_continued<'a>(message: &str, after: &'a str) -> impl Iterator<Item = &'a str> {
    let depth = message.len() - message.trim_start().len();
    after
        .split('\n')
        .skip(1)
        .map(|l| l.trim_end_matches('\r'))
        .take_while(move |l| depth > 0 && l.len() - l.trim_start().len() >= depth && is_announced_message(l))
        .take(CONTINUED_LINES)
}

/// The most lines of a failure's elaboration ([`elaboration`]).
const ELABORATION_LINES: usize = 3;

/// The lines that elaborate a failure line, given `after`, the text that
/// follows it (from the end of the line): the plain lines with text right
/// under it, each indented deeper than `failure`, up to three.
/// TypeScript's `  Type 'undefined' is not
/// assignable to type 'Item'.` under `error TS2322: …`, Go's `\thave
/// (number)` and `\twant (int, int)` under `not enough arguments in call
/// to f`, javac's `  symbol:   variable total` say why it failed. Under
/// a failure drawn in a box's gutter, the box's own words (Terraform's `│
/// An argument named "ami_id" is not expected here.`); under a TAP test
/// point, its diagnostic comments as deep as it (bats' `# (in test file
/// a.bats, line 5)`).
///
/// ```
/// use strata_ctx_compress::elaboration;
/// let after = "\n# (in test file a.bats, line 14)\n#   `[ \"$status\" -eq 0 ]' failed\nok 4 b\n";
/// assert_eq!(
///     elaboration("not ok 3 ship succeeds", after).collect::<Vec<_>>(),
///     ["# (in test file a.bats, line 14)", "#   `[ \"$status\" -eq 0 ]' failed"]
/// );
/// assert_eq!(elaboration("error: x", "\n# a comment\n").count(), 0);
/// ```
pub fn elaboration<'a>(failure: &str, after: &'a str) -> impl Iterator<Item = &'a str> {
    let mut followed = Elaborations::default();
    followed.elaborates(0, LineKind::Failure, failure);
    after
        .split('\n')
        .skip(1)
        .map(|l| l.trim_end_matches('\r'))
        .enumerate()
        .map_while(move |(i, l)| {
            let kind = line_kind(l);
            let elaborates = followed.elaborates(i + 1, kind, l);
            // Another failure, or a line past what may elaborate this one,
            // ends them.
            (kind != LineKind::Failure && followed.under.is_some()).then_some((elaborates, l))
        })
        .filter_map(|(elaborates, l)| elaborates.then_some(l))
}

/// Follows the lines of a text, in order, to tell those that elaborate a
/// failure ([`elaboration`]) when each line's kind is known.
#[derive(Debug, Default)]
pub(crate) struct Elaborations {
    under: Option<Under>,
}

/// The failure the next lines may elaborate.
#[derive(Debug, Clone, Copy)]
enum Under {
    /// The last line given, how deep the failure it may elaborate is
    /// indented, how many lines elaborate it so far, and whether it is a
    /// TAP test point, whose diagnostics are comments as deep as it.
    Lines {
        last: usize,
        depth: usize,
        count: usize,
        commented: bool,
    },
    /// A failure drawn in a box's gutter (Terraform's `│ Error: …`): its
    /// number, how deep its words stand after the gutter, and how many
    /// lines elaborate it so far.
    Boxed {
        failure: usize,
        depth: usize,
        count: usize,
    },
}

impl Elaborations {
    /// Whether `line`, numbered `number`, of `kind`, elaborates the
    /// failure above it, among the first [`ELABORATION_LINES`]: a plain
    /// line with text, right under the failure or under a line that
    /// elaborates it, indented deeper than the failure (or a comment as
    /// deep as a TAP test point, bats' `#   `[ "$status" -eq 0 ]' failed`
    /// under `not ok 3 ship succeeds`); or, under a
    /// failure drawn in a box's gutter (Terraform's `│ Error: Unsupported
    /// argument`), a plain line of the same box within [`BOX_REACH`]
    /// lines whose words stand as deep as the failure's (`│ An argument
    /// named "ami_id" is not expected here.`), past the box's blank lines
    /// and deeper ones (`│   on main.tf line 12, …:`).
    pub(crate) fn elaborates(&mut self, number: usize, kind: LineKind, line: &str) -> bool {
        let (under, elaborates) = match (kind, self.under) {
            (LineKind::Failure, _) => {
                let under = match boxed(line) {
                    Some(words) => Under::Boxed {
                        failure: number,
                        depth: indent(words),
                        count: 0,
                    },
                    None => Under::Lines {
                        last: number,
                        depth: indent(line),
                        count: 0,
                        commented: is_tap_failure(line),
                    },
                };
                (Some(under), false)
            }
            (
                _,
                Some(Under::Boxed {
                    failure,
                    depth,
                    count,
                }),
            ) => match boxed(line) {
                Some(words) if number <= failure + BOX_REACH => {
                    let elaborates = kind == LineKind::Plain
                        && count < ELABORATION_LINES
                        && !words.trim().is_empty()
                        && indent(words) == depth;
                    let count = count + usize::from(elaborates);
                    (
                        Some(Under::Boxed {
                            failure,
                            depth,
                            count,
                        }),
                        elaborates,
                    )
                }
                _ => (None, false),
            },
            (
                LineKind::Plain,
                Some(Under::Lines {
                    last,
                    depth,
                    count,
                    commented,
                }),
            ) if number == last + 1
                && count < ELABORATION_LINES
                && !line.trim().is_empty()
                && (indent(line) > depth
                    || (commented && indent(line) == depth && line.trim_start().starts_with('#'))) =>
            {
                (
                    Some(Under::Lines {
                        last: number,
                        depth,
                        count: count + 1,
                        commented,
                    }),
                    true,
                )
            }
            _ => (None, false),
        };
        self.under = under;
        elaborates
    }
}

/// Whether `line` is a TAP producer's failing test point (`not ok 3
/// build needs a target`, as bats, prove and tape print it, nested or
/// not): the comments right under it (`# (in test file a.bats, line 5)`)
/// are its diagnostics.
fn is_tap_failure(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^\s*not ok \d+\b").is_match(line)
}

/// How far under a failure drawn in a box's gutter the lines that
/// elaborate it may stand ([`Elaborations`]): its place, its code line
/// and the box's blank lines come first.
const BOX_REACH: usize = 8;

/// What `line` holds after the gutter a box draws down its left (`│`),
/// when it is drawn in one.
fn boxed(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix('│')
}

/// How many bytes of whitespace `line` starts with.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Whether `line` is one of the indented fields a finding lists under
/// it, a capitalised name and its value (bandit's `   Severity: High
/// Confidence: High`, `   More Info: https://…`, `   Location: a.py:3:4`).
///
/// ```
/// # use strata_ctx_compress::is_finding_field;
/// assert!(is_finding_field("   More Info: https://bandit.readthedocs.io/"));
/// assert!(!is_finding_field("Severity: High"));
/// assert!(!is_finding_field("   note: see below"));
/// ```
pub fn is_finding_field(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^[ \t]+[A-Z][A-Za-z]*(?: [A-Za-z]+)*:\s+\S").is_match(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers of the `lines` (numbered, with gaps where lines were
    /// left out) that [`Elaborations`] finds elaborating a failure.
    fn elaborating(lines: &[(usize, LineKind, &str)]) -> Vec<usize> {
        let mut followed = Elaborations::default();
        lines
            .iter()
            .filter(|(n, k, l)| followed.elaborates(*n, *k, l))
            .map(|(n, _, _)| *n)
            .collect()
    }

    /// TOOL-8: the deeper-indented plain lines right under a failure
    /// elaborate it, three at most; a blank line, a shallower line or a
    /// line of another kind ends them.
    #[test]
    fn tool_8_deeper_plain_lines_under_a_failure_elaborate_it() {
        let tsc = "src/a.ts(14,5): error TS2322: Type 'Item | undefined' is not assignable to type 'Item'.";
        let after = "\n  Type 'undefined' is not assignable to type 'Item'.\nsrc/b.ts(2,1): error TS1005: ';' expected.\n";
        assert_eq!(
            elaboration(tsc, after).collect::<Vec<_>>(),
            ["  Type 'undefined' is not assignable to type 'Item'."]
        );
        let go = "./main.go:5:7: not enough arguments in call to f";
        let after = "\n\thave (number)\n\twant (int, int)\n";
        assert_eq!(
            elaboration(go, after).collect::<Vec<_>>(),
            ["\thave (number)", "\twant (int, int)"]
        );
        let many = "\n  a\n  b\n  c\n  d\n";
        assert_eq!(elaboration("error: x", many).count(), ELABORATION_LINES);
        for after in ["\n\n  a\n", "\nb\n", "\n  File \"a.py\", line 3, in f\n", "\r\n"] {
            assert_eq!(elaboration("error: x", after).count(), 0, "{after:?}");
        }
        assert_eq!(elaboration("  E   x", "\n  a\n").count(), 0);
        assert_eq!(
            elaboration("error: x", "\r\n  a\r\n").collect::<Vec<_>>(),
            ["  a"]
        );
    }

    /// TOOL-8: followed line by line, the same lines elaborate a failure;
    /// a gap in the numbering ends them.
    #[test]
    fn tool_8_elaborations_are_followed_line_by_line() {
        use LineKind::{Failure, Plain};
        let lines = [
            (0, Failure, "error: x"),
            (1, Plain, "  a"),
            (2, Plain, "  b"),
            (4, Plain, "  c"),
            (5, Failure, "  error: y"),
            (6, Plain, "    d"),
            (7, Plain, "    e"),
            (8, Plain, "    f"),
            (9, Plain, "    g"),
            (10, Failure, "error: z"),
            (11, Plain, "x"),
        ];
        assert_eq!(elaborating(&lines), [1, 2, 6, 7, 8]);
    }

    /// TOOL-8: under a failure drawn in a box's gutter (Terraform), the
    /// lines of the box whose words stand as deep as the failure's
    /// elaborate it, past the box's blank and deeper lines; the box's end
    /// or its reach ends them.
    /// TOOL-8: under a TAP test point that failed, the comments as deep
    /// as it are its diagnostics (bats, prove); a comment under any other
    /// failure, or deeper lines' cap, is not.
    #[test]
    fn tool_8_a_tap_point_s_comments_elaborate_it() {
        use LineKind::{Failure, Noise, Plain};
        let lines = [
            (0, Failure, "not ok 1 build needs a target"),
            (1, Plain, "# (in test file deploy.bats, line 5)"),
            (
                2,
                Plain,
                "#   `[ \"$output\" = \"error: missing target\" ]' failed",
            ),
            (3, Noise, "ok 2 build prints the target"),
            (4, Plain, "# not under a failure"),
            (5, Failure, "    not ok 1 - rejects words"),
            (6, Plain, "    # at t/a.t line 3."),
            (7, Plain, "# shallower than the point"),
            (8, Failure, "error: x"),
            (9, Plain, "# a comment under an error"),
            (10, Failure, "not ok 3 ship"),
            (11, Plain, "# a"),
            (12, Plain, "# b"),
            (13, Plain, "# c"),
            (14, Plain, "# d"),
        ];
        assert_eq!(elaborating(&lines), [1, 2, 6, 11, 12, 13]);
    }

    /// The lines [`announced_lines`] finds under the first line of `text`.
    fn announced_under(text: &str) -> Vec<&str> {
        announced_lines(&text[text.find('\n').unwrap_or(text.len())..])
    }

    /// TOOL-8: a failure's announced message comes with what goes on under
    /// it: the value it heads (GoogleTest), the headed values under it
    /// (Catch2), the message it announces in turn when it ends with a
    /// colon at the line's start (Robot Framework), and no more.
    #[test]
    fn tool_8_an_announced_message_comes_with_what_it_announces() {
        let robot = "Lists Are Equal          | FAIL |\nLists are different:\nIndex 1: b != c\n-----\n";
        assert_eq!(
            announced_under(robot),
            ["Lists are different:", "Index 1: b != c"]
        );
        let robot = "Discount TEN          | FAIL |\nTotal 90.0 != 90.5\nnext line\n";
        assert_eq!(announced_under(robot), ["Total 90.0 != 90.5"]);
        let gtest = "a_test.cpp:4: Failure\nExpected equality of these values:\n  total\n    Which is: 9\n  10\n[  FAILED  ] T.A (0 ms)\n";
        assert_eq!(
            announced_under(gtest),
            [
                "Expected equality of these values:",
                "  total",
                "    Which is: 9",
                "  10"
            ]
        );
        let catch2 =
            "t.cpp:20: FAILED:\n  CHECK( i < 18 )\nwith expansion:\n  18 < 18\n\nt.cpp:21: FAILED:\n";
        assert_eq!(
            announced_under(catch2),
            ["  CHECK( i < 18 )", "with expansion:", "  18 < 18"]
        );
        // Two levels at most: a third colon announces nothing more.
        let deep = "error: a:\nb:\nc:\nd\n";
        assert_eq!(announced_under(deep), ["b:", "c:"]);
    }

    /// TRUNC-1, TOOL-8: the lines that carry a failure's message, for what
    /// the model sees of a long output: an assertion's operands within
    /// reach (three lines under the failure, two under each other), not a
    /// frame among them, not past the next failure; the lines that
    /// elaborate it; the message it announces.
    #[test]
    fn tool_8_the_lines_of_a_failure_s_message() {
        let jest = "    expect(received).toBe(expected) // Object.is equality";
        let after =
            "\n\n    Expected: 3\n    Received: 4\n\n      at Object.<anonymous> (src/a.test.js:3:17)\n";
        assert_eq!(message_lines(jest, after), ["    Expected: 3", "    Received: 4"]);
        // Two lines apart, then out of reach.
        let apart = "\nx\ny\n    Expected: 3\nz\n    Received: 4\nu\nv\n    Expected: 5\n";
        assert_eq!(message_lines(jest, apart), ["    Expected: 3", "    Received: 4"]);
        let far = "\nx\ny\nz\n    Expected: 3\n";
        assert!(message_lines(jest, far).is_empty());
        let failed = "\nFAIL src/b.test.js\n    Expected: 3\n";
        assert!(message_lines(jest, failed).is_empty());
        let rust = "thread 'main' panicked at src/a.rs:3:5:";
        assert_eq!(
            message_lines(
                rust,
                "\nattempt to subtract with overflow\nnote: run with `RUST_BACKTRACE=1`\n"
            ),
            ["attempt to subtract with overflow"]
        );
        let tsc = "src/a.ts(14,5): error TS2322: Type 'Item | undefined' is not assignable to type 'Item'.";
        assert_eq!(
            message_lines(tsc, "\n  Type 'undefined' is not assignable to type 'Item'.\n"),
            ["  Type 'undefined' is not assignable to type 'Item'."]
        );
    }

    /// TOOL-8: the headed values under a failure's message: Catch2's
    /// `with expansion:` and `with message:` each over its indented value,
    /// GoogleTest's operands under the message that heads them; nothing
    /// under a line that heads no value.
    #[test]
    fn tool_8_headed_values_follow_a_message() {
        let catch2 = "\nwith expansion:\n  18 < 18\nwith message:\n  i = 18\n\nt.cpp:21: FAILED:\n";
        assert_eq!(
            values_after(catch2),
            ["with expansion:", "  18 < 18", "with message:", "  i = 18"]
        );
        assert!(values_after("\n  indented\nwith expansion:\n  1 == 2\n").is_empty());
        // Three headings at most, each with its whole value.
        let block = "with message:\n  a\n  b\n  c\n  d\n";
        let many = format!("\nwith expansion:\n  1\n  2\n  3\n  4\n{}", block.repeat(3));
        let found = values_after(&many);
        assert_eq!(found.len(), HEADED_VALUES * (1 + VALUE_LINES), "{found:?}");
        assert_eq!(
            found.iter().filter(|l| is_value_heading(l)).count(),
            HEADED_VALUES
        );
        assert_eq!(found.last(), Some(&"  d"));
        assert!(values_after("\nCaused by:\n  x\n").is_empty());
        let gtest =
            "\n  balance(es, \"a\")\n    Which is: 119999\n  120000\n[  FAILED  ] Balance.Large (0 ms)\n";
        assert_eq!(
            value_under("Expected equality of these values:", gtest).collect::<Vec<_>>(),
            ["  balance(es, \"a\")", "    Which is: 119999", "  120000"]
        );
        assert_eq!(value_under("Caused by:", gtest).count(), 0);
        let long = "\n  a\n  b\n  c\n  d\n  e\n";
        assert_eq!(value_under("Got:", long).count(), VALUE_LINES);
    }

    #[test]
    fn tool_8_the_words_of_a_failure_s_box_elaborate_it() {
        let failure = "│ Error: Unsupported argument";
        let after = "\n│\n│   on main.tf line 12, in resource \"aws_instance\" \"web\":\n│   12:   ami_id = data.aws_ami.ubuntu.id\n│\n│ An argument named \"ami_id\" is not expected here.\n╵\n│ Stray words.\n";
        assert_eq!(
            elaboration(failure, after).collect::<Vec<_>>(),
            ["│ An argument named \"ami_id\" is not expected here."]
        );
        // Out of the box's reach.
        let far = format!("{}\n│ Too far.\n", "\n│".repeat(BOX_REACH));
        assert_eq!(elaboration(failure, &far).count(), 0);
        // A failure outside a box is elaborated as before.
        assert_eq!(elaboration("error: x", "\n│ y\n").count(), 0);
        // Another failure ends them.
        assert_eq!(
            elaboration("error: x", "\n  a\nerror: y\n  b\n").collect::<Vec<_>>(),
            ["  a"]
        );
        assert_eq!(
            elaboration(failure, "\n│ a\n│ Error: b\n│ c\n").collect::<Vec<_>>(),
            ["│ a"]
        );
        // Followed line by line, with gaps where lines were left out.
        use LineKind::{Context, Failure, Plain};
        let lines = [
            (0, Failure, "│ Error: Invalid reference"),
            (1, Context, "│   on main.tf line 3:"),
            (2, Plain, "│ A reference to a resource must be followed by"),
            (3, Plain, "│ an attribute access."),
            (5, Plain, "│   deeper"),
            (6, Plain, "│ third"),
            (7, Plain, "│ fourth"),
        ];
        assert_eq!(elaborating(&lines), [2, 3, 6]);
    }

    /// TOOL-8: an indented message goes on over the lines as deep under
    /// it (GHC's hint), never over shallower ones, and a message at the
    /// line's start goes on over none.
    #[test]
    fn tool_8_a_message_goes_on_as_deep_as_it_is_indented() {
        let message = "    Variable not in scope: totl :: Int";
        let after = "\n    Suggested fix: Perhaps use 'total'\n      (line 20)\n  |\n12 | totl\n";
        let continued: Vec<&str> = message_continued(message, after).collect();
        assert_eq!(
            continued,
            ["    Suggested fix: Perhaps use 'total'", "      (line 20)"]
        );
        let shallower = "\n  a note less indented\n";
        assert_eq!(message_continued(message, shallower).count(), 0);
        let rust = "called `Option::unwrap()` on a `None` value";
        assert_eq!(message_continued(rust, "\n    at the next line\n").count(), 0);
    }
}
