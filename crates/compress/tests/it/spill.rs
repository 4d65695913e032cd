//! TRUNC-2 and TRUNC-3 on a real file system.

use std::io::Read;

use strata_ctx_compress::{Limits, Spill, Truncator};
use strata_ctx_core::Timestamp;

fn fixed_clock() -> Timestamp {
    Timestamp::from_unix_millis(1_767_225_600_000).unwrap()
}

fn big(lines: usize) -> String {
    (0..lines).map(|i| format!("line {i}\n")).collect()
}

fn saved(spill: &Spill) -> std::path::PathBuf {
    match spill {
        Spill::Saved(p) => p.clone(),
        other => panic!("not saved: {other:?}"),
    }
}

#[test]
fn trunc_2_two_spills_in_the_same_second_do_not_collide() {
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .limits(Limits::new(10, 1024))
        .clock(fixed_clock)
        .build();
    let a = t.truncate("bash", big(100).as_bytes());
    let b = t.truncate("bash", big(200).as_bytes());
    let (pa, pb) = (saved(&a.spill), saved(&b.spill));
    assert_ne!(pa, pb);
    assert_eq!(std::fs::read_to_string(&pa).unwrap(), big(100));
    assert_eq!(std::fs::read_to_string(&pb).unwrap(), big(200));
    assert!(pa
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("bash_20260101_000000_"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&pa).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            std::fs::metadata(pa.parent().unwrap())
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o700
        );
    }
}

#[cfg(unix)]
#[test]
fn trunc_2_a_symlink_in_the_way_is_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    // Symlinks at every name the next spills could take.
    let spill_dir = dir.path().join("tool-output");
    std::fs::create_dir(&spill_dir).unwrap();
    let t = Truncator::builder(dir.path())
        .limits(Limits::new(10, 1024))
        .clock(fixed_clock)
        .build();
    let probe = saved(&t.truncate("bash", big(50).as_bytes()).spill);
    let n: u64 = probe
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .rsplit('_')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    for k in n + 1..n + 20 {
        std::os::unix::fs::symlink(&victim, spill_dir.join(format!("bash_20260101_000000_{k}.txt"))).unwrap();
    }
    let cut = t.truncate("bash", big(50).as_bytes());
    let path = saved(&cut.spill);
    assert!(!std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");

    // A spill directory that is itself a symlink is refused.
    let dir2 = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir2.path().join("tool-output")).unwrap();
    let cut = Truncator::new(dir2.path()).truncate("bash", big(5_000).as_bytes());
    assert!(cut.truncated);
    assert!(matches!(cut.spill, Spill::Failed(ref why) if why.contains("symlink")));
    assert!(cut
        .result
        .text
        .unwrap()
        .contains("The full output could not be saved"));
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn trunc_2_read_only_directory_still_truncates() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let spill_dir = dir.path().join("tool-output");
    std::fs::create_dir(&spill_dir).unwrap();
    std::fs::set_permissions(&spill_dir, std::fs::Permissions::from_mode(0o500)).unwrap();
    let probe = spill_dir.join("probe");
    if std::fs::write(&probe, "x").is_ok() {
        // Running as a user that ignores permissions (root): nothing to test.
        std::fs::remove_file(probe).unwrap();
        return;
    }
    let cut = Truncator::new(dir.path()).truncate("bash", big(5_000).as_bytes());
    assert!(cut.truncated);
    assert_eq!(cut.shown_lines, 2_000);
    assert!(matches!(cut.spill, Spill::Failed(_)));
    assert!(cut.result.full_output_path.is_none());
    let text = cut.result.text.unwrap();
    assert!(
        text.starts_with(
            "Found 5000 lines (showing first 2000). The full output could not be saved: cannot create"
        ),
        "{text}"
    );
}

#[test]
fn trunc_2_spill_dir_that_is_a_file_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tool-output"), "not a dir").unwrap();
    let cut = Truncator::new(dir.path()).truncate("bash", big(5_000).as_bytes());
    assert!(matches!(cut.spill, Spill::Failed(ref why) if why.contains("not a directory")));
}

#[test]
fn trunc_3_non_utf8_output_keeps_raw_bytes_in_the_spill() {
    let dir = tempfile::tempdir().unwrap();
    let mut raw = Vec::new();
    for i in 0..3_000u32 {
        raw.extend_from_slice(format!("row {i} ").as_bytes());
        raw.extend_from_slice(&[0xff, 0xfe, b'\n']);
    }
    let cut = Truncator::new(dir.path()).truncate("bash", &raw);
    assert!(cut.lossy);
    let view = cut.result.data["output"].as_str().unwrap();
    assert!(view.starts_with("row 0 \u{fffd}\u{fffd}\n"));
    assert_eq!(std::fs::read(saved(&cut.spill)).unwrap(), raw);
}

