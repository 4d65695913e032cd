//! Findings as compilers and linters print them (TOOL-8): a message, the
//! place it applies to, and notes under it. The form keeps each finding
//! with its message, its notes after the findings themselves.

use serde_json::json;
use strata_ctx_compress::Compressor;

fn form(command: &str, output: &str) -> String {
    Compressor::new()
        .compress_text("Bash", &json!({ "command": command }), output)
        .0
}

/// gcc's shape (`file:line:col: warning: …`, the code line, the caret
/// line, then `note:` lines with their own code and carets) for `modules`
/// files, and an error in `main.c` at the end.
fn gcc_log(modules: usize) -> String {
    let mut log = String::new();
    for i in 1..=modules {
        log += &format!(
            "cc -Wall -Wextra -O2 -c -o src/mod{i}.o src/mod{i}.c\n\
             src/mod{i}.c: In function 'helper{i}':\n\
             src/mod{i}.c:3:75: warning: '%d' directive writing between 4 and 10 bytes into a region of size 4 [-Wformat-overflow=]\n\
             \x20   3 | int helper{i}(int x) {{ char buf[4]; sprintf(buf, \"%d\", x * 1000); return x; }}\n\
             \x20     |                                                       ^~\n\
             src/mod{i}.c:3:74: note: directive argument in the range [4000, 2147483647]\n\
             \x20   3 | int helper{i}(int x) {{ char buf[4]; sprintf(buf, \"%d\", x * 1000); return x; }}\n\
             \x20     |                                                      ^~~~\n\
             src/mod{i}.c:3:61: note: 'sprintf' output between 5 and 11 bytes into a destination of size 4\n\
             \x20   3 | int helper{i}(int x) {{ char buf[4]; sprintf(buf, \"%d\", x * 1000); return x; }}\n\
             \x20     |                                         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        );
    }
    log += "cc -Wall -Wextra -O2 -c -o src/main.o src/main.c\n\
            src/main.c:4:12: error: 'undefined_var' undeclared (first use in this function)\n\
            src/main.c:4:12: note: each undeclared identifier is reported only once for each function it appears in\n\
            make: *** [<builtin>: src/main.o] Error 1\n";
    log
}

/// TOOL-8: each of gcc's warnings is a thing to fix, in a build that
/// failed too: all of them stay beside the error, the notes under them
/// only from the room left, within a third of the log.
#[test]
fn tool_8_gcc_warnings_stay_before_their_notes() {
    let log = gcc_log(16);
    let form = form("make", &log);
    let warnings = (1..=16)
        .filter(|i| form.contains(&format!("src/mod{i}.c:3:75: warning: '%d' directive writing")))
        .count();
    let notes = form.matches(": note: ").count();
    assert_eq!(
        warnings, 16,
        "{notes} notes beside {warnings} of 16 warnings\n{form}"
    );
    assert!(
        form.contains("src/main.c:4:12: error: 'undefined_var' undeclared"),
        "{form}"
    );
    assert!(
        form.contains("make: *** [<builtin>: src/main.o] Error 1"),
        "{form}"
    );
    assert!(
        form.len() * 3 < log.len(),
        "{} of {} bytes",
        form.len(),
        log.len()
    );
}

/// ruff's findings, each a rule's message over the place an arrow points
/// at and a code excerpt; `D103` recurs between other rules' findings.
fn ruff_log() -> String {
    let mut log = String::new();
    for (n, (rule, function)) in [
        ("UP006", "total"),
        ("ANN201", "scale"),
        ("B028", "legacy"),
        ("E501", "report"),
    ]
    .iter()
    .enumerate()
    {
        let line = 10 * n + 4;
        for (code, message) in [
            ("D103", "Missing docstring in public function".to_owned()),
            (*rule, format!("Finding of {rule} in `{function}`")),
        ] {
            log += &format!(
                "{code} {message}\n  --> pkg/core.py:{line}:5\n   |\n{line} | def {function}(items):\n   |     ^^^^^\n   |     for item in items:\n   |         yield item * 2\n   |\n\n"
            );
        }
    }
    log + "Found 8 errors.\n"
}

/// TOOL-8: a message said again for another place, after other findings,
/// is another finding: each place keeps the message above it.
#[test]
fn tool_8_a_recurring_finding_keeps_its_message_at_each_place() {
    let log = ruff_log().repeat(12);
    let form = form("ruff check .", &log);
    let lines: Vec<&str> = form.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("--> ") {
            assert!(
                i > 0 && !lines[i - 1].starts_with("[…"),
                "a place without its message: {line}\n{form}"
            );
        }
    }
    assert!(
        form.matches("D103 Missing docstring in public function").count() >= 4,
        "{form}"
    );
    assert!(form.contains("Found 8 errors."), "{form}");
}

