//! History forms of what real toolchains printed (TOOL-8): the workspace's
//! `tests/data/captured-outputs/`, captured from runs of pytest, Hypothesis, unittest, Django,
//! mypy, ty, ruff, pylint, flake8, pyright, bandit, pip, pre-commit, tox, tsc, ESLint, oxlint, Biome, Prettier, Jest,
//! Mocha, AVA, Vitest, Vite, Node's test runner, Go, GCC, clang, CMake, g++,
//! Cargo, cargo-nextest, Clippy, javac, Java, Maven, Gradle, scalac, GHC, clang-tidy, psql, R's testthat, minitest, RSpec, PHP, PHPUnit, ExUnit, prove, bash,
//! ShellCheck, erlc, AddressSanitizer, Valgrind, pnpm, Turborepo, GoogleTest, CTest, Catch2, bats, uv, Jasmine, cucumber-js, behave, Robot Framework, bun, busted, ninja, uvicorn, Alembic, the JUnit Platform console, pandas, gunicorn, Celery, React Testing Library, npm ls, node-gyp, JUnit 4, Mono, OCaml, the linker, UBSan and
//! Pydantic, Cython under pip, uv and Poetry, a build script's C compiler under Cargo, gdb, Autoconf, pdflatex, latexmk, PHP_CodeSniffer, dbt, Yarn, Lerna, Meson, staticcheck and glibc on sample projects with planted failures, and the test suites of Zod (Vitest),
//! marshmallow, more-itertools, pflag, semver, validator.js (Mocha), commander (node:test) and
//! Day.js (Jest 22), and of sympy (its own runner), scikit-learn (numpy's
//! assertions), xarray, Sphinx and Django (its own `runtests.py`) with a
//! bug planted in each, Deno's and Zig's test runners and compilers, Playwright,
//! Next.js and RuboCop, cppcheck, clang-format, yamllint, git, Python's `logging` and
//! java.util.logging, their failure lines marked
//! (`strata_ctx_testkit::MarkedOutput`). Unlike the documented outputs, none
//! was written by hand: they hold what each tool really prints around its
//! failures (colours, backtraces, template instantiations, TAP blocks).

use serde_json::json;
use strata_ctx_compress::{last_failure, line_kind, without_colours, Compressor, LineKind};
use strata_ctx_testkit::{captured_outputs, MarkedOutput};
use strata_ctx_tools::ShellOutput;

use crate::documented::head_and_tail;

/// The captured output named `name`.
fn captured(name: &str) -> MarkedOutput {
    captured_outputs()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no captured output {name}"))
}

/// The captured output named `name` and its history form, as a Bash
/// result of its command.
fn captured_form(name: &str) -> (MarkedOutput, String) {
    let case = captured(name);
    let (form, _) = Compressor::new().compress_text("Bash", &json!({"command": case.command}), &case.output);
    (case, form)
}

/// Asserts that `form` holds each of the failure lines of `case`.
fn assert_keeps_every_failure(case: &MarkedOutput, form: &str) {
    for failure in &case.failures {
        assert!(
            form.contains(failure.as_str()),
            "{}: lost {failure}\n{form}",
            case.name
        );
    }
}

/// `text` as printed, without its colours: what a line says.
fn uncoloured(text: &str) -> String {
    without_colours(text).into_owned()
}

/// TOOL-8, TOOL-11: on real outputs, every failure line survives and the
/// last one always, in a form no larger than the output that condensing
/// again leaves as it is; over the outputs long enough to be cut (2,000
/// bytes and more) the forms are under a third of the outputs, and a
/// head+tail cut of each form's size keeps fewer failure lines and loses
/// the last one of several outputs.
#[test]
fn tool_8_captured_toolchains_keep_every_failure_and_the_last() {
    let c = Compressor::new();
    let cases = captured_outputs();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let (mut raw, mut kept) = (0, 0);
    let (mut failures, mut cut, mut last_cut) = (0, 0, 0);
    for case in &cases {
        let args = json!({"command": case.command});
        let (form, _) = c.compress_text("Bash", &args, &case.output);
        // Colours are not part of what a line says.
        let plain_form = uncoloured(&form);
        assert!(
            plain_form.contains(&uncoloured(&case.last)),
            "{}: lost the last failure {:?}\n{form}",
            case.name,
            case.last
        );
        for failure in &case.failures {
            assert!(
                plain_form.contains(&uncoloured(failure)),
                "{}: lost {failure:?}\n{form}",
                case.name
            );
        }
        assert!(form.len() <= case.output.len(), "{}", case.name);
        assert_eq!(c.compress_text("Bash", &args, &form).0, form, "{}", case.name);
        if case.output.len() >= 2_000 {
            raw += case.output.len();
            kept += form.len();
        }
        let plain = uncoloured(&head_and_tail(&case.output, form.len()));
        failures += case.failures.len();
        cut += case
            .failures
            .iter()
            .filter(|f| plain.contains(&uncoloured(f)))
            .count();
        last_cut += usize::from(plain.contains(&uncoloured(&case.last)));
    }
    assert!(kept * 3 < raw, "{kept} of {raw} bytes");
    assert!(
        cut * 5 < failures * 4,
        "a head+tail cut keeps {cut} of {failures} failure lines"
    );
    assert!(
        last_cut + 3 <= cases.len(),
        "a head+tail cut keeps the last failure of {last_cut} of {} outputs",
        cases.len()
    );
}

/// TOOL-8, TOOL-11: the same outputs as a tool that runs several
/// processes prints them, each line under its process's name (Docker
/// Compose's `api-1  | `, concurrently's `[0] ` and `[api] `, Yarn's `[@shop/api]: `,
/// npm-run-all's `[test:unit] `, Lerna's `@shop/api: `, Foreman's
/// `10:00:01 web.1  | `; under the last six, 2,516 to 2,545 of 3,622
/// failure lines were kept before), or as `gh run view --log` prints a CI job's
/// log (its job, step and time before each line): every failure line and
/// the last are kept, each under its name, in a form that condensing
/// again leaves as it is. Before the names were left out of what a line
/// says, the messages indented under a failure were found under none.
#[test]
fn tool_8_captured_outputs_under_a_process_s_name_keep_every_failure() {
    let c = Compressor::new();
    for name in [
        "api-1  | ",
        "test (ubuntu-latest)\tRun tests\t2025-03-01T10:00:00.1234567Z ",
        // concurrently, Yarn's `workspaces foreach`, npm-run-all, Lerna's
        // `--stream`, Foreman.
        "[0] ",
        "[api] ",
        "[@shop/api]: ",
        "[test:unit] ",
        "@shop/api: ",
        "10:00:01 web.1  | ",
    ] {
        let named = |line: &str| format!("{name}{line}");
        for case in captured_outputs() {
            let output: String = case.output.lines().map(|l| named(l) + "\n").collect();
            let args = json!({"command": case.command});
            let (form, _) = c.compress_text("Bash", &args, &output);
            let plain_form = uncoloured(&form);
            for failure in case.failures.iter().chain([&case.last]) {
                // The line as printed, its indentation and all.
                let printed = case.output.lines().filter(|l| l.trim() == failure);
                assert!(
                    printed.map(named).any(|l| plain_form.contains(&uncoloured(&l))),
                    "{} under {name:?}: lost {failure:?}\n{form}",
                    case.name
                );
            }
            assert!(form.len() <= output.len(), "{}", case.name);
            assert_eq!(c.compress_text("Bash", &args, &form).0, form, "{}", case.name);
        }
    }
}

