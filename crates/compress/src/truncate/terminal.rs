//! A shell's output as a terminal shows it, before it is cut (TRUNC-1,
//! TOOL-8).
//!
//! A command run under a terminal (Codex CLI's `exec_command` with `tty`,
//! `script`, any pseudo-terminal) draws its progress bars over one line
//! again and again, and erases live status lines by moving the cursor up
//! over them. Cut on the bytes it printed, such an output spends the
//! view's room on drawings nobody sees, is cut though what it shows would
//! fit, and counts lines that are no longer there. The view is built from
//! what a terminal shows instead ([`crate::as_shown`]): of the whole output
//! when the two windows both paths keep (its first `max_bytes + 1` bytes
//! and its last [`END_WINDOW`] × `max_bytes`) hold all of it, else of
//! each window, so that a streamed output and the same output in memory
//! are still shown alike. The spill file keeps the bytes as printed.

use std::borrow::Cow;

use super::view::END_WINDOW;
use super::{Limits, Shown};
use crate::text;

/// What a terminal shows of an output's windows, when it differs from the
/// bytes printed.
#[derive(Debug)]
pub(super) struct AsShown {
    /// The first `max_bytes + 1` bytes shown.
    head: String,
    /// The last bytes shown: all of them when `whole`.
    end: String,
    /// Where `end` starts, in bytes of what is shown when `whole`, else of
    /// the output as printed (past the head either way).
    end_offset: usize,
    /// Lines shown.
    total_lines: usize,
    /// Whether the windows held the whole output, so that `end` is all of
    /// it as shown.
    whole: bool,
    /// Whether bytes that are not UTF-8 were shown as U+FFFD.
    pub(super) lossy: bool,
}

impl AsShown {
    /// What a terminal shows of `shown`, the windows of an output `tool`
    /// printed; `None` for a tool that is not a shell, and when nothing
    /// in the windows was redrawn (the bytes are what is shown).
    pub(super) fn of(tool: &str, shown: &Shown<'_>, limits: Limits) -> Option<AsShown> {
        if !matches!(crate::kind::canonical(tool), Some(crate::ToolKind::Bash)) {
            return None;
        }
        // Most outputs, coloured ones too, are shown as printed: one scan
        // of each window decides, before anything is copied.
        let drawn = crate::diagnose::redraws;
        if !drawn(shown.head) && !drawn(shown.end) {
            return None;
        }
        let end_window = END_WINDOW * limits.max_bytes;
        let mut lossy = false;
        let mut render = |bytes: &[u8]| -> Option<String> {
            let text = String::from_utf8_lossy(bytes);
            lossy |= matches!(text, Cow::Owned(_));
            match crate::diagnose::as_shown(&text) {
                Cow::Owned(shown) => Some(shown),
                Cow::Borrowed(_) => matches!(text, Cow::Owned(_)).then(|| text.into_owned()),
            }
        };
        if shown.head.len() >= shown.end_offset {
            // The windows overlap or meet: they hold the whole output.
            let mut printed = Vec::with_capacity(shown.end_offset + shown.end.len());
            printed.extend_from_slice(&shown.head[..shown.end_offset]);
            printed.extend_from_slice(shown.end);
            let whole = render(&printed)?;
            let head = whole[..text::floor_boundary(&whole, limits.max_bytes + 1)].to_owned();
            let end_offset = whole.len().saturating_sub(end_window);
            let end_offset = text::ceil_boundary(&whole, end_offset);
            return Some(AsShown {
                head,
                total_lines: text::line_count(whole.as_bytes()),
                end: whole[end_offset..].to_owned(),
                end_offset,
                whole: true,
                lossy,
            });
        }
        // Two windows of a long output, each shown alone; lines a window's
        // drawings erased are not counted.
        let head_shown = render(shown.head);
        let end_shown = render(shown.end);
        if head_shown.is_none() && end_shown.is_none() {
            return None;
        }
        let erased = |printed: &[u8], shown: &Option<String>| {
            shown.as_ref().map_or(0, |s| {
                text::newlines(printed).saturating_sub(text::newlines(s.as_bytes()))
            })
        };
        let total_lines = shown
            .total_lines
            .saturating_sub(erased(shown.head, &head_shown) + erased(shown.end, &end_shown));
        let own = |bytes: &[u8], shown: Option<String>| {
            shown.unwrap_or_else(|| String::from_utf8_lossy(bytes).into_owned())
        };
        let mut head = own(shown.head, head_shown);
        head.truncate(text::floor_boundary(&head, limits.max_bytes + 1));
        Some(AsShown {
            head,
            end: own(shown.end, end_shown),
            end_offset: shown.end_offset,
            total_lines,
            whole: false,
            lossy,
        })
    }

    /// Whether what is shown fits `limits` whole: the output need not be
    /// cut.
    pub(super) fn fits(&self, limits: Limits) -> bool {
        self.whole && self.end.len() <= limits.max_bytes && self.total_lines <= limits.max_lines
    }

    /// The windows of what is shown, for the view.
    pub(super) fn shown(&self, printed: &Shown<'_>) -> Shown<'_> {
        Shown {
            head: self.head.as_bytes(),
            head_newlines: None,
            end: self.end.as_bytes(),
            end_offset: self.end_offset,
            total_lines: self.total_lines,
            total_bytes: printed.total_bytes,
        }
    }
}
