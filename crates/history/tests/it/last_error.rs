//! REACT-6 / HIST-6: the last error a cleared command output keeps, on the
//! outputs of toolchains written after their documented formats, with
//! their failure lines marked (`tests/data/documented-outputs/`).

use strata_ctx_compress::{is_verdict, line_kind, without_colours, LineKind};
use strata_ctx_history::last_error_line;
use strata_ctx_testkit::{captured_outputs, documented_outputs};

/// The last error is one of the output's failure lines, or one joined
/// with the message it announces or with the line that announces it
/// (`Error Message:` above `Assert.Equal() Failure: Values differ`), and not a verdict that only points at
/// the errors above it (`BUILD FAILED in 3s`, `ninja: build stopped:
/// subcommand failed.`, `Test Suite 'All tests' failed at …`) when the
/// output has an error with a message.
#[test]
fn react_6_the_last_error_of_every_documented_toolchain_is_a_message() {
    let cases: Vec<_> = documented_outputs()
        .into_iter()
        .chain(captured_outputs())
        .collect();
    assert!(cases.len() >= 180);
    for case in cases {
        let (name, failures) = (&case.name, &case.failures);
        let Some(error) = last_error_among(name, &case.output, failures, "") else {
            continue;
        };
        let messages = failures.iter().filter(|f| !is_verdict(f)).count();
        // Joined under the count that announces it (`error: 1 error
        // occurred:` over `* creating S3 Bucket …`), a message stays one.
        let ends_on_message = failures
            .iter()
            .any(|f| !is_verdict(f) && error.ends_with(f.trim()) && error.len() > f.trim().len());
        assert!(
            messages == 0 || !is_verdict(&error) || ends_on_message,
            "{name}: the verdict {error:?}"
        );
    }
}

/// REACT-6: under a tool that runs several processes (Docker Compose's
/// `api-1  | ` before each line) the last error is still one of the
/// output's failure lines, with its process's name.
#[test]
fn react_6_the_last_error_under_a_process_s_name_is_a_failure_line() {
    let process = "api-1  | ";
    for case in captured_outputs() {
        let output: String = case.output.lines().map(|l| format!("{process}{l}\n")).collect();
        last_error_among(&case.name, &output, &case.failures, process);
    }
}

/// The last error of `output`, asserted to be one of its `failures`, with
/// `process`, the name before each of its lines; `None` when no failure
/// line is an error by its words: a linter whose findings are all
/// warnings (hadolint) prints no failure, the run's exit code says it
/// failed, and the digest keeps its last warning then.
fn last_error_among(name: &str, output: &str, failures: &[String], process: &str) -> Option<String> {
    let Some(error) = last_error_line(output, None) else {
        assert!(
            failures.iter().all(|f| line_kind(f) != LineKind::Failure),
            "{name}: no error"
        );
        return None;
    };
    let said = error.strip_prefix(process).unwrap_or(&error).trim_start();
    // A line Terraform wrapped in its box is read whole, without the box
    // and its colours: it ends as the last of its lines does.
    let unboxed = |f: &str| without_colours(f).trim_start_matches('│').trim().to_owned();
    assert!(
        failures.iter().any(|f| said.starts_with(f.as_str())
            || said.ends_with(f.trim())
            || (said.len() > f.len() && said.ends_with(&unboxed(f)))),
        "{name}: {error:?} is not a failure line"
    );
    Some(error.into_owned())
}