/// TOOL-8, TOOL-11: the same outputs as pip nests the output of a build it
/// ran in its report, six spaces in under `╰─> [N lines of output]`
/// (a compiler's, a test runner's inside a build backend): the last
/// failure line of each is kept but where pip's own failures leave no
/// room, and all but one in a hundred of the failure lines, each with the
/// indent pip printed it with, in a form that condensing again leaves as
/// it is. Read with the indent, a located message of a file no frame's
/// pattern names (`      a.pyx:7:15: undeclared name …`) was no
/// failure, and lines that stand under a failure by their indentation
/// stood under nothing: 3,106 of the 3,635 failure lines of 242 outputs
/// were kept and the last of 231 (now 3,610 and 240).
#[test]
fn tool_8_captured_outputs_nested_in_pip_s_report_keep_their_failures() {
    let c = Compressor::new();
    let args = json!({"command": "pip install ."});
    let cases = captured_outputs();
    let (mut failures, mut kept, mut last_kept) = (0, 0, 0);
    for case in &cases {
        let nested: String = case
            .output
            .lines()
            .map(|l| match l.trim().is_empty() {
                true => "\n".to_owned(),
                false => format!("      {l}\n"),
            })
            .collect();
        let output = format!(
            "Processing /home/dev/pkg\n  Building wheel for pkg (pyproject.toml) ... error\n  \
             error: subprocess-exited-with-error\n  \n  × Building wheel for pkg (pyproject.toml) \
             did not run successfully.\n  │ exit code: 1\n  ╰─> [{} lines of output]\n{nested}      \
             [end of output]\n  \n  note: This error originates from a subprocess, and is likely \
             not a problem with pip.\n  ERROR: Failed building wheel for pkg\nFailed to build pkg\n\
             ERROR: Could not build wheels for pkg\n",
            case.output.lines().count()
        );
        let (form, _) = c.compress_text("Bash", &args, &output);
        let plain_form = uncoloured(&form);
        let indented = |f: &str| plain_form.contains(&uncoloured(&format!("      {f}")));
        failures += case.failures.len();
        kept += case
            .failures
            .iter()
            .filter(|f| {
                // The line as printed, its own indentation and all.
                case.output.lines().any(|l| l.trim() == f.as_str() && indented(l))
            })
            .count();
        last_kept += usize::from(plain_form.contains(&uncoloured(&case.last)));
        assert!(form.len() <= output.len(), "{}", case.name);
        assert_eq!(c.compress_text("Bash", &args, &form).0, form, "{}", case.name);
    }
    assert!(
        kept * 100 >= failures * 99,
        "{kept} of {failures} failure lines kept"
    );
    assert!(
        last_kept + 3 >= cases.len(),
        "the last failure of {last_kept} of {} outputs kept",
        cases.len()
    );
}

/// TOOL-8, TOOL-11: an output as a terminal prints it has the form of the
/// same output as a pipe does, under the shell's envelope too: lines that
/// end in `\r\n` (Windows, a terminal: Codex CLI's `exec_command` under a
/// `tty`), lines a progress bar drew over before (`  3%|#  | 3/100\r`), and
/// lines npm's spinner drew before, moving back to the first column
/// (`⠙\x1b[1G\x1b[0K`), and a live status line erased by moving the
/// cursor up over it (Jest's `RUNS` line, `\r\x1b[K\r\x1b[1A\r\x1b[K`).
/// Before, the line ends hid 66 failure lines of 16 captures from the
/// patterns that end at a line's end, and took room; a progress bar's
/// drawings made the line after them noise.
#[test]
fn tool_8_captured_outputs_printed_to_a_terminal_keep_their_form() {
    let c = Compressor::new();
    for case in captured_outputs() {
        let args = json!({"command": case.command});
        let (form, _) = c.compress_text("Bash", &args, &case.output);
        let crlf = case.output.replace('\n', "\r\n");
        let redrawn: String = case
            .output
            .split_inclusive('\n')
            .map(|l| match uncoloured(l).trim().is_empty() {
                true => l.to_owned(),
                false => format!("  3%|#         | 3/100 [00:01<00:33]\r{l}"),
            })
            .collect();
        let spun: String = case
            .output
            .split_inclusive('\n')
            .map(|l| format!("⠙\x1b[1G\x1b[0K⠹\x1b[1G\x1b[0K{l}"))
            .collect();
        // Jest's live status line, erased by moving the cursor up over it
        // before every fifth line.
        let live: String = case
            .output
            .split_inclusive('\n')
            .enumerate()
            .map(|(i, l)| match i % 5 {
                4 => format!(" RUNS  src/a.test.js\n\r\x1b[K\r\x1b[1A\r\x1b[K{l}"),
                _ => l.to_owned(),
            })
            .collect();
        for (how, printed) in [
            ("\\r\\n", &crlf),
            ("a progress bar", &redrawn),
            ("npm's spinner", &spun),
            ("a live status line", &live),
        ] {
            assert_eq!(
                c.compress_text("Bash", &args, printed).0,
                form,
                "{} with {how}",
                case.name
            );
        }
        let header = "Chunk ID: 3f2a1c\nWall time: 2.5 seconds\nProcess exited with code 1\nOutput:\n";
        let codex = json!({"cmd": case.command, "tty": true});
        let (lf_form, _) = c.compress_text("exec_command", &codex, &format!("{header}{}", case.output));
        let (crlf_form, _) = c.compress_text("exec_command", &codex, &format!("{header}{crlf}"));
        assert_eq!(crlf_form, lf_form, "{} through exec_command", case.name);
    }
}

/// TOOL-8: `cargo build` under a terminal (a pty, its progress bar on),
/// as Codex CLI's `exec_command` with a `tty` reads it: each error stands
/// on the line of the progress bar's last drawing, after a carriage
/// return. The form keeps both errors and the build's verdict, as the
/// terminal shows them, without a carriage return.
#[test]
fn tool_8_cargo_under_a_terminal_keeps_its_errors() {
    let pty = include_str!("outputs/cargo-pty.txt");
    let args = json!({"cmd": "cargo build", "tty": true});
    let (form, _) = Compressor::new().compress_text("exec_command", &args, pty);
    let plain = uncoloured(&form);
    assert_eq!(
        plain.matches("error[E0308]: mismatched types").count(),
        2,
        "{plain}"
    );
    assert!(
        plain.contains("\nerror: could not compile `shopcore` (bin \"shopcore\") due to 2 previous errors"),
        "{plain}"
    );
    assert!(!form.contains('\r') && !plain.contains("Building ["), "{plain}");
}