/// TOOL-8: the same message over place after place (`ruff format
/// --check`) is not said again over each place; every place stays.
#[test]
fn tool_8_a_message_repeated_in_a_row_is_kept_once() {
    let hunk: String = (3..15)
        .map(|n| format!("  - x{n}=compute({n},y)\n{n} + x{n} = compute({n}, y)\n"))
        .collect();
    let log: String = (1..=30)
        .map(|i| format!("unformatted: File would be reformatted\n --> app/mod_{i}.py:2:1\n  |\n1 | import os\n  - def f{i}(a,b):\n2 + def f{i}(a, b):\n{hunk}  |\n\n"))
        .collect::<String>()
        + "30 files would be reformatted\n";
    let form = form("ruff format --check .", &log);
    for i in 1..=30 {
        assert!(
            form.contains(&format!(" --> app/mod_{i}.py:2:1")),
            "lost mod_{i}\n{form}"
        );
    }
    // Once over the places, and once more as the output's first line.
    assert!(
        form.matches("unformatted: File would be reformatted").count() <= 2,
        "{form}"
    );
}

/// TOOL-8: a traceback's header over its first frame is no finding over a
/// place: said for each of many failures, it is kept once or twice, and
/// the room goes to what each failure says.
#[test]
fn tool_8_a_repeated_traceback_header_is_not_a_finding() {
    let log: String = (1..=40)
        .map(|i| {
            format!(
                "processing batch {i}\n{}Traceback (most recent call last):\n  File \"/app/job.py\", line {}, in run\n    step(row)\nValueError: bad row {i}\n",
                (0..6).map(|k| format!("  row {k} of batch {i}: ok\n")).collect::<String>(),
                100 + i
            )
        })
        .collect();
    let form = form("python job.py", &log);
    assert!(
        form.matches("Traceback (most recent call last):").count() <= 2,
        "{form}"
    );
    assert!(form.contains("ValueError: bad row 40"), "{form}");
    assert!(form.matches("ValueError: bad row").count() >= 20, "{form}");
}

/// TOOL-8: only a place an arrow points at names a finding's place: the
/// same exception over another stack frame, between other exceptions, is
/// the same message, kept once or twice.
#[test]
fn tool_8_an_exception_over_a_frame_is_not_a_finding_over_a_place() {
    let log: String = (1..=40)
        .map(|i| {
            let exception = if i % 2 == 0 {
                "java.lang.IllegalStateException: connection lost"
            } else {
                "java.io.IOException: stream closed"
            };
            format!(
                "{}{exception}\n\tat com.acme.app.Worker.run{i}(Worker.java:{})\n",
                (0..6)
                    .map(|k| format!("INFO job {i} step {k} done\n"))
                    .collect::<String>(),
                10 + i
            )
        })
        .collect();
    let form = form("java -jar app.jar", &log);
    for exception in [
        "java.lang.IllegalStateException: connection lost",
        "java.io.IOException: stream closed",
    ] {
        assert!((1..=2).contains(&form.matches(exception).count()), "{form}");
    }
}