/// Which lines are verdicts, as each build or runner words them.
#[test]
fn react_6_builds_and_runners_stopping_are_verdicts() {
    for verdict in [
        "> Compilation failed; see the compiler error output for details.",
        // A server's access log record of a request that failed: the
        // exception logged above it says why.
        "[04/Dec/2026 11:35:23] \"GET /orders/summary/ HTTP/1.1\" 500 56964",
        "> There were failing tests. See the report at: file:///a/index.html",
        "Build FAILED.",
        "ninja: build stopped: subcommand failed.",
        "packages/cart test: Failed",
        " ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @shop/cart@1.0.0 test: `vitest run`",
        "-- Configuring incomplete, errors occurred!",
        "error: the following command failed with 1 compilation errors:",
        "install transitive failure",
        "** (CompileError) lib/shop/cart.ex: cannot compile module Shop.Cart (errors have been logged)",
        "Test Suite 'All tests' failed at 2026-01-04 10:00:00.051.",
        "✘ Test totalAppliesDiscount() failed after 0.002 seconds with 1 issue.",
        "Execution failed for task ':app:compileJava'.",
        "> Task :lib:test FAILED",
        "> A failure occurred while executing org.jetbrains.kotlin.compilerRunner.GradleCompilerRunnerWithWorkers$GradleKotlinCompilerWorkAction",
        "> Process 'command '/usr/lib/jvm/java-17/bin/java'' finished with non-zero exit value 1",
        "Test Case '-[AppTests.StoreTests testTotal]' failed (0.002 seconds).",
        "Failed!  - Failed:     1, Passed:    60, Skipped:     0, Total:    61",
        "Result: FAIL",
        "not ok 41 - deep",
        "  error: '2 subtests failed'",
        "Failed 1/6 subtests",
        "t/01-cart.t (Wstat: 256 (exited 1) Tests: 6 Failed: 1)",
        "  Failed test:  4",
        "64 files inspected, 3 offenses detected, 1 offense autocorrectable",
        "(2 failures)",
        "The following build commands failed:",
        "Error occurs in the template of component TodoItemComponent.",
        "advisories ok, bans FAILED, licenses ok, sources ok",
        r#"{"Action":"fail","Package":"shop/cart","Elapsed":0.012}"#,
        r#"{"Action":"output","Package":"shop/cart","Output":"FAIL\tshop/cart\t0.012s\n"}"#,
        "  ✖ Some errors were emitted while running checks.",
        "api-1  | ERROR:    Application startup failed. Exiting.",
        "Aborted (core dumped)",
        "Segmentation fault",
        "Errors while running CTest",
        "[error] (Test / test) sbt.TestsFailedException: Tests unsuccessful",
        "[error] (Compile / compileIncremental) Compilation failed",
        "[error] two errors found",
        "[error] Failed tests:",
        "[info] *** 1 TEST FAILED ***",
        "[info] Tests: succeeded 43, failed 1, canceled 0, ignored 0, pending 0",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.2:test (default-test) on project shop: There are test failures.",
        "[ERROR] Tests run: 43, Failures: 1, Errors: 2, Skipped: 0",
        "collect2: error: ld returned 1 exit status",
        "clang: error: linker command failed with exit code 1 (use -v to see invocation)",
        "FAILED: Build did NOT complete successfully",
        "make: Target 'all' not remade because of errors.",
        " ELIFECYCLE  Test failed. See above for more details.",
        "error: Test failed",
        "failures:",
        "Errors  Files",
        "warning: build failed, waiting for other jobs to finish...",
        "error: subprocess-exited-with-error",
        "× Encountered error while generating package metadata.",
        "× python setup.py egg_info did not run successfully.",
        "Test failed. See exception logs above.",
        "00:03 +3 -1: Some tests failed.",
        "│ ✖  checkout.cy.ts                           00:05        2        1        1        -        - │",
        "ERROR tests/test_checkout.py",
        "FAIL [   0.004s] shop::checkout::tests::applies_discount",
        "Couldn't compile the test.",
        "error: doctest failed, to rerun pass `--doc`",
        "error: test run failed",
        "error: aborting due to 1 previous error",
        "  evaluation failed :( (9.40 seconds)",
        "  py311: FAIL code 1 (9.31=setup[7.79]+cmd[1.52] seconds)",
        "py311: exit 1 (1.52 seconds) /home/dev/shop> pytest --cov=shop pid=48213",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-checkstyle-plugin:3.3.1:check (default-cli) on project shop: You have 2 Checkstyle violations. -> [Help 1]",
        "[ERROR] COMPILATION ERROR : ",
        "   ✖  1/3 targets failed, including the following:",
        // npm's report of a workspace's script, a GitHub Actions step,
        // Go's package that did not build, make going on under `-k`.
        "npm ERR! Lifecycle script `lint:md` failed with error:",
        "npm error Lifecycle script `test` failed with error:",
        "npm ERR! Error: command failed",
        "npm error workspace docs@1.0.0",
        "npm error location /home/dev/site/docs",
        "Error: Process completed with exit code 1.",
        "FAIL\texample.com/gt [build failed]",
        "FAIL\texample.com/gt [setup failed]",
        "make: [Makefile:7: all] Error 2 (ignored)",
        "make[1]: [Makefile:12: lint] Error 1 (ignored)",
        "nginx: configuration file /etc/nginx/nginx.conf test failed",
        // Colours do not hide a verdict.
        "\u{1b}[2m      Tests \u{1b}[22m \u{1b}[1m\u{1b}[31m4 failed\u{1b}[39m | \u{1b}[32m120 passed\u{1b}[39m",
    ] {
        assert!(is_verdict(verdict), "{verdict}");
    }
    for message in [
        "/home/dev/App/Tests/AppTests/StoreTests.swift:9: error: -[AppTests.StoreTests testTotal] : XCTAssertEqual failed",
        "✘ Test totalAppliesDiscount() recorded an issue at StoreTests.swift:9:5: Expectation failed: (total → 100) == 90",
        "error: undefined variable \"totl\"",
        "  what():  vector::_M_range_check: __n (which is 5) >= this->size() (which is 3)",
        "#   Failed test 'total applies the discount'",
        "api-1  | sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed",
        "[ERROR]   CalculatorTest.parseBad:48 » NumberFormat For input string: \"x1\"",
        "main.c:(.text+0x2a): undefined reference to `cart_free'",
        "[error] /home/dev/shop/src/main/scala/shop/Order.scala:12:5: not found: value discountFor",
        "npm ERR! Error: command failed: missing script: lint",
        "FAIL\texample.com/gt [build failed] and more",
    ] {
        assert!(!is_verdict(message), "{message}");
    }
}