/// TOOL-8, TOOL-11: the same outputs as each agent's shell tool answers
/// them, under its envelope (Codex CLI's `exec_command` header and its
/// `shell` object, Gemini CLI's labelled fields, OpenHands' notes,
/// opencode's metadata block, mini-SWE-agent's tags): every failure line and the last are kept,
/// in a form that condensing again leaves as it is. Under OpenHands'
/// notes and mini-SWE-agent's closing tag, ty's closing `Found 90
/// diagnostics` was lost before they were read apart from the output.
#[test]
fn tool_8_captured_outputs_through_each_agent_s_shell_keep_every_failure() {
    let c = Compressor::new();
    for case in captured_outputs() {
        let (command, output) = (&case.command, &case.output);
        let answers = [
            ("exec_command", json!({"cmd": command}), format!("Chunk ID: 3f2a1c\nWall time: 2.5 seconds\nProcess exited with code 1\nOriginal token count: 900\nOutput:\n{output}")),
            ("shell", json!({"command": ["bash", "-lc", command]}), json!({"output": output, "metadata": {"exit_code": 1, "duration_seconds": 2.5}}).to_string()),
            ("run_shell_command", json!({"command": command}), format!("Command: {command}\nDirectory: (root)\nOutput: {output}Error: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242")),
            ("execute_bash", json!({"command": command}), format!("{output}[The command completed with exit code 1.]\n[Current working directory: /workspace]\n[Python interpreter: /usr/bin/python]")),
            ("bash", json!({"command": command}), format!("{output}\n<bash_metadata>\nbash tool terminated command after exceeding timeout 120000 ms\n</bash_metadata>")),
            ("bash", json!({"command": command}), format!("<returncode>1</returncode>\n<output>\n{output}</output>")),
        ];
        for (tool, args, answer) in answers {
            let (form, _) = c.compress_text(tool, &args, &answer);
            // Codex CLI's object holds the output as a JSON string.
            let shown = ShellOutput::parse(&form)
                .filter(ShellOutput::is_json)
                .map_or_else(|| form.clone(), |o| o.output().to_owned());
            let plain_form = uncoloured(&shown);
            for failure in case.failures.iter().chain([&case.last]) {
                assert!(
                    plain_form.contains(&uncoloured(failure)),
                    "{} through {tool}: lost {failure:?}\n{form}",
                    case.name
                );
            }
            assert_eq!(
                c.compress_text(tool, &args, &form).0,
                form,
                "{} through {tool}",
                case.name
            );
        }
    }
}

/// TOOL-8, TOOL-11: tests that fail with the same message (Mocha's
/// `AssertionError [ERR_ASSERTION]: Expected values to be strictly
/// equal:` under each numbered test) each keep it under their heading, so
/// that a form condensed again keeps the headings too.
#[test]
fn tool_8_each_numbered_test_keeps_its_message() {
    let c = Compressor::new();
    let mut log = String::from("\n  cart\n");
    for n in 0..60 {
        log.push_str(&format!("    ✔ total of {n} items\n"));
    }
    log.push_str("\n  60 passing (40ms)\n  3 failing\n\n");
    for (n, (title, values)) in [
        ("applies discount", "30 !== 27"),
        ("rounds", "2 !== 3"),
        ("taxes", "9 !== 8"),
    ]
    .iter()
    .enumerate()
    {
        log.push_str(&format!(
            "  {}) cart\n       {title}:\n\n      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n{values}\n\n      + expected - actual\n\n      at Context.<anonymous> (test/cart.spec.js:{}:12)\n      at process.processImmediate (node:internal/timers:483:21)\n\n",
            n + 1,
            10 + n
        ));
    }
    let args = json!({"command": "npx mocha"});
    let (form, _) = c.compress_text("Bash", &args, &log);
    for heading in [
        "1) cart",
        "2) cart",
        "3) cart",
        "applies discount:",
        "rounds:",
        "taxes:",
    ] {
        assert!(form.contains(heading), "{heading}\n{form}");
    }
    let message = "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:";
    assert_eq!(form.matches(message).count(), 3, "{form}");
    assert_eq!(c.compress_text("Bash", &args, &form).0, form);
}

/// TOOL-8: under a native crash, the frames of the project's code stay
/// and the C runtime's, the sanitizer's own and its shadow memory are
/// noise (AddressSanitizer and Valgrind as they print a buffer overflow).
#[test]
fn tool_8_a_native_crash_keeps_the_project_s_frames() {
    let c = Compressor::new();
    let cases = captured_outputs();
    let case = |name: &str| cases.iter().find(|c| c.name == name).unwrap();
    let asan = case("asan");
    let (form, _) = c.compress_text("Bash", &json!({"command": asan.command}), &asan.output);
    for kept in [
        "#0 0x563dff782f15 in sum /home/dev/cpp/asan.c:4:71",
        "in main /home/dev/cpp/asan.c:8:18",
    ] {
        assert!(form.contains(kept), "{kept}\n{form}");
    }
    for noise in [
        "__libc_start_main",
        "__interceptor_malloc",
        "0x0c067fff7fb0: 00 00",
        "Heap left redzone",
    ] {
        assert!(!form.contains(noise), "{noise}\n{form}");
    }
    let valgrind = case("valgrind");
    let (form, _) = c.compress_text("Bash", &json!({"command": valgrind.command}), &valgrind.output);
    assert!(
        form.contains("==13484==    at 0x10919D: sum (asan.c:4)"),
        "{form}"
    );
    assert!(
        form.contains("==13484==    by 0x10922A: main (asan.c:8)"),
        "{form}"
    );
    assert!(!form.contains("malloc (in /usr/libexec/valgrind"), "{form}");
}

