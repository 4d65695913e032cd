//! History forms of long command outputs, one per toolchain (TOOL-8): the
//! failure lines are written as each tool prints them (their shapes from
//! the tools' documentation and public bug reports), wrapped in the noise
//! those tools print around them (passing tests, progress, downloads,
//! dependency builds, library frames). Every failure line and the last one
//! must survive, and the form must stay a fraction of the output.

use serde_json::json;
use strata_ctx_compress::{is_count, is_verdict, last_failure, line_kind, Compressor, LineKind};

/// `n` lines made by `f`.
fn lines(n: usize, f: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| f(i) + "\n").collect()
}

struct Case {
    name: &'static str,
    output: String,
    failures: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "cargo build",
            output: lines(180, |i| format!("   Compiling dep{i} v0.{i}.3")).to_string()
                + "error[E0308]: mismatched types\n  --> src/parser.rs:42:17\n   |\n42 |     let n: u32 = \"four\";\n   |            ---   ^^^^^^ expected `u32`, found `&str`\n   |            |\n   |            expected due to this\n\n"
                + "error[E0425]: cannot find value `tokn` in this scope\n  --> src/lexer.rs:7:9\n   |\n7  |         tokn\n   |         ^^^^ help: a local variable with a similar name exists: `token`\n\n"
                + "Some errors have detailed explanations: E0308, E0425.\nFor more information about an error, try `rustc --explain E0308`.\nerror: could not compile `app` (lib) due to 2 previous errors\n",
            failures: &[
                "error[E0308]: mismatched types",
                "error[E0425]: cannot find value `tokn` in this scope",
                "error: could not compile `app` (lib) due to 2 previous errors",
            ],
        },
        Case {
            name: "cargo test",
            output: "running 240 tests\n".to_owned()
                + &lines(120, |i| format!("test parser::tests::case_{i} ... ok"))
                + "test parser::tests::handles_error_input ... FAILED\n"
                + &lines(119, |i| format!("test lexer::tests::case_{i} ... ok"))
                + "\nfailures:\n\n---- parser::tests::handles_error_input stdout ----\n\nthread 'parser::tests::handles_error_input' panicked at src/parser.rs:88:9:\nassertion `left == right` failed\n  left: 3\n right: 4\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    parser::tests::handles_error_input\n\n"
                + "test result: FAILED. 239 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s\n\nerror: test failed, to rerun pass `--lib`\n",
            failures: &[
                "test parser::tests::handles_error_input ... FAILED",
                "thread 'parser::tests::handles_error_input' panicked at src/parser.rs:88:9:",
                "test result: FAILED. 239 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s",
                "error: test failed, to rerun pass `--lib`",
            ],
        },
        Case {
            name: "go test",
            output: lines(60, |i| format!("go: downloading example.com/mod{i} v1.{i}.0"))
                + &lines(150, |i| format!("=== RUN   TestCase{i}\n--- PASS: TestCase{i} (0.00s)"))
                + "=== RUN   TestParseConfig\n    config_test.go:31: got \"\", want \"prod\"\n--- FAIL: TestParseConfig (0.00s)\nFAIL\nexit status 1\nFAIL\texample.com/app/config\t0.014s\n"
                + &lines(20, |i| format!("ok  \texample.com/app/pkg{i}\t0.0{i}s"))
                + "FAIL\n",
            failures: &[
                "--- FAIL: TestParseConfig (0.00s)",
                "FAIL\texample.com/app/config\t0.014s",
            ],
        },
        Case {
            name: "go build",
            output: lines(120, |i| format!("go: downloading github.com/acme/lib{i} v0.{i}.1"))
                + "# example.com/app/server\n./handler.go:14:2: undefined: renderJSON\n./handler.go:27:6: declared and not used: ctx\n./routes.go:9:15: cannot use h (variable of type *Handler) as http.Handler value in argument to mux.Handle\n",
            failures: &[
                "./handler.go:14:2: undefined: renderJSON",
                "./handler.go:27:6: declared and not used: ctx",
                "./routes.go:9:15: cannot use h (variable of type *Handler) as http.Handler value in argument to mux.Handle",
            ],
        },
        Case {
            name: "tsc",
            output: lines(200, |i| format!("[{i:02}:00:00] File change detected. Compiling src/module{i}.ts")).replace("Compiling", "Checking")
                + "src/api/client.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/api/client.ts(40,18): error TS2339: Property 'data' does not exist on type 'Response'.\nsrc/index.ts:3:10 - error TS2305: Module '\"./api\"' has no exported member 'fetchAll'.\n\nFound 3 errors in 2 files.\n",
            failures: &[
                "src/api/client.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
                "src/api/client.ts(40,18): error TS2339: Property 'data' does not exist on type 'Response'.",
                "src/index.ts:3:10 - error TS2305: Module '\"./api\"' has no exported member 'fetchAll'.",
                "Found 3 errors in 2 files.",
            ],
        },
        Case {
            name: "eslint",
            output: lines(150, |i| format!("/work/app/src/clean{i}.js: 0 problems")).replace(": 0 problems", "")
                + "\n/work/app/src/util.js\n   3:7   error    'unused' is assigned a value but never used  no-unused-vars\n  18:1   warning  Unexpected console statement                  no-console\n\n/work/app/src/main.js\n  10:12  error  'fetchData' is not defined  no-undef\n\n✖ 3 problems (2 errors, 1 warning)\n",
            failures: &[
                "3:7   error    'unused' is assigned a value but never used  no-unused-vars",
                "10:12  error  'fetchData' is not defined  no-undef",
                "✖ 3 problems (2 errors, 1 warning)",
            ],
        },
        Case {
            name: "jest",
            output: lines(90, |i| format!("PASS src/components/Widget{i}.test.js")).to_string()
                + "FAIL src/utils/sum.test.js\n  ● sum › adds negative numbers\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: -3\n    Received: 3\n\n      4 |   test('adds negative numbers', () => {\n    > 5 |     expect(sum(-1, -2)).toBe(-3);\n        |                         ^\n      6 |   });\n\n      at Object.toBe (src/utils/sum.test.js:5:25)\n"
                + &lines(12, |i| format!("      at Promise.then.completed (node_modules/jest-circus/build/utils.js:{i}:28)"))
                + "\nTest Suites: 1 failed, 90 passed, 91 total\nTests:       1 failed, 412 passed, 413 total\nSnapshots:   0 total\nTime:        6.29 s\nRan all test suites.\n",
            failures: &[
                "FAIL src/utils/sum.test.js",
                "● sum › adds negative numbers",
                "Test Suites: 1 failed, 90 passed, 91 total",
                "Tests:       1 failed, 412 passed, 413 total",
            ],
        },
        Case {
            name: "vitest",
            output: lines(120, |i| format!(" ✓ src/feature{i}.test.ts (4 tests) {i}ms"))
                + " ❯ src/cart.test.ts (3 tests | 1 failed) 12ms\n   × cart > applies the discount 5ms\n     → expected 90 to be 81 // Object.is equality\n\n⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n FAIL  src/cart.test.ts > cart > applies the discount\nAssertionError: expected 90 to be 81 // Object.is equality\n ❯ src/cart.test.ts:14:30\n\n Test Files  1 failed | 120 passed (121)\n      Tests  1 failed | 482 passed (483)\n",
            failures: &[
                "× cart > applies the discount 5ms",
                "FAIL  src/cart.test.ts > cart > applies the discount",
                "AssertionError: expected 90 to be 81 // Object.is equality",
                "Test Files  1 failed | 120 passed (121)",
                "Tests  1 failed | 482 passed (483)",
            ],
        },
        Case {
            name: "pytest",
            output: "============================= test session starts ==============================\nplatform linux -- Python 3.11.7, pytest-8.1.1, pluggy-1.4.0\ncollected 301 items\n\n".to_owned()
                + &lines(300, |i| format!("tests/test_models.py::test_case_{i} PASSED{:>40}", format!("[{:3}%]", i / 3)))
                + "tests/test_models.py::test_slug FAILED                                  [100%]\n\n=================================== FAILURES ===================================\n__________________________________ test_slug ___________________________________\n\n    def test_slug():\n>       assert slugify(\"Hello World\") == \"hello_world\"\nE       AssertionError: assert 'hello-world' == 'hello_world'\nE         - hello_world\nE         + hello-world\n\ntests/test_models.py:41: AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_models.py::test_slug - AssertionError: assert 'hello-world' == 'hello_world'\n======================== 1 failed, 300 passed in 4.12s =========================\n",
            failures: &[
                "E       AssertionError: assert 'hello-world' == 'hello_world'",
                "tests/test_models.py:41: AssertionError",
                "FAILED tests/test_models.py::test_slug - AssertionError: assert 'hello-world' == 'hello_world'",
                "======================== 1 failed, 300 passed in 4.12s =========================",
            ],
        },
        Case {
            name: "mypy and ruff",
            output: lines(150, |i| format!("Checking src/pkg/module{i}.py")).replace("Checking", "Scanned")
                + "src/pkg/api.py:31: error: Argument 1 to \"get\" has incompatible type \"int\"; expected \"str\"  [arg-type]\nsrc/pkg/db.py:8: error: Module \"sqlalchemy\" has no attribute \"Sesion\"  [attr-defined]\nFound 2 errors in 2 files (checked 151 source files)\nsrc/pkg/api.py:1:8: F401 [*] `os` imported but unused\nsrc/pkg/db.py:12:5: E722 Do not use bare `except`\nFound 2 errors.\n[*] 1 fixable with the `--fix` option.\n",
            failures: &[
                "src/pkg/api.py:31: error: Argument 1 to \"get\" has incompatible type \"int\"; expected \"str\"  [arg-type]",
                "src/pkg/db.py:8: error: Module \"sqlalchemy\" has no attribute \"Sesion\"  [attr-defined]",
                "src/pkg/api.py:1:8: F401 [*] `os` imported but unused",
                "src/pkg/db.py:12:5: E722 Do not use bare `except`",
                "Found 2 errors.",
            ],
        },
        Case {
            name: "maven with javac",
            output: lines(200, |i| format!("Downloaded from central: https://repo.maven.apache.org/maven2/org/lib{i}/1.0/lib{i}-1.0.jar (12 kB at 80 kB/s)"))
                + "[INFO] --- compiler:3.11.0:compile (default-compile) @ app ---\n[INFO] Compiling 42 source files with javac [debug target 17] to target/classes\n[ERROR] COMPILATION ERROR : \n[ERROR] /work/app/src/main/java/com/acme/App.java:[14,9] cannot find symbol\n  symbol:   class Lisst\n  location: class com.acme.App\n[INFO] 1 error\n[INFO] BUILD FAILURE\n[INFO] Total time:  3.912 s\n[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project app: Compilation failure\n",
            failures: &[
                "[ERROR] /work/app/src/main/java/com/acme/App.java:[14,9] cannot find symbol",
                "[INFO] BUILD FAILURE",
                "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project app: Compilation failure",
            ],
        },
        Case {
            name: "gradle with a Java stack trace",
            output: lines(100, |i| format!("> Task :lib{i}:compileJava UP-TO-DATE"))
                + "> Task :app:test\n\nAppTest > parsesDates() FAILED\n    java.lang.IllegalStateException: no date in \"\"\n        at com.acme.DateParser.parse(DateParser.java:22)\n        at com.acme.AppTest.parsesDates(AppTest.java:17)\n"
                + &lines(30, |i| format!("        at org.junit.platform.engine.support.hierarchical.Node{i}.execute(Node.java:{i})"))
                + "\n42 tests completed, 1 failed\n\n> Task :app:test FAILED\n\nFAILURE: Build failed with an exception.\n\nBUILD FAILED in 7s\n",
            failures: &[
                "AppTest > parsesDates() FAILED",
                "java.lang.IllegalStateException: no date in \"\"",
                "42 tests completed, 1 failed",
                "> Task :app:test FAILED",
                "FAILURE: Build failed with an exception.",
                "BUILD FAILED in 7s",
            ],
        },
        Case {
            name: "make with gcc and clang",
            output: lines(150, |i| format!("cc -O2 -Wall -c src/unit{i}.c -o build/unit{i}.o"))
                + "src/net.c: In function 'connect_to':\nsrc/net.c:41:12: warning: unused variable 'tries' [-Wunused-variable]\nsrc/net.c:57:5: error: implicit declaration of function 'close_sock'; did you mean 'close'? [-Wimplicit-function-declaration]\n/usr/bin/ld: build/main.o: in function `main':\nmain.c:(.text+0x1b): undefined reference to `net_init'\ncollect2: error: ld returned 1 exit status\nmake: *** [Makefile:23: app] Error 1\n",
            failures: &[
                "src/net.c:57:5: error: implicit declaration of function 'close_sock'; did you mean 'close'? [-Wimplicit-function-declaration]",
                "main.c:(.text+0x1b): undefined reference to `net_init'",
                "collect2: error: ld returned 1 exit status",
                "make: *** [Makefile:23: app] Error 1",
            ],
        },
        Case {
            name: "npm with a Node stack trace",
            output: lines(120, |i| format!("npm warn deprecated pkg{i}@1.0.{i}: This package is no longer supported")).replace("npm warn deprecated", "npm WARN deprecated")
                + "added 812 packages, and audited 813 packages in 21s\n\n> app@1.0.0 build\n> node scripts/build.js\n\n/work/app/scripts/build.js:12\n  const cfg = require('./config.json').output.path;\n                                              ^\n\nTypeError: Cannot read properties of undefined (reading 'path')\n    at Object.<anonymous> (/work/app/scripts/build.js:12:47)\n    at Module._compile (node:internal/modules/cjs/loader:1376:14)\n    at node:internal/main/run_main_module:28:49\n\nNode.js v20.11.0\nnpm ERR! code 1\nnpm ERR! path /work/app\nnpm ERR! command failed\nnpm ERR! command sh -c node scripts/build.js\n",
            failures: &[
                "TypeError: Cannot read properties of undefined (reading 'path')",
                "npm ERR! code 1",
                "npm ERR! command failed",
            ],
        },
        Case {
            name: "python traceback through libraries",
            output: lines(150, |i| format!("INFO:app.worker:processed batch {i} in 0.{i}s"))
                + "Traceback (most recent call last):\n  File \"/work/app/run.py\", line 8, in <module>\n    main()\n  File \"/work/app/app/worker.py\", line 51, in main\n    rows = fetch(conn)\n"
                + &lines(10, |i| format!("  File \"/usr/lib/python3/dist-packages/sqlalchemy/engine/base{i}.py\", line {i}, in execute\n    return meth(self, args)"))
                + "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) no such table: users\n",
            failures: &[
                "Traceback (most recent call last):",
                "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) no such table: users",
            ],
        },
        Case {
            // testthat's second edition: the expectation's words sit under
            // the ruled heading, without a word of failure of their own.
            name: "testthat, second edition",
            output: lines(90, |i| format!("✔ | {} | context{i} [0.1s]", i % 7 + 1))
                + "══ Failed tests ════════════════════════════════════════════\n"
                + "── Failure (test-math.R:5:3): addition works ───────────────\n"
                + "add(1, 1) (`actual`) not equal to 3 (`expected`).\n\n  `actual`: 2\n`expected`: 3\n\n"
                + "[ FAIL 1 | WARN 0 | SKIP 0 | PASS 90 ]\nError: Test failures\nExecution halted\n",
            failures: &[
                "── Failure (test-math.R:5:3): addition works ───────────────",
                "add(1, 1) (`actual`) not equal to 3 (`expected`).",
                "[ FAIL 1 | WARN 0 | SKIP 0 | PASS 90 ]",
                "Error: Test failures",
            ],
        },
        Case {
            // Node's missing module: the module that required it is the
            // first of the `Require stack:`.
            name: "node, a module not found",
            output: lines(90, |i| format!("[nodemon] watching path(s): src/mod{i}/**/*"))
                + "node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\nError: Cannot find module 'express'\nRequire stack:\n- /app/server.js\n"
                + "    at Module._resolveFilename (node:internal/modules/cjs/loader:1077:15)\n    at Module._load (node:internal/modules/cjs/loader:922:27)\n    at Object.<anonymous> (/app/server.js:1:17)\n"
                + "    at node:internal/main/run_main_module:23:47 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: [ '/app/server.js' ]\n}\n\nNode.js v20.11.0\n",
            failures: &["Error: Cannot find module 'express'", "Require stack:"],
        },
        Case {
            // ExUnit's failed assertion: the code asserted and its operands.
            name: "ExUnit assertion",
            output: lines(90, |i| format!("Compiling lib/shop/mod{i}.ex (it's taking more than 10s)"))
                + "  1) test total applies the voucher (Shop.CartTest)\n     test/cart_test.exs:10\n     Assertion with == failed\n"
                + "     code:  assert Cart.total(cart) == 90\n     left:  100\n     right: 90\n     stacktrace:\n       test/cart_test.exs:12: (test)\n\n"
                + "Finished in 0.05 seconds (0.00s async, 0.05s sync)\n81 tests, 1 failure\n",
            failures: &["Assertion with == failed", "81 tests, 1 failure"],
        },
        Case {
            // javac under Gradle: the quoted code and its caret stand
            // between the error and the symbol it could not find.
            name: "javac under gradle",
            output: lines(90, |i| format!("> Task :lib{i}:compileJava UP-TO-DATE"))
                + "> Task :app:compileJava FAILED\n/app/src/main/java/com/shop/Cart.java:3: error: cannot find symbol\nimport com.shop.Voucher;\n               ^\n"
                + "  symbol:   class Voucher\n  location: package com.shop\n1 error\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
                + "Execution failed for task ':app:compileJava'.\n> Compilation failed; see the compiler error output for details.\n\nBUILD FAILED in 2s\n",
            failures: &[
                "/app/src/main/java/com/shop/Cart.java:3: error: cannot find symbol",
                "Execution failed for task ':app:compileJava'.",
                "BUILD FAILED in 2s",
            ],
        },
        Case {
            // pytest's doctests: the docstring listed up to the example
            // that failed, then doctest's expected and actual values.
            name: "pytest --doctest-modules",
            output: "============================= test session starts ==============================\n".to_owned()
                + &lines(150, |i| format!("src/shop/mod{i}.py::shop.mod{i}.total PASSED{:>40}", format!("[{:>3}%]", i * 100 / 151)))
                + "src/shop/units.py::shop.units.to_seconds FAILED                          [100%]\n\n"
                + "=================================== FAILURES ===================================\n"
                + "________________________ [doctest] shop.units.to_seconds ________________________\n"
                + "009 Parse a duration.\n010 \n011     >>> to_seconds(\"90s\")\n012     90\n013     >>> to_seconds(\"1h\")\nExpected:\n    3601\nGot:\n    3600\n\n"
                + "/app/src/shop/units.py:13: DocTestFailure\n"
                + "=========================== short test summary info ============================\n"
                + "FAILED src/shop/units.py::shop.units.to_seconds\n========================= 1 failed, 150 passed in 0.52s =========================\n",
            failures: &[
                "013     >>> to_seconds(\"1h\")\nExpected:\n    3601\nGot:\n    3600",
                "/app/src/shop/units.py:13: DocTestFailure",
                "FAILED src/shop/units.py::shop.units.to_seconds",
            ],
        },
        Case {
            // ruff's full format: the code it quotes under a bare gutter.
            name: "ruff check",
            output: lines(90, |i| format!("[DEBUG] Checked src/shop/mod{i}.py in 0.{i}ms"))
                + "src/shop/cart.py:1:8: F401 [*] `os` imported but unused\n  |\n1 | import os\n  |        ^^ F401\n2 | import sys\n  |\n  = help: Remove unused import: `os`\n\n"
                + "src/shop/cart.py:12:5: E741 Ambiguous variable name: `l`\n   |\n11 | def total(items):\n12 |     l = len(items)\n   |     ^ E741\n   |\n\nFound 2 errors.\n[*] 1 fixable with the `--fix` option.\n",
            failures: &[
                "src/shop/cart.py:1:8: F401 [*] `os` imported but unused",
                "src/shop/cart.py:12:5: E741 Ambiguous variable name: `l`",
                "Found 2 errors.",
            ],
        },
    ]
}