/// TOOL-8: a linter that only warns, one finding a line with its place and
/// a bracketed severity (haml-lint's `file:line [W] Rule: message`),
/// reports its findings and nothing else: each of them stays, beside an
/// error as well.
#[test]
fn tool_8_a_linter_s_tagged_warnings_are_its_findings() {
    let mut log: String = (1..=30)
        .map(|i| {
            format!(
                "app/views/orders/_row{i}.html.haml:{} [W] InstanceVariables: Avoid using instance variables in partials views\n",
                i + 3
            )
        })
        .collect();
    log += "\n82 files inspected, 30 lints detected\n";
    let form = form("haml-lint app/views", &log);
    for i in 1..=30 {
        let finding = format!(
            "app/views/orders/_row{i}.html.haml:{} [W] InstanceVariables",
            i + 3
        );
        assert!(form.contains(&finding), "{finding}\n{form}");
    }
    assert!(form.contains("82 files inspected, 30 lints detected"), "{form}");
    // Beside an error, the warnings are still what it found: the error
    // stays, and so does each warning.
    let failed = log.replace(
        "_row30.html.haml:33 [W] InstanceVariables: Avoid using instance variables in partials views",
        "_row30.html.haml:33 [E] ParseError: Illegal nesting: nesting within plain text is illegal",
    );
    let beside = self::form("haml-lint app/views", &failed);
    assert!(beside.contains("[E] ParseError: Illegal nesting"), "{beside}");
    for i in 1..30 {
        let finding = format!("_row{i}.html.haml:{} [W] InstanceVariables", i + 3);
        assert!(beside.contains(&finding), "{finding}\n{beside}");
    }
}

/// TOOL-8: under a heading that names a file, a finding that names its
/// own file (reek's `  app/models/m.rb:12: UtilityFunction: …` under
/// `app/models/m.rb -- 2 warnings:`) needs no heading: when the room runs
/// short, the findings stay before the headings that repeat them.
#[test]
fn tool_8_findings_that_name_their_file_come_before_its_heading() {
    let log: String = (1..=80)
        .map(|i| {
            format!(
                "app/models/model{i}.rb -- 2 warnings:\n  \
                 app/models/model{i}.rb:3: IrresponsibleModule: Model{i} has no descriptive comment [docs/Irresponsible-Module.md]\n  \
                 app/models/model{i}.rb:17: UtilityFunction: Model{i}#total doesn't depend on instance state (maybe move it to another class?)\n"
            )
        })
        .collect::<String>()
        + "160 total warnings\n";
    let form = form("reek app", &log);
    let findings =
        form.matches(".rb:3: IrresponsibleModule").count() + form.matches(".rb:17: UtilityFunction").count();
    let headings = form.matches(" -- 2 warnings:").count();
    assert!(findings >= 75, "{findings} findings, {headings} headings\n{form}");
    assert!(
        form.contains("app/models/model80.rb:17: UtilityFunction"),
        "{form}"
    );
    assert!(form.contains("160 total warnings"), "{form}");
}

/// TOOL-8: a warning is cut, like a failure, only past the longer bound of
/// a failure line: MSBuild names the project after the message, and a
/// cut in the middle would take the message.
#[test]
fn tool_8_a_long_warning_keeps_its_message() {
    let warning = "C:\\src\\Shop\\Orders\\OrderService.cs(229,30): warning CS0618: 'LegacyQueue' is obsolete: 'Use Shop.Messaging.Queue instead, which retries, batches and keeps the order of the messages it sends.' [C:\\src\\Shop\\Services\\Orders\\Shop.Services.Orders.csproj]";
    assert!(warning.len() > 240);
    let log = "  Determining projects to restore...\n".repeat(40)
        + warning
        + "\nBuild succeeded.\n    1 Warning(s)\n    0 Error(s)\n";
    let form = form("dotnet build", &log);
    assert!(form.contains(warning), "{form}");
}

/// TOOL-8: a stylish reporter that only warns (remark-lint's, Stylelint's,
/// ESLint's `  12:3  warning  Incorrect list-item indent  rule` under the
/// file's name) names each finding's place by its row's line and column:
/// each row is a finding, the last one too, and the room grows for them.
#[test]
fn tool_8_a_stylish_reporter_s_warnings_are_its_findings() {
    let mut log = String::from("docs/guide.md\n");
    for i in 1..=60 {
        log += &format!(
            "  {}:{}  warning  Incorrect list-item indent: add {} spaces  list-item-indent  remark-lint\n",
            i * 3,
            i % 7 + 1,
            i % 3 + 1
        );
    }
    log += "\n⚠ 60 warnings\n";
    let form = form("npx remark docs --quiet", &log);
    for i in 1..=60 {
        let row = format!("  {}:{}  warning  Incorrect list-item indent", i * 3, i % 7 + 1);
        assert!(form.contains(&row), "{row}\n{form}");
    }
    assert!(form.contains("⚠ 60 warnings"), "{form}");
    assert!(form.starts_with("docs/guide.md"), "{form}");
}
