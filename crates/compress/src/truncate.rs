//! Truncation of raw tool output with a spill file (TRUNC-1 … TRUNC-3).

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use memchr::{memchr_iter, memrchr};
use serde_json::{json, Value};
use strata_ctx_core::{ResultStatus, Timestamp, ToolResult};

use crate::text;

mod fields;
mod spill;
mod terminal;
mod view;

use spill::*;

/// Where truncation cuts (TRUNC-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The most lines shown. By default, 2,000.
    pub max_lines: usize,
    /// The most bytes shown. By default, 50 KiB.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_lines: 2_000,
            max_bytes: 50 * 1024,
        }
    }
}

impl Limits {
    /// Limits of `max_lines` lines and `max_bytes` bytes.
    pub fn new(max_lines: usize, max_bytes: usize) -> Self {
        Limits { max_lines, max_bytes }
    }
}

/// What became of the full output.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Spill {
    /// The output was not cut; nothing was saved.
    NotNeeded,
    /// Spilling is switched off.
    Disabled,
    /// The full output was saved at this path.
    Saved(PathBuf),
    /// The full output could not be saved; the text says why.
    Failed(String),
}

/// The outcome of [`Truncator::truncate`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Truncated {
    /// The envelope the model sees: the output as it is, or, when cut,
    /// `status: "partial"`, `data: {"output": <view>, "truncated": true}`,
    /// the notice as `text` and `full_output_path`.
    pub result: ToolResult,
    /// Whether the output was cut.
    pub truncated: bool,
    /// Lines of the whole output.
    pub total_lines: usize,
    /// Whole lines shown.
    pub shown_lines: usize,
    /// Bytes of the whole output.
    pub total_bytes: u64,
    /// Whether the shown part held bytes that are not UTF-8 (shown as
    /// U+FFFD; the spill file keeps the raw bytes).
    pub lossy: bool,
    /// What became of the full output.
    pub spill: Spill,
    /// Whether reading stopped at the truncator's input limit (REL-2):
    /// the output was longer, possibly endless, and the rest was not read.
    pub limit_reached: bool,
    /// Whether a terminal shows a shell's output otherwise than its bytes
    /// (its progress bars' drawings, `\r\n` line ends): the view is of the
    /// output as shown, and of an output that was not cut, `result` holds
    /// it whole as shown, to be seen in place of the bytes printed.
    pub redrawn: bool,
}

type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// Cuts tool output that is too long for the model and saves the whole of
/// it to a file under the project root (TRUNC-1 … TRUNC-3).
///
/// A shell's output (and that of a tool nobody listed) shows its first
/// lines, the diagnostic lines between and its last lines; a file tool's
/// shows its first lines; a shell's is cut as a terminal shows it, its
/// progress bars' drawings taking no room. Output is cut at a line boundary, or inside a
/// single line that alone is over the byte limit at a character boundary, never inside a UTF-8
/// character. The full output is streamed to
/// `tool-output/<tool>_<yyyymmdd_HHMMSS>_<n>.txt`, created exclusively
/// (never overwriting, never following a symlink), readable by its owner
/// only. A failure to save still truncates and says so in the notice.
///
/// # Example
///
/// ```
/// use strata_ctx_compress::{Limits, Spill, Truncator};
///
/// let dir = tempfile::tempdir()?;
/// let truncator = Truncator::builder(dir.path()).limits(Limits::new(100, 50 * 1024)).build();
/// let output: String = (0..1000).map(|i| format!("line {i}\n")).collect();
/// let cut = truncator.truncate("bash", output.as_bytes());
/// assert!(cut.truncated);
/// // A shell shows its head and its tail, a fifth of the limits.
/// assert_eq!((cut.total_lines, cut.shown_lines), (1000, 98));
/// assert!(cut.result.text.as_deref().unwrap_or_default().starts_with(
///     "Found 1000 lines (showing the first 78 and the last 20). Full output: tool-output/bash_"
/// ));
/// // A file tool shows the first lines.
/// let read = truncator.truncate("Read", output.as_bytes());
/// assert_eq!(read.shown_lines, 100);
/// assert!(matches!(cut.spill, Spill::Saved(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Truncator {
    root: PathBuf,
    spill_dir: Option<PathBuf>,
    limits: Limits,
    per_tool: HashMap<String, Limits>,
    clock: Clock,
    /// The most bytes a spill file holds (REL-2).
    max_spill_bytes: u64,
    /// The most bytes read from a stream (REL-2).
    max_read_bytes: u64,
    /// Numbers spill files; shared by clones.
    counter: Arc<AtomicU64>,
}

