//! Located messages: a line that opens with where (`a.go:3:2:`) and goes
//! on with what (`undefined: x`), told apart from a bare location, a
//! frame and a compiler's note.

use std::sync::OnceLock;

use regex::Regex;

use super::compiled;

/// A location with its column followed by a message: Go's `a.go:3:2:
/// undefined: x`, ruff's `a.py:1:8: F401 …`, gcc's `a.c:3:5: error: …`,
/// tsc's `a.ts(3,5): error …`; or, indented under the test that failed,
/// `go test`'s `    a_test.go:12: got 81, want 90`. A line and no column
/// at the start of a line (`a.py:155: x = getattr(…)`) is how `grep -n`
/// prints a match: a location, not a failure, unless its words say so
/// (mypy's `a.py:3: error: …`).
pub(super) fn located_message() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        concat!(
            r"^(?:\s*\.{0,2}/?(?:[\w@./\\-]+\.\w{1,5}|(?:[\w@.\\-]+/)*[A-Z]\w*file)(?::\d+:\d+|\(\d+,\d+\))",
            r"|\s+\.{0,2}/?[\w@./\\-]+\.\w{1,5}:\d+):?\s*(?:-\s*)?\S",
        ),
    )
}

/// Whether a located line goes on with a message after its location (`a.go:3:2:
/// undefined: x`), rather than a bare location or a code excerpt.
pub(super) fn has_message(line: &str) -> bool {
    let t = line.trim_start();
    // `file:line:col: message` or `file(line,col): message`, or ktlint's
    // and markdownlint's `file:line:col Message`.
    let after = t
        .split_once(": ")
        .map(|(_, rest)| rest)
        .or_else(|| t.split_once("): ").map(|(_, rest)| rest))
        .or_else(|| spaced_message(t))
        .or_else(|| glued_message(t));
    after.is_some_and(|m| m.trim().len() >= 3 && !t.starts_with("File \"") && !is_function(m.trim()))
}

/// What follows a `file:line:col` location and a space, when it opens
/// with a capitalised word (`Cart.kt:3:1 Unexpected blank line(s) before
/// "}"`); not a rule's name (Biome's heading `a.ts:3:7 lint/style/useConst`).
fn spaced_message(located: &str) -> Option<&str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let spaced = compiled(&RE, r"^\S+?:\d+:\d+ [A-Z][a-z]+ ").is_match(located);
    located
        .split_once(' ')
        .filter(|_| spaced)
        .map(|(_, message)| message)
}

/// What follows a Protocol Buffers file's `file:line:col:` location with
/// no space between, as buf prints its findings and errors
/// (`proto/shop/cart.proto:3:1:Package name "shop" should be suffixed with
/// a correctly formed version, such as "shop.v1".`, `proto/a.proto:11:1:
/// unexpected `}` after definition`). Not another file's: ripgrep's
/// `--vimgrep` prints its matches so (`src/a.py:1:1:import os`).
fn glued_message(located: &str) -> Option<&str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^[^\s:]+\.proto:\d+:\d+:(\S.*)$")
        .captures(located)?
        .get(1)
        .map(|m| m.as_str())
}

/// Whether a located line is a compiler's note (`a.c:3:74: note: …`,
/// `a.swift:3:5: note: …`): its message starts with `note:`.
pub(super) fn is_note(line: &str) -> bool {
    line.trim_start()
        .split_once(": ")
        .is_some_and(|(_, message)| message.trim_start().starts_with("note:"))
}

/// Whether what follows a location names a function rather than saying
/// something: ExUnit's frames (`lib/app.ex:3: App.fetch!/2`, `test/a_test.exs:9:
/// (test)`), and Lua's under `stack traceback:` (`cart.lua:3: in local
/// 'total'`, `cart.lua:8: in main chunk`, `in function <cart.lua:12>`),
/// and Zig's, an address and a function in a unit (`src/cart.zig:28:5:
/// 0x1254076 in test.total adds quantity times price (cart.zig)`).
fn is_function(message: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        concat!(
            r"^(?:\(\w+\)|[\w.]+[!?]?/\d+)$",
            r"|^0x[0-9a-f]+ in \S.* \([^()\s]+\)$",
            r"|^in (?:(?:local|function|upvalue|field|method|metamethod|global|for iterator) '[^']*'|main chunk|function <[^>]+>|\?)$",
        ),
    )
    .is_match(message)
}

/// Whether `line` only opens a value printed over the lines under it, as
/// Node prints an error's fields (`  actual: {`, `  expected: [`): a
/// field's name, which says nothing alone, unlike a frame or a field with
/// its value (`  code: 'ENOENT',`).
pub(crate) fn opens_value(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^\s*[\w$]+: [{\[]$").is_match(line.trim_end())
}

/// The place a frame names, without what differs between two calls made
/// from one line of code: the offset Go prints after a frame's file and
/// line (`/src/queue.go:21 +0x45` and `… +0x58` are one place), and the
/// addresses a native backtrace gives, and the number of the goroutine or
/// thread (`goroutine 12 [chan receive]:`). Two goroutines or threads
/// stopped in the same code print the same places; each is worth one
/// line.
pub(crate) fn frame_place(line: &str) -> std::borrow::Cow<'_, str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"(?i)\s*\+0x[0-9a-f]+\b|\b0x[0-9a-f]{6,}\b|\b(goroutine|thread) \d+\b",
    )
    .replace_all(line.trim(), |c: &regex::Captures<'_>| {
        c.get(1).map_or_else(String::new, |name| name.as_str().to_owned())
    })
}

/// `line` with its paths blanked: an absolute or dotted path (`/usr/…`,
/// `./src/…`), or a path or file name with the extension of a source,
/// build or data file (`errors.py`, `tests/test_failures.rs`,
/// `deprecated.cfg`). Borrowed when there is none.
pub(super) fn without_paths(line: &str) -> std::borrow::Cow<'_, str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let paths = compiled(
        &RE,
        concat!(
            // An absolute or dotted path: `/usr/lib/…`, `./src/…`, `~/…`.
            r#"(?:^|[\s"'(=])(?:\.{1,2}|~)?/[\w./@~+-]*"#,
            // A relative path or a file name with a file's extension.
            r"|\b[\w.@~+-]+(?:/[\w.@~+-]+)*\.(?:py|pyi|rs|go|ts|tsx|js|jsx|mjs|cjs|c|h|cc|cpp|hpp|java|kt|rb|php|cs|swift|scala|sh|cfg|ini|toml|ya?ml|json|lock|md|txt|xml|html|css|log|o|so|a|class|jar)\b",
        ),
    );
    paths.replace_all(line, " ")
}
