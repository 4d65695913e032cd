//! The lines that say where a failure is, or what surrounds it: frames,
//! locations, code frames, operands, fields ([`CONTEXT`]).

use std::sync::OnceLock;

use regex::Regex;

use super::{compiled, without_colours};

/// TeX's line of input where it stopped on an error
/// ([`is_tex_input_line`]). A macro, so that [`CONTEXT`] can hold it.
macro_rules! tex_input_line {
    () => {
        r"^l\.[0-9]+ "
    };
}

/// TeX's error, as it prints one in its own words (`! Undefined control
/// sequence.`, `! Missing $ inserted.`, `! Extra alignment tab has been
/// changed to \cr.`, `! \textbf allowed only in paragraph mode.`).
pub(super) const TEX_ERROR: &str = r"^! (?:[A-Z]|\\[A-Za-z@])";

/// How many lines under a TeX error the line of input it stopped at may
/// stand ([`is_tex_error`]): what TeX inserted or had just read, and the
/// help it prints (`See the LaTeX manual or LaTeX Companion for
/// explanation.`, `Type  H <return>  for immediate help.`).
pub(crate) const TEX_INPUT_REACH: usize = 8;

/// Whether `line` has the shape of a TeX error ([`TEX_ERROR`]), wherever
/// it stands.
pub(crate) fn is_tex_error_line(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, TEX_ERROR).is_match(line)
}

/// Whether `line`, followed by `after` (the text from its end), is a TeX
/// error: its shape ([`TEX_ERROR`]) over the line of input TeX stopped at
/// ([`input_line_below`]). Alone, the shape is a Fortran comment's (`!
/// Compute the total`) as often as TeX's.
pub(super) fn is_tex_error(line: &str, after: &[u8]) -> bool {
    is_tex_error_line(line) && input_line_below(after).is_some()
}

/// How many lines below a TeX error, given `after` (the text from the
/// error's end), the line of input TeX stopped at stands
/// ([`is_tex_input_line`]): the nearest within [`TEX_INPUT_REACH`] lines,
/// before the next error or failure. The one search for it: the line's
/// kind and the error's place in a form both ask it.
pub(crate) fn input_line_below(after: &[u8]) -> Option<usize> {
    let under: Vec<&str> = after
        .split(|&b| b == b'\n')
        .skip(1)
        .take(TEX_INPUT_REACH)
        .map(|line| std::str::from_utf8(line).unwrap_or_default())
        .collect();
    // The lines between are judged only when a line of input stands
    // within reach: every failure of every output asks, and most outputs
    // have none.
    let at = under.iter().position(|line| is_tex_input_line(line))?;
    under[..at]
        .iter()
        .all(|line| !is_tex_error_line(line) && super::line_kind(line) != super::LineKind::Failure)
        .then_some(at + 1)
}