/// TOOL-8, TRUNC-1: what the model sees mid-round of a long log whose
/// errors stand far from its end (a service's 1,516 log records, two
/// errors and an exception hundreds of lines up) shows them between its
/// head and tail, cut to a small share of the window, in memory and
/// streamed alike.
#[test]
fn tool_8_a_long_log_s_errors_far_from_its_end_are_seen_mid_round() {
    let log = captured("pylog");
    let dir = tempfile::tempdir().unwrap();
    let truncator = strata_ctx_compress::Truncator::builder(dir.path())
        .limits(strata_ctx_compress::Limits::new(40, 4_000))
        .spill_dir(None)
        .build();
    let view = |cut: strata_ctx_compress::Truncated| cut.result.data["output"].as_str().unwrap().to_owned();
    let in_memory = view(truncator.truncate("Bash", log.output.as_bytes()));
    let streamed = view(truncator.truncate_reader("Bash", log.output.as_bytes()));
    assert_eq!(in_memory, streamed);
    for error in [
        "ERROR sync: could not decode record 902 from upstream",
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 19 (char 18)",
        "ERROR sync: batch 1203 rejected: constraint violation on orders.customer_id",
        "sync finished with 2 errors",
    ] {
        assert!(in_memory.contains(error), "{error}\n{in_memory}");
    }
    assert!(in_memory.len() <= 4_000, "{}", in_memory.len());
    // Printed to a terminal, each record after a progress bar's drawing:
    // the errors are seen, each as the terminal shows it.
    let redrawn: String = log
        .output
        .split_inclusive('\n')
        .map(|l| format!("  3%|#         | 3/100\r{}", l.replace('\n', "\r\n")))
        .collect();
    let shown = view(truncator.truncate("Bash", redrawn.as_bytes()));
    assert!(!shown.contains('\r') && shown.len() <= 4_000, "{shown}");
    for error in [
        "json.decoder.JSONDecodeError",
        "ERROR sync: batch 1203 rejected",
        "sync finished with 2 errors",
    ] {
        assert!(shown.contains(error), "{error}\n{shown}");
    }
}

/// TOOL-8: the code and arguments pytest lists in each entry of a long
/// traceback (requests' and urllib3's, with docstrings full of failure
/// words) are code: the form keeps every `E` line and the runner's
/// summary, none of the library's lines, and is a tenth of the output.
#[test]
fn tool_8_the_code_pytest_lists_is_not_a_failure() {
    let c = Compressor::new();
    for name in ["pytest-deep", "pytest-xdist"] {
        let case = captured(name);
        let (form, _) = c.compress_text("Bash", &json!({"command": case.command}), &case.output);
        for listed in [
            "retry connection errors",
            "raise EmptyPoolError",
            "if error and self._is_connection_error(error):",
            "_stacktrace = <traceback object",
        ] {
            assert!(case.output.contains(listed), "{name}: {listed}");
            assert!(!form.contains(listed), "{name}: {listed}\n{form}");
        }
        assert!(form.len() * 8 < case.output.len(), "{name}: {}", form.len());
    }
}

/// TOOL-8: a build's first error may stand among the first lines, which
/// the form keeps anyway; the label under the code it points at (rustc's
/// `^^^^^^ expected `u32`, found `&str``) stays with it, however many
/// warnings follow.
#[test]
fn tool_8_a_first_error_keeps_its_label_under_many_warnings() {
    let c = Compressor::new();
    let case = captured("cargo-warnings");
    let label = "^^^^^^ expected `u32`, found `&str`";
    for warnings in [10, 40, 120] {
        let end = case
            .output
            .match_indices("\n\nwarning: ")
            .nth(warnings)
            .map_or(case.output.len(), |(i, _)| i + 1);
        let output = format!("{}{}", &case.output[..end], case.last);
        let (form, _) = c.compress_text("Bash", &json!({"command": "cargo build"}), &output);
        assert!(form.contains(label), "{warnings} warnings\n{form}");
        assert!(!form.contains("on by default"), "{warnings} warnings\n{form}");
    }
}

/// TOOL-8: a linter's errors among hundreds of warnings (ESLint's 2
/// errors and 540 warnings over twelve files) are found wherever they
/// stand, and the same error in two files is kept in each, under its
/// file's heading; the warnings that fit are the latest (the first had
/// been kept, far from the errors and the end).
#[test]
fn tool_8_errors_among_many_warnings_are_kept_in_each_file() {
    let (case, form) = captured_form("eslint-many");
    let error = "  31:22  error    'undefinedThing' is not defined                 no-undef";
    assert_eq!(form.matches(error).count(), 2, "{form}");
    for file in ["mod4.js", "mod9.js"] {
        let heading = form
            .find(&format!("/home/dev/es/src/{file}\n"))
            .unwrap_or(usize::MAX);
        let under = form[heading.min(form.len())..].find(error);
        assert!(under.is_some(), "{file}\n{form}");
    }
    // The warnings kept are the latest, as the failures are, under their
    // file's heading: the last one stands right above the last error.
    let last_warning = "  30:15  warning  Unexpected console statement                    no-console\n";
    let mod9 = form.find("/home/dev/es/src/mod9.js\n").unwrap_or(usize::MAX);
    assert!(
        form[mod9.min(form.len())..].contains(&format!("{last_warning}{error}")),
        "{form}"
    );
    assert!(form.len() * 8 < case.output.len(), "{}", form.len());
}

/// TOOL-8: Python's exception group (an `asyncio.TaskGroup` whose tasks
/// raised) draws each sub-exception's traceback in a gutter: every
/// sub-exception is kept with the frame of the project's code it was
/// raised in, not only the last one the tail shows.
#[test]
fn tool_8_each_exception_of_a_group_keeps_its_frame() {
    let (_, form) = captured_form("py-exception-group");
    for line in [
        "  + Exception Group Traceback (most recent call last):",
        "  | ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)",
        "    |   File \"/home/dev/py/eg.py\", line 7, in fetch",
        "    | ValueError: page 7: bad checksum 0x3f != 0x40",
        "    | KeyError: 'cursor'",
    ] {
        assert!(form.contains(line), "{line}\n{form}");
    }
    // The log lines of the tasks before the crash are not kept.
    assert!(!form.contains("fetching page 10"), "{form}");
}

/// TOOL-8: Gradle's report of a failed build keeps its heading (`* What
/// went wrong:`) over the task that failed, and leaves out the stack
/// trace a build plugin printed on the way.
#[test]
fn tool_8_gradle_s_failure_keeps_its_heading_not_the_plugin_s_trace() {
    let (_, form) = captured_form("gradle-test");
    let heading = form.find("* What went wrong:\n").unwrap_or(usize::MAX);
    let task = form.find("Execution failed for task ':test'.").unwrap_or(0);
    assert!(heading < task, "{form}");
    assert!(form.contains("shop.CartTest > empty FAILED"), "{form}");
    assert!(form.matches("\tat org.gradle.").count() < 4, "{form}");
}