impl fmt::Debug for Truncator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Truncator")
            .field("root", &self.root)
            .field("spill_dir", &self.spill_dir)
            .field("limits", &self.limits)
            .field("per_tool", &self.per_tool)
            .finish_non_exhaustive()
    }
}

/// Builds a [`Truncator`].
#[derive(Debug, Clone)]
pub struct TruncatorBuilder {
    truncator: Truncator,
}

impl TruncatorBuilder {
    /// Sets the default limits. By default, 2,000 lines and 50 KiB.
    pub fn limits(&mut self, limits: Limits) -> &mut Self {
        self.truncator.limits = limits;
        self
    }

    /// Sets the limits of one tool, by its name as
    /// [`strata_ctx_tools::normalize`] spells it (`read-file`, `Read_File`
    /// and `read_file` are one tool). By default, every tool has the
    /// default limits.
    pub fn tool_limits(&mut self, tool: &str, limits: Limits) -> &mut Self {
        self.truncator
            .per_tool
            .insert(strata_ctx_tools::normalize(tool), limits);
        self
    }

    /// Sets the spill directory, relative to the project root unless
    /// absolute; `None` switches spilling off. By default, `tool-output`.
    pub fn spill_dir(&mut self, dir: Option<PathBuf>) -> &mut Self {
        self.truncator.spill_dir = dir;
        self
    }

    /// Sets the most bytes one spill file holds (REL-2): of a longer output
    /// it keeps the start, and the notice says so. By default, 64 MiB.
    pub fn max_spill_bytes(&mut self, bytes: u64) -> &mut Self {
        self.truncator.max_spill_bytes = bytes;
        self
    }

    /// Sets the most bytes [`Truncator::truncate_reader`] reads (REL-2):
    /// an endless output stops there, the notice says so and
    /// [`Truncated::limit_reached`] is set. By default, 1 GiB.
    pub fn max_read_bytes(&mut self, bytes: u64) -> &mut Self {
        self.truncator.max_read_bytes = bytes;
        self
    }

    /// Sets the clock that names spill files. By default, the system clock.
    pub fn clock(&mut self, clock: impl Fn() -> Timestamp + Send + Sync + 'static) -> &mut Self {
        self.truncator.clock = Arc::new(clock);
        self
    }

    /// The truncator. The builder can be used again; each truncator
    /// numbers its spill files from 0.
    pub fn build(&self) -> Truncator {
        Truncator {
            counter: Arc::new(AtomicU64::new(0)),
            ..self.truncator.clone()
        }
    }
}

const CHUNK: usize = 64 * 1024;

/// The default of [`TruncatorBuilder::max_spill_bytes`].
pub const DEFAULT_MAX_SPILL_BYTES: u64 = 64 * 1024 * 1024;
/// The default of [`TruncatorBuilder::max_read_bytes`].
pub const DEFAULT_MAX_READ_BYTES: u64 = 1024 * 1024 * 1024;

