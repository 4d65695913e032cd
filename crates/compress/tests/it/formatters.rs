//! A formatter's check lists the files it would change, one finding each
//! (TOOL-8). Real outputs (`outputs/`), captured with black 26.10.1, ruff
//! 0.17.6 (`ruff format --check`) and rustfmt of Rust 1.95 (`cargo fmt
//! --check`, colours and all) on generated sources, with their paths moved
//! under `/home/dev`: the form names every file, and the closing count.

use serde_json::json;
use strata_ctx_compress::{line_kind, without_colours, Compressor, LineKind};

fn form(command: &str, output: &str) -> String {
    Compressor::new()
        .compress_text("Bash", &json!({"command": command}), output)
        .0
}

/// Asserts that `output` has `count` lines starting with `prefix`, and
/// `form` every one of them.
fn assert_keeps_every(output: &str, form: &str, prefix: &str, count: usize) {
    let lines: Vec<&str> = output.lines().filter(|l| l.starts_with(prefix)).collect();
    assert_eq!(lines.len(), count);
    for line in lines {
        assert!(form.contains(line), "lost {line:?}\n{form}");
    }
}

#[test]
fn tool_8_black_check_names_every_file_it_would_reformat() {
    let output = include_str!("outputs/black-check.txt");
    let form = form("black --check app", output);
    assert_keeps_every(output, &form, "would reformat ", 40);
    assert!(form.contains("40 files would be reformatted, 20 files would be left unchanged."));
    assert!(form.len() <= output.len());
}

#[test]
fn tool_8_ruff_format_check_names_every_file_it_would_reformat() {
    let output = include_str!("outputs/ruff-format-check.txt");
    let form = form("ruff format --check app", output);
    // Each finding is the same words over the file's location.
    assert_keeps_every(output, &form, " --> ", 40);
    assert!(form.contains("40 files would be reformatted, 20 files already formatted"));
    assert!(
        form.len() * 3 < output.len(),
        "{} of {} bytes",
        form.len(),
        output.len()
    );
}

#[test]
fn tool_8_cargo_fmt_check_names_every_file_with_a_diff() {
    let output = include_str!("outputs/cargo-fmt-check.txt");
    let form = form("cargo fmt --check", output);
    assert_keeps_every(output, &form, "Diff in ", 26);
    // The diff's lines are code: they fill no room of their own.
    let plain = without_colours(&form);
    let code = plain.lines().filter(|l| l.starts_with(['+', '-'])).count();
    assert!(code <= 26, "{code} diff lines\n{form}");
}

#[test]
fn tool_8_formatters_findings_are_failures() {
    for line in [
        "would reformat /home/dev/shop/app/mod_1.py",
        "Would reformat: app/mod_1.py",
        "unformatted: File would be reformatted",
        "Diff in /home/dev/calc/src/lib.rs:13:",
        "Diff in /home/dev/calc/src/lib.rs at line 13:",
        "[warn] src/components/Checkout.tsx",
    ] {
        assert_eq!(line_kind(line), LineKind::Failure, "{line}");
    }
    // Nor does a sentence that merely starts the same way.
    assert_ne!(
        line_kind("Diff in behaviour between the two runs"),
        LineKind::Failure
    );
    assert_ne!(
        line_kind("[warn] Code style issues found in 2 files. Run Prettier with --write to fix."),
        LineKind::Failure
    );
}

/// TOOL-8: a failure line keeps its whole message up to
/// `RuleLimits::line_bytes` (a type error's whole type), where any other
/// long line shows its start and end.
#[test]
fn tool_8_a_long_failure_line_stays_whole() {
    let fields: Vec<String> = (0..16).map(|i| format!("field{i}: string")).collect();
    let error = format!(
        "src/app.ts(12,5): error TS2322: Type '{{ {} }}' is not assignable to type 'Order'.",
        fields.join(", ")
    );
    let plain = format!("note: the module graph is {}", "a -> b -> c ".repeat(30));
    assert!(error.len() > 300 && error.len() <= 400, "{}", error.len());
    let output = (0..300)
        .map(|i| format!("compiling module {i}\n"))
        .collect::<String>()
        + &plain
        + "\n"
        + &error
        + "\nFound 1 error in src/app.ts:12\n";
    let kept = form("npx tsc --noEmit", &output);
    assert!(kept.contains(&error), "{kept}");
    assert!(!kept.contains(&plain), "{kept}");
    assert_eq!(form("npx tsc --noEmit", &kept), kept, "TOOL-11");
}
