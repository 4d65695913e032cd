//! REACT-6 / HIST-6: the last error a cleared command output keeps, on the
//! outputs of toolchains written after their documented formats
//! (`strata-ctx-compress`'s `tests/it/outputs/documented/`, where a line
//! marked `!!` is a failure line as the toolchain words it).

use std::path::Path;

use strata_ctx_compress::is_verdict;
use strata_ctx_history::last_error_line;

/// Each documented output without its marks, with its failure lines.
fn documented() -> Vec<(String, String, Vec<String>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../compress/tests/it/outputs/documented");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let marked = std::fs::read_to_string(&path).unwrap();
            let mut text = String::new();
            let mut failures = Vec::new();
            // The first line is the command.
            for line in marked.split_inclusive('\n').skip(1) {
                let body = line.strip_prefix("!!").or_else(|| line.strip_prefix("!L"));
                if let Some(body) = body {
                    failures.push(body.trim().to_owned());
                }
                text.push_str(body.unwrap_or(line));
            }
            (
                path.file_stem().unwrap().to_string_lossy().into_owned(),
                text,
                failures,
            )
        })
        .collect()
}

/// The last error is one of the output's failure lines, or one joined
/// with the message it announces, and not a verdict that only points at
/// the errors above it (`BUILD FAILED in 3s`, `ninja: build stopped:
/// subcommand failed.`, `Test Suite 'All tests' failed at …`) when the
/// output has an error with a message.
#[test]
fn react_6_the_last_error_of_every_documented_toolchain_is_a_message() {
    let cases = documented();
    assert!(cases.len() >= 25);
    for (name, text, failures) in cases {
        let error = last_error_line(&text, None).unwrap_or_else(|| panic!("{name}: no error"));
        assert!(
            failures.iter().any(|f| error.starts_with(f.as_str())),
            "{name}: {error:?} is not a failure line"
        );
        let messages = failures.iter().filter(|f| !is_verdict(f)).count();
        assert!(
            messages == 0 || !is_verdict(&error),
            "{name}: the verdict {error:?}"
        );
    }
}

/// Which lines are verdicts, as each build or runner words them.
#[test]
fn react_6_builds_and_runners_stopping_are_verdicts() {
    for verdict in [
        "> Compilation failed; see the compiler error output for details.",
        "> There were failing tests. See the report at: file:///a/index.html",
        "Build FAILED.",
        "ninja: build stopped: subcommand failed.",
        "-- Configuring incomplete, errors occurred!",
        "error: the following command failed with 1 compilation errors:",
        "install transitive failure",
        "** (CompileError) lib/shop/cart.ex: cannot compile module Shop.Cart (errors have been logged)",
        "Test Suite 'All tests' failed at 2026-01-04 10:00:00.051.",
        "✘ Test totalAppliesDiscount() failed after 0.002 seconds with 1 issue.",
    ] {
        assert!(is_verdict(verdict), "{verdict}");
    }
    for message in [
        "/home/dev/App/Tests/AppTests/StoreTests.swift:9: error: -[AppTests.StoreTests testTotal] : XCTAssertEqual failed",
        "✘ Test totalAppliesDiscount() recorded an issue at StoreTests.swift:9:5: Expectation failed: (total → 100) == 90",
        "error: undefined variable \"totl\"",
    ] {
        assert!(!is_verdict(message), "{message}");
    }
}
