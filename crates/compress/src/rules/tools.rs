//! The history form of each built-in tool's result (TOOL-2 … TOOL-10).

use super::*;

pub(super) fn str_field<'a>(o: &'a Map<String, Value>, key: &str) -> &'a str {
    o.get(key).and_then(Value::as_str).unwrap_or_default()
}

pub(super) fn copy_keys(o: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    keys.iter()
        .filter_map(|k| o.get(*k).map(|v| ((*k).to_owned(), v.clone())))
        .collect()
}

/// TOOL-2: the directory, counts, the first entries.
pub(super) fn ls(o: &Map<String, Value>, l: &RuleLimits) -> Value {
    let Some(entries) = o.get("entries").and_then(Value::as_array) else {
        return Value::Object(o.clone());
    };
    if entries.len() <= l.ls_entries {
        return Value::Object(o.clone());
    }
    let is_dir = |e: &Value| {
        e.get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| k.starts_with("dir"))
            || e.as_str().is_some_and(|s| s.ends_with('/'))
    };
    let dirs = entries.iter().filter(|e| is_dir(e)).count();
    let mut out = copy_keys(o, &["path"]);
    out.insert("files".into(), json!(entries.len() - dirs));
    out.insert("dirs".into(), json!(dirs));
    let names: Vec<Value> = entries
        .iter()
        .take(l.ls_entries)
        .map(|e| {
            let name = e
                .get("name")
                .and_then(Value::as_str)
                .or_else(|| e.as_str())
                .unwrap_or_default();
            let slash = if is_dir(e) && !name.ends_with('/') {
                "/"
            } else {
                ""
            };
            Value::String(format!("{name}{slash}"))
        })
        .collect();
    out.insert("entries".into(), Value::Array(names));
    out.insert("more".into(), json!(entries.len() - l.ls_entries));
    Value::Object(out)
}

/// TOOL-3: the pattern, the number of hits, the first paths.
pub(super) fn glob(o: &Map<String, Value>, l: &RuleLimits) -> Value {
    let Some(paths) = o.get("paths").and_then(Value::as_array) else {
        return Value::Object(o.clone());
    };
    if paths.len() <= l.glob_paths {
        return Value::Object(o.clone());
    }
    let mut out = copy_keys(o, &["pattern"]);
    out.insert("count".into(), json!(paths.len()));
    out.insert(
        "paths".into(),
        Value::Array(paths.iter().take(l.glob_paths).cloned().collect()),
    );
    Value::Object(out)
}

/// TOOL-4: a one-line summary and the first match lines as `file:line:`.
pub(super) fn grep(o: &Map<String, Value>, l: &RuleLimits) -> Value {
    let Some(matches) = o.get("matches").and_then(Value::as_array) else {
        return Value::Object(o.clone());
    };
    if matches.len() <= l.grep_matches {
        return Value::Object(o.clone());
    }
    let files: BTreeSet<&str> = matches
        .iter()
        .filter_map(|m| m.get("file").and_then(Value::as_str))
        .collect();
    let mut out = copy_keys(o, &["pattern"]);
    out.insert(
        "summary".into(),
        json!(format!("{} matches in {} files", matches.len(), files.len())),
    );
    let lines: Vec<Value> = matches
        .iter()
        .take(l.grep_matches)
        .map(|m| match m {
            Value::Object(m) => {
                let line = m.get("line").map(|v| v.to_string()).unwrap_or_default();
                let text = cap_line(str_field(m, "text").trim(), l.line_bytes).into_owned();
                Value::String(format!("{}:{}: {}", str_field(m, "file"), line, text))
            }
            other => other.clone(),
        })
        .collect();
    out.insert("matches".into(), Value::Array(lines));
    Value::Object(out)
}

/// TOOL-5: the requested range only, at most `read_lines` lines and
/// `read_bytes` bytes; `start_line` and `end_line` give the line numbers of
/// what is kept (content that arrives numbered, as `cat -n` prints it,
/// keeps its numbers), and the mtime is kept.
pub(super) fn read(o: &Map<String, Value>, l: &RuleLimits) -> Value {
    let content = str_field(o, "content");
    let total = line_count(content.as_bytes());
    if total <= l.read_lines + 1
        && content.len() <= l.read_bytes
        && content.lines().all(|x| x.len() <= l.line_bytes)
    {
        return Value::Object(o.clone());
    }
    let start = o.get("start_line").and_then(Value::as_u64).unwrap_or(1).max(1);
    let text = head_text_of(content, total, l.read_lines, l.read_bytes, l);
    let kept = text.lines().filter(|x| !x.starts_with("[… ")).count() as u64;
    let mut out = copy_keys(o, &["path", "total_lines", "mtime", "note"]);
    out.insert("start_line".into(), json!(start));
    out.insert("end_line".into(), json!(start + kept.max(1) - 1));
    out.insert("content".into(), Value::String(text));
    Value::Object(out)
}

/// The changed line ranges of a unified diff, from its hunk headers.
pub(super) fn changed_ranges(diff: &str) -> Vec<String> {
    diff.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("@@ ")?;
            let plus = rest.split_whitespace().find(|p| p.starts_with('+'))?;
            let mut parts = plus[1..].split(',');
            let start: u64 = parts.next()?.parse().ok()?;
            let len: u64 = parts.next().map_or(Some(1), |n| n.parse().ok())?;
            Some(if len <= 1 {
                start.to_string()
            } else {
                format!("{start}-{}", start + len - 1)
            })
        })
        .collect()
}