/// TRUNC-1 on 100 MB streamed from a reader: the spill holds every byte,
/// memory holds only the view.
#[test]
fn trunc_1_hundred_megabytes_stream_to_the_spill() {
    struct Gen {
        left: usize,
        line: u64,
        pending: Vec<u8>,
    }
    impl Read for Gen {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let mut n = 0;
            while n < buf.len() && self.left > 0 {
                if self.pending.is_empty() {
                    self.pending =
                        format!("{:>10} some build output of a very long log\n", self.line).into_bytes();
                    self.line += 1;
                }
                let k = self.pending.len().min(buf.len() - n).min(self.left);
                buf[n..n + k].copy_from_slice(&self.pending[..k]);
                self.pending.drain(..k);
                n += k;
                self.left -= k;
            }
            Ok(n)
        }
    }
    const SIZE: usize = 100 * 1024 * 1024;
    let dir = tempfile::tempdir().unwrap();
    let cut = Truncator::builder(dir.path())
        .max_spill_bytes(u64::MAX)
        .build()
        .truncate_reader(
            "bash",
            Gen {
                left: SIZE,
                line: 0,
                pending: Vec::new(),
            },
        );
    assert_eq!(cut.total_bytes, SIZE as u64);
    assert_eq!(cut.total_lines, SIZE / 48 + 1);
    let path = saved(&cut.spill);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), SIZE as u64);
    // The head, then the tail: the last whole lines of the stream and its
    // cut-off last line (TOOL-8).
    let view = cut.result.data["output"].as_str().unwrap();
    assert!(view.len() <= 50 * 1024);
    assert!(view.starts_with("         0 some build output of a very long log\n"));
    let last = format!("{:>10} some build output of a very long log\n", SIZE / 48 - 1);
    assert!(view.contains(&last), "the last whole line is shown");
    let notice = cut.result.text.as_deref().unwrap();
    assert!(
        notice.contains("(showing the first ") && notice.contains(" and the last "),
        "{notice}"
    );
    assert!(
        cut.shown_lines <= 50 * 1024 / 48,
        "head and tail share the 50 KiB of 48-byte lines: {}",
        cut.shown_lines
    );
}

#[test]
fn a_failing_reader_keeps_what_was_read() {
    struct Broken(usize);
    impl Read for Broken {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("pipe closed"));
            }
            self.0 -= 1;
            buf[..6].copy_from_slice(b"chunk\n");
            Ok(6)
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let cut = Truncator::new(dir.path()).truncate_reader("bash", Broken(3));
    assert_eq!(cut.result.data, "chunk\nchunk\nchunk\n");
    assert_eq!(
        cut.result.text.as_deref(),
        Some("The output could not be read completely: pipe closed")
    );
}

/// TRUNC-1: a last line without a newline counts, in memory and streamed.
#[test]
fn trunc_1_last_line_without_newline_counts() {
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .limits(Limits::new(2, 1024))
        .build();
    for cut in [
        t.truncate("bash", b"a\nb\nc"),
        t.truncate_reader("bash", &b"a\nb\nc"[..]),
    ] {
        assert!(cut.truncated);
        assert_eq!((cut.total_lines, cut.shown_lines), (3, 2));
        assert_eq!(cut.result.data["output"], "a\nb\n");
        assert_eq!(std::fs::read(saved(&cut.spill)).unwrap(), b"a\nb\nc");
    }
    let whole = t.truncate("bash", b"a\nb\n");
    assert!(!whole.truncated);
}

/// The in-memory and the streaming paths agree.
#[test]
fn truncate_and_truncate_reader_agree() {
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .spill_dir(None)
        .limits(Limits::new(50, 700))
        .build();
    for text in [
        String::new(),
        big(10),
        big(60),
        "x".repeat(5_000),
        format!("{}tail", big(49)),
    ] {
        let a = t.truncate("bash", text.as_bytes());
        let b = t.truncate_reader("bash", text.as_bytes());
        assert_eq!(a, b, "{text:?}");
    }
}