impl Truncator {
    /// A builder for a truncator of the project at `root`.
    pub fn builder(root: impl Into<PathBuf>) -> TruncatorBuilder {
        TruncatorBuilder {
            truncator: Truncator {
                root: root.into(),
                spill_dir: Some(PathBuf::from("tool-output")),
                limits: Limits::default(),
                per_tool: HashMap::new(),
                clock: Arc::new(Timestamp::now),
                max_spill_bytes: DEFAULT_MAX_SPILL_BYTES,
                max_read_bytes: DEFAULT_MAX_READ_BYTES,
                counter: Arc::new(AtomicU64::new(0)),
            },
        }
    }

    /// A truncator of the project at `root` with the defaults.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Truncator::builder(root).build()
    }

    /// The limits that apply to `tool`.
    pub fn limits_for(&self, tool: &str) -> Limits {
        self.per_tool
            .get(&strata_ctx_tools::normalize(tool))
            .copied()
            .unwrap_or(self.limits)
    }

    /// The same truncator with every byte limit divided among `outputs`
    /// outputs (at least 1 KiB each), for the results of one step that
    /// share one cap: a step with five parallel results shows no more than
    /// a step with one. It numbers spill files with this one.
    pub fn shared_by(&self, outputs: usize) -> Truncator {
        let mut shared = self.clone();
        if outputs > 1 {
            let share = |l: &mut Limits| l.max_bytes = (l.max_bytes / outputs).max(1024).min(l.max_bytes);
            share(&mut shared.limits);
            shared.per_tool.values_mut().for_each(share);
        }
        shared
    }

    /// Truncates output held in memory.
    pub fn truncate(&self, tool: &str, output: &[u8]) -> Truncated {
        let limits = self.limits_for(tool);
        // One pass counts the lines, and those of the part that may be
        // shown on their own: the cut needs them.
        let window = output.len().min(limits.max_bytes);
        let window_newlines = text::newlines(&output[..window]);
        let newlines = window_newlines + text::newlines(&output[window..]);
        let total_lines = newlines + usize::from(output.last().is_some_and(|&b| b != b'\n'));
        let end_offset = output.len().saturating_sub(view::END_WINDOW * limits.max_bytes);
        let printed = Shown {
            head: &output[..output.len().min(limits.max_bytes + 1)],
            head_newlines: Some(window_newlines),
            end: &output[end_offset..],
            end_offset,
            total_lines,
            total_bytes: output.len() as u64,
        };
        // A shell's output is cut as a terminal shows it: one that fits so
        // is not cut, whatever its drawings took.
        let terminal = terminal::AsShown::of(tool, &printed, limits);
        let over = match &terminal {
            Some(t) => !t.fits(limits),
            None => output.len() > limits.max_bytes || total_lines > limits.max_lines,
        };
        let spill = if over {
            self.spill_all(tool, output)
        } else {
            Spill::NotNeeded
        };
        let capped = matches!(spill, Spill::Saved(_)) && output.len() as u64 > self.max_spill_bytes;
        let note = capped.then(|| capped_note(self.max_spill_bytes, None));
        match &terminal {
            Some(t) => self.finish(tool, limits, t.shown(&printed), spill, note, Some(t)),
            None => self.finish(tool, limits, printed, spill, note, None),
        }
    }

    /// Truncates output read from `reader`, holding no more than the shown
    /// part and one read buffer in memory: the rest streams to the spill
    /// file. A read error ends the output there and is noted in the text.
    pub fn truncate_reader(&self, tool: &str, mut reader: impl Read) -> Truncated {
        let limits = self.limits_for(tool);
        let mut stream = Streamed {
            head: Vec::new(),
            sink: None,
            spill: Spill::NotNeeded,
        };
        let mut newlines = 0usize;
        let mut total: u64 = 0;
        let mut last_byte = None;
        let mut read_error = None;
        let mut chunk = vec![0u8; CHUNK];
        let mut limit_reached = false;
        // The output's last bytes, for the view's tail.
        let end_window = view::END_WINDOW * limits.max_bytes;
        let mut end: Vec<u8> = Vec::new();
        loop {
            if total >= self.max_read_bytes {
                limit_reached = true;
                read_error = Some(format!(
                    "reading stopped at the limit of {} bytes",
                    self.max_read_bytes
                ));
                break;
            }
            let room = (self.max_read_bytes - total).min(CHUNK as u64) as usize;
            let n = match reader.read(&mut chunk[..room]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    read_error = Some(e.to_string());
                    break;
                }
            };
            let data = &chunk[..n];
            total += n as u64;
            end.extend_from_slice(data);
            if end.len() > 2 * end_window.max(CHUNK) {
                end.drain(..end.len() - end_window);
            }
            newlines += text::newlines(data);
            last_byte = data.last().copied();
            stream.push(self, tool, limits, data, newlines);
        }
        let mut note = read_error;
        let Streamed {
            head,
            sink,
            mut spill,
        } = stream;
        if let Some(s) = sink {
            if s.capped {
                note = Some(capped_note(self.max_spill_bytes, note));
            }
            spill = s.finish();
        }
        let total_lines = newlines + usize::from(last_byte.is_some_and(|b| b != b'\n'));
        if matches!(spill, Spill::NotNeeded) && total_lines > limits.max_lines {
            // A last line without a newline went over the line limit; all
            // of the output is in `head`.
            spill = self.spill_all(tool, &head);
        }
        let end_offset = (total as usize).saturating_sub(end_window);
        let keep_from = end.len().saturating_sub(end_window);
        let printed = Shown {
            head: &head,
            head_newlines: None,
            end: &end[keep_from..],
            end_offset,
            total_lines,
            total_bytes: total,
        };
        let terminal = terminal::AsShown::of(tool, &printed, limits);
        let mut cut = match &terminal {
            Some(t) => {
                if t.fits(limits) {
                    // Spilled as printed, it fits as shown: not cut.
                    if let Spill::Saved(path) = &spill {
                        // A file left behind loses nothing.
                        let _ = std::fs::remove_file(path);
                    }
                    spill = Spill::NotNeeded;
                }
                self.finish(tool, limits, t.shown(&printed), spill, note, Some(t))
            }
            None => self.finish(tool, limits, printed, spill, note, None),
        };
        cut.limit_reached = limit_reached;
        cut
    }

    /// The outcome, from what of the output can be shown and what was
    /// counted.
    fn finish(
        &self,
        tool: &str,
        limits: Limits,
        shown: Shown<'_>,
        spill: Spill,
        read_error: Option<String>,
        terminal: Option<&terminal::AsShown>,
    ) -> Truncated {
        // Whether `shown` is the output as a terminal shows it.
        let redrawn = terminal.is_some();
        let (head, total_lines, total) = (shown.head, shown.total_lines, shown.total_bytes);
        let truncated = !matches!(spill, Spill::NotNeeded);
        // Shell tools and unknown ones show their end too (TOOL-8).
        let ends = truncated && matches!(crate::kind::canonical(tool), Some(crate::ToolKind::Bash) | None);
        let around = ends
            .then(|| view::compose(head, shown.end, shown.end_offset, total_lines, limits))
            .flatten();
        let (view_end, shown_lines, partial_line) = match (&around, truncated) {
            (Some(v), _) => (0, v.shown_lines(), false),
            (None, true) => cut_point(head, limits, shown.head_newlines),
            (None, false) => (head.len(), total_lines, false),
        };
        let view_bytes = &head[..view_end];
        // `from_utf8_lossy` checks byte by byte: valid text, the common
        // case, is checked and copied at memory speed instead.
        let described = around.as_ref().map(view::View::describe);
        let (view, mut lossy) = match (around, simdutf8::basic::from_utf8(view_bytes)) {
            (Some(v), _) => (v.text, v.lossy),
            (None, Ok(text)) => (text.to_owned(), false),
            (None, Err(_)) => (String::from_utf8_lossy(view_bytes).into_owned(), true),
        };
        lossy |= terminal.is_some_and(|t| t.lossy);
        let mut result = ToolResult::success(if truncated {
            json!({ "output": view, "truncated": true })
        } else {
            Value::String(view)
        });
        if truncated {
            let shown = match &described {
                Some(shown) => shown.clone(),
                None => format!(
                    "first {shown_lines}{}",
                    if partial_line { " and part of the next" } else { "" }
                ),
            };
            let unit = Unit::of(tool).name(total_lines);
            let mut text = format!("Found {total_lines} {unit} (showing {shown}).");
            match &spill {
                Spill::Saved(path) => {
                    let shown = self.display_path(path);
                    text.push_str(&format!(" Full output: {shown}"));
                    result.full_output_path = Some(shown);
                }
                Spill::Failed(why) => text.push_str(&format!(" The full output could not be saved: {why}")),
                Spill::Disabled | Spill::NotNeeded => {}
            }
            result.status = ResultStatus::Partial;
            result.text = Some(text);
        }
        if let Some(e) = read_error {
            let note = if e.starts_with("The ") {
                e
            } else {
                format!("The output could not be read completely: {e}")
            };
            result.status = ResultStatus::Partial;
            result.text = Some(match result.text.take() {
                Some(t) => format!("{t} {note}"),
                None => note,
            });
        }
        Truncated {
            result,
            truncated,
            total_lines,
            shown_lines,
            total_bytes: total,
            lossy,
            spill,
            limit_reached: false,
            redrawn,
        }
    }
}
/// What of an output can be shown: its first `max_bytes + 1` bytes (or
/// all of it) with, when counted, the newlines of its first `max_bytes`
/// bytes, and its last bytes from `end_offset` on.
struct Shown<'a> {
    head: &'a [u8],
    head_newlines: Option<usize>,
    end: &'a [u8],
    end_offset: usize,
    /// Lines of the whole output.
    total_lines: usize,
    /// Bytes of the whole output.
    total_bytes: u64,
}