#[test]
fn tool_8_every_toolchains_failures_survive_in_a_fraction_of_the_output() {
    let c = Compressor::new();
    for case in cases() {
        let (form, _) = c.compress_text("Bash", &json!({"command": "run"}), &case.output);
        for failure in case.failures {
            assert!(
                form.contains(failure),
                "{}: lost {failure:?}\n--- form:\n{form}",
                case.name
            );
        }
        let last = last_failure(&case.output).unwrap_or_else(|| panic!("{}: no failure found", case.name));
        assert!(
            form.contains(last),
            "{}: lost the last failure {last:?}",
            case.name
        );
        assert!(
            form.len() * 4 < case.output.len(),
            "{}: {} of {} bytes",
            case.name,
            form.len(),
            case.output.len()
        );
        // TOOL-11: a form condensed again is the same form.
        assert_eq!(
            c.compress_text("Bash", &json!({"command": "run"}), &form).0,
            form,
            "{}",
            case.name
        );
    }
}

#[test]
fn tool_8_noise_is_left_out_before_anything_else() {
    let c = Compressor::new();
    for case in cases() {
        let (form, _) = c.compress_text("Bash", &json!({"command": "run"}), &case.output);
        let noise = form.lines().filter(|l| line_kind(l) == LineKind::Noise).count();
        let failures = form.lines().filter(|l| line_kind(l) == LineKind::Failure).count();
        assert!(noise <= 3, "{}: {noise} noise lines kept\n{form}", case.name);
        assert!(failures >= case.failures.len(), "{}", case.name);
    }
}