/// A failure line that announces its message (`…:`) comes with it, be
/// the message a failure line itself, when the two fit the shortest cut a
/// last error gets; else the message alone.
#[test]
fn react_6_a_message_comes_with_the_failure_that_announces_it() {
    let out = "Testing ast_from_file:\n  Error: Unable to load file /tmp/src/project:\n[Errno 21] Is a directory: '/tmp/src/project'\n";
    assert_eq!(
        last_error_line(out, None).as_deref(),
        Some("Error: Unable to load file /tmp/src/project: [Errno 21] Is a directory: '/tmp/src/project'")
    );
    let long = format!(
        "Error: Unable to load file /tmp/{}/project:\n[Errno 21] Is a directory: '/tmp/project'\n",
        "deep/".repeat(30)
    );
    assert_eq!(
        last_error_line(&long, None).as_deref(),
        Some("[Errno 21] Is a directory: '/tmp/project'")
    );
    // node:test's TAP block holds the message in its `error` field, under
    // the field's key: the key alone says nothing.
    let tap = "not ok 2 - option property is camelCase\n  ---\n  duration_ms: 0.7\n  failureType: 'testCodeFailure'\n  error: |-\n    Expected values to be strictly equal:\n\n    'blue' !== 'red'\n\n  code: 'ERR_ASSERTION'\n  ...\n";
    assert_eq!(
        last_error_line(tap, None).as_deref(),
        Some("error: |- Expected values to be strictly equal: 'blue' !== 'red'")
    );
    // A one-word heading announces a list, not a message.
    assert_eq!(
        last_error_line(
            "failures:\n    add_small_numbers: assertion failed: add(2, 2) == 4\n",
            None
        )
        .as_deref(),
        Some("add_small_numbers: assertion failed: add(2, 2) == 4")
    );
    // A line that ends with a colon but is no failure announces nothing.
    assert_eq!(
        last_error_line("Results:\nValueError: bad row\n", None).as_deref(),
        Some("ValueError: bad row")
    );
}