/// Where to cut `head` (which holds at least the shown part): the end of
/// the view, the whole lines shown, and whether the view ends inside a
/// line. `newlines`, when known, is the count of newlines in the first
/// `max_bytes` bytes of `head`.
fn cut_point(head: &[u8], limits: Limits, newlines: Option<usize>) -> (usize, usize, bool) {
    let window = &head[..head.len().min(limits.max_bytes)];
    if limits.max_lines == 0 {
        return (0, 0, false);
    }
    // Counting is many times faster than stepping from newline to newline.
    let newlines = newlines.unwrap_or_else(|| text::newlines(window));
    // After the max_lines-th newline, if it is inside the byte window.
    if newlines >= limits.max_lines {
        if let Some(pos) = nth_newline(window, limits.max_lines - 1) {
            return (pos + 1, limits.max_lines, false);
        }
    }
    // Otherwise the last newline in the byte window.
    if let Some(pos) = memrchr(b'\n', window) {
        return (pos + 1, newlines, false);
    }
    // One line longer than the window: cut before a UTF-8 lead byte.
    let mut end = window.len();
    if end < head.len() {
        while end > 0 && (head[end] & 0xC0) == 0x80 && window.len() - end < 4 {
            end -= 1;
        }
        // Half of a `\r\n` line end is no text of the line.
        if end > 0 && head[end - 1] == b'\r' && head[end] == b'\n' {
            end -= 1;
        }
    }
    (end, 0, end > 0)
}