#[test]
fn tool_8_a_clean_run_keeps_its_summary_small() {
    let log = "running 400 tests\n".to_owned()
        + &lines(400, |i| format!("test module::tests::handles_error_case_{i} ... ok"))
        + "\ntest result: ok. 400 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.02s\n";
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "cargo test"}), &log);
    assert!(form.contains("test result: ok. 400 passed"), "{form}");
    assert!(
        form.len() <= 1_200,
        "{} bytes: a passing run does not grow",
        form.len()
    );
}

/// Real outputs, as the tools printed them (`outputs/`): each failure line
/// of the tool's own shape in `output`, without its colour codes.
fn failure_lines(output: &str, shape: &regex::Regex) -> Vec<String> {
    output
        .lines()
        .map(|l| strata_ctx_compress::without_colours(l).trim().to_owned())
        .filter(|l| shape.is_match(l))
        .collect()
}

/// Asserts that `text` (a form, perhaps without its colour codes) holds
/// each of `lines`; `form` is shown when not.
fn assert_all_kept(text: &str, lines: &[String], form: &str) {
    for line in lines {
        assert!(text.contains(line.as_str()), "lost {line:?}\n{form}");
    }
}

/// TOOL-8: clippy's findings are warnings, each with the same two lines
/// of boilerplate under it (which lint is on by default, where its
/// documentation is): the boilerplate is noise, so every finding stays,
/// the last one with its location.
#[test]
fn tool_8_clippy_findings_stay_and_their_boilerplate_goes() {
    let output = include_str!("outputs/clippy-warnings.txt");
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "cargo clippy"}), output);
    let findings = failure_lines(output, &regex::Regex::new(r"^warning: ").unwrap());
    assert_eq!(findings.len(), 8);
    assert_all_kept(&form, &findings, &form);
    assert!(
        form.contains("warning: unneeded `return` statement\n --> src/lib.rs:7:56"),
        "{form}"
    );
    assert!(!form.contains("on by default"), "{form}");
    assert!(!form.contains("for further information visit"), "{form}");
    assert_eq!(
        line_kind("  = note: `#[warn(clippy::ptr_arg)]` on by default"),
        LineKind::Noise
    );
    // As rustc 1.90 and later say it, with the lint's group.
    assert_eq!(
        line_kind("  = note: `#[warn(unused_mut)]` (part of `#[warn(unused)]`) on by default"),
        LineKind::Noise
    );
}

/// TOOL-8: output a tool coloured for a terminal (tsc `--pretty`, vitest)
/// is judged by what it says: its failures are found under the colour
/// codes and kept as printed.
#[test]
fn tool_8_coloured_failures_are_found_and_kept_as_printed() {
    let c = Compressor::new();
    let tsc = include_str!("outputs/tsc-pretty.txt");
    let (form, _) = c.compress_text("Bash", &json!({"command": "npx tsc --pretty"}), tsc);
    let plain = strata_ctx_compress::without_colours(&form);
    let errors = failure_lines(tsc, &regex::Regex::new(r"error TS\d+").unwrap());
    let kept = errors.iter().filter(|e| plain.contains(e.as_str())).count();
    assert_eq!(errors.len(), 40);
    // Every error, however densely printed, within the room they grow.
    assert_eq!(kept, 40, "{kept} of 40 errors kept\n{form}");
    assert!(plain.contains("Found 40 errors in 13 files."), "{form}");
    // And what elaborates one (`  Type 'undefined' is not assignable …`).
    assert!(
        plain.contains("\n  Type 'undefined' is not assignable to type 'Item'.\n"),
        "{form}"
    );
    assert!(form.contains("\x1b["), "kept lines keep their colours");
    // The room is paid in plain bytes; the colour codes of kept lines
    // come on top. The code frames under each error give way.
    assert!(
        plain.len() * 5 < tsc.len() * 2,
        "{} of {} bytes",
        plain.len(),
        tsc.len()
    );
    assert!(
        form.len() * 9 < tsc.len() * 5,
        "{} of {} bytes",
        form.len(),
        tsc.len()
    );

    let vitest = include_str!("outputs/vitest-colour.txt");
    let (form, _) = c.compress_text("Bash", &json!({"command": "npx vitest run"}), vitest);
    let plain = strata_ctx_compress::without_colours(&form);
    let failures = failure_lines(vitest, &regex::Regex::new(r"^FAIL |Tests .* failed").unwrap());
    assert_eq!(failures.len(), 5, "{failures:?}");
    assert_all_kept(&plain, &failures, &form);
    // Each failed assertion's place (` ❯ vt/cart.test.mjs:7:86`) stays
    // under it: where to look.
    for place in [
        "❯ vt/cart.test.mjs:7:86",
        "❯ vt/cart.test.mjs:8:68",
        "❯ vt/cart.test.mjs:10:69",
    ] {
        assert!(plain.contains(place), "{place}\n{form}");
    }
    assert!(
        form.len() * 5 < vitest.len(),
        "{} of {} bytes",
        form.len(),
        vitest.len()
    );
    for form in [&form, &c.compress_text("Bash", &json!({"command": "tsc"}), tsc).0] {
        assert_eq!(
            &c.compress_text("Bash", &json!({"command": "run"}), form).0,
            form,
            "TOOL-11"
        );
    }
}