/// REACT-6: a TAP test point that failed is a verdict; the comments under
/// it say why (bats' assertion, prove's place), and come with it: all
/// when they fit the shortest cut a last error gets, else the last.
#[test]
fn react_6_a_tap_point_comes_with_its_diagnostics() {
    let bats = "1..3\nok 1 builds\nnot ok 2 ship succeeds\n# (in test file deploy.bats, line 14)\n#   `[ \"$status\" -eq 0 ]' failed\nok 3 lists\n";
    assert_eq!(
        last_error_line(bats, None).as_deref(),
        Some(
            "not ok 2 ship succeeds # (in test file deploy.bats, line 14) #   `[ \"$status\" -eq 0 ]' failed"
        )
    );
    let long = format!(
        "not ok 2 ship succeeds\n# (in test file {}deploy.bats, line 14)\n#   `false' failed\n",
        "deep/".repeat(30)
    );
    assert_eq!(
        last_error_line(&long, None).as_deref(),
        Some("not ok 2 ship succeeds #   `false' failed")
    );
    // With nothing under it, the verdict alone.
    assert_eq!(
        last_error_line("not ok 2 ship succeeds\nok 3 lists\n", None).as_deref(),
        Some("not ok 2 ship succeeds")
    );
}

/// REACT-6: on real captures of test runners and builds, the last error is
/// the message an agent acts on, not the runner's closing words, a list's
/// heading, a field of a report or boilerplate under it.
#[test]
fn react_6_the_last_error_of_real_runs_is_the_message() {
    for (output, error) in [
        (
            include_str!("../../../compress/tests/it/outputs/maven-test.txt"),
            "[ERROR]   CalculatorTest.parseBad:48 » NumberFormat For input string: \"x1\"",
        ),
        (
            include_str!("../../../compress/tests/it/outputs/maven-compile.txt"),
            "[ERROR] /home/dev/calc/src/main/java/com/example/Calculator.java:[4,48] ';' expected",
        ),
        (
            include_str!("../../../compress/tests/it/outputs/cargo-test-panics.txt"),
            "thread 'tests::t88' (12361) panicked at src/lib.rs:93:24: assertion `left == right` failed: sum of 88",
        ),
        (
            include_str!("../../../compress/tests/it/outputs/node-test-tap.txt"),
            "error: 'not a quantity: three'",
        ),
        (
            include_str!("../../../compress/tests/it/outputs/make-gcc-warnings.txt"),
            "m5.c:28:27: error: ‘undefined_25’ undeclared (first use in this function)",
        ),
        (
            // A recovered panic in a Go test: the runtime's own frames
            // (`panic({0x519a00, …})`) under the message are not it.
            include_str!("../../../compress/tests/it/outputs/go-test-panic.txt"),
            "panic: runtime error: index out of range [2] with length 2",
        ),
    ] {
        assert_eq!(last_error_line(output, None).as_deref(), Some(error));
    }
    // Colours and all, the message rather than the count or a table's head.
    for (output, error) in [
        (
            include_str!("../../../compress/tests/it/outputs/vitest-colour.txt"),
            "expected 1 to be 2",
        ),
        (
            include_str!("../../../compress/tests/it/outputs/tsc-pretty.txt"),
            "Cannot find name 'missing9'.",
        ),
        (
            include_str!("../../../compress/tests/it/outputs/deno-test.txt"),
            "TypeError: Cannot read properties of undefined (reading 'host')",
        ),
    ] {
        let last = last_error_line(output, None).unwrap_or_default();
        assert!(last.contains(error), "{last:?}");
    }
}

/// REACT-6: the code a frame points at names the error it throws, but is
/// not it (Jest's `> 3 | … throw new TypeError(…)` under `TypeError: not
/// a number: x`); Gradle's heading over its failed task and its task's
/// verdict (`* What went wrong:`, `:test FAILED`) point at the error above,
/// and PostgreSQL's `HINT:` under its error is a field of it.
#[test]
fn react_6_neither_pointed_code_nor_a_heading_is_the_last_error() {
    for (name, error) in [
        // Under the heading of its test file.
        ("jest-console", "FAIL src/cart.test.js TypeError: not a number: x"),
        ("gradle-test", "java.lang.NullPointerException at CartTest.java:8"),
        // Under testthat's count, its and R's stopping words.
        (
            "r-testthat",
            "Error ('test-many.R:27'): quantities parse Error in `parse_qty(\"x\")`: not a quantity: x",
        ),
    ] {
        let case = captured_outputs()
            .into_iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no captured output {name}"));
        assert_eq!(
            last_error_line(&case.output, None).as_deref(),
            Some(error),
            "{name}"
        );
    }
    // PostgreSQL's hint under its error is the error's field, not it.
    let psql = "psql:a.sql:3: ERROR:  column \"nme\" does not exist\nLINE 1: SELECT nme FROM t;\n               ^\nHINT:  Perhaps you meant to reference the column \"t.name\".\n";
    assert_eq!(
        last_error_line(psql, None).as_deref(),
        Some("psql:a.sql:3: ERROR:  column \"nme\" does not exist")
    );
    assert!(is_verdict("* What went wrong:"));
    assert!(is_verdict(":test FAILED"));
    for stopping in [
        "Execution halted",
        "Error: Test failures",
        "Maximum number of failures exceeded; quitting at end of file.",
        "[ FAIL 26 | WARN 1 | SKIP 0 | PASS 0 ]",
    ] {
        assert!(is_verdict(stopping), "{stopping}");
    }
}