/// TOOL-8: a service's structured log (pino's JSON lines, as a Node
/// service printed them) keeps the lines logged at the error, fatal and
/// warning levels, by their level field: the warning says nothing a
/// word list knows (`"msg":"payment gateway slow"`).
#[test]
fn tool_8_a_json_log_keeps_its_lines_by_their_level() {
    let c = Compressor::new();
    let log = include_str!("outputs/pino-json.txt");
    let (form, _) = c.compress_text("Bash", &json!({"command": "node svc.js"}), log);
    for kept in [
        r#"{"level":50,"time":1796338589561,"pid":5098,"hostname":"vm","err":{"type":"SyntaxError","message":"Expected double-quoted property name in JSON at position 11""#,
        r#"{"level":40,"time":1796338589563,"pid":5098,"hostname":"vm","order":1077,"retries":3,"msg":"payment gateway slow"}"#,
        r#"{"level":60,"time":1796338589563,"pid":5098,"hostname":"vm","err":{"type":"Error","message":"connection to postgres lost: ECONNRESET""#,
    ] {
        assert!(form.contains(kept), "{kept}\n{form}");
    }
    assert!(!form.contains(r#""order":1050,"#), "{form}");
    assert!(form.len() * 5 < log.len(), "{}", form.len());
}

/// TOOL-8: a worker's log under Python's `logging`, 40 sources synced
/// with three retries each: the records at the error level are its
/// failures, the last one (`ERROR - sync finished: 16 of 40 sources
/// failed`) first; a record at the warning level says `failed` in its
/// message but is a warning, kept after them, and the room grows for it
/// as for a failure, so that all of them stay while the form is well
/// under the log's size.
#[test]
fn tool_8_a_text_log_reads_each_record_by_its_level() {
    let (case, form) = captured_form("py-logging-retries");
    assert_keeps_every_failure(&case, &form);
    let warnings: Vec<&str> = case
        .output
        .lines()
        .filter(|l| l.contains(" - WARNING - "))
        .collect();
    assert_eq!(warnings.len(), 48);
    for warning in &warnings {
        assert_eq!(line_kind(warning), LineKind::Warning, "{warning}");
        assert!(form.contains(warning), "{warning}\n{form}");
    }
    assert_eq!(last_failure(&case.output), Some(case.last.as_str()));
    assert!(form.len() * 3 < case.output.len() * 2, "{}", form.len());
}

/// TOOL-8: GHC prints each error's message under its located heading
/// (`Many.hs:4:8: error:` over `• Couldn't match type ‘Int’ with
/// ‘[Char]’`): every distinct message is kept, and one said again under
/// another heading is kept there too from the room left, rather than once
/// for all 25 errors.
#[test]
fn tool_8_a_message_said_again_under_another_heading_is_kept_there_too() {
    let (case, form) = captured_form("ghc-many");
    let said_again = "    • Couldn't match type ‘Int’ with ‘[Char]’";
    assert!(form.matches(said_again).count() >= 2, "{form}");
    assert!(
        form.contains(&format!("Many.hs:52:9: error:\n{said_again}\n")),
        "{form}"
    );
    assert_keeps_every_failure(&case, &form);
}

/// TOOL-8: a psql migration whose errors stand among 150 statements
/// keeps each error with the fields PostgreSQL gives it (`DETAIL:`,
/// `HINT:`), and none of the statements that went through; an error
/// that begins `ERROR:  null value …` is no count of zero errors.
#[test]
fn tool_8_psql_keeps_each_error_with_its_hint() {
    let (_, form) = captured_form("psql");
    for line in [
        "psql:big.sql:94: ERROR:  null value in column \"name\" of relation \"shop_items\" violates not-null constraint",
        "HINT:  Perhaps you meant to reference the column \"shop_items.name\".",
    ] {
        assert!(form.contains(line), "{line}\n{form}");
    }
    assert!(form.matches("INSERT 0 1").count() < 6, "{form}");
}

/// TOOL-8: oxlint draws its report in miette's ASCII theme when no
/// terminal is attached, as under an agent: `  x eslint(eqeqeq): …` is an
/// error and `  ! eslint(no-unused-vars): …` a warning, each over the
/// place its `,-[src/a.js:3:9]` arrow names.
#[test]
fn tool_8_miette_s_ascii_report_keeps_its_errors_and_places() {
    let (case, form) = captured_form("oxlint");
    assert_eq!(case.failures.len(), 17);
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains(
            "  x eslint(no-debugger): `debugger` statement is not allowed\n   ,-[src/cart.js:8:7]\n"
        ),
        "{form}"
    );
}

/// TOOL-8, TOOL-11: bandit lists each finding's fields under it, the last
/// naming where it is (`   Location: app/mod9.py:7:11`). The same finding
/// in twelve modules is told apart by its place, and a finding is kept
/// with it: no place stands without its finding, nor the other way round.
#[test]
fn tool_8_each_finding_keeps_the_place_its_fields_name() {
    let (case, form) = captured_form("bandit");
    let lines: Vec<&str> = form.lines().collect();
    let mut pairs = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with(">> Issue: ") {
            let place = lines[i + 1..]
                .iter()
                .take(5)
                .find(|l| l.starts_with("   Location: ") || l.starts_with(">> Issue: "));
            assert!(
                place.is_some_and(|p| p.starts_with("   Location: ")),
                "{line}\n{form}"
            );
            pairs += 1;
        }
        if line.starts_with("   Location: ") {
            let finding = lines[..i]
                .iter()
                .rev()
                .take(5)
                .find(|l| !l.starts_with("   ") && !l.starts_with("[… "));
            assert!(
                finding.is_some_and(|f| f.starts_with(">> Issue: ")),
                "{line}\n{form}"
            );
        }
    }
    assert!(pairs >= 36, "{pairs} findings with their places\n{form}");
    assert!(form.contains(&case.last), "{form}");
}

/// TOOL-8: AVA lists its failed tests first (`✘ [fail]: discount
/// halves`), then each one's `Difference (- actual, + expected):` over the
/// diff of its values: the legend is the assertion's failure, and the
/// changed lines under it are kept, a nested object's too.
#[test]
fn tool_8_ava_keeps_the_diff_of_each_failed_assertion() {
    let (case, form) = captured_form("ava");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("  Difference (- actual, + expected):\n\n  - 50\n  + 45\n"),
        "{form}"
    );
    assert!(form.contains("  -   qty: 2,\n  +   qty: 3,\n"), "{form}");
}

/// TOOL-8: Mocha prints chai's diff under `+ expected - actual`, each
/// changed value right after its sign (`-50` over `+45`) or a nested
/// object's line after it (`-  "qty": 2`): the values stay.
#[test]
fn tool_8_mocha_keeps_the_diff_under_its_legend() {
    let (case, form) = captured_form("mocha-chai");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("      + expected - actual\n\n      -50\n      +45\n"),
        "{form}"
    );
}

/// TOOL-8: SQLAlchemy's error goes on under the exception with the
/// statement that failed and its parameters; the frames of the code it
/// generated at run time (`File "<sqlalchemy generated _go() wrapper
/// for …>"`) are the library's, not the project's.
#[test]
fn tool_8_an_exception_keeps_the_lines_its_message_goes_on_over() {
    let (case, form) = captured_form("sqlalchemy");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains(
            "UNIQUE constraint failed: items.sku\n[SQL: INSERT INTO items (sku, name) VALUES (?, ?)]\n"
        ),
        "{form}"
    );
    assert!(!form.contains("<sqlalchemy generated"), "{form}");
    assert!(
        form.contains("  File \"/home/dev/sa/app.py\", line 24, in <module>"),
        "{form}"
    );
}