/// TOOL-8: a linter's findings under their rule codes, as ruff prints
/// them above their locations, are failures.
#[test]
fn tool_8_ruff_findings_under_their_rule_codes_are_kept() {
    let ruff = include_str!("outputs/ruff-full.txt");
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "ruff check ."}), ruff);
    let findings = failure_lines(ruff, &regex::Regex::new(r"^[A-Z]+\d+ ").unwrap());
    assert_eq!(findings.len(), 6);
    assert_all_kept(&form, &findings, &form);
    assert_eq!(line_kind("F401 [*] `os` imported but unused"), LineKind::Failure);
    assert!(form.contains("Found 6 errors."), "{form}");

    // Sixty-one findings, each above its location and a code excerpt: the
    // excerpts do not crowd the findings out of the search.
    let all = include_str!("outputs/ruff-select-all.txt");
    let (form, _) =
        Compressor::new().compress_text("Bash", &json!({"command": "ruff check --select ALL ."}), all);
    let findings = failure_lines(all, &regex::Regex::new(r"^[A-Z]+\d+ ").unwrap());
    assert_eq!(findings.len(), 61);
    assert_all_kept(&form, &findings, &form);
    assert!(
        form.len() * 5 < all.len() * 2,
        "{} of {} bytes",
        form.len(),
        all.len()
    );
}

/// TOOL-8: Codex CLI's `exec_command` answers with a header (`Chunk ID`,
/// `Wall time`, `Process exited with code 1`, `Original token count`,
/// `Output:`) above what the command printed: the header keeps its exit
/// code and its `Output:` line, drops what only described the moment,
/// and only the printed output is condensed.
#[test]
fn tool_8_a_codex_exec_header_keeps_its_exit_code_above_the_condensed_output() {
    let case = cases().into_iter().find(|c| c.name == "cargo test").unwrap();
    let header = "Chunk ID: 9f2c1a\nWall time: 2.4127 seconds\nProcess exited with code 101\nOriginal token count: 5120\nOutput:\n";
    let text = format!("{header}{}", case.output);
    let c = Compressor::new();
    let (form, _) = c.compress_text("exec_command", &json!({"cmd": "cargo test"}), &text);
    let header = "Process exited with code 101\nOutput:\n";
    assert!(form.starts_with(header), "{form}");
    for failure in case.failures {
        assert!(form.contains(failure), "lost {failure:?}\n{form}");
    }
    // What follows the header is the form of the output alone.
    let (alone, _) = c.compress_text("Bash", &json!({"command": "cargo test"}), &case.output);
    assert_eq!(&form[header.len()..], alone);
    assert_eq!(
        c.compress_text("exec_command", &json!({"cmd": "x"}), &form).0,
        form,
        "TOOL-11"
    );
}

/// TOOL-8: Gemini CLI's `run_shell_command` labels its fields around
/// what the command printed (`Command:`, `Directory:`, `Output:`, then
/// `Error:`, `Exit Code:`, `Signal:`, `Background PIDs:`, `Process Group
/// PGID:`): the form keeps the fields but the process group's id, which
/// only described the moment, and a signal or background process that is
/// not there (`Signal: (none)`), and condenses only the printed output.
#[test]
fn tool_8_gemini_fields_keep_the_exit_code_around_the_condensed_output() {
    let case = cases().into_iter().find(|c| c.name == "cargo test").unwrap();
    let text = format!(
        "Command: cargo test\nDirectory: (root)\nOutput: {}\nError: (none)\nExit Code: 101\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 81234",
        case.output.trim_end()
    );
    let c = Compressor::new();
    let (form, _) = c.compress_text("run_shell_command", &json!({"command": "cargo test"}), &text);
    let above = "Command: cargo test\nDirectory: (root)\nOutput: ";
    let below = "\nError: (none)\nExit Code: 101";
    assert!(form.starts_with(above), "{form}");
    assert!(form.ends_with(below), "{form}");
    assert!(!form.contains("PGID") && !form.contains("Signal"), "{form}");
    for failure in case.failures {
        assert!(form.contains(failure), "lost {failure:?}\n{form}");
    }
    let (alone, _) = c.compress_text("Bash", &json!({"command": "cargo test"}), case.output.trim_end());
    assert_eq!(&form[above.len()..form.len() - below.len()], alone);
    assert_eq!(
        c.compress_text("run_shell_command", &json!({"command": "x"}), &form)
            .0,
        form,
        "TOOL-11"
    );
}

/// TOOL-8: failures printed densely, one per line or nearly (a type
/// checker's or a compiler's dozens of errors, a linter's hundreds of
/// findings), grow the history form's room however many lines the output
/// has, within `RuleLimits::bash_grow`: every failure line of a moderate
/// output stays, the last one always, and a large one keeps what fits.
/// Real outputs of tsc, mypy, javac, pytest and eslint.
#[test]
fn tool_8_densely_printed_failures_grow_the_room() {
    let c = Compressor::new();
    let cases = [
        (
            "tsc-plain.txt",
            include_str!("outputs/tsc-plain.txt"),
            r"error TS\d+:",
            70,
        ),
        (
            "mypy.txt",
            include_str!("outputs/mypy.txt"),
            r": error:|^Found \d+ errors",
            91,
        ),
        (
            "javac.txt",
            include_str!("outputs/javac.txt"),
            r": error:|^\d+ errors$",
            31,
        ),
        (
            "pytest-default.txt",
            include_str!("outputs/pytest-default.txt"),
            r"^FAILED |^E {3}|^=+ .*\d+ failed",
            28,
        ),
    ];
    for (name, output, shape, count) in cases {
        let (form, _) = c.compress_text("Bash", &json!({"command": "check"}), output);
        let failures = failure_lines(output, &regex::Regex::new(shape).unwrap());
        assert_eq!(failures.len(), count, "{name}");
        let kept = failures.iter().filter(|f| form.contains(f.as_str())).count();
        assert!(kept * 100 >= count * 95, "{name}: {kept} of {count} kept\n{form}");
        assert!(
            form.contains(failures[failures.len() - 1].as_str()),
            "{name}: the last failure"
        );
        assert!(form.len() <= output.len(), "{name}");
        assert_eq!(
            &c.compress_text("Bash", &json!({"command": "check"}), &form).0,
            &form,
            "TOOL-11: {name}"
        );
    }
    // 251 findings in 18 kB: the room stops growing at its bound, and the
    // findings kept are the first and the last ones, with the count.
    let eslint = include_str!("outputs/eslint-stylish.txt");
    let (form, _) = c.compress_text("Bash", &json!({"command": "npx eslint ."}), eslint);
    let findings = failure_lines(eslint, &regex::Regex::new(r"^\d+:\d+\s+error\s").unwrap());
    assert_eq!(findings.len(), 250);
    let kept = findings.iter().filter(|f| form.contains(f.as_str())).count();
    assert!((100..250).contains(&kept), "{kept} kept");
    assert!(form.contains(findings[0].as_str()) && form.contains(findings[249].as_str()));
    assert!(form.contains("✖ 250 problems (250 errors, 0 warnings)"), "{form}");
    let limits = strata_ctx_compress::RuleLimits::default();
    assert!(
        form.len() <= limits.bash_bytes + limits.bash_grow,
        "{} of {}",
        form.len(),
        eslint.len()
    );
}

/// The first `size / 2` and the last `size - size / 2` bytes of `output`
/// (on character boundaries): a plain head+tail cut of the same size as a
/// form, the baseline a form must beat.
fn head_and_tail(output: &str, size: usize) -> String {
    if size >= output.len() {
        return output.to_owned();
    }
    let mut head = size / 2;
    while !output.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = output.len() - (size - size / 2);
    while !output.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}{}", &output[..head], &output[tail..])
}

/// TOOL-8: real logs of go test, jest, make with gcc and cargo test
/// (generated by running each tool on a project with failing tests or
/// broken code, `outputs/`): the form keeps every failure line in the
/// tool's own shape, the last one too, in a fraction of the output, where
/// a head+tail cut of the same size keeps a fraction of them.
#[test]
fn tool_8_real_logs_keep_their_failures_where_a_head_and_tail_cut_does_not() {
    let cases = [
        (
            "go test -v",
            include_str!("outputs/go-test-verbose.txt"),
            r"^--- FAIL: |^FAIL\b",
            0.2,
        ),
        (
            "npx jest",
            include_str!("outputs/jest-default.txt"),
            r"^● |^FAIL |^Tests:.* failed|^(Expected|Received): ",
            0.25,
        ),
        (
            "make -k",
            include_str!("outputs/make-gcc-warnings.txt"),
            r": error: |: warning: |^make: \*\*\*",
            0.7,
        ),
        (
            "cargo test",
            include_str!("outputs/cargo-test-panics.txt"),
            r"^test \S+ \.\.\. FAILED$|^thread '.*' panicked at|^test result: FAILED|^error: test failed",
            0.2,
        ),
    ];
    for (command, output, shape, share) in cases {
        let log = RealLog::form(command, output, shape, share);
        assert!(log.failures >= 9, "{command}: {} failure lines", log.failures);
        assert!(
            log.by_cut * 4 <= log.failures * 3,
            "{command}: a head+tail cut keeps {} of {}",
            log.by_cut,
            log.failures
        );
    }
}