/// TOOL-6: file, changed line ranges, a key snippet; a large diff keeps
/// only the summary.
pub(super) fn edit(o: &Map<String, Value>, l: &RuleLimits) -> Value {
    let diff: String = match (o.get("diff"), o.get("edits")) {
        (Some(Value::String(d)), _) => d.clone(),
        (_, Some(Value::Array(edits))) => edits
            .iter()
            .flat_map(|e| {
                let old = e
                    .get("old")
                    .or_else(|| e.get("old_string"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let new = e
                    .get("new")
                    .or_else(|| e.get("new_string"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                old.lines()
                    .map(|x| format!("-{x}"))
                    .chain(new.lines().map(|x| format!("+{x}")))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return Value::Object(o.clone()),
    };
    let lines = line_count(diff.as_bytes());
    if lines <= l.snippet_lines && diff.lines().all(|x| x.len() <= l.line_bytes) {
        return Value::Object(o.clone());
    }
    let mut out = copy_keys(o, &["path", "applied", "ranges"]);
    let ranges = changed_ranges(&diff);
    if !ranges.is_empty() {
        out.insert("ranges".into(), json!(ranges.join(", ")));
    }
    if let Some(Value::Array(edits)) = o.get("edits") {
        out.insert("edits".into(), json!(edits.len()));
    }
    let added = diff
        .lines()
        .filter(|x| x.starts_with('+') && !x.starts_with("+++"))
        .count();
    let removed = diff
        .lines()
        .filter(|x| x.starts_with('-') && !x.starts_with("---"))
        .count();
    out.insert("summary".into(), json!(format!("+{added} -{removed} lines")));
    if lines <= l.large_diff_lines {
        out.insert(
            "snippet".into(),
            Value::String(head_text(
                &diff,
                l.snippet_lines,
                l.generic_bytes.max(l.line_bytes * 4),
                l,
            )),
        );
    }
    Value::Object(out)
}

/// TOOL-7: file, created or overwritten, size; a new file keeps its first
/// lines.
pub(super) fn write(o: &Map<String, Value>, l: &RuleLimits) -> Value {
    let content = str_field(o, "content");
    let lines = line_count(content.as_bytes());
    if lines <= l.snippet_lines && content.lines().all(|x| x.len() <= l.line_bytes) {
        return Value::Object(o.clone());
    }
    let created = o.get("created").and_then(Value::as_bool).unwrap_or(false);
    let mut out = copy_keys(o, &["path", "created"]);
    out.insert(
        "action".into(),
        json!(if created { "created" } else { "overwritten" }),
    );
    out.insert("bytes".into(), json!(content.len()));
    out.insert("lines".into(), json!(lines));
    if created {
        out.insert(
            "head".into(),
            Value::String(head_text(
                content,
                l.snippet_lines,
                l.generic_bytes.max(l.line_bytes * 4),
                l,
            )),
        );
    }
    Value::Object(out)
}

/// TOOL-8: command, exit code, a stdout summary with the diagnostic lines,
/// the last lines of stderr.
pub(super) fn bash(o: &Map<String, Value>, l: &RuleLimits) -> Value {
    let mut out = o.clone();
    if let Some(Value::String(stdout)) = o.get("stdout") {
        let c = condense(stdout, &l.bash());
        if c.kept_lines < c.total_lines || c.text.len() < stdout.len() {
            out.insert("stdout".into(), Value::String(c.text.into_owned()));
            // A count made before (by truncation, of the whole output) wins.
            out.entry("stdout_lines").or_insert(json!(c.total_lines));
        }
    }
    if let Some(Value::String(stderr)) = o.get("stderr") {
        let c = condense(stderr, &l.stderr());
        if c.text.len() < stderr.len() {
            out.insert("stderr".into(), Value::String(c.text.into_owned()));
        }
    }
    Value::Object(out)
}

/// TOOL-9: the recap only: counts and the open items, done and open as
/// [`strata_ctx_tools::Todo`] decides.
pub(super) fn todos(data: &Value, l: &RuleLimits) -> Value {
    let Some(items) = strata_ctx_tools::todos(data) else {
        return data.clone();
    };
    let done = items.iter().filter(|t| t.is_done()).count();
    let in_progress = items.iter().filter(|t| t.is_in_progress()).count();
    let pending = items.len() - done - in_progress;
    let mut open: Vec<_> = items.iter().filter(|t| t.is_in_progress()).collect();
    open.extend(items.iter().filter(|t| !t.is_done() && !t.is_in_progress()));
    let listed: Vec<Value> = open
        .iter()
        .take(l.todo_items)
        .map(|t| Value::String(format!("[{}] {}", t.status, cap_line(t.text, l.line_bytes))))
        .collect();
    let mut out = Map::new();
    out.insert(
        "summary".into(),
        json!(format!(
            "{done} done, {in_progress} in progress, {pending} pending"
        )),
    );
    out.insert("open".into(), Value::Array(listed));
    if open.len() > l.todo_items {
        out.insert("more_open".into(), json!(open.len() - l.todo_items));
    }
    Value::Object(out)
}