/// Lines that give a failure its place or its surroundings: a `-->`
/// location, a frame of a stack in any of the languages read here, a file
/// and line, a code frame's line, an assertion's operands, the fields a
/// finding lists.
pub(super) const CONTEXT: &str = concat!(
    r#"^\s*-->\s|^>\s+\S|^\s*File "[^"]+", line \d+|^\s*at (?:async )?\S+ \(?[^()\s]+:\d+(?::\d+)?\)?(?: \{)?$|^\s*at (?:[A-Za-z0-9_.@-]+//?)?[\w$.<>]+\([\w$]+\.(?:java|kt|scala|clj|cljc|groovy):\d+\)"#,
    r"|^\s*\S+\.(?:go|rs|py|pyi|ts|tsx|mts|cts|js|jsx|mjs|cjs|c|cc|cpp|h|hpp|m|java|kt|kts|scala|groovy|gradle|rb|rake|php|cs|fs|vb|swift|dart|ex|exs|erl|hs|ml|jl|lua|zig|nim|pl|pm|sh|bash|sql|proto|tf|hcl|vue|svelte|html|haml|erb|slim|css|scss|sass|less|ya?ml|toml|pyx|pxd|pxi|f90|f95|cu|cuh|mm|cxx|hxx|hh|inl|sol|nix|elm|cr|bzl|clj|cljs|fsx|ps1|psm1|rkt|gleam|coffee|astro|mdx|graphql|jsonnet|tex|sty|cls|ltx|dtx):\d+|^\s*\d+\s*[|│]\s|^\s*[|│]\s+\^|^goroutine \d+ \[|^Caused by:",
    // IPython's and Jupyter's frames (`Cell In[1], line 3`, `File
    // /home/dev/prices.py:6, in load(lines)`).
    r"|",
    ipython_frame!(),
    // The files named for what they hold rather than by an extension
    // (`Gemfile:4:1: C: Extra blank line detected.`, `Dockerfile:3 DL3008 …`).
    r"|^\s*(?:\S+/)?(?:Gem|Rake|Make|Docker|Jenkins|Vagrant|Pod|Brew|Proc|Guard|Cap|Berks|Just)file:\d+",
    // Crystal's place over the code it quotes (`In src/shop.cr:16:10`),
    // TeX's line of input where it stopped on an error
    // ([`is_tex_input_line`]).
    r"|^In \S+\.cr:\d+:\d+$|",
    tex_input_line!(),
    // CMake's call stack under its error (`  CMakeLists.txt:3 (find_package)`).
    r"|^\s*\S*(?:CMakeLists\.txt|\.cmake):\d+ \([\w-]+\)\s*$",
    // The vulnerable package and versions over npm audit's advisories
    // (`lodash  <=4.17.20`, `semver  7.0.0 - 7.5.1`).
    r"|^[@\w./-]+  (?:[<>]=?\d\S*|\d\S* - \d\S*)$",
    // An assertion's operands and matcher ([`OPERAND`]).
    r"|",
    operand!(),
    // A `file:line:col:` location with a message (Go, gcc, ruff), and the
    // same indented under what ran it (Cython's `      a.pyx:7:15:
    // undeclared name …` in pip's report of the build it ran), a file of
    // any extension.
    r"|^\S+:\d+:\d+:\s|^[ \t]+[0-9A-Za-z_@./\\-]*[0-9A-Za-z_]\.[A-Za-z][0-9A-Za-z_]{0,4}:[0-9]+:[0-9]+:[ \t]",
    // The frames of Ruby (`from app.rb:3:in 'f'`), PHP (`#0 /a/B.php(12):
    // f()`), .NET (`at A.B() in /a/B.cs:line 42`) and Rust's backtraces
    // (`at ./src/main.rs:5:5`).
    r"|^\s*from \S+:\d+:in |^#\d+ \S+\(\d+\): |^\s+at .+ in \S+:line \d+$|^\s+at \S+\.rs:\d+:\d+$",
    // RSpec's frames (`# ./lib/calc.rb:4:in 'div'`), ExUnit's (`(app 0.1.0)
    // lib/app.ex:3: App.f/2`), Deno's test locations (`adds =>
    // ./a_test.ts:4:6`), the signal under Go's panic (`[signal SIGSEGV:
    // segmentation violation …]`).
    r"|^\s*# \S+:\d+:in |^\s*\(\S+ [\d.]+\S*\) \S+:\d+: | => \S+:\d+:\d+$|^\[signal SIG",
    // node:test's report under a failing TAP test point: the test's
    // `location: '/a/b.test.js:13:1'`, and its stack's frames in the
    // project (`parseQty (file:///a/src/cart.js:11:30)`).
    r"|^\s+location: '\S+:\d+:\d+'$|^\s+(?:async )?[\w$.<>]+ \((?:file://)?/[^()\s]+:\d+:\d+\)$",
    // Test::More's diagnostics under a failed test, as prove prints them:
    // where it failed (`#   at t/basic.t line 3.`) and its operands
    // (`#          got: '2'`).
    r"|^#\s+at \S+ line \d+\.$|^#\s+(?:got|expected):",
    // Perl's callers under a `confess` or `croak` (`\tApp::Report::_row(…)
    // called at lib/App/Report.pm line 11`).
    r"|",
    perl_caller!(),
    // A JavaScript frame of an anonymous function, a path alone (`at
    // /app/src/cart.js:12:5`, Deno's `at file:///app/cart_test.ts:6:3`).
    r"|^\s*at (?:file://)?(?:/|[A-Za-z]:[\\/])[^()\s]+:\d+:\d+$",
    // testify's fields under a failed assertion in `go test`: the test
    // and the messages given, and the lines of its gutter that go on with
    // the error (`\t            \tactual  : 100`, `\t            \tsql: no
    // rows in result set` under `Received unexpected error:`).
    r"|^\s+(?:Test|Messages):\s*\t|^[ \t]*\t {8,}\t\S",
    // ShellCheck's place of a finding (`In deploy.sh line 3:`), Vitest's
    // under a failed assertion (`❯ src/a.test.ts:5:17`, or with the
    // function it ran in: `❯ parse src/lib.ts:2:42`).
    r"|^In \S+ line \d+:$|^\s*❯ (?:[\w$.<>]+ )?\S+:\d+:\d+$",
    // Terraform's place of a diagnostic, in its box (`│   on main.tf line
    // 12, in resource "aws_instance" "web":`), and PostgreSQL's line of
    // the statement an error points into (`LINE 1: select * from users;`).
    r"|^(?:│ )?\s*on \S+ line \d+[,:]|^LINE \d+: ",
    // The frames of Erlang (`in function  cart:load/1 (src/cart.erl, line
    // 12)`), OCaml (`Called from Main in file "bin/main.ml", line 5, …`),
    // Julia (`@ Shop ~/dev/Shop/src/cart.jl:14`) and R's rlang (` 1.
    // └─shop::total(cart) at R/cart.R:14:3`).
    r#"|^\s+in (?:function|call from)\s+\S+ \(\S+, line \d+\)$|^(?:Raised at|Re-raised at|Called from) .* in file "[^"]+", line \d+"#,
    r"|^\s+@ \S+ \S+:\d+$|^\s*\d+\. [│├└─\s]*\S.* at \S+:\d+:\d+$",
    // Valgrind's frames in the project's files (`==42==    at 0x10915E:
    // main (cart.c:14)`), bandit's place of a finding.
    r"|^==\d+==\s+(?:at|by) 0x[0-9A-Fa-f]+: .*\(\S+:\d+\)$|^\s+Location: \S+:\d+",
    // The sanitizers' and gdb's frames in the project's files (`#0
    // 0x55d5c1 in main /src/cart.c:14:5`, `#1  0x… in load (p=0x0) at
    // cart.c:9`).
    r"|^\s*#\d+\s+0x[0-9A-Fa-f]+ in .*\S+\.\w+:\d+(?::\d+)?$",
    // Where PowerShell's error happened (`At line:1 char:1`, `At
    // C:\scripts\a.ps1:3 char:5`, Pester's `at <ScriptBlock>,
    // C:\tests\Cart.Tests.ps1:12`) and what it was ([`powershell_field`]).
    r"|^At (?:line:\d+|\S.*:\d+) char:\d+$|^\s*at .+, \S+\.ps[md]?1:\d+$|",
    powershell_field!(),
    // The line a code frame points at (`> 14 |   expect(total).toBe(90)`:
    // Babel's frames, as Jest, Vitest, Playwright and ESLint print them),
    // and a test's title after its project and location, as Playwright
    // lists a failed or flaky one (`[chromium] › cart.spec.ts:12:5 › adds`).
    r"|",
    pointed_code!(),
    r"|\[[\w .-]+\] › \S+:\d+:\d+ › ",
);