/// REACT-6: among failure lines with a message, one that is a failure by
/// its own words comes before one only by the level tag its tool puts on
/// every line.
#[test]
fn react_6_a_failure_by_its_words_before_one_by_its_tag() {
    let npm = "npm ERR! code ERESOLVE\nnpm ERR! Could not resolve dependency:\nnpm ERR! peer react@\"^18.0.0\" from react-select@5.8.0\nnpm ERR! node_modules/react-select\nnpm ERR! \n";
    // The message it announces under the same tag comes along.
    assert_eq!(
        last_error_line(npm, None).as_deref(),
        Some("npm ERR! Could not resolve dependency: peer react@\"^18.0.0\" from react-select@5.8.0")
    );
    // With no line that says more, the tagged line is the error, before a
    // verdict below it.
    for out in [
        "npm ERR! node_modules/react-select\n",
        "npm ERR! node_modules/react-select\nnpm ERR! code ERESOLVE\n",
    ] {
        assert_eq!(
            last_error_line(out, None).as_deref(),
            Some("npm ERR! node_modules/react-select")
        );
    }
    // An untagged line stays a failure by its own words, however it reads
    // once trimmed (`go test`'s indented log line).
    let go = "--- FAIL: TestTotal (0.00s)\n    cart_test.go:12: got 81, want 90\nFAIL\n";
    assert_eq!(
        last_error_line(go, None).as_deref(),
        Some("cart_test.go:12: got 81, want 90")
    );
}

/// REACT-6: npm announces the dependency it could not resolve under its
/// level tag (`npm error Could not resolve dependency:` over `npm error
/// peer typescript@">=4.3 <7" from ts-jest@29.4.15`): the last error reads
/// both, the tag of the second left out.
#[test]
fn react_6_a_tagged_announcement_takes_its_tagged_message() {
    let error = captured_last_error("npm-eresolve");
    assert_eq!(
        error,
        "npm error Could not resolve dependency: peer typescript@\">=4.3 <7\" from ts-jest@29.4.15"
    );
    // Untagged, a failure's next line is no message by the tag's rule.
    let plain = "Could not resolve dependency:\nnpm error peer x\n";
    assert_eq!(
        last_error_line(plain, None).as_deref(),
        Some("Could not resolve dependency:")
    );
}

/// REACT-6: cargo-nextest closes on the list of its failed tests (`FAIL [
/// 0.141s] (162/162) cart tests::totals`), which only names them: the
/// last error is what the last of them said in its own section, its
/// panic and the message it announces.
#[test]
fn react_6_a_listed_failed_test_is_read_in_its_section() {
    let error = captured_last_error("nextest");
    assert_eq!(
        error,
        "thread 'tests::totals' (18771) panicked at src/lib.rs:8:27: assertion `left == right` failed"
    );
    // A FAIL line printed once is its own error.
    let once = "        FAIL [   0.141s] (1/1) cart tests::totals\nerror: test run failed\n";
    assert_eq!(
        last_error_line(once, None).as_deref(),
        Some("FAIL [   0.141s] (1/1) cart tests::totals")
    );
}

/// REACT-6: javac stops at 100 errors and says how many it left out
/// (`only showing the first 100 errors, of 180 total; use -Xmaxerrs …`):
/// a count, like `100 errors` above it; the last error is the last one
/// it showed.
#[test]
fn react_6_a_count_of_errors_left_out_is_no_error() {
    assert_eq!(
        captured_last_error("javac-many"),
        "Cart.java:37: error: incompatible types: int cannot be converted to String"
    );
}

