//! TRUNC-1, TOOL-8: what the model sees mid-round of a shell's output
//! printed to a terminal (progress bars drawn over one line, a live status
//! line erased by moving the cursor up) is cut as the terminal shows it,
//! not on the bytes printed.

use strata_ctx_compress::{Limits, Spill, Truncated, Truncator};
use strata_ctx_testkit::{captured_outputs, MarkedOutput};

fn captured(name: &str) -> MarkedOutput {
    captured_outputs().into_iter().find(|c| c.name == name).unwrap()
}

/// `output` with a progress bar drawn before each line that prints
/// something, as a terminal receives it.
fn with_progress_bars(output: &str) -> String {
    output
        .split_inclusive('\n')
        .map(|l| match l.trim().is_empty() {
            true => l.to_owned(),
            false => format!(
                "  3%|#         | 3/100 [00:01<00:33]\r{}",
                l.replace('\n', "\r\n")
            ),
        })
        .collect()
}

/// `output` with Jest's live status line drawn and erased by moving the
/// cursor up before every fifth line.
fn with_live_status(output: &str) -> String {
    output
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| match i % 5 {
            4 => format!(" RUNS  src/a.test.js\n\r\x1b[K\r\x1b[1A\r\x1b[K{l}"),
            _ => l.to_owned(),
        })
        .collect()
}

fn view(cut: &Truncated) -> String {
    match &cut.result.data {
        serde_json::Value::String(s) => s.clone(),
        data => data["output"].as_str().unwrap().to_owned(),
    }
}

fn notice(cut: &Truncated) -> String {
    cut.result.text.clone().unwrap_or_default()
}

/// Everything but the spill file's name, which differs between two cuts.
fn seen(cut: &Truncated) -> (String, String, usize, usize, bool) {
    let notice = notice(cut);
    let notice = notice.split(" Full output").next().unwrap_or_default().to_owned();
    (view(cut), notice, cut.total_lines, cut.shown_lines, cut.truncated)
}

/// A log cut for a small share of the window shows, printed to a terminal
/// under progress bars or a live status line, what it shows printed to a
/// pipe: the same head, diagnostic lines and tail, the same count of lines
/// in its notice, in memory and streamed. Before, the progress bars' bytes
/// took the view's room: at 4 KiB over all captures the views kept 2,700
/// of 3,635 failure lines under progress bars, 2,999 printed to a pipe.
#[test]
fn trunc_1_a_terminal_s_drawings_take_no_room_in_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .limits(Limits::new(400, 4_096))
        .build();
    for name in ["pytest-many", "cargo-test", "jest", "go-test-v"] {
        let case = captured(name);
        let piped = t.truncate("Bash", case.output.as_bytes());
        assert!(piped.truncated, "{name}");
        for printed in [with_progress_bars(&case.output), with_live_status(&case.output)] {
            assert!(printed.len() > case.output.len());
            let in_memory = t.truncate("Bash", printed.as_bytes());
            let streamed = t.truncate_reader("Bash", printed.as_bytes());
            assert_eq!(seen(&in_memory), seen(&piped), "{name}");
            assert_eq!(seen(&streamed), seen(&piped), "{name}");
            assert!(!view(&in_memory).contains('\r'), "{name}");
            // The spill file keeps the bytes as printed.
            let Spill::Saved(path) = &in_memory.spill else {
                panic!("{name}: {:?}", in_memory.spill)
            };
            assert_eq!(std::fs::read(path).unwrap(), printed.as_bytes());
            assert_eq!(in_memory.total_bytes, printed.len() as u64);
        }
    }
}

/// An output whose drawings alone go over the limits is not cut at all:
/// a terminal shows it whole within them, and no file is left behind by
/// either path.
#[test]
fn trunc_1_an_output_that_fits_as_shown_is_not_cut() {
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .limits(Limits::new(2_000, 8_192))
        .build();
    let case = captured("pytest");
    let drawn: String = (0..300)
        .map(|i| format!("Downloading numpy {:>3}% |{:<40}|\r", i / 3, "#".repeat(i / 8)))
        .collect::<String>()
        + &case.output;
    assert!(drawn.len() > 8_192 && case.output.len() < 8_192);
    let in_memory = t.truncate("Bash", drawn.as_bytes());
    let streamed = t.truncate_reader("Bash", drawn.as_bytes());
    for cut in [&in_memory, &streamed] {
        assert!(!cut.truncated);
        assert_eq!(cut.spill, Spill::NotNeeded);
        assert_eq!(view(cut), case.output);
        assert_eq!(cut.result.text, None);
    }
    assert_eq!(in_memory, streamed);
    assert_eq!(
        std::fs::read_dir(dir.path().join("tool-output")).map_or(0, |d| d.count()),
        0
    );
}