/// The position of the newline after `n` others in `bytes`: whole blocks
/// are counted, and only the block that holds it is stepped through.
fn nth_newline(bytes: &[u8], mut n: usize) -> Option<usize> {
    const BLOCK: usize = 4096;
    let mut start = 0;
    for block in bytes.chunks(BLOCK) {
        let here = text::newlines(block);
        if n < here {
            return memchr_iter(b'\n', block).nth(n).map(|pos| start + pos);
        }
        n -= here;
        start += block.len();
    }
    None
}

/// What the lines of a tool's output are called in the notice.
#[derive(Debug, Clone, Copy)]
enum Unit {
    Lines,
    Matches,
    Entries,
}

impl Unit {
    fn of(tool: &str) -> Unit {
        match crate::kind::canonical(tool) {
            Some(crate::ToolKind::Grep) => Unit::Matches,
            Some(crate::ToolKind::Glob | crate::ToolKind::Ls) => Unit::Entries,
            _ => Unit::Lines,
        }
    }

    fn name(self, n: usize) -> &'static str {
        match (self, n == 1) {
            (Unit::Lines, true) => "line",
            (Unit::Lines, false) => "lines",
            (Unit::Matches, true) => "match",
            (Unit::Matches, false) => "matches",
            (Unit::Entries, true) => "entry",
            (Unit::Entries, false) => "entries",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_points() {
        let l = Limits::new(2, 100);
        assert_eq!(cut_point(b"a\nb\nc\n", l, None), (4, 2, false));
        let l = Limits::new(100, 5);
        assert_eq!(cut_point(b"abc\ndefgh\n", l, None), (4, 1, false));
        assert_eq!(cut_point(b"abcdefgh", l, None), (5, 0, true));
        // "é" is two bytes: never split.
        assert_eq!(cut_point("abcdéfg".as_bytes(), l, None), (4, 0, true));
        // Nor a `\r\n` line end: the `\r` goes with its `\n`.
        assert_eq!(cut_point(b"abcd\r\n", l, None), (4, 0, true));
        assert_eq!(sanitize("mcp/server.tool"), "mcp_server_tool");
        assert_eq!(sanitize(""), "tool");
    }

    /// The cut as it was first written: stepping from newline to newline.
    fn cut_point_stepping(head: &[u8], limits: Limits) -> (usize, usize, bool) {
        let window = &head[..head.len().min(limits.max_bytes)];
        if let Some(pos) = memchr_iter(b'\n', window).nth(limits.max_lines.saturating_sub(1)) {
            if limits.max_lines > 0 {
                return (pos + 1, limits.max_lines, false);
            }
        }
        if limits.max_lines == 0 {
            return (0, 0, false);
        }
        if let Some(pos) = memrchr(b'\n', window) {
            return (pos + 1, memchr_iter(b'\n', &window[..=pos]).count(), false);
        }
        let mut end = window.len();
        if end < head.len() {
            while end > 0 && (head[end] & 0xC0) == 0x80 && window.len() - end < 4 {
                end -= 1;
            }
        }
        (end, 0, end > 0)
    }

    #[test]
    fn nth_newline_crosses_blocks() {
        let text = "x\n".repeat(5000);
        for n in [0, 1, 2047, 2048, 2049, 4095, 4999] {
            assert_eq!(nth_newline(text.as_bytes(), n), Some(2 * n + 1), "n = {n}");
        }
        assert_eq!(nth_newline(text.as_bytes(), 5000), None);
        assert_eq!(nth_newline(b"", 0), None);
    }

    proptest::proptest! {
        /// Counting gives the cut that stepping gave, for any text and
        /// limits, lines long or short (TRUNC-1).
        #[test]
        fn counting_cuts_where_stepping_did(
            lines in proptest::collection::vec(0usize..300, 0..400),
            max_lines in 0usize..500,
            max_bytes in 0usize..40_000,
        ) {
            let mut text = Vec::new();
            for (i, len) in lines.iter().enumerate() {
                text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, *len));
                text.push(b'\n');
            }
            let limits = Limits::new(max_lines, max_bytes);
            let stepping = cut_point_stepping(&text, limits);
            proptest::prop_assert_eq!(cut_point(&text, limits, None), stepping);
            let window = &text[..text.len().min(max_bytes)];
            let counted = Some(memchr_iter(b'\n', window).count());
            proptest::prop_assert_eq!(cut_point(&text, limits, counted), stepping);
        }
    }
}