/// The last error of the captured output named `name`.
fn captured_last_error(name: &str) -> String {
    let case = captured_outputs()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no captured output {name}"));
    last_error_line(&case.output, None)
        .unwrap_or_else(|| panic!("{name}: no error"))
        .into_owned()
}

/// REACT-6: a linter's finding that says where in a file but not in which
/// (ESLint's, Stylelint's and yamllint's rows, SQLFluff's `L: … | P: …`,
/// PHP_CodeSniffer's under the rules and count its table draws)
/// is the last error under the heading that names its file; a heading
/// that names a directory (pip's `Processing /home/dev/brokenpkg` over the
/// build it ran) is no file's, and a finding that names its own file
/// needs none.
#[test]
fn react_6_a_finding_s_last_error_names_its_file() {
    for (name, error) in [
        (
            "eslint",
            "/home/dev/ts/lint/f9.js 2:42  error    'undefinedThing9' is not defined              no-undef",
        ),
        (
            "sqlfluff-lint",
            "== [models/orders_5.sql] FAIL L:   5 | P:  10 | CP02 | Unquoted identifiers must be consistently lower case.",
        ),
        (
            "yamllint-many",
            "./.github/workflows/ci.yml 12:9      error    duplication of key \"run\" in mapping  (key-duplicates)",
        ),
        (
            "phpcs",
            "FILE: /home/dev/shop/src/Invoice.php 19 | ERROR | [x] A closing tag is not permitted at the end of a PHP",
        ),
        (
            "pip-broken",
            "RuntimeError: libfoo >= 2.3 is required to build brokenpkg (found 2.1)",
        ),
        (
            "tsc-big",
            "src/cart.ts(7,60): error TS2367: This comparison appears to be unintentional because the types 'string' and 'number' have no overlap.",
        ),
    ] {
        let case = captured_outputs()
            .into_iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no captured output {name}"));
        assert_eq!(last_error_line(&case.output, None).as_deref(), Some(error), "{name}");
    }
    // Only whole: a heading that would push the finding past the shortest
    // cut a last error gets, 160 characters, is left out.
    let finding = "2:42  error  'x' is not defined  no-undef";
    let under = |stem: usize| {
        let heading = format!("src/{}.js", "a".repeat(stem));
        let log = format!("{heading}\n  {finding}\n");
        let error = last_error_line(&log, None).map(|e| e.into_owned());
        (
            heading.chars().count() + 1 + finding.chars().count(),
            error,
            heading,
        )
    };
    let (chars, error, heading) = under(111);
    assert_eq!((chars, error), (160, Some(format!("{heading} {finding}"))));
    let (chars, error, _) = under(112);
    assert_eq!((chars, error.as_deref()), (161, Some(finding)));
}

/// REACT-6: a wrapper's verdict after the error is no last error: npm's
/// report of a workspace's script that failed under markdownlint's
/// findings, Go's `FAIL\tpkg [build failed]` under the compiler's error,
/// make's `Error 2 (ignored)` under `-k` after OCaml's.
#[test]
fn react_6_a_wrapper_s_verdict_is_not_the_last_error() {
    let markdownlint = documented_outputs()
        .into_iter()
        .find(|c| c.name == "markdownlint")
        .unwrap_or_else(|| panic!("no documented output markdownlint"));
    assert_eq!(
        last_error_line(&markdownlint.output, None).as_deref(),
        Some(markdownlint.last.as_str())
    );
    assert_eq!(
        captured_last_error("go-test-build"),
        "./a_test.go:6:18: undefined: three"
    );
    assert_eq!(
        captured_last_error("ocamlc-make-k"),
        "Error: This expression has type string but an expression was expected of type"
    );
}

