//! Command lines: which program a command runs.

/// Programs that look at, edit or move files rather than run something
/// (`cat`, `sed`, `grep`, `ls`, `git`, `rm`, …, and SWE-agent's file
/// commands): the digest counts them instead of listing them, and
/// `strata-ctx eval` does not count their runs as facts.
pub const INSPECTION_PROGRAMS: &[&str] = &[
    "cat",
    "sed",
    "head",
    "tail",
    "nl",
    "less",
    "more",
    "grep",
    "egrep",
    "rg",
    "ag",
    "find",
    "ls",
    "tree",
    "git",
    "echo",
    "printf",
    "wc",
    "awk",
    "strings",
    "diff",
    "cd",
    "pwd",
    "which",
    "file",
    "stat",
    "rm",
    "cp",
    "mv",
    "mkdir",
    "touch",
    "chmod",
    "export",
    "curl",
    "open",
    "goto",
    "scroll_down",
    "scroll_up",
    "search_dir",
    "search_file",
    "find_file",
    "edit",
    "create",
    "submit",
    "view",
    "str_replace",
    "insert",
    "undo_edit",
    "decompile",
];

/// The program one part of a command line runs (a part between `&&`, `;`,
/// `|` or newlines): its first word after variable assignments and
/// `sudo`/`time`/`env`/`nohup`/`timeout N`; `None` for an empty part or
/// one that only changes the shell's state (`cd`, `export`, `source`, `.`,
/// `set`).
pub fn program_word(part: &str) -> Option<&str> {
    let mut words = part.split_whitespace().peekable();
    while let Some(w) = words.peek() {
        let assignment = w.split_once('=').is_some_and(|(k, _)| {
            k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if assignment || matches!(*w, "sudo" | "time" | "env" | "nohup") {
            words.next();
        } else if *w == "timeout" {
            words.next();
            words.next();
        } else {
            break;
        }
    }
    words
        .next()
        .filter(|w| !matches!(*w, "cd" | "export" | "source" | "." | "set"))
}

/// The program a command line runs: the first word of its first part that
/// runs a program rather than looks at files (`cd … && sed -i … && python x.py`
/// runs `python`), after variable assignments and
/// `sudo`/`time`/`env`/`nohup`/`timeout N`; empty when it only looks.
pub fn program_of(command: &str) -> &str {
    let mut first = "";
    let mut heredoc: Option<&str> = None;
    let lines = command.lines().filter(|line| match heredoc {
        Some(end) => {
            if line.trim() == end {
                heredoc = None;
            }
            false
        }
        None => {
            heredoc = line
                .split_once("<<")
                .map(|(_, d)| d.trim_start_matches('-').trim().trim_matches(['\'', '"']))
                .and_then(|d| d.split_whitespace().next());
            true
        }
    });
    for part in lines
        .flat_map(|l| l.split([';', '|']))
        .flat_map(|p| p.split("&&"))
    {
        match program_word(part) {
            Some(w) if !INSPECTION_PROGRAMS.contains(&w.trim_start_matches("./")) => return w,
            Some(w) if first.is_empty() => first = w,
            _ => {}
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_of_skips_prefixes_and_inspections() {
        assert_eq!(
            program_of("cd /repo && sed -i 's/a/b/' x.py && python x.py"),
            "python"
        );
        assert_eq!(program_of("FOO=1 timeout 60 cargo test"), "cargo");
        assert_eq!(program_of("cat a.txt | grep x"), "cat");
        assert_eq!(program_of("python - <<'EOF'\nimport os\nEOF\nls"), "python");
        assert_eq!(program_of(""), "");
        assert_eq!(program_word("sudo env A=b make"), Some("make"));
        assert_eq!(program_word("cd x"), None);
    }
}
