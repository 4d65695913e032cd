//! A failure's message, wherever its runner prints it (TOOL-8): under
//! RSpec's `Failure/Error:` quote of the failing code, under PHPUnit's
//! numbered headings and TestDox's `✘` marks, under CMake's `CMake Error
//! at …:` with its call stack. Real outputs (`outputs/`: RSpec 3.12,
//! PHPUnit 9.6, CMake 3.25 run on small projects written to fail).

use serde_json::json;
use strata_ctx_compress::{line_kind, line_kind_in, Compressor, LineKind};

fn form(command: &str, output: &str) -> String {
    Compressor::new()
        .compress_text("Bash", &json!({ "command": command }), output)
        .0
}

/// The line of `text` that starts with `start` (leading spaces aside).
fn line_of<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("no line starts with {start:?}"))
}

/// TOOL-8: RSpec prints a matcher's message after a blank line under the
/// quoted code (`Failure/Error: expect(…).to include(…)`), and an
/// exception's under its class (`NoMethodError:`); both stay, beside the
/// rerun line of an example a loop made (`rspec ./spec/a_spec.rb[1:3:3]`).
#[test]
fn tool_8_rspec_keeps_each_matcher_s_message() {
    let output = include_str!("outputs/rspec-matchers.txt");
    let form = form("bundle exec rspec --format documentation", output);
    for message in [
        "expected {:price => 1, :qty => 1, :sku => \"a\"} to include {:qty => 2}",
        "undefined method `fetch' for nil:NilClass",
        "rspec ./spec/cart_spec.rb[1:3:3] # Cart#discount takes 60%",
        "208 examples, 6 failures",
    ] {
        assert!(form.contains(message), "lost {message:?}\n{form}");
    }
    assert!(
        form.len() * 2 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
    assert_eq!(
        line_kind("rspec ./spec/cart_spec.rb[1:3:4] # Cart#discount takes 80%"),
        LineKind::Failure
    );
}

/// TOOL-8: PHPUnit numbers the tests under `There were 13 errors:` and
/// prints each one's message (`Undefined array key "apple"`) in no
/// failure's words: the heading is a failure by its section, and the form
/// keeps the message under it.
#[test]
fn tool_8_phpunit_s_errors_are_failures_by_their_section() {
    let output = include_str!("outputs/phpunit-errors.txt");
    let heading = line_of(output, "1) CartTest::testQtyMissing with data set \"apple\"");
    assert_eq!(line_kind(heading), LineKind::Plain, "alone, it names a test");
    assert_eq!(line_kind_in(output, heading), LineKind::Failure);
    // Numbered lines outside a failure section stay what they are.
    let listing = "Steps:\n1) install the package\n2) run it\n";
    assert_eq!(
        line_kind_in(listing, line_of(listing, "1) install")),
        LineKind::Plain
    );
    let form = form("vendor/bin/phpunit tests", output);
    for key in ["apple", "pea"] {
        assert!(form.contains(&format!("Undefined array key \"{key}\"")), "{form}");
    }
}

/// TOOL-8: TestDox draws a gutter under each `✘` test: the text in it is
/// read as printed alone (a location is context), and the message right
/// under the mark stays, though no failure word says it is one.
#[test]
fn tool_8_testdox_keeps_the_message_under_each_failed_test() {
    let output = include_str!("outputs/phpunit-testdox-errors.txt");
    assert_eq!(
        line_kind("   │ /home/dev/shop/tests/CartTest.php:11"),
        LineKind::Context
    );
    assert_eq!(
        line_kind("   │ Failed asserting that 15.0 is identical to 16.0."),
        LineKind::Failure
    );
    // A code frame's gutter is not TestDox's: a line number or marks
    // follow it. Nor is a table's border, which is not indented.
    assert_eq!(line_kind("  4 │ let total = price * qty;"), LineKind::Context);
    assert_eq!(line_kind("    │ ^^^^ expected `u32`"), LineKind::Context);
    assert_eq!(line_kind("    │     ^^^^ expected `u32`"), LineKind::Context);
    assert_eq!(
        line_kind("│ /home/dev/shop/tests/CartTest.php:11"),
        LineKind::Plain
    );
    let form = form("vendor/bin/phpunit --testdox tests", output);
    assert!(
        form.contains(" ✘ Qty missing\n   │\n   │ Undefined array key \"zz\""),
        "{form}"
    );
    assert!(
        form.contains("Tests: 305, Assertions: 303, Errors: 2, Failures: 3."),
        "{form}"
    );
    assert!(
        form.len() * 4 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
}

/// TOOL-8: CMake's error announces its message on the lines under it and
/// lists a call stack: the message and the project's frame stay, CMake's
/// own modules go, after 120 lines of checks that went through.
#[test]
fn tool_8_cmake_keeps_its_error_s_message_and_the_project_s_frame() {
    let output = include_str!("outputs/cmake-configure.txt");
    assert_eq!(line_kind("  CMakeLists.txt:59 (find_package)"), LineKind::Context);
    assert_eq!(
        line_kind(
            "  /usr/share/cmake-3.25/Modules/FindProtobuf.cmake:650 (FIND_PACKAGE_HANDLE_STANDARD_ARGS)"
        ),
        LineKind::Noise
    );
    let form = form("cmake -S . -B build", output);
    for kept in [
        "CMake Error at /usr/share/cmake-3.25/Modules/FindPackageHandleStandardArgs.cmake:230 (message):",
        "  Could NOT find Protobuf (missing: Protobuf_LIBRARIES Protobuf_INCLUDE_DIR)",
        "  CMakeLists.txt:59 (find_package)",
        "-- Configuring incomplete, errors occurred!",
    ] {
        assert!(form.contains(kept), "lost {kept:?}\n{form}");
    }
    assert!(!form.contains("FindProtobuf.cmake:650"), "{form}");
    assert!(
        form.len() * 3 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
}

/// TOOL-8: a log's last line with text stays whatever its kind, as a cut
/// of its end would show it, and so does the line above an exit status an
/// agent's shell tool appends: Maven's help link under a failed build.
#[test]
fn tool_8_the_closing_lines_stay_whatever_they_are() {
    let output =
        include_str!("outputs/maven-test.txt").to_owned() + "[The command completed with exit code 1.]\n";
    let form = form("mvn -B test", &output);
    assert!(
        form.trim_end().ends_with(
            "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException\n\
             [The command completed with exit code 1.]"
        ),
        "{form}"
    );
    // Before them, Maven's help text is noise.
    assert!(!form.contains("Re-run Maven using the -X switch"), "{form}");
    // A log that ends in passing tests keeps its last one, not the others.
    let listing: String = (0..400).map(|i| format!("test case_{i} ... ok\n")).collect();
    let form = self::form("cargo test", &listing);
    assert!(form.trim_end().ends_with("\ntest case_399 ... ok"), "{form}");
    assert!(!form.contains("case_398 "), "{form}");
}

/// TOOL-8: pnpm runs a script in each package of a workspace and puts the
/// package's directory and the script before each line (`packages/api
/// test: not ok 41 - totals`): the line is read without it, so each
/// package's failed tests stay, and its passing ones are noise.
#[test]
fn tool_8_pnpm_s_recursive_run_keeps_each_package_s_failures() {
    let output = include_str!("outputs/pnpm-recursive-node-test.txt");
    assert_eq!(
        line_kind("packages/api test: not ok 41 - totals"),
        LineKind::Failure
    );
    assert_eq!(line_kind("packages/api test: ok 7 - passes 6"), LineKind::Noise);
    // A directory and a word that is no script's stay part of the line.
    assert_eq!(line_kind("tests/unit failed: 3 of 9"), LineKind::Failure);
    let form = form("pnpm -r --no-bail test", output);
    for package in ["api", "web"] {
        for kept in ["not ok 41 - totals", "not ok 42 - parses", "error: '4 == 5'"] {
            let prefix = format!("packages/{package} test: ");
            assert!(
                form.lines()
                    .any(|l| l.starts_with(&prefix) && l.trim_end().ends_with(kept)),
                "lost {kept:?} of {package}\n{form}"
            );
        }
    }
    assert!(form.contains("Summary: 2 fails, 0 passes"), "{form}");
    assert!(
        form.len() * 4 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
}

/// TOOL-8: pip says why it cannot install in a block under its error, in
/// no failure's words (`The conflict is caused by:` over the requirements
/// that clash, indented): the block stays with the error, not the
/// downloads above it (pip 23, a real resolution conflict).
#[test]
fn tool_8_pip_keeps_what_its_conflict_is_caused_by() {
    let output = include_str!("outputs/pip-conflict.txt");
    let form = form("pip install -r requirements.txt", output);
    for line in [
        "ERROR: Cannot install requests==2.31.0 and urllib3<1.21 because these package versions have conflicting dependencies.",
        "The conflict is caused by:",
        "    The user requested urllib3<1.21",
        "    requests 2.31.0 depends on urllib3<3 and >=1.21.1",
        "ERROR: ResolutionImpossible",
    ] {
        assert!(form.contains(line), "lost {line:?}\n{form}");
    }
    assert!(!form.contains("Downloading flask"), "{form}");
    assert!(
        form.len() * 3 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
}

/// TOOL-8: a traceback ends on its exception even when no failure word
/// names it (Django's `shop.models.Item.DoesNotExist: …`, a model's nested
/// class): each failed test's exception stays (Django 5 `manage.py test
/// -v 2` on a real project, 43 tests, one failure and two errors).
#[test]
fn tool_8_django_keeps_each_test_s_exception() {
    let output = include_str!("outputs/django-test-errors.txt");
    let form = form("python manage.py test -v 2", output);
    for line in [
        "shop.models.Item.DoesNotExist: Item matching query does not exist.",
        "django.core.exceptions.ValidationError: {'name': ['Ensure this value has at most 20 characters (it has 30).']}",
        "AssertionError: 6 != 7",
        "FAILED (failures=1, errors=2)",
    ] {
        assert!(form.contains(line), "lost {line:?}\n{form}");
    }
    assert!(
        form.len() * 3 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
}

/// TOOL-8: where jest tested a promise or a function, what it received
/// is said in no operand's form (`Received promise rejected instead of
/// resolved` over `Rejected to value: …`): it stays with the matcher
/// above it, as `Expected:` and `Received:` do (jest 29, `outputs/`).
#[test]
fn tool_8_jest_keeps_what_a_promise_matcher_received() {
    let output = include_str!("outputs/jest-promises.txt");
    let form = form("npx jest test", output);
    for message in [
        "expect(received).resolves.toBe()",
        "Received promise rejected instead of resolved",
        "Rejected to value: [Error: ECONNREFUSED 127.0.0.1:6379]",
        "Expected substring: \"bad input\"",
        "Received message:   \"bad pair: x\"",
        "Tests:       5 failed, 105 passed, 110 total",
        // The diff under `toEqual`, though the code frames under other
        // failures name errors and count as runs of failure lines.
        "    - Expected  - 1\n    + Received  + 0\n",
        "    -   \"b\": 2,",
    ] {
        assert!(form.contains(message), "lost {message:?}\n{form}");
    }
    for line in [
        "Received promise rejected instead of resolved",
        "Received function did not throw",
    ] {
        assert_eq!(line_kind(line), LineKind::Context, "{line}");
    }
    assert!(
        form.len() * 3 < output.len() * 2,
        "{} of {} bytes",
        form.len(),
        output.len()
    );
}

/// TOOL-8: TypeScript elaborates an error on the indented lines under it
/// (`  Type 'undefined' is not assignable to type 'Item7'.`): they say why
/// it failed, and stay with each error of a `--pretty` run whose code
/// frames the form leaves out (tsc 5.9, `outputs/`).
#[test]
fn tool_8_tsc_keeps_each_error_s_elaboration() {
    let output = include_str!("outputs/tsc-pretty-elaborations.txt");
    let form = form("npx tsc -p . --pretty", output);
    for i in 1..=24 {
        for line in [
            format!("Type 'Item{i} | undefined' is not assignable to type 'Item{i}'."),
            format!("  Type 'undefined' is not assignable to type 'Item{i}'."),
        ] {
            assert!(form.contains(&line), "lost {line:?}\n{form}");
        }
    }
    assert!(form.contains("Found 24 errors in 24 files."), "{form}");
    assert!(
        form.len() * 4 < output.len() * 3,
        "{} of {} bytes",
        form.len(),
        output.len()
    );
    // TOOL-11: the form is its own form.
    assert_eq!(self::form("npx tsc -p . --pretty", &form), form);
}

/// TOOL-8: Vitest gives a failed assertion's values in a diff under it
/// (`- Expected` over `+ Received`, then `-   "b": 2,`; or each half of
/// the legend over its value): the legend and the changed lines stay
/// from the room the failures leave (Vitest 2.1, `outputs/`).
#[test]
fn tool_8_vitest_keeps_an_assertion_s_diff() {
    let output = include_str!("outputs/vitest-diffs.txt");
    let form = form("npx vitest run", output);
    for line in [
        "AssertionError: expected { a: 1 } to deeply equal { a: 1, b: 2 }",
        "- Expected\n+ Received\n",
        "-   \"b\": 2,",
        "- Expected: \n3\n",
        "+ Received: \n\"12\"\n",
    ] {
        assert!(form.contains(line), "lost {line:?}\n{form}");
    }
    assert!(
        form.len() * 2 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
    // TOOL-11: the form is its own form.
    assert_eq!(self::form("npx vitest run", &form), form);
}

/// TOOL-8 / TOOL-11: a failure said again with another message (scalac's
/// `Cart.scala:3: error: type mismatch;` over each mismatch's operands,
/// a build's `error: build failed` over what caused it) is told apart by
/// its message: each stays with its own. A message never stays without
/// its failure, so the form condensed again is the same.
#[test]
fn tool_11_a_failure_said_again_keeps_its_own_message() {
    let mut output = String::new();
    for i in 0..60 {
        output.push_str(&format!("   Compiling module{i} v0.1.0 (/work/module{i})\n"));
    }
    output.push_str("error: build failed\n    caused by: missing file assets/logo.png\n");
    for i in 60..100 {
        output.push_str(&format!("   Compiling module{i} v0.1.0 (/work/module{i})\n"));
    }
    output.push_str("error: build failed\n");
    let form = form("make", &output);
    assert!(
        form.contains("error: build failed\n    caused by: missing file assets/logo.png\n"),
        "{form}"
    );
    assert!(form.ends_with("\nerror: build failed"), "{form}");
    assert_eq!(self::form("make", &form), form);
}
