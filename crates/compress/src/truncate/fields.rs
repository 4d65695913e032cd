//! Truncation of structured tool results, text by text, however deep
//! (TOOL-14).

use super::*;

/// What cutting the texts of structured data did.
#[derive(Default)]
struct FieldCuts {
    /// The cut of the longest text.
    longest: Option<Truncated>,
    /// One notice per cut text, naming its path.
    notices: Vec<String>,
    /// The spill file of the first cut text.
    first_path: Option<String>,
}

impl Truncator {
    /// Truncates the `data` of a result, keeping its status and error.
    ///
    /// Text data is truncated as a whole (the envelope becomes the one
    /// [`Truncator::truncate`] makes). In structured data, each text over
    /// the limits (a Bash `stdout`, a Read `content`, a log nested in an
    /// array of objects, …) is cut in place, however deep (TOOL-14), and
    /// saved to its own spill file; its object gains `"<field>_lines"`
    /// (the whole field's line count, unless present), an object's data
    /// `"truncated": true`, the result the notices as `text` and the first
    /// spill file as `full_output_path`. The [`Truncated`] returned is
    /// that of the longest field cut. Other results are returned as they
    /// are, with `None`.
    pub fn truncate_result(&self, tool: &str, result: ToolResult) -> (ToolResult, Option<Truncated>) {
        match &result.data {
            Value::String(text) => {
                let cut = self.truncate(tool, text.as_bytes());
                if !cut.truncated {
                    let mut result = result;
                    if cut.redrawn {
                        // Whole, as a terminal shows it.
                        result.data = cut.result.data.clone();
                    }
                    return (result, Some(cut));
                }
                let mut out = cut.result.clone();
                if result.status == ResultStatus::Error {
                    out.status = ResultStatus::Error;
                    out.error = result.error.clone();
                }
                (out, Some(cut))
            }
            Value::Object(_) | Value::Array(_) => self.truncate_fields(tool, result),
            _ => (result, None),
        }
    }

    /// [`Truncator::truncate_result`] for structured data: every text over
    /// the limits is cut where it is, however deep (TOOL-14).
    fn truncate_fields(&self, tool: &str, mut result: ToolResult) -> (ToolResult, Option<Truncated>) {
        let mut cuts = FieldCuts::default();
        self.cut_nested(tool, &mut result.data, "", &mut cuts);
        let FieldCuts {
            longest,
            notices,
            first_path,
        } = cuts;
        if longest.is_none() {
            return (result, None);
        }
        if let Value::Object(map) = &mut result.data {
            map.insert("truncated".into(), Value::Bool(true));
        }
        if result.status != ResultStatus::Error {
            result.status = ResultStatus::Partial;
        }
        let notices = notices.join("\n");
        result.text = Some(match result.text.take() {
            Some(t) if !t.is_empty() => format!("{t}\n{notices}"),
            _ => notices,
        });
        if result.full_output_path.is_none() {
            result.full_output_path = first_path;
        }
        (result, longest)
    }

    /// Cuts the texts over the limits in `value`, wherever they are: a cut
    /// field of an object gains `"<field>_lines"` beside it (unless
    /// present), and its notice names its path (`result.items[2].log`).
    fn cut_nested(&self, tool: &str, value: &mut Value, path: &str, cuts: &mut FieldCuts) {
        let limits = self.limits_for(tool);
        // A text over the limits, or one a terminal may show otherwise.
        let over = |text: &str| {
            text.len() > limits.max_bytes
                || crate::diagnose::redraws(text.as_bytes())
                || memchr_iter(b'\n', text.as_bytes()).count() >= limits.max_lines
        };
        match value {
            Value::Object(map) => {
                let mut counts = Vec::new();
                for (key, field) in map.iter_mut() {
                    let here = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    match field {
                        Value::String(text) if over(text) => {
                            if let Some(lines) = self.cut_text(tool, text, &here, cuts) {
                                counts.push((format!("{key}_lines"), lines));
                            }
                        }
                        Value::Object(_) | Value::Array(_) => self.cut_nested(tool, field, &here, cuts),
                        _ => {}
                    }
                }
                for (key, lines) in counts {
                    map.entry(key).or_insert(Value::from(lines));
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let here = format!("{path}[{i}]");
                    match item {
                        Value::String(text) if over(text) => {
                            self.cut_text(tool, text, &here, cuts);
                        }
                        Value::Object(_) | Value::Array(_) => self.cut_nested(tool, item, &here, cuts),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// Cuts one text in place, saving it to its own spill file; returns
    /// its whole line count when it was cut.
    fn cut_text(&self, tool: &str, text: &mut String, path: &str, cuts: &mut FieldCuts) -> Option<usize> {
        let cut = self.truncate(tool, text.as_bytes());
        if !cut.truncated {
            if let (true, Value::String(shown)) = (cut.redrawn, &cut.result.data) {
                // Whole, as a terminal shows it.
                text.clone_from(shown);
            }
            return None;
        }
        if let Some(Value::String(view)) = cut.result.data.get("output") {
            text.clone_from(view);
        }
        if let Some(notice) = &cut.result.text {
            cuts.notices.push(format!("{path}: {notice}"));
        }
        if cuts.first_path.is_none() {
            cuts.first_path.clone_from(&cut.result.full_output_path);
        }
        let lines = cut.total_lines;
        if cuts
            .longest
            .as_ref()
            .is_none_or(|l| l.total_bytes < cut.total_bytes)
        {
            cuts.longest = Some(cut);
        }
        Some(lines)
    }
}