/// What the history form of a real log kept, against a head+tail cut of
/// the same size.
struct RealLog {
    /// The log's distinct failure lines.
    failures: usize,
    /// Those a head+tail cut of the form's size keeps.
    by_cut: usize,
    /// Whether the form is shorter than the log.
    cut: bool,
}

impl RealLog {
    /// The Bash form of `output`, run as `command`: it keeps every line
    /// that matches `shape`, the last one too, in at most `share` of the
    /// output's bytes.
    fn form(command: &str, output: &str, shape: &str, share: f64) -> RealLog {
        let shape = regex::Regex::new(shape).unwrap();
        let failures = failure_lines(output, &shape);
        let (form, _) = Compressor::new().compress_text("Bash", &json!({ "command": command }), output);
        assert_all_kept(&form, &failures, &form);
        let last = failures.last().unwrap();
        assert!(form.contains(last.as_str()), "{command}: the last failure {last}");
        assert!(
            (form.len() as f64) <= share * output.len() as f64,
            "{command}: {} of {} bytes",
            form.len(),
            output.len()
        );
        let cut = head_and_tail(output, form.len());
        RealLog {
            failures: failures.len(),
            by_cut: failures.iter().filter(|l| cut.contains(l.as_str())).count(),
            cut: form.len() < output.len(),
        }
    }
}

/// TOOL-8: `go test -v` prints `t.Log` lines of passing tests in the same
/// shape as the `t.Errorf` lines of failing ones: the form keeps the
/// messages of the tests that failed (the lines above each `--- FAIL:`)
/// and leaves out those of the tests that passed.
#[test]
fn tool_8_go_test_logs_of_passing_tests_are_noise() {
    let output = include_str!("outputs/go-test-verbose.txt");
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "go test -v ./..."}), output);
    let lines: Vec<&str> = output.lines().collect();
    let (mut failed, mut passed) = (0, 0);
    for pair in lines.windows(2) {
        if !pair[0].trim_start().starts_with("calc_test.go:") {
            continue;
        }
        if pair[1].starts_with("--- FAIL: ") {
            failed += 1;
            assert!(form.contains(pair[0].trim()), "lost {:?}\n{form}", pair[0]);
        } else if pair[1].starts_with("--- PASS: ") {
            passed += 1;
            assert!(!form.contains(pair[0].trim()), "kept {:?}\n{form}", pair[0]);
        }
    }
    assert!(failed >= 5 && passed >= 50, "{failed} failed, {passed} passed");
}

/// TOOL-8: Python 3.11's tracebacks mark each frame's expression with a
/// line of carets (PEP 657). A caret line says nothing without the code
/// line above it: the form keeps the project's frames, each with its code
/// line, and the exception, and no caret line.
#[test]
fn tool_8_python_position_markers_are_noise() {
    let frame = |file: &str, line: usize, code: &str| {
        format!(
            "  File \"{file}\", line {line}, in f{line}\n    {code}\n    {}\n",
            "^".repeat(code.len())
        )
    };
    let mut output = "Traceback (most recent call last):\n".to_owned();
    output += &frame("/work/app/run.py", 8, "main(config, verbose=True)");
    output += &frame("/work/app/app/worker.py", 51, "rows = fetch(conn, table)");
    for i in 0..40 {
        output += &frame(
            &format!("/usr/lib/python3.11/site-packages/sqlalchemy/engine/base{i}.py"),
            100 + i,
            "return meth(self, args, kwargs)",
        );
    }
    output += "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) no such table: users\n";
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "python run.py"}), &output);
    for kept in [
        "Traceback (most recent call last):",
        "File \"/work/app/app/worker.py\", line 51, in f51\n    rows = fetch(conn, table)\n",
        "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) no such table: users",
    ] {
        assert!(form.contains(kept), "lost {kept:?}\n{form}");
    }
    assert!(
        form.lines().all(|l| !l.trim().starts_with('^')),
        "a caret line without its code\n{form}"
    );
    assert_eq!(line_kind("    ~~~~~~^^^^^^^"), LineKind::Noise);
    assert_eq!(
        line_kind("   |         ^^^^ help: a local variable"),
        LineKind::Context
    );
}

/// TOOL-8: real logs of the test runners of Ruby (RSpec's documentation
/// format, Minitest's verbose one), PHP (PHPUnit's testdox), Elixir
/// (ExUnit's `--trace`), Perl (prove 3.44 with Test::More), Deno, Bun and
/// Mocha, each with two or three failing tests among some three hundred
/// passing ones (`outputs/`). Each prints a
/// failing test's name on a line with no failure word in it (`1) Calc adds
/// negative numbers`, `adds => ./deno_test.ts:4:6`; Mocha's over three
/// lines) above its message: the form keeps the name, the message (Node's
/// assertion below a blank line) and the runner's verdict, and none of the
/// passing tests.
#[test]
fn tool_8_test_runners_keep_the_name_and_message_of_each_failing_test() {
    let cases: [(&str, &str, &[&str], &str); 8] = [
        (
            "prove -lv t/",
            include_str!("outputs/prove-verbose.txt"),
            &[
                "#   Failed test 'half off'",
                "#   at t/10-discount.t line 5.",
                "#          got: '50'",
                "not ok 3 - half off",
                "# Looks like your test exited with 255 just after 1.",
                "Parse errors: No plan found in TAP output",
                "Result: FAIL",
            ],
            "ok 17 - one item of 17",
        ),
        (
            "rspec --format documentation",
            include_str!("outputs/rspec-doc.txt"),
            &[
                "1) Calc adds negative numbers",
                "expected: 3",
                "got: -3",
                "2) Calc divides by zero gracefully",
                "cannot divide 4 by zero",
                "# ./lib/calc.rb:4:in `div'",
                "3) Calc parses numbers",
                "303 examples, 3 failures",
                "rspec ./spec/calc_spec.rb:15 # Calc parses numbers",
            ],
            "adds 41 and 1",
        ),
        (
            "ruby test_calc.rb -v",
            include_str!("outputs/minitest-verbose.txt"),
            &[
                "TestCalc#test_negative = 0.00 s = F",
                "TestCalc#test_div = 0.00 s = E",
                "Expected: 3",
                "ZeroDivisionError: cannot divide 4 by zero",
                "302 runs, 301 assertions, 1 failures, 1 errors, 0 skips",
            ],
            "TestCalc#test_add_41 = ",
        ),
        (
            "phpunit --testdox tests",
            include_str!("outputs/phpunit-testdox.txt"),
            &[
                "✘ Total",
                "Failed asserting that 90.0 is identical to 100.0.",
                "✘ Remove",
                "InvalidArgumentException: no item ghost",
                "Tests: 302, Assertions: 301, Errors: 1, Failures: 1.",
            ],
            "Add with data set \"p41\"",
        ),
        (
            "mix test --trace",
            include_str!("outputs/mix-test-trace.txt"),
            &[
                "1) test adds negatives (ExTest)",
                "test/ex_test.exs:8",
                "left:  -3",
                "2) test fetches a missing key (ExTest)",
                "** (KeyError) key :b not found in: %{a: 1}",
                "(ex 0.1.0) lib/ex.ex:3: Ex.fetch!/2",
                "202 tests, 2 failures",
            ],
            "test adds 41 (",
        ),
        (
            "deno test",
            include_str!("outputs/deno-test.txt"),
            &[
                "adds \x1b[0m\x1b[38;5;245m=> ./deno_test.ts:4:6",
                "Values are not equal: -1 !== 3",
                "reads config \x1b[0m\x1b[38;5;245m=> ./deno_test.ts:5:6",
                "Cannot read properties of undefined (reading 'host')",
                "| 150 passed | 2 failed",
            ],
            "zero plus 41 ",
        ),
        (
            "bun test",
            include_str!("outputs/bun-test.txt"),
            &[
                "(fail) sum > adds",
                "Received: -1",
                "(fail) sum > parses",
                "TypeError: undefined is not an object (evaluating 'JSON.parse(s).items.length')",
                "Ran 152 tests across 1 file.",
            ],
            "zero plus 41",
        ),
        (
            "npx mocha",
            include_str!("outputs/mocha-spec.txt"),
            &[
                "1) Cart\n       #total()\n         applies no discount under 100:\n",
                "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n18 !== 20\n",
                "2) Cart\n       #find()\n         returns -1 when the item is absent:\n",
                "TypeError: Cannot read properties of undefined (reading 'price')",
                "at exports.find (src/cart.js:2:67)",
                "2 failing",
            ],
            "sums 41 items",
        ),
    ];
    let c = Compressor::new();
    for (command, output, kept, passing) in cases {
        let (form, _) = c.compress_text("Bash", &json!({ "command": command }), output);
        for line in kept {
            assert!(output.contains(line), "{command}: no {line:?} in the log");
            assert!(form.contains(line), "{command}: lost {line:?}\n{form}");
        }
        assert!(output.contains(passing), "{command}: no {passing:?} in the log");
        assert!(!form.contains(passing), "{command}: kept {passing:?}\n{form}");
        assert!(
            form.len() * 5 <= output.len(),
            "{command}: {} of {} bytes",
            form.len(),
            output.len()
        );
    }
}

