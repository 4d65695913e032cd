//! Truncation (TRUNC-1) and history form (TOOL-4, TOOL-5, TOOL-8) over 1 MB
//! and 50 MB outputs of Bash (a build, and a long test and service log),
//! Grep and Read shapes.
//!
//! Each group also scans the same bytes with `memchr` for newlines: the
//! baseline the other figures are read against, as a ratio of throughputs.
//! Truncation writes the whole output to a spill file, so its group also
//! times `std::fs::write` of the same bytes, and truncation without a spill.

// Bench code: unwrapping, panicking and printing are how it reports; the
// house lints (Cargo.toml) are for library code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub
)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;
use strata_ctx::compress::{Compressor, Truncator};

/// Deterministic output of about `size` bytes in the shape of `kind`.
fn output(kind: &str, size: usize) -> String {
    let mut out = String::with_capacity(size + 200);
    let mut i: u64 = 0;
    while out.len() < size {
        i += 1;
        let h = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
        match kind {
            "bash" => {
                if h.is_multiple_of(997) {
                    out.push_str(&format!(
                        "warning: unused variable `x{i}` at src/m{}.rs:{}\n",
                        h % 50,
                        h % 400
                    ));
                } else {
                    out.push_str(&format!(
                        "   Compiling crate-{} v0.{}.{} (/work/crates/crate-{})\n",
                        h % 300,
                        h % 9,
                        i % 20,
                        h % 300
                    ));
                }
            }
            // A long test and service log: passing tests, log records, and
            // located notes (one line in seven), a failure now and then:
            // many lines of many shapes for the search for candidate lines,
            // whose lazy DFA a poorer cache gives up on.
            "log" => out.push_str(&match h % 20 {
                0..=9 => format!("test tests::case_{i} ... ok\n"),
                10..=15 => format!("   Compiling crate{i} v0.{}.{}\n", h % 9, h % 7),
                16..=18 => format!(
                    "[2026-11-29 10:{:02}:{:02}] INFO worker {}: processed batch {i} in 0.{:03}s\n",
                    h % 60,
                    i % 60,
                    h % 8,
                    h % 1000
                ),
                _ if h.is_multiple_of(991) => format!("error[E0308]: mismatched types at step {i}\n"),
                _ => format!(
                    "  src/module_{}.rs:{}:{} note: something about line {i}\n",
                    h % 50,
                    h % 900,
                    h % 80
                ),
            }),
            // Search tools group their matches by file.
            "grep" => out.push_str(&format!(
                "src/module_{}/file_{}.rs:{}:    let value = compute(input, {h});\n",
                (i / 20) % 40,
                i / 20,
                i % 5000
            )),
            _ => out.push_str(&format!(
                "    fn method_{i}(&self, arg: u64) -> Result<u64, Error> {{ Ok(arg * {h}) }}\n"
            )),
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("no temp dir: {e}"),
    };
    let truncator = Truncator::new(dir.path());
    let no_spill = Truncator::builder(dir.path()).spill_dir(None).build();
    let compressor = Compressor::new();
    for (label, size) in [("1MB", 1 << 20), ("50MB", 50 << 20)] {
        for (kind, tool) in [
            ("bash", "Bash"),
            ("log", "Bash"),
            ("grep", "Grep"),
            ("read", "Read"),
        ] {
            let text = output(kind, size);
            let mut group = c.benchmark_group(format!("compress/{kind}/{label}"));
            group
                .throughput(Throughput::Bytes(text.len() as u64))
                .sample_size(10);
            group.bench_function("memchr_newlines_baseline", |b| {
                b.iter(|| memchr::memchr_iter(b'\n', black_box(text.as_bytes())).count())
            });
            let spill_path = dir.path().join("baseline.txt");
            group.bench_function("fs_write_baseline", |b| {
                b.iter(|| {
                    let r = std::fs::write(&spill_path, black_box(text.as_bytes()));
                    let _ = std::fs::remove_file(&spill_path);
                    r.is_ok()
                })
            });
            group.bench_function("truncate_no_spill", |b| {
                b.iter(|| no_spill.truncate(tool, black_box(text.as_bytes())).shown_lines)
            });
            group.bench_function("truncate_with_spill", |b| {
                b.iter(|| {
                    let cut = truncator.truncate(tool, black_box(text.as_bytes()));
                    if let strata_ctx::compress::Spill::Saved(p) = &cut.spill {
                        let _ = std::fs::remove_file(p);
                    }
                    cut.shown_lines
                })
            });
            group.bench_function("history_form", |b| {
                b.iter(|| {
                    compressor
                        .compress_text(tool, &Value::Null, black_box(&text))
                        .0
                        .len()
                })
            });
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