/// REACT-6: Yarn's closing `Failed with errors in 0s 52ms` is a verdict:
/// the last error is the message its code marks as an error (an
/// immutable install that would change the lockfile, a range no version
/// meets) or, under `yarn workspaces foreach`, the error of the
/// workspace's script, not Yarn's word that the script failed.
#[test]
fn react_6_yarn_s_last_error_is_the_error_it_closes_on() {
    assert_eq!(
        captured_last_error("yarn-immutable"),
        "➤ YN0028: │ The lockfile would have been modified by this install, which is explicitly forbidden."
    );
    assert_eq!(
        captured_last_error("yarn-workspaces-foreach"),
        "[@acme/api]: src/routes/orders.ts(7,43): error TS2554: Expected 1 arguments, but got 2."
    );
    let resolution = "➤ YN0000: ┌ Resolution step\n➤ YN0082: │ left-pad@npm:^9.9.9: No candidates found\n➤ YN0000: └ Completed\n➤ YN0000: · Failed with errors in 0s 47ms\n";
    assert_eq!(
        last_error_line(resolution, None).as_deref(),
        Some("➤ YN0082: │ left-pad@npm:^9.9.9: No candidates found")
    );
}

/// REACT-6: Nx's closing lines, and Lerna's, which runs on it (` NX
/// Running target build for 3 projects failed`, `Failed tasks:` over the
/// list of them), point at the output of the tasks above: the last error
/// is the failed task's own (`tsc`'s), not the list.
#[test]
fn react_6_nx_s_closing_lines_point_at_the_task_s_error() {
    assert_eq!(
        captured_last_error("lerna-run"),
        "src/routes/orders.ts(7,43): error TS2554: Expected 1 arguments, but got 2."
    );
    let nx = "@acme/api: src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\n@acme/api: Found 1 error in src/a.ts:3\n\n\n NX   Running target build for 3 projects failed\n\nFailed tasks:\n\n- @acme/api:build\n";
    assert_eq!(
        last_error_line(nx, None).as_deref(),
        Some("@acme/api: src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.")
    );
}

/// REACT-6: husky's word on a git hook that failed (`husky - pre-commit
/// script failed (code 1)`) is a verdict over what the hook printed: the
/// last error of a `git commit` it stopped is the hook's linter's finding.
#[test]
fn react_6_a_failed_git_hook_s_last_error_is_the_hook_s() {
    let commit = "✔ Preparing lint-staged...\n      ✖ eslint --max-warnings=0 [FAILED]\n↓ Skipped because of errors from tasks.\n\n✖ eslint --max-warnings=0:\n\n/home/dev/app/src/cart.ts\n  12:7  error  'totl' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\n\n";
    for husky in [
        "husky - pre-commit script failed (code 1)\n",
        "husky - pre-commit hook exited with code 1 (error)\n",
    ] {
        assert_eq!(
            last_error_line(&format!("{commit}{husky}"), None).as_deref(),
            Some("/home/dev/app/src/cart.ts 12:7  error  'totl' is assigned a value but never used  @typescript-eslint/no-unused-vars"),
            "{husky}"
        );
    }
}

/// REACT-6: the word of a runner of scripts on one that failed is a
/// verdict over what the script printed: npm-run-all's (`ERROR: "lint:js"
/// exited with 1.`), Lerna's before it ran on Nx (`lerna ERR! npm run
/// build exited 2 in '@acme/api'`), Bun's, go-task's, cargo-make's.
#[test]
fn react_6_a_script_runner_s_word_is_not_the_last_error() {
    let tsc = "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\n";
    for runner in [
        "ERROR: \"lint:js\" exited with 1.",
        "lerna ERR! npm run build exited 2 in '@acme/api'",
        "error: script \"build\" exited with code 2",
        "task: Failed to run task \"test\": exit status 1",
        "[cargo-make] ERROR - Error while executing command, exit code: 101",
    ] {
        assert_eq!(
            last_error_line(&format!("{tsc}{runner}\n"), None).as_deref(),
            Some(tsc.trim_end()),
            "{runner}"
        );
    }
}

/// REACT-6: a C program that corrupts its memory is aborted by glibc,
/// which says why (`free(): double free detected in tcache 2`) above
/// make's `Aborted`: that is the last error.
#[test]
fn react_6_glibc_s_abort_is_the_last_error() {
    assert_eq!(
        captured_last_error("make-double-free"),
        "free(): double free detected in tcache 2"
    );
}