/// TOOL-8: a linter's report of 160 findings keeps them, and the line it
/// closes on (pylint's rating above a blank line), not the blank line.
#[test]
fn tool_8_a_report_keeps_its_closing_line_above_trailing_blank_lines() {
    let output = include_str!("outputs/pylint.txt");
    assert!(output.ends_with("\n\n"));
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "pylint pkg"}), output);
    assert!(form.contains("Your code has been rated at 0.23/10"), "{form}");
    let last_finding = output.lines().rev().find(|l| l.starts_with("pkg/")).unwrap();
    assert!(form.contains(last_finding), "lost {last_finding:?}\n{form}");
}

/// TOOL-8: in chained Python tracebacks whose frames are long, the form
/// shows a frame's code line only under its frame, and the frame where
/// the first exception happened with its code.
#[test]
fn tool_8_a_frame_s_code_line_comes_only_with_its_frame() {
    let frame = |file: &str, line: usize, code: &str| {
        format!("  File \"{file}\", line {line}, in f{line}\n    {code}\n")
    };
    let mut output = "Traceback (most recent call last):\n".to_owned();
    output += &frame("/work/app/db.py", 86, "return self.cursor.execute(sql, params)");
    output += "sqlite3.OperationalError: no such table: users\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n";
    output += &frame("/work/app/run.py", 15, "result = login(user, password)");
    let deep = "/work/app/src/services/accounts/authentication/backends/database/adapters/sqlite";
    for i in 0..30 {
        output += &frame(
            &format!("{deep}/layer{i}.py"),
            10 + i,
            &format!("return step{i}()"),
        );
    }
    output += &frame("/work/app/errors.py", 12, "raise DatabaseError(str(e)) from e");
    output += "app.errors.DatabaseError: no such table: users\n";
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "python run.py"}), &output);
    let lines: Vec<&str> = form.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("    ") {
            assert!(
                i > 0 && lines[i - 1].trim_start().starts_with("File \""),
                "a code line without its frame: {line:?}\n{form}"
            );
        }
    }
    assert!(
        form.contains(
            "File \"/work/app/db.py\", line 86, in f86\n    return self.cursor.execute(sql, params)\n"
        ),
        "{form}"
    );
    assert!(
        form.contains("app.errors.DatabaseError: no such table: users"),
        "{form}"
    );
}

/// TOOL-8: a real Rust panic with `RUST_BACKTRACE=1`: the form keeps the
/// panic and its message, the project's frames each with the function
/// above its location, and none of the standard library's frames.
#[test]
fn tool_8_a_rust_backtrace_keeps_the_project_s_frames_with_their_functions() {
    let output = include_str!("outputs/rust-panic-backtrace.txt");
    let (form, _) =
        Compressor::new().compress_text("Bash", &json!({"command": "RUST_BACKTRACE=1 cargo run"}), output);
    for kept in [
        "thread 'main' (4242) panicked at src/main.rs:3:51:\ncalled `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }\n",
        "   4: app::load\n             at ./src/main.rs:3:51\n",
        "   5: app::main\n             at ./src/main.rs:9:20\n",
    ] {
        assert!(form.contains(kept), "lost {kept:?}\n{form}");
    }
    assert!(
        !form.contains("core::result::unwrap_failed") && !form.contains("/rustc/"),
        "{form}"
    );
    assert_eq!(
        line_kind("   2: alloc::boxed::Box<F,A>::call_once"),
        LineKind::Noise
    );
}

/// TOOL-8: `pytest -v` lists every test with its verdict, then repeats
/// each failed one with its message in the closing summary, below the
/// failure's details. When the room runs short, the listing's `FAILED`
/// lines give way first: every summary line stays, and the details take
/// the room the listing had.
#[test]
fn tool_8_a_listing_of_tests_gives_way_to_the_details_of_its_failures() {
    let output = include_str!("outputs/pytest-verbose-many.txt");
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "pytest -v"}), output);
    let summary = failure_lines(output, &regex::Regex::new(r"^FAILED tests/\S+ - ").unwrap());
    assert_eq!(summary.len(), 50);
    assert_all_kept(&form, &summary, &form);
    let listed = |text: &str| text.lines().filter(|l| l.contains(" FAILED  ")).count();
    assert_eq!(listed(output), 50);
    let details = form.lines().filter(|l| l.starts_with("E ")).count();
    assert!(
        listed(&form) * 4 <= 50,
        "{} listing lines kept\n{form}",
        listed(&form)
    );
    assert!(details > 2 * listed(&form), "{details} detail lines\n{form}");
    assert!(form.contains("===== 50 failed, 100 passed in"), "{form}");
    assert!(
        form.len() * 3 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
}

/// TOOL-8: a log that says the same thing at every retry, with a new time
/// and attempt each time (`… ERROR worker: queue connection failed
/// (attempt 7): …`, 260 times between other lines), keeps the failure it
/// says once in its middle (`CRITICAL … job 131 failed`, its traceback's
/// frames and exception) before the retries: they take what room is left
/// (Python's `logging`, `outputs/`).
#[test]
fn tool_8_a_failure_said_once_stays_before_a_message_said_at_every_retry() {
    let output = include_str!("outputs/python-logging-retries.txt");
    let c = Compressor::new();
    let (form, _) = c.compress_text("Bash", &json!({"command": "python worker.py"}), output);
    for line in [
        "CRITICAL worker: job 131 failed: bad quantity None for SKU-0131",
        "  File \"/home/dev/shop/worker.py\", line 9, in handle",
        "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'",
        "1 job failed, see the log above",
    ] {
        assert!(form.contains(line), "lost {line:?}\n{form}");
    }
    let retries = |text: &str| text.matches("queue connection failed").count();
    assert_eq!(retries(output), 260);
    assert!(retries(&form) >= 3, "{form}");
    assert!(
        form.len() * 4 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
    // TOOL-11: the form is its own form.
    assert_eq!(
        c.compress_text("Bash", &json!({"command": "python worker.py"}), &form)
            .0,
        form
    );
    // #30.8: and what the model sees mid-round of it, cut to a quarter.
    let (view, _) = shell_view(output, 12_000);
    for line in [
        "CRITICAL worker: job 131 failed: bad quantity None for SKU-0131",
        "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'",
    ] {
        assert!(view.contains(line), "lost {line:?}\n{view}");
    }
}

/// TOOL-8: ESLint's default format names a file once, above its findings
/// (`  2:10  error  …` says where in a file, not in which). Every finding
/// kept comes with its file's name.
#[test]
fn tool_8_findings_keep_the_name_of_the_file_they_are_in() {
    let output = include_str!("outputs/eslint-many-files.txt");
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "npx eslint src"}), output);
    let kept = assert_findings_under_their_files(output, &form);
    assert!(kept > 100, "{kept} findings kept\n{form}");
    assert!(form.contains("✖ 312 problems (312 errors, 0 warnings)"), "{form}");
    // What the model sees mid-round too.
    let (view, _) = shell_view(output, 4_000);
    assert!(assert_findings_under_their_files(output, &view) > 20, "{view}");
    assert!(view.contains("\n/home/dev/shop/src/util.js\n"), "{view}");
}

/// Asserts that each ESLint finding `text` shows comes with the name of
/// the file it is in, in `output`; returns how many it shows, fewer than
/// `output` has.
fn assert_findings_under_their_files(output: &str, text: &str) -> usize {
    let finding = regex::Regex::new(r"^\s+\d+:\d+\s+error\s").unwrap();
    // The file each finding of the output is in.
    let mut file_of = std::collections::HashMap::new();
    let mut file = "";
    for line in output.lines() {
        if line.starts_with('/') {
            file = line;
        } else if finding.is_match(line) {
            file_of.insert(line, file);
        }
    }
    let kept: Vec<&str> = text.lines().filter(|l| finding.is_match(l)).collect();
    assert!(kept.len() < file_of.len(), "the output is longer than the room");
    for line in &kept {
        let file = file_of[line];
        assert!(text.lines().any(|l| l == file), "{line:?} without {file}\n{text}");
    }
    kept.len()
}

/// What the model sees mid-round of a shell's `output` in a view of
/// `max_bytes` (and 2,000 lines), and the notice: the view is within its
/// bytes.
fn shell_view(output: &str, max_bytes: usize) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let cut = strata_ctx_compress::Truncator::builder(dir.path())
        .limits(strata_ctx_compress::Limits::new(2_000, max_bytes))
        .build()
        .truncate("bash", output.as_bytes());
    let view = cut.result.data["output"].as_str().unwrap().to_owned();
    assert!(view.len() <= max_bytes, "{} bytes", view.len());
    (view, cut.result.text.unwrap_or_default())
}