/// A log longer than both windows is shown as each window shows it, in
/// memory and streamed alike; a file tool's output keeps its bytes.
#[test]
fn trunc_1_a_long_drawn_log_and_a_file_s_text() {
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .spill_dir(None)
        .limits(Limits::new(40, 2_000))
        .build();
    let case = captured("pylog");
    let printed = with_progress_bars(&case.output);
    assert!(printed.len() > 17 * 2_000);
    let in_memory = t.truncate("Bash", printed.as_bytes());
    let streamed = t.truncate_reader("Bash", printed.as_bytes());
    assert_eq!(seen(&in_memory), seen(&streamed));
    let shown = view(&in_memory);
    assert!(!shown.contains('\r') && shown.len() <= 2_000, "{shown}");
    assert!(shown.contains("sync finished with 2 errors"), "{shown}");
    // Lines erased within the windows are not counted (1,516 lines
    // printed to a pipe, 1,819 with the status lines).
    let live = with_live_status(&case.output);
    let cut = t.truncate("Bash", live.as_bytes());
    assert_eq!(live.lines().count(), 1_819);
    assert!((1_516..1_819).contains(&cut.total_lines), "{}", cut.total_lines);
    assert_eq!(seen(&cut), seen(&t.truncate_reader("Bash", live.as_bytes())));

    let read = t.truncate("Read", "a\r\nb\r\n".repeat(1_000).as_bytes());
    assert!(view(&read).starts_with("a\r\nb\r\n"));
}

/// Bytes that are not UTF-8 in a drawn output are shown as U+FFFD, and
/// the cut says so.
#[test]
fn trunc_3_a_drawn_output_that_is_not_utf8_is_lossy() {
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .limits(Limits::new(2_000, 8_192))
        .build();
    let mut printed = b"50%\r100%\nbad \xff byte\n".to_vec();
    let cut = t.truncate("Bash", &printed);
    assert!(cut.lossy && !cut.truncated);
    assert_eq!(view(&cut), "100%\nbad \u{fffd} byte\n");
    printed.extend(b"50%\r100%\n".repeat(2_000));
    let cut = t.truncate("Bash", &printed);
    assert!(cut.lossy && cut.truncated);
    assert!(t.truncate_reader("Bash", &printed[..]).lossy);
}

/// A result that was not cut but that a terminal shows otherwise is
/// handed back as shown, text or structured (a Bash `stdout`), with its
/// status and error; one that needs nothing is handed back as it is, and a
/// file tool's text keeps its bytes.
#[test]
fn trunc_1_a_result_not_cut_is_handed_back_as_shown() {
    use serde_json::json;
    use strata_ctx_core::{ResultStatus, ToolResult};
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .limits(Limits::new(2_000, 8_192))
        .build();
    let printed = " 10%\r 90%\r100%\r\nerror: boom\r\n";
    let cut = t.truncate("Bash", printed.as_bytes());
    assert!(cut.redrawn && !cut.truncated);
    assert_eq!(view(&cut), "100%\nerror: boom\n");
    assert!(!t.truncate("Bash", b"100%\nerror: boom\n").redrawn);
    assert!(!t.truncate("Read", printed.as_bytes()).redrawn);

    let mut failed = ToolResult::error("exit", "exit 1");
    failed.data = json!(printed);
    let (out, cut) = t.truncate_result("Bash", failed.clone());
    assert!(cut.unwrap().redrawn);
    assert_eq!(out.data, json!("100%\nerror: boom\n"));
    assert_eq!((out.status, out.error), (ResultStatus::Error, failed.error));

    let fields = ToolResult::success(json!({"stdout": printed, "stderr": "", "exit_code": 1}));
    let (out, cut) = t.truncate_result("Bash", fields);
    assert!(cut.is_none());
    assert_eq!(
        out.data,
        json!({"stdout": "100%\nerror: boom\n", "stderr": "", "exit_code": 1})
    );
    let read = ToolResult::success(json!({"content": printed}));
    assert_eq!(t.truncate_result("Read", read.clone()).0, read);
}

/// Of a log longer than both windows, the window with drawings is shown
/// as a terminal shows it, whichever it is; a single drawn line over the
/// limits is cut at the byte limit, as a printed one is.
#[test]
fn trunc_1_each_window_is_shown_as_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .spill_dir(None)
        .limits(Limits::new(40, 2_000))
        .build();
    let log = captured("pylog").output;
    let lines: Vec<&str> = log.split_inclusive('\n').collect();
    let drawn = |range: std::ops::Range<usize>| -> String {
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| match range.contains(&i) {
                true => format!(" 50%|#####     |\r{l}"),
                false => (*l).to_owned(),
            })
            .collect()
    };
    let piped = view(&t.truncate("Bash", log.as_bytes()));
    for printed in [drawn(0..40), drawn(lines.len() - 40..lines.len())] {
        let cut = t.truncate("Bash", printed.as_bytes());
        assert!(cut.redrawn);
        assert_eq!(view(&cut), piped);
    }
    let long = format!(" 50%|#####\r{}", "x".repeat(5_000));
    let cut = t.truncate("Bash", long.as_bytes());
    assert_eq!(view(&cut), "x".repeat(2_000));
    // So too when only the end was drawn, of an output past both windows.
    let longer = format!("\x1b[31m{}\n 50%\r100%\n", "x".repeat(40_000));
    let cut = t.truncate("Bash", longer.as_bytes());
    assert!(cut.redrawn);
    assert_eq!(view(&cut), format!("\x1b[31m{}", "x".repeat(1_995)));
    // A cut inside a character that is not ASCII moves back before it.
    let wide = format!(" 50%\r{}", "é".repeat(3_000));
    assert_eq!(view(&t.truncate("Bash", wide.as_bytes())), "é".repeat(1_000));
}
