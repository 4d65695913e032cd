//! One module per subcommand.

pub mod bench;
pub mod compact;
pub mod compress;
pub mod demo;
pub mod eval;
pub mod inspect;
pub mod memory;
pub mod mention;
pub mod render;
pub mod replay;
pub mod store;
pub mod truncate;

use std::io::Write;

use crate::error::{output_error, CliError};

/// Writes `text` to stdout, reporting a failed write (a closed pipe, a
/// full disk) as an error instead of panicking.
pub fn out(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).map_err(output_error)?;
    stdout.flush().map_err(output_error)
}

/// Writes each of `values` as one line of JSON to stdout (JSONL), as it
/// goes: no copy of the output is held.
pub fn out_lines<T: serde::Serialize>(values: impl IntoIterator<Item = T>) -> Result<(), CliError> {
    let mut stdout = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    for value in values {
        serde_json::to_writer(&mut stdout, &value).map_err(|e| match e.io_error_kind() {
            Some(std::io::ErrorKind::BrokenPipe) => CliError::Closed,
            Some(_) => CliError::Runtime(format!("cannot write the output: {e}")),
            None => CliError::Runtime(e.to_string()),
        })?;
        stdout.write_all(b"\n").map_err(output_error)?;
    }
    stdout.flush().map_err(output_error)
}

/// Writes a line to stderr: diagnostics that must never fail the command
/// (a closed stderr loses them, nothing else).
pub fn note(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}

/// Writes one JSON value and a newline to stdout.
pub fn out_json(value: &serde_json::Value) -> Result<(), CliError> {
    out(&format!("{value}\n"))
}

/// Writes one JSON value, indented, to stdout.
pub fn out_json_pretty(value: &serde_json::Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| CliError::Runtime(e.to_string()))?;
    out(&format!("{text}\n"))
}

/// `part` of `whole` as a share between 0 and 1.
pub fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