/// #30.8, TOOL-8: what the model sees mid-round of a long failing run
/// spends its room on the failures, not on the passing tests at its
/// start: every closing summary line of a `pytest -v` run with 50
/// failures is in a view of 8,000 bytes.
#[test]
fn tool_8_a_failing_run_s_view_spends_its_room_on_its_failures() {
    let output = include_str!("outputs/pytest-verbose-many.txt");
    let (view, _) = shell_view(output, 8_000);
    let view = view.as_str();
    let summary = failure_lines(output, &regex::Regex::new(r"^FAILED tests/\S+ - ").unwrap());
    assert_all_kept(view, &summary, view);
    assert!(view.contains("===== 50 failed, 100 passed in"), "{view}");
    // The head still opens it.
    assert!(view.starts_with("============================= test session starts"));

    // An output with no diagnostic line gives the head the room.
    let plain: String = (0..1_000).map(|i| format!("line {i}\n")).collect();
    let (view, text) = shell_view(&plain, 8_000);
    assert!(text.starts_with("Found 1000 lines (showing the first "), "{text}");
    // Head and tail fill the view but for its markers (with room kept
    // for diagnostic lines, 7,150 bytes).
    assert!(view.len() > 7_800 && view.len() <= 8_000, "{} bytes", view.len());
}

/// #30.8, TOOL-8: a failing jest run prints every passing test before
/// its failures: the view's head stops a few lines into that listing, and
/// the room goes to the failures' details at the end, each `●` heading
/// with its expected and received values.
#[test]
fn tool_8_a_view_s_head_stops_in_a_listing_of_passing_tests() {
    let output = include_str!("outputs/jest-verbose-failing.txt");
    let (view, _) = shell_view(output, 4_000);
    let view = view.as_str();
    let headings = failure_lines(output, &regex::Regex::new(r"^● ").unwrap());
    assert_eq!(headings.len(), 4);
    assert_all_kept(view, &headings, view);
    for detail in [
        "Expected: 0.3",
        "Received: 0.30000000000000004",
        "Tests:       4 failed, 200 passed, 204 total",
    ] {
        assert!(view.contains(detail), "{detail}\n{view}");
    }
    assert!(view.matches('✓').count() <= 3, "{view}");
    assert!(view.starts_with("FAIL test/math.test.js\n  math\n"), "{view}");
}

/// TOOL-8: more real logs (`outputs/`, each tool run on a small project
/// with failing tests or broken code): Maven's Surefire report and its
/// compiler errors, a Java exception with its cause under 120 log lines, a
/// Node crash and a Python traceback under the lines a script printed
/// first, unittest's verbose listing, pytest's `--tb=short` (with the title of each failed test's report), node:test's
/// TAP report under `pnpm test`. The form
/// keeps every failure line as the tool prints it, the last one, in at
/// most `share` of the output; where a head+tail cut of the same size
/// keeps some of them, the form keeps more.
#[test]
fn tool_8_real_logs_of_java_node_and_python_keep_their_failures() {
    let cases = [
        (
            "mvn -B test",
            include_str!("outputs/maven-test.txt"),
            r"<<< (?:FAILURE|ERROR)!|^\[ERROR\]   \w+\.\w+:\d+|^\[ERROR\] Tests run:|^\[INFO\] BUILD FAILURE|^[\w.]+(?:Exception|Error): ",
            0.6,
        ),
        (
            "mvn -B compile",
            include_str!("outputs/maven-compile.txt"),
            r"^\[ERROR\] /\S+\.java:\[\d+,\d+\]|COMPILATION ERROR|BUILD FAILURE",
            1.0,
        ),
        (
            "java -cp out Crash",
            include_str!("outputs/java-exception.txt"),
            r"^Exception in thread|^Caused by: |^\s+at Crash\.",
            0.2,
        ),
        (
            "node crash.js",
            include_str!("outputs/node-crash.txt"),
            r"^\w*Error: |^\S+\.js:\d+$|^\s+at \w+ \(",
            0.2,
        ),
        (
            "python script_tb.py",
            include_str!("outputs/python-traceback.txt"),
            r"^Traceback|^\w+Error: |^\s+File .*calc\.py",
            0.1,
        ),
        (
            "python -m unittest -v tests.test_unit",
            include_str!("outputs/unittest-v.txt"),
            r"\.\.\. (?:FAIL|ERROR)$|^(?:FAIL|ERROR): |^\w+Error: |^FAILED \(",
            0.25,
        ),
        (
            "pytest --tb=short",
            include_str!("outputs/pytest-tbshort.txt"),
            r"^(?:FAILED|ERROR) |^E   |\d+ failed|^_{3,} test_\S+ _{3,}$",
            0.7,
        ),
        (
            "pnpm test",
            include_str!("outputs/node-test-tap.txt"),
            r"^not ok |^  error: |^  location: |^    parseQty |^# fail [1-9]|ELIFECYCLE",
            0.3,
        ),
    ];
    for (command, output, shape, share) in cases {
        let log = RealLog::form(command, output, shape, share);
        assert!(log.failures >= 2, "{command}: {} failure lines", log.failures);
        if log.cut {
            assert!(
                log.by_cut < log.failures,
                "{command}: a head+tail cut keeps all {}",
                log.by_cut
            );
        }
    }
}

/// TOOL-8: pytest's `--tb=short` names each failure's place in a frame
/// above its code line (`pkg/calc.py:8: in div`, `    return a / b`,
/// then `E   ZeroDivisionError: …`): the form keeps the frame of every
/// failing test's error.
#[test]
fn tool_8_a_short_traceback_keeps_the_frame_of_each_failure() {
    let output = include_str!("outputs/pytest-tbshort.txt");
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "pytest --tb=short"}), output);
    for frame in [
        "pkg/calc.py:8: in div",
        "pkg/calc.py:11: in parse",
        "pkg/calc.py:14: in mean",
        "pkg/calc.py:17: in name_of",
        "tests/test_calc.py:377: in test_add_wrong",
        "pkg/calc.py:30: in get",
        "tests/test_calc.py:388: in test_list_eq",
    ] {
        assert!(form.contains(frame), "{frame} in\n{form}");
    }
    // The test's own frame above a frame in the code it called is not a
    // failure's place.
    assert!(
        !form.contains("tests/test_calc.py:365: in test_div_zero"),
        "{form}"
    );
}

/// TOOL-8: Node.js names the place of an uncaught exception above the code
/// that threw (`/app/crash.js:2`, `function load(cfg) { … }`, a caret):
/// the form keeps the code line with the place, as it keeps a Python
/// frame's.
#[test]
fn tool_8_a_node_crash_keeps_the_code_that_threw() {
    let output = include_str!("outputs/node-crash.txt");
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "node crash.js"}), output);
    assert!(
        form.contains("/home/dev/app/node_crash.js:2\nfunction load(cfg) { return cfg.db.host; }\n"),
        "{form}"
    );
}

/// TOOL-8: what a failure's report says under it stays with it: the
/// module that required one Node could not find (the first of its
/// `Require stack:`), the code ExUnit asserted beside its operands, the
/// symbol javac could not find, the line ruff quotes, and GHC's hint
/// under its message.
#[test]
fn tool_8_what_a_failure_names_under_it_stays() {
    let c = Compressor::new();
    let case = |name: &str| {
        cases()
            .into_iter()
            .find(|c| c.name == name)
            .map(|c| c.output)
            .unwrap_or_default()
    };
    let (form, _) = c.compress_text(
        "Bash",
        &json!({"command": "node server.js"}),
        &case("node, a module not found"),
    );
    assert!(form.contains("\n- /app/server.js\n"), "{form}");
    let (form, _) = c.compress_text("Bash", &json!({"command": "mix test"}), &case("ExUnit assertion"));
    for line in ["code:  assert Cart.total(cart) == 90", "left:  100", "right: 90"] {
        assert!(form.contains(line), "lost {line:?}\n{form}");
    }
    // javac's symbol and where it looked, under the code it quotes.
    let (form, _) = c.compress_text(
        "Bash",
        &json!({"command": "./gradlew build"}),
        &case("javac under gradle"),
    );
    for line in ["  symbol:   class Voucher", "  location: package com.shop"] {
        assert!(form.contains(line), "lost {line:?}\n{form}");
    }
    // GHC's hint under its indented message, as deep.
    let ghc = strata_ctx_testkit::documented_outputs()
        .into_iter()
        .find(|o| o.name == "ghc")
        .map(|o| o.output)
        .unwrap_or_default();
    let (form, _) = c.compress_text("Bash", &json!({"command": "cabal build"}), &ghc);
    for line in [
        "    Variable not in scope: totl :: Int\n    Suggested fix: Perhaps use ‘total’ (line 20)\n",
        "    • Couldn't match expected type ‘Int’ with actual type ‘String’\n    • In the first argument of ‘f’, namely ‘\"x\"’\n",
    ] {
        assert!(form.contains(line), "lost {line:?}\n{form}");
    }
    // ruff's quoted line under its bare gutter, for the first finding too.
    let (form, _) = c.compress_text("Bash", &json!({"command": "ruff check"}), &case("ruff check"));
    assert!(form.contains("\n1 | import os\n"), "{form}");
}