/// REACT-6: ExUnit heads each failed test with its number and name over
/// the place of its assertion; the message under them (`Assertion with ==
/// failed`, `** (KeyError) key :missing not found in: %{}`) names neither,
/// so the last error says the test and the place with it.
#[test]
fn react_6_an_exunit_failure_names_its_test() {
    assert_eq!(
        captured_last_error("exunit"),
        "3) test raises (ExuTest) test/exu_test.exs:14: ** (KeyError) key :missing not found in: %{}"
    );
    let run = "..\n\n  1) test discount (ShopTest)\n     test/shop_test.exs:11\n     Assertion with == failed\n     code:  assert Shop.total([{100, 1}], 10) == 91\n     left:  90\n     right: 91\n     stacktrace:\n       test/shop_test.exs:12: (test)\n\n.\nFinished in 0.04 seconds (0.00s async, 0.04s sync)\n29 tests, 1 failure\n";
    assert_eq!(
        last_error_line(run, None).as_deref(),
        Some("1) test discount (ShopTest) test/shop_test.exs:11: Assertion with == failed")
    );
    // Only whole, within the shortest cut a last error gets.
    let named = |name: usize| {
        let out = format!(
            "  1) test {} (T)\n     test/a.exs:3\n     ValueError: bad row\n",
            "n".repeat(name)
        );
        last_error_line(&out, None).map(|e| e.chars().count())
    };
    assert_eq!((named(114), named(115)), (Some(160), Some(19)));
    // Not a test's heading over a place in an Elixir file, or too long to
    // keep whole with the message: the message alone.
    for above in [
        "  1) test a (T)\n     notes.txt\n".to_owned(),
        "  1) test a (T)\n     test/a.exs:abc\n".to_owned(),
        "  1) first step\n     test/a.exs:3\n".to_owned(),
        format!("  1) test {}(T)\n     test/a.exs:3\n", "long ".repeat(30)),
    ] {
        assert_eq!(
            last_error_line(&format!("{above}     ValueError: bad row\n"), None).as_deref(),
            Some("ValueError: bad row"),
            "{above}"
        );
    }
}

/// REACT-6: Meson closes a test run on the list of the tests that failed
/// (`3/9 cart labels   FAIL   0.01s   killed by signal 6 SIGABRT`) and a
/// table of counts (`Fail:               2`): the last error is what the
/// last listed test printed where the run shows it (`--print-errorlogs`),
/// else the test's line, though it names an exit status; never the count.
#[test]
fn react_6_meson_s_last_error_is_the_failed_test_s() {
    assert_eq!(
        captured_last_error("meson-test-errorlogs"),
        "cart_test: ../cart_test.c:10: main: Assertion `p != NULL' failed."
    );
    let meson = documented_outputs()
        .into_iter()
        .find(|c| c.name == "meson-test")
        .unwrap_or_else(|| panic!("no documented output meson-test"));
    assert_eq!(
        last_error_line(&meson.output, None).as_deref(),
        Some("7/12 libfmt2:unit / test_format        FAIL            0.03s   exit status 1")
    );
}

/// REACT-6: dbt's failed test or model (`Failure in test
/// unique_stg_orders_order_id (models/staging/schema.yml)`, red as dbt
/// prints it) announces what it got on the line under it: the last error
/// names the test or model with it, where it had been `Got 1 result,
/// configured to fail if != 0` alone, or the database's error alone.
#[test]
fn react_6_dbt_s_failed_test_or_model_comes_with_what_it_got() {
    let build = captured_last_error("dbt-build");
    let plain = without_colours(&build);
    assert!(
        plain.contains("Failure in test unique_stg_orders_order_id (models/staging/schema.yml)")
            && plain.ends_with("Got 1 result, configured to fail if != 0"),
        "{plain}"
    );
    assert_eq!(
        captured_last_error("dbt-run"),
        "\u{1b}[0m01:09:34    Runtime Error in model order_status (models/marts/order_status.sql) Binder Error: Referenced column \"amount_usd\" not found in FROM clause!"
    );
}

/// REACT-6: uv's resolver explains why it found no solution and closes on
/// its conclusion (`And because your project depends on numpy<1.20 and
/// pandas>=2.2, we can conclude that your project's requirements are
/// unsatisfiable.`): that is the last error, not the heading over the
/// explanation nor the hint after it.
#[test]
fn react_6_a_resolver_s_conclusion_is_the_last_error() {
    assert_eq!(
        captured_last_error("uv-sync-conflict"),
        "And because your project depends on numpy<1.20 and pandas>=2.2, we can conclude that your project's requirements are unsatisfiable."
    );
}
