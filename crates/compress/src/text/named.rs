//! Which process printed each line of an output that several processes
//! printed into (Turborepo's `web:test: `, Compose's `api-1  | `).

use super::{line_str, Line};

/// The lines of an output as printed, their colours left out, each with
/// the name of the process that printed it: what tells two lines that
/// say the same apart when different processes said them (`web:build:
/// src/a.ts(1,20): error TS2307: Cannot find module '@shop/ui'` and the
/// same error under `api:build: `). The form's analyses read what each
/// process said alone; repeats are judged on these.
#[derive(Debug, Default)]
pub(super) struct Named<'a> {
    /// Line `n` as printed, uncoloured; empty when no line names its
    /// process.
    lines: Vec<&'a str>,
}

impl<'a> Named<'a> {
    /// The lines of `uncoloured`, kept only when `alone` (the same text
    /// without the processes' names) differs from it.
    pub(super) fn of(uncoloured: &'a str, alone: &str) -> Named<'a> {
        if uncoloured.len() == alone.len() {
            return Named::default();
        }
        Named {
            lines: uncoloured
                .split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l))
                .collect(),
        }
    }

    /// What `line` of `text` (the output without processes' names) says,
    /// with the name of the process that said it.
    pub(super) fn said<'b>(&'b self, text: &'b str, line: &Line) -> &'b str {
        self.lines
            .get(line.number)
            .copied()
            .unwrap_or_else(|| line_str(text, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_said_with_its_process_s_name_when_lines_have_one() {
        let printed = "web:build: error TS2307: x\napi:build: error TS2307: x";
        let alone = "error TS2307: x\nerror TS2307: x";
        let named = Named::of(printed, alone);
        let second = Line {
            number: 1,
            start: 16,
            end: alone.len(),
        };
        assert_eq!(named.said(alone, &second), "api:build: error TS2307: x");
        // Without names, what a line says is its text.
        assert_eq!(Named::of(alone, alone).said(alone, &second), "error TS2307: x");
    }
}