/// A frame that names a function and its arguments, whatever they say:
/// a call site of a Haskell call stack, under the error it led to (`
/// error, called at Cart.hs:16:15 in main:Cart`), and gdb's (`#4 0x7ff…
/// in __assert_fail_base (fmt=… "Assertion `%s' failed.\n") at
/// ./assert/assert.c:94`, and the frame it stopped in after a signal,
/// unnumbered).
pub(super) fn named_frame() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        concat!(
            r"^\s*\S+, called at \S+:\d+:\d+ in [\w.-]+:[\w.]+\)?$",
            r"|^#[0-9]+ +(?:0x[0-9a-f]+ in )?[^ \t].* \(.*\) (?:at [^ \t]+:[0-9]+|from /[^ \t]+)$|^[A-Za-z_][0-9A-Za-z_:~<>.$@]* \(.*\) at [^ \t]+:[0-9]+$",
        ),
    )
}

/// Whether `line` is the line of input TeX stopped at on an error, as it
/// prints it under the error: its number, then the line up to the point
/// TeX had read (`l.17   \mathrm{Attn}(Q,K,V) = \softmax`, the rest of the
/// line on the next): where the error is.
///
/// ```text
/// ! Undefined control sequence.
/// l.17   \mathrm{Attn}(Q,K,V) = \softmax
///                                       \left(\frac{QK^\top}{\sqrt{d}}\right) V
/// ```
pub(crate) fn is_tex_input_line(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, tex_input_line!()).is_match(line)
}

/// Whether `line` is a line of a code excerpt a compiler quotes: a gutter
/// with or without the line's number (`   21 |     r = r + beta3`, `
/// |                 1`), or the caret alone under the code (Crystal's
/// `               ^`).
pub(crate) fn is_excerpt_line(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^\s*\d*\s*[|│](?:\s|$)|^\s+[\^~-]*\^[\^~-]*\s*$").is_match(&without_colours(line))
}

/// Whether `line` is a code line a compiler quotes, after its number in a
/// gutter (`   21 |     r = r + beta3`, Crystal's ` 16 | cart.add("three")`).
pub(crate) fn is_quoted_code(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^\s*\d+\s*[|│]\s+\S").is_match(&without_colours(line))
}