/// TOOL-8: what the model sees of bandit's report mid-round (40 lines,
/// 4,000 bytes) shows its last finding, whose words are none of the
/// usual failure words (`>> Issue: [B324:hashlib] Use of weak MD5 hash
/// for security.`), as the history form does.
#[test]
fn tool_8_bandit_s_last_finding_is_seen_mid_round() {
    let case = captured("bandit");
    let truncator = strata_ctx_compress::Truncator::builder(std::env::temp_dir())
        .limits(strata_ctx_compress::Limits::new(40, 4_000))
        .spill_dir(None)
        .build();
    let cut = truncator.truncate("Bash", case.output.as_bytes());
    let view = cut.result.data["output"].as_str().unwrap_or_default();
    assert!(view.contains(&case.last), "{view}");
}

/// TOOL-8: a TAP producer's passing test points are noise whatever their
/// titles say (commander's `    ok 5 - when program variadic argument not
/// last then error`): node:test's report of 1,300 tests keeps its failing
/// points and their messages, and none of the passing ones.
#[test]
fn tool_8_tap_s_passing_points_are_noise_whatever_they_say() {
    let (case, form) = captured_form("node-test-commander");
    assert_keeps_every_failure(&case, &form);
    let passing: Vec<&str> = form
        .lines()
        .filter(|l| l.trim_start().starts_with("ok "))
        .collect();
    assert!(passing.is_empty(), "{passing:?}");
    assert!(
        form.len() * 20 < case.output.len(),
        "{} of {}",
        form.len(),
        case.output.len()
    );
}

/// TOOL-8: a Pydantic `ValidationError` keeps each error with the field
/// it is about, the last one's too, and none of the links under them.
#[test]
fn tool_8_pydantic_s_errors_keep_their_fields() {
    let (case, form) = captured_form("pydantic-many");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("\nemail\n  Field required [type=missing, input_value={'id': 'x31'"),
        "{form}"
    );
    assert!(
        form.matches("For further information visit").count() <= 1,
        "{form}"
    );
}

/// TOOL-8: a thrown `ZodError`, as Vitest prints it, keeps the message of
/// each issue in its JSON payload, a union's nested ones too, and the
/// place under it of the latest failed tests.
#[test]
fn tool_8_a_zod_error_keeps_each_issue_s_message() {
    let (case, form) = captured_form("vitest-zod");
    assert_keeps_every_failure(&case, &form);
    let plain = strata_ctx_compress::without_colours(&form);
    for line in [
        "          \"message\": \"Invalid string: must match pattern /^a/\"",
        " ❯ src/v4/classic/tests/string.test.ts:952:35",
    ] {
        assert!(plain.contains(line), "{line}\n{plain}");
    }
}

/// TOOL-8: Jest 22 heads each operand's value on a line of its own
/// (`    Expected value to be:` over `      "2012-11-04T01:00:00-04:00"`,
/// `    Received:` over the other): the form keeps both values, and no
/// `● Console` heading over what the tests logged is taken for a failed
/// test.
#[test]
fn tool_8_jest_22_keeps_each_headed_value() {
    let (case, form) = captured_form("jest22-dayjs");
    assert_keeps_every_failure(&case, &form);
    for value in [
        "\n      \"2012-11-04T01:00:00-04:00\"\n",
        "\n    Received:\n      \"2012-11-04T01:00:00-05:00\"\n",
    ] {
        assert!(form.contains(value), "{value}\n{form}");
    }
    assert!(!form.contains("● Console"), "{form}");
}

/// TOOL-8: sympy's own runner heads a failed test's report with a bare
/// rule and the test's id under it, between underscores when it fits
/// and alone when it does not; a bare `assert` ends on `AssertionError`
/// with the code line above it. The form names each failed test under
/// its own heading (no earlier test's title over a later failure) and
/// keeps the code each bare `AssertionError` failed on.
#[test]
fn tool_8_sympy_s_runner_names_each_test_and_its_bare_assertion() {
    let (case, form) = captured_form("sympy-runtests");
    assert_keeps_every_failure(&case, &form);
    for line in [
        " sympy/functions/combinatorial/tests/test_comb_numbers.py::test_nD_derangements \n",
        "    assert c1 == nD(ms) == nD(ms, 0) == nD(ms, 1)\n",
        "    assert all(subfactorial(i) == ans for i, ans in enumerate(\n",
        "______ sympy/functions/combinatorial/tests/test_comb_numbers.py:test_bell ______\n",
    ] {
        assert!(form.contains(line), "{line}\n{form}");
    }
}

/// TOOL-8: Zig's test runner prints what a failing test printed on the
/// test's own line (`9/65 big.test.discount tier 3...expected 9, found
/// 6`) and a stack under it through the standard library: the form keeps
/// each test's line and the project's frames, not std.testing's, in
/// under a third of the output.
#[test]
fn tool_8_zig_s_failed_tests_keep_their_messages_not_the_standard_library() {
    let (case, form) = captured_form("zig-test-many");
    assert_keeps_every_failure(&case, &form);
    assert!(!form.contains("/lib/std/testing.zig:"), "{form}");
    assert!(
        form.contains("/home/dev/zt/src/big.zig:37:43: 0x1257356 in test.find of a missing sku (big.zig)"),
        "{form}"
    );
    assert!(form.len() * 3 < case.output.len(), "{}", form.len());
}

/// TOOL-8: Playwright closes a run by listing the failed tests under
/// their count (`  4 failed` over `    [chromium] › tests/cart.spec.ts:24:1
/// › checkout link ───`): each is a failure, the last one the output's
/// last, kept with every report above it; where it saved each page
/// (`Error Context: test-results/…/error-context.md`) is no failure.
#[test]
fn tool_8_playwright_s_list_of_failed_tests_is_kept_whole() {
    let (case, form) = captured_form("playwright-test");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("  4 failed\n    [chromium] › tests/cart.spec.ts:7:1 › lists the items"),
        "{form}"
    );
    assert!(!form.contains("error-context.md"), "{form}");
    assert_eq!(
        strata_ctx_compress::last_failure(&case.output).map(str::trim_end),
        Some(case.last.trim())
    );
}

/// TOOL-8: RuboCop's 147 offenses over seven files, 140 of them style
/// conventions (`C:`): the seven Lint warnings (`W: Lint/UselessAssignment`)
/// are failures and all kept, the conventions warnings, whatever their
/// words (`C: … Style/RaiseArgs: Provide an exception class …`).
#[test]
fn tool_8_rubocop_s_lint_warnings_come_before_its_conventions() {
    let (case, form) = captured_form("rubocop");
    assert_keeps_every_failure(&case, &form);
    assert_eq!(form.matches(": W: Lint/UselessAssignment: ").count(), 7, "{form}");
    assert!(form.len() * 2 < case.output.len(), "{}", form.len());
}