/// TOOL-8: doctest's values stand under their headings (`Expected:` over
/// `    9.0`, `Got:` over `    10.0`): what the example printed stays
/// with the failure, under pytest (`tests/data/documented-outputs/`) as
/// under `python -m doctest`.
#[test]
fn tool_8_doctest_keeps_what_was_expected_and_what_came() {
    let c = Compressor::new();
    let pytest = strata_ctx_testkit::documented_outputs()
        .into_iter()
        .find(|o| o.name == "doctest")
        .map(|o| o.output)
        .unwrap_or_default();
    // The failure in the middle of a verbose run, far from its end.
    let plain = lines(80, |i| format!("Trying:\n    f({i})\nExpecting:\n    {i}\nok"))
        + "**********************************************************************\n"
        + "File \"/app/shop/cart.py\", line 15, in shop.cart.Cart.total\nFailed example:\n    cart.total()\n"
        + "Expected:\n    9.0\nGot:\n    10.0\n"
        + &lines(80, |i| format!("Trying:\n    g({i})\nExpecting:\n    {i}\nok"))
        + "**********************************************************************\n"
        + "1 items had failures:\n   1 of 161 in shop.cart.Cart.total\n***Test Failed*** 1 failures.\n";
    for (command, output) in [
        ("pytest --doctest-modules", pytest),
        ("python -m doctest -v", plain),
    ] {
        let (form, _) = c.compress_text("Bash", &json!({ "command": command }), &output);
        assert!(
            form.contains("\nExpected:\n    9.0\nGot:\n    10.0\n"),
            "{command}\n{form}"
        );
        assert!(
            form.len() * 3 < output.len(),
            "{command}: {} of {}",
            form.len(),
            output.len()
        );
    }
}

/// TOOL-8: a code frame's label is an error's message only under the
/// error: forty warnings' `^^ help: …` labels stay out of a build's form
/// while its error keeps `^^^ expected `u32`, found `&str``.
#[test]
fn tool_8_only_an_error_s_label_is_its_message() {
    let mut log = String::from("   Compiling app v0.1.0 (/home/dev/app)\n");
    for i in 0..40 {
        log.push_str(&format!(
            "warning: unused variable: `x{i}`\n --> src/m{i}.rs:3:9\n  |\n3 |     let x{i} = 1;\n  |         ^^ help: if this is intentional, prefix it with an underscore: `_x{i}`\n  |\n  = note: `#[warn(unused_variables)]` on by default\n\n"
        ));
    }
    log.push_str("error[E0308]: mismatched types\n --> src/main.rs:5:18\n  |\n5 |     let x: u32 = \"a\";\n  |            ---   ^^^ expected `u32`, found `&str`\n  |            |\n  |            expected due to this\n\nerror: could not compile `app` (bin \"app\") due to 1 previous error; 40 warnings emitted\n");
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "cargo build"}), &log);
    assert!(form.contains("^^^ expected `u32`, found `&str`"), "{form}");
    assert_eq!(form.matches("help: if this is intentional").count(), 0, "{form}");
}

/// TOOL-8: webpack's ts-loader puts each TypeScript error's place over
/// its message; a message said again at another place (`TS2322: Type
/// 'string' is not assignable to type 'number'.` in six files) stays
/// under each place, so that every place says what is wrong there.
#[test]
fn tool_8_ts_loader_s_messages_stay_under_their_places() {
    let mut output = lines(200, |i| {
        format!("  ./src/ui/m{i}.ts 412 bytes [built] [code generated]")
    });
    for i in 0..6 {
        output += &format!(
            "\nERROR in /app/src/api/m{i}.ts\n./src/api/m{i}.ts 8:8-11\n[tsl] ERROR in /app/src/api/m{i}.ts(8,9)\n      TS2322: Type 'string' is not assignable to type 'number'.\n @ ./src/index.ts {i}:0-31 25:20-22\n"
        );
    }
    output += "\nwebpack 5.113.0 compiled with 6 errors in 3351 ms\n";
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": "npx webpack"}), &output);
    for i in 0..6 {
        let place = format!("[tsl] ERROR in /app/src/api/m{i}.ts(8,9)\n      TS2322: Type 'string' is not assignable to type 'number'.");
        assert!(form.contains(&place), "m{i}: {form}");
    }
    assert!(
        form.len() * 3 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
}

/// TOOL-8: a line of Yarn (2 and later) is what its message code says, the
/// level a terminal shows only by the colour of its `➤`: an error's code
/// makes a failure of the message and of each line of the lockfile change
/// an immutable install refuses, a warning's a warning, an informational
/// one a plain line whatever its words; the generic `YN0000` is what its
/// words say, and its closing `Failed with errors` a verdict.
#[test]
fn tool_8_yarn_s_message_codes_say_their_level() {
    for (line, kind) in [
        (
            "➤ YN0028: │ The lockfile would have been modified by this install, which is explicitly forbidden.",
            LineKind::Failure,
        ),
        ("➤ YN0028: │ +  version: 7.0.0", LineKind::Failure),
        ("➤ YN0082: │ left-pad@npm:^9.9.9: No candidates found", LineKind::Failure),
        // As a terminal prints it: a link on the code, the level's colour on `➤`.
        (
            "\x1b[91m➤\x1b[39m \x1b]8;;https://yarnpkg.com/advanced/error-codes#yn0082---resolution_failed\x07YN0082\x1b]8;;\x07: │ \x1b[91mleft-pad\x1b[39m\x1b[36m@\x1b[39m\x1b[36mnpm:^9.9.9\x1b[39m: No candidates found",
            LineKind::Failure,
        ),
        (
            "➤ YN0002: │ store@workspace:. doesn't provide react (p7f00ae), requested by react-dom.",
            LineKind::Warning,
        ),
        (
            "➤ YN0007: │ @acme/native@workspace:packages/native must be built because it never has been before or the last one failed",
            LineKind::Plain,
        ),
        ("➤ YN0000: │ @@ -4,8 +4,14 @@", LineKind::Plain),
        ("➤ YN0000: · Failed with errors in 0s 52ms", LineKind::Failure),
    ] {
        assert_eq!(line_kind(line), kind, "{line}");
    }
    assert!(is_verdict("➤ YN0000: · Failed with errors in 0s 52ms"));
    assert!(is_verdict("Failed with errors in 1s 540ms"));
    assert!(is_verdict(
        "The command failed in workspace @acme/api@workspace:packages/api with exit code 2"
    ));
    assert!(!is_verdict(
        "➤ YN0082: │ left-pad@npm:^9.9.9: No candidates found"
    ));
}

/// TOOL-8: Meson's table of counts under a test run is a summary, a count
/// of failures when it counts some (`Fail:               2`), never a
/// failure by the word `Fail` in a row that counts none (`Expected Fail:
/// 0`), trailing spaces and all.
#[test]
fn tool_8_meson_s_table_of_counts_is_a_summary() {
    for (line, kind) in [
        ("Ok:                 7   ", LineKind::Summary),
        ("Expected Fail:      0   ", LineKind::Summary),
        ("Fail:               0", LineKind::Summary),
        ("Fail:               2   ", LineKind::Failure),
        ("Timeout:            0   ", LineKind::Summary),
    ] {
        assert_eq!(line_kind(line), kind, "{line:?}");
    }
    assert!(is_count("Fail:               2   "));
}

/// TOOL-8: a checker's finding after its place, line and column is a
/// failure though its message quotes code (staticcheck's `should use
/// fmt.Errorf(...) instead of errors.New(fmt.Sprintf(...))`, which had read
/// as a call of an error helper in code); a search's match of such code
/// (`rg --vimgrep`) stays code.
#[test]
fn tool_8_a_finding_that_quotes_code_is_a_failure() {
    assert_eq!(
        line_kind(
            "cart/cart.go:29:14: should use fmt.Errorf(...) instead of errors.New(fmt.Sprintf(...)) (S1028)"
        ),
        LineKind::Failure
    );
    assert_eq!(
        line_kind("cart/cart.go:29:14:\treturn nil, fmt.Errorf(\"no item %s\", sku)"),
        LineKind::Plain
    );
    assert_eq!(
        line_kind("\treturn nil, fmt.Errorf(\"no item %s\", sku)"),
        LineKind::Plain
    );
}

/// TOOL-8: glibc's words where it aborts a program that corrupted its
/// memory are failures; a line that only looks like a call is not.
#[test]
fn tool_8_glibc_s_abort_messages_are_failures() {
    for line in [
        "free(): double free detected in tcache 2",
        "double free or corruption (out)",
        "munmap_chunk(): invalid pointer",
        "malloc(): corrupted top size",
        "corrupted size vs. prev_size",
        "*** stack smashing detected ***: terminated",
        "*** buffer overflow detected ***: terminated",
    ] {
        assert_eq!(line_kind(line), LineKind::Failure, "{line}");
    }
    assert_eq!(line_kind("printf(): prints a line"), LineKind::Plain);
}

/// TOOL-8: a checker's count of its diagnostics (ty's `Found 90
/// diagnostics`) is a count, as ruff's `Found 3 errors.` is.
#[test]
fn tool_8_a_count_of_diagnostics_is_a_count() {
    assert!(is_count("Found 90 diagnostics"));
    assert!(is_count("Found 1 diagnostic"));
    assert_eq!(line_kind("Found 90 diagnostics"), LineKind::Summary);
    assert!(!is_count("diagnostics: 3 files"));
}