/// TRUNC-1 on structured data: a long Bash `stdout` is cut in place and
/// saved whole; short fields and the status of an error stay.
#[test]
fn trunc_1_structured_fields_are_cut_in_place() {
    use serde_json::json;
    use strata_ctx_core::{ResultStatus, ToolResult};
    let dir = tempfile::tempdir().unwrap();
    let t = Truncator::builder(dir.path())
        .limits(Limits::new(10, 1024))
        .clock(fixed_clock)
        .build();
    let result = ToolResult::success(
        json!({"command": "make", "exit_code": 0, "stdout": big(100), "stderr": "warn\n"}),
    );
    let (out, cut) = t.truncate_result("Bash", result);
    let cut = cut.unwrap();
    // Two lines of tail (a fifth of ten), two for the markers, and the
    // rest for the head: six lines, with no diagnostic line to make room
    // for.
    assert_eq!((cut.total_lines, cut.shown_lines), (100, 8));
    assert_eq!(out.status, ResultStatus::Partial);
    assert_eq!(
        out.data["stdout"],
        format!("{}[… 92 lines …]\nline 98\nline 99\n", big(6))
    );
    assert_eq!(out.data["stderr"], "warn\n");
    assert_eq!(out.data["truncated"], true);
    assert_eq!(out.data["stdout_lines"], 100);
    let path = out.full_output_path.clone().unwrap();
    assert_eq!(std::fs::read_to_string(dir.path().join(&path)).unwrap(), big(100));
    assert!(out.text.unwrap().starts_with(
        "stdout: Found 100 lines (showing the first 6 and the last 2). Full output: tool-output/"
    ));

    // Small structured data is left alone; an error keeps its status.
    let small = ToolResult::success(json!({"stdout": "ok\n"}));
    assert_eq!(t.truncate_result("Bash", small.clone()), (small, None));
    let mut failed = ToolResult::error("exit_1", "build failed");
    failed.data = json!({"stdout": big(50)});
    let (out, _) = t.truncate_result("Bash", failed);
    assert_eq!(out.status, ResultStatus::Error);
    assert_eq!(out.error.unwrap().code, "exit_1");
}

/// REL-2: a spill file holds at most `max_spill_bytes`, and an endless
/// output stops at `max_read_bytes`, both said in the notice.
#[test]
fn rel_2_spill_and_read_limits() {
    let dir = tempfile::tempdir().unwrap();
    let truncator = Truncator::builder(dir.path())
        .max_spill_bytes(10_000)
        .max_read_bytes(1_000_000)
        .build();
    let cut = truncator.truncate_reader("bash", std::io::repeat(b'y'));
    assert!(cut.limit_reached);
    assert_eq!(cut.total_bytes, 1_000_000);
    assert_eq!(std::fs::metadata(saved(&cut.spill)).unwrap().len(), 10_000);
    let notice = cut.result.text.unwrap();
    assert!(
        notice.contains("reading stopped at the limit of 1000000 bytes"),
        "{notice}"
    );
    assert!(
        notice.contains("its file holds the first 10000 bytes"),
        "{notice}"
    );

    let output = "z\n".repeat(20_000);
    let cut = truncator.truncate("bash", output.as_bytes());
    assert!(!cut.limit_reached);
    assert_eq!(std::fs::metadata(saved(&cut.spill)).unwrap().len(), 10_000);
    assert!(cut
        .result
        .text
        .unwrap()
        .contains("its file holds the first 10000 bytes"));
}

/// TRUNC-1 on a real full filesystem (a 64 KiB tmpfs, where the machine
/// lets the test mount one): the output is still cut for the model, the
/// notice says why the whole was not saved, and no partial file is left.
#[test]
#[ignore = "mounts a tmpfs (root on Linux): run with --include-ignored"]
fn trunc_1_full_disk_still_truncates() {
    let disk = strata_ctx_testkit::Tmpfs::mount("64k")
        .expect("this test mounts a 64 KiB tmpfs: run it as root on Linux");
    let output: String = (0..20_000)
        .map(|i| format!("line {i} of a long build log\n"))
        .collect();
    let cut = Truncator::new(disk.path()).truncate("bash", output.as_bytes());
    assert!(cut.truncated);
    let Spill::Failed(why) = &cut.spill else {
        panic!("expected a failed spill, got {:?}", cut.spill)
    };
    assert!(why.contains("No space left on device"), "{why}");
    let notice = cut.result.text.clone().unwrap();
    assert!(notice.contains("The full output could not be saved"), "{notice}");
    let left: Vec<_> = std::fs::read_dir(disk.path().join("tool-output"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "a partial spill file was left: {left:?}");
}