/// TOOL-8: `cargo test` over a crate whose tests assert with
/// `pretty_assertions` and check compile errors with trybuild: each
/// assertion keeps the changed lines of its `Diff < left / right >`
/// (the values, which `assertion failed: (left == right)` leaves out),
/// and trybuild's `test tests/ui/wrong_type.rs ... mismatch` is a failed
/// test.
#[test]
fn tool_8_rust_diffs_in_angles_and_trybuild_s_mismatch_are_kept() {
    let (case, form) = captured_form("cargo-test-trybuild");
    assert_keeps_every_failure(&case, &form);
    let plain = uncoloured(&form);
    assert!(plain.contains("Diff < left / right > :\n<27\n>25\n"), "{plain}");
    assert!(plain.contains("<C3 x4\n>C3 x3\n"), "{plain}");
    assert!(
        plain.contains("test tests/ui/wrong_type.rs ... mismatch\n"),
        "{plain}"
    );
}

/// TOOL-8: node-tap writes a failed assertion's values as a unified
/// diff in the YAML block under its test point, below the test's source
/// (`--- expected`, `+++ actual`, `-25`, `+27`): the changed lines stay,
/// and so does its closing count of failures (`# { total: 44, pass: 40,
/// fail: 4 }`), which it prints as a comment.
#[test]
fn tool_8_node_tap_keeps_each_diff_and_its_count() {
    let (case, form) = captured_form("node-tap");
    assert_keeps_every_failure(&case, &form);
    assert!(form.contains("            -25\n            +27\n"), "{form}");
    assert!(
        form.contains("            -/B2 x2/\n            +\"A1 x2, B2 x1\"\n"),
        "{form}"
    );
    assert!(form.contains("# { total: 44, pass: 40, fail: 4 }\n"), "{form}");
    assert!(form.len() * 5 < case.output.len(), "{}", form.len());
}

/// TOOL-8: `cargo fmt --check` prints each hunk rustfmt would change
/// under `Diff in /…/src/de.rs:139:`: every header stays, and the code of
/// the hunks is code, not failures, whatever its words (`
/// inner.deserialize_any(visitor).map_err(Error::new)`).
#[test]
fn tool_8_rustfmt_s_hunks_are_code_under_their_headers() {
    let (case, form) = captured_form("cargo-fmt-check");
    assert_keeps_every_failure(&case, &form);
    assert_eq!(form.matches("Diff in /home/dev/").count(), 29, "{form}");
    assert!(!form.contains("map_err(Error::new)"), "{form}");
    assert!(form.len() * 3 < case.output.len(), "{}", form.len());
}

/// TOOL-8: Hspec prints each failure's values as `expected: 25` over `
/// but got: 27`, and an exception's message on the line under `uncaught
/// exception: ErrorCall` at the same depth (`Prelude.head: empty
/// list`): both are the failure's, and stay.
#[test]
fn tool_8_hspec_keeps_what_it_got_and_the_exception_s_message() {
    let (case, form) = captured_form("hspec");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("       expected: 25\n        but got: 27\n"),
        "{form}"
    );
    assert!(
        form.contains("       uncaught exception: ErrorCall\n       Prelude.head: empty list\n"),
        "{form}"
    );
}

/// TOOL-8: anyhow lists an error's causes under `Caused by:`, the deepest
/// last (`    1: trailing comma at line 1 column 13`): they say why, and
/// stay; the backtrace under them keeps the program's own frames and
/// their places, not the frames of the crates in Cargo's registry nor of
/// the standard library, whatever their names say (`0: <E as
/// anyhow::context::ext::StdError>::ext_context`).
#[test]
fn tool_8_anyhow_s_causes_stay_and_its_crates_frames_go() {
    let (case, form) = captured_form("rust-anyhow-backtrace");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains(
            "Caused by:\n    0: config is not valid JSON\n    1: trailing comma at line 1 column 13\n"
        ),
        "{form}"
    );
    assert!(
        form.contains("   2: cfgtool::parse\n             at ./src/main.rs:7:59\n"),
        "{form}"
    );
    assert!(!form.contains(".cargo/registry"), "{form}");
    assert!(!form.contains("RefUnwindSafe"), "{form}");
    assert_eq!(
        strata_ctx_compress::last_failure(&case.output),
        Some("1: trailing comma at line 1 column 13")
    );
}

/// TOOL-8: IPython's traceback names its frames `Cell In[1], line 9` and
/// `File /…/pandas/core/base.py:241, in …` and points at the code that
/// ran with `---->`: the cell's line that failed stays, the code listed
/// around it in pandas' frames (`raise ValueError(`) is no failure.
#[test]
fn tool_8_ipython_keeps_the_cell_s_line_that_failed() {
    let (case, form) = captured_form("ipython-pandas");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("----> 9 summary = df.groupby(\"name\")[\"totl\"].sum()"),
        "{form}"
    );
    assert!(!form.contains("raise ValueError("), "{form}");
}

/// TOOL-8: Node's `assert.deepStrictEqual` over two objects of thirty
/// entries: the changed lines of its diff (`+     price: 25.5,` over `-
/// price: 26,`, under `+ actual - expected ... Lines skipped`) and the
/// script's frame stay; the names of the fields it dumps the whole values
/// under (`  actual: {`) say nothing alone.
#[test]
fn tool_8_node_s_assertion_diff_keeps_its_values_and_frame() {
    let (case, form) = captured_form("node-assert-diff");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("    at file:///home/dev/orders/big.mjs:5:8\n"),
        "{form}"
    );
    assert!(!form.contains("  actual: {\n"), "{form}");
}

/// TOOL-8: Node prints an error's causes inside its inspected fields
/// (`  [cause]: Error: …`, deeper each time): each cause stays, the
/// deepest last, with the script's frames, `async` ones too (`at async
/// loadConfig (file:///…/cause.mjs:3:27)`), not Node's own.
#[test]
fn tool_8_node_s_error_causes_stay_with_their_async_frames() {
    let (case, form) = captured_form("node-error-cause");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("        at async loadConfig (file:///home/dev/orders/cause.mjs:3:27)\n"),
        "{form}"
    );
    assert!(!form.contains("node:internal/fs/promises"), "{form}");
    assert_eq!(
        strata_ctx_compress::last_failure(&case.output),
        Some("[cause]: Error: ENOENT: no such file or directory, open '/home/dev/orders/config.json'")
    );
}

/// TOOL-8, TRUNC-1: what the model sees mid-round of a failed assertion
/// shows the assertion's diff under it, as the history form does: Node's
/// `assert.deepStrictEqual` over thirty entries, cut to 40 lines, shows
/// the entry that differs (`+     qty: 2` over `-     qty: 3`).
#[test]
fn tool_8_the_view_shows_the_last_assertion_s_diff() {
    let case = captured("node-assert-diff");
    let dir = tempfile::tempdir().unwrap();
    let truncator = strata_ctx_compress::Truncator::builder(dir.path())
        .limits(strata_ctx_compress::Limits::new(40, 4_000))
        .spill_dir(None)
        .build();
    let cut = truncator.truncate("Bash", case.output.as_bytes());
    let view = cut.result.data["output"].as_str().unwrap();
    let failure = view.find("AssertionError [ERR_ASSERTION]").unwrap_or(usize::MAX);
    for changed in [
        "+     price: 25.5,",
        "+     qty: 2",
        "-     price: 26,",
        "-     qty: 3",
    ] {
        // In its place, under the failure.
        let at = view.find(changed).unwrap_or_else(|| panic!("{changed}\n{view}"));
        assert!(failure < at, "{changed} above its failure\n{view}");
    }
    assert!(view.lines().count() <= 40, "{view}");
}

/// TOOL-8: gdb's backtrace of a crash in a worker thread, under the
/// log the program printed and beside the other threads' stacks: the form
/// keeps the signal and the frame of the project's code the crash
/// happened in (`#1 … in checksum (p=0x0) at mt.c:9`), not the C
/// library's frames; of an assertion that aborted, the assertion, the
/// signal and the project's frames, in a quarter of the output, where the
/// library's frames' words (`__assert_fail_base (fmt=… "Assertion `%s'
/// failed.…")`) had grown it to the whole.
#[test]
fn tool_8_gdb_keeps_the_signal_and_the_project_s_frame_it_stopped_in() {
    let (case, form) = captured_form("gdb-threads");
    assert_keeps_every_failure(&case, &form);
    assert!(form.contains("in checksum (p=0x0) at mt.c:9"), "{form}");
    assert!(!form.contains("clone3"), "{form}");
    let (case, form) = captured_form("gdb-abort");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("in parse_qty (s=0x555555556035 \"0\") at ab.c:3"),
        "{form}"
    );
    assert!(!form.contains("__assert_fail_base"), "{form}");
    assert!(form.len() * 3 < case.output.len(), "{form}");
}

/// TOOL-8: gfortran prints an error's place above the code it quotes and
/// the error under it (`mod3.f90:21:17:`, a blank line, `   21 |     r =
/// r + beta3`, its caret, `Error: Symbol ‘beta3’ at (1) has no IMPLICIT
/// type`), among the warnings of `-Wall` under `make -k`: the form keeps
/// each error with its place and the code line, where it had kept the
/// warnings and the caret, not where the errors are.
#[test]
fn tool_8_gfortran_s_errors_keep_their_place_over_the_code() {
    let (case, form) = captured_form("gfortran-make-k");
    assert_keeps_every_failure(&case, &form);
    for (place, code) in [
        ("mod3.f90:21:17:", "   21 |     r = r + beta3"),
        ("mod5.f90:21:8:", "   21 |     r = r + \"text\""),
        ("mod6.f90:21:17:", "   21 |     r = r + beta6"),
    ] {
        let at = form.find(place).unwrap_or_else(|| panic!("{place}\n{form}"));
        let quoted = form.find(code).unwrap_or_else(|| panic!("{code}\n{form}"));
        assert!(at < quoted, "{place} under {code}\n{form}");
    }
    assert!(form.len() * 2 < case.output.len(), "{form}");
}

/// TOOL-8: SQLFluff's parse error (`L:   1 | P:  23 |  PRS | Line 1,
/// Position 23: Found unparsable section: 'WHERE'.`) is a violation as its
/// rules' are: the form keeps it among them, where it had left it out.
#[test]
fn tool_8_sqlfluff_s_parse_error_is_kept_with_its_violations() {
    let (case, form) = captured_form("sqlfluff-lint");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains("|  PRS | Line 1, Position 23: Found unparsable section: 'WHERE'."),
        "{form}"
    );
}

/// TOOL-8: OCaml prints an error as gfortran does, its place (`File
/// "mod3.ml", line 10, characters 40-43:`) over the code it quotes and the
/// caret, among the warnings of `-w +a` under `make -k`: the form keeps
/// each error with its place and the code line, where it had kept the
/// place alone.
#[test]
fn tool_8_ocaml_s_errors_keep_their_place_and_code() {
    let (case, form) = captured_form("ocamlc-make-k");
    assert_keeps_every_failure(&case, &form);
    for n in [3, 6] {
        let place = format!("File \"mod{n}.ml\", line 10, characters 40-43:\n");
        let code = format!("{place}10 | let broken{n} items = List.length items + \"1\"\n");
        assert!(form.contains(&code), "{code}\n{form}");
    }
    assert!(form.len() * 2 < case.output.len(), "{form}");
}

/// TOOL-8: TeX prints its errors in its own words, with no error word
/// (`! Undefined control sequence.`, `! Missing $ inserted.`; under
/// `-file-line-error` after the file and line, `./main.tex:17: Undefined
/// control sequence.`), and the line of input it stopped at a few lines
/// under each (`l.17   \mathrm{Attn}(Q,K,V) = \softmax`), among the
/// packages it loads and the fonts it writes: the form keeps every error
/// with its line of input, where it had kept the LaTeX warnings and the
/// errors that say `Error`.
#[test]
fn tool_8_tex_s_errors_keep_the_line_of_input_they_stopped_at() {
    for (name, errors) in [
        (
            "pdflatex",
            [
                "! Undefined control sequence.\nl.17   \\mathrm{Attn}(Q,K,V) = \\softmax\n",
                "! Undefined control sequence.\nl.3 We train on 8 GPUs with batch size 32 \\citep\n",
            ],
        ),
        (
            "latexmk",
            [
                "./main.tex:17: Undefined control sequence.\nl.17   \\mathrm{Attn}(Q,K,V) = \\softmax\n",
                "./sections/experiments.tex:3: Undefined control sequence.\nl.3 We train on 8 GPUs with batch size 32 \\citep\n",
            ],
        ),
    ] {
        let (case, form) = captured_form(name);
        assert_keeps_every_failure(&case, &form);
        for error in errors {
            assert!(form.contains(error), "{name}: {error}\n{form}");
        }
        // Each error that a line of input stands under keeps it.
        for input in ["l.20 Each block has width w_", "l.9     Ours & 5100 & 12 GB &", "l.32 \\end{enumerate}"] {
            assert!(form.contains(input), "{name}: {input}\n{form}");
        }
        assert!(form.len() * 3 < case.output.len(), "{name}: {form}");
    }
}

/// TOOL-8: PHP_CodeSniffer's report is a table per file, each row a
/// finding with its level in a column (`  7 | ERROR | [x] Expected 1
/// space(s) after IF keyword; 0 found`), which reads like a code frame's
/// line: the form keeps every error and the warning, where it had kept
/// three rows of the last file.
#[test]
fn tool_8_php_codesniffer_s_rows_are_findings_by_their_level() {
    let (case, form) = captured_form("phpcs");
    assert_keeps_every_failure(&case, &form);
    assert!(
        form.contains(" 21 | WARNING | [ ] Line exceeds 120 characters; contains 195"),
        "{form}"
    );
}
