//! Command lines: which program a command runs, and how a digest names
//! one.

/// Programs that look at, edit or move files rather than run something
/// (`cat`, `sed`, `grep`, `ls`, `git`, `rm`, …, and SWE-agent's file
/// commands): the digest counts them instead of listing them, and
/// `strata-ctx eval` does not count their runs as facts. Git stands here
/// for its subcommands that look at a repository (`git status`, `git
/// diff`, `git log`): [`inspects`] tells a part that does from one that
/// changes something (`git commit`, `git push`, `git apply`).
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
    // PowerShell's cmdlets that look at, write or move files, and their
    // aliases, as Codex CLI and Claude Code run them on Windows; cmd.exe's.
    "Get-Content",
    "Set-Content",
    "Add-Content",
    "Out-File",
    "Get-ChildItem",
    "Get-Item",
    "Test-Path",
    "Select-String",
    "Set-Location",
    "Push-Location",
    "Pop-Location",
    "Get-Location",
    "New-Item",
    "Remove-Item",
    "Copy-Item",
    "Move-Item",
    "Rename-Item",
    "Write-Output",
    "Write-Host",
    "Measure-Object",
    "Select-Object",
    "Sort-Object",
    "Format-Table",
    "Format-List",
    "gc",
    "gci",
    "sls",
    "type",
    "dir",
    "findstr",
    "where",
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
        } else if *w == "xargs" {
            // `xargs -I{} grep …` runs what follows its options.
            words.next();
            while words.next_if(|w| w.starts_with('-')).is_some() {}
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

/// Git's subcommands that look at a repository without changing it.
const GIT_INSPECTIONS: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "grep",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "rev-list",
    "branch",
    "remote",
    "config",
    "describe",
    "shortlog",
    "reflog",
    "cat-file",
    "show-ref",
    "for-each-ref",
    "merge-base",
    "check-ignore",
    "name-rev",
    "whatchanged",
    "help",
    "version",
];

/// Whether one part of a command line (as [`program_word`] reads it) only
/// looks at files or a repository: its program is one of
/// [`INSPECTION_PROGRAMS`], and for `git` its subcommand one that looks
/// (`git -C repo diff --stat`, not `git commit -m fix` nor `git apply
/// fix.patch`, whose failures are an agent's to know).
///
/// ```
/// use strata_ctx_tools::inspects;
///
/// assert!(inspects("grep -rn todo src"));
/// assert!(inspects("git --no-pager log -3"));
/// assert!(!inspects("git push origin main"));
/// assert!(!inspects("cargo test"));
/// ```
pub fn inspects(part: &str) -> bool {
    let Some(program) = program_word(part) else {
        return false;
    };
    let name = program.trim_start_matches("./");
    if !INSPECTION_PROGRAMS.contains(&name) {
        return false;
    }
    if name != "git" {
        return true;
    }
    // What follows the word `git` in the part (`program_word` returns a
    // slice of it), past git's own options (`-C dir`, `-c key=value`,
    // `--no-pager`).
    let at = (program.as_ptr() as usize).saturating_sub(part.as_ptr() as usize) + program.len();
    let mut words = part.get(at..).unwrap_or_default().split_whitespace();
    let subcommand = loop {
        match words.next() {
            Some("-C" | "-c") => {
                words.next();
            }
            Some(w) if w.starts_with('-') => {}
            other => break other,
        }
    };
    subcommand.is_none_or(|s| GIT_INSPECTIONS.contains(&s))
}

/// Whether a command line only looks at files or a repository: it runs a
/// program and every part that runs one [`inspects`] (`cd repo && git
/// diff | head`, not `git diff && pytest`).
pub fn only_inspects(command: &str) -> bool {
    let mut programs = parts(command)
        .into_iter()
        .filter(|p| program_word(p).is_some())
        .peekable();
    programs.peek().is_some() && programs.all(inspects)
}

/// The program a command line runs: the first word of its first part that
/// runs a program rather than looks at files (`cd … && sed -i … && python x.py`
/// runs `python`, `git diff && git commit -m x` runs `git`), after variable
/// assignments and `sudo`/`time`/`env`/`nohup`/`timeout N`; the first
/// program's word when it only looks ([`only_inspects`]); empty when it
/// runs none.
pub fn program_of(command: &str) -> &str {
    let mut first = "";
    for part in parts(command) {
        match program_word(part) {
            Some(w) if !inspects(part) => return w,
            Some(w) if first.is_empty() => first = w,
            _ => {}
        }
    }
    first
}

/// The parts of a command line that start a command: what stands between
/// the shell's `&&`, `||`, `;`, `|` and line ends, outside quotes and
/// heredoc bodies. A part that goes on over a line end (inside quotes, or
/// after a `\\`) starts on its first line only: `python -c "` over a
/// script, not the script's lines. A `\\|` inside quotes (`grep -n
/// "a\\|b"`) is the quoted text's, not a pipe.
fn parts(command: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut single, mut double, mut continued) = (false, false, false);
    for line in run_lines(command) {
        let bytes = line.as_bytes();
        // A line starts a part unless a quote or a `\\` goes on from the
        // line above.
        let mut fresh = !(single || double || continued);
        continued = false;
        let (mut start, mut i) = (0, 0);
        while i < bytes.len() {
            let unquoted = !single && !double;
            // The length of the operator that ends a part here, if any.
            let operator = match bytes[i] {
                b'\\' if !single => {
                    continued = i + 1 == bytes.len();
                    i += 2;
                    continue;
                }
                b'\'' if !double => {
                    single = !single;
                    0
                }
                b'"' if !single => {
                    double = !double;
                    0
                }
                b';' | b'|' if unquoted => 1,
                b'&' if unquoted && bytes.get(i + 1) == Some(&b'&') => 2,
                _ => 0,
            };
            if operator > 0 {
                if fresh {
                    out.push(&line[start..i]);
                }
                (start, fresh) = (i + operator, true);
            }
            i += operator.max(1);
        }
        let rest = line.get(start..).unwrap_or_default();
        // A part that is only the `\\` of a line going on (`make && \\`)
        // starts on the next line.
        let rest = if continued { &rest[..rest.len() - 1] } else { rest };
        if continued && fresh && rest.trim().is_empty() {
            continued = false;
        } else if fresh {
            out.push(rest);
        }
    }
    out
}

/// The word that ends the heredoc a line opens (`cat > a.py << 'EOF'`
/// opens one that `EOF` ends), without its quotes; `None` when the line
/// opens none (a here-string, `<<<`, is not one).
fn heredoc_end(line: &str) -> Option<&str> {
    let (_, rest) = line.split_once("<<")?;
    if rest.starts_with('<') {
        return None;
    }
    rest.trim_start_matches('-')
        .split_whitespace()
        .next()
        .map(|w| w.trim_matches(['\'', '"']))
        .filter(|w| !w.is_empty())
}

/// The lines of a command line, each a heredoc's body or a line the shell
/// runs.
enum Piece<'a> {
    Run(&'a str),
    Body(Vec<&'a str>),
}

/// The lines of `command` in order, a heredoc's body gathered in one
/// piece (up to its end word, or to the end of the command when it has
/// none).
fn pieces(command: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut body: Option<(&str, Vec<&str>)> = None;
    for line in command.lines() {
        match body.take() {
            Some((end, lines)) if line.trim() == end => out.push(Piece::Body(lines)),
            Some((end, mut lines)) => {
                lines.push(line);
                body = Some((end, lines));
            }
            None => {
                out.push(Piece::Run(line));
                body = heredoc_end(line).map(|end| (end, Vec::new()));
            }
        }
    }
    out.extend(body.map(|(_, lines)| Piece::Body(lines)));
    out
}

/// The lines of `command` the shell runs: every line but the bodies of
/// its heredocs.
fn run_lines(command: &str) -> impl Iterator<Item = &str> {
    pieces(command).into_iter().filter_map(|p| match p {
        Piece::Run(line) => Some(line),
        Piece::Body(_) => None,
    })
}

/// A command line as one line of text, for a digest to name it: its first
/// line, then what it goes on to run, joined by ` ⏎ `. A heredoc's body
/// stands as ` …` when something runs after it (`cat > t.py << 'EOF' … ⏎
/// python t.py`: the script's run is what printed), and shows when
/// nothing does (`python - <<'PY' ⏎ import a ⏎ print(a.x)`: the body is
/// the program). Blank lines are left out, every line is trimmed. Two
/// different scripts behind the same first line (`python -c "`, `python -
/// <<'PY'`) are told apart. Lines stop joining past 1 KiB (a first line
/// longer than that stands whole).
///
/// ```
/// use strata_ctx_tools::command_gist;
///
/// assert_eq!(command_gist("  pytest -x  "), "pytest -x");
/// assert_eq!(
///     command_gist("cat > t.py << 'EOF'\nimport a\nEOF\npython t.py"),
///     "cat > t.py << 'EOF' … ⏎ python t.py"
/// );
/// assert_eq!(
///     command_gist("python -c \"\nimport a\nprint(a.x)\n\""),
///     "python -c \" ⏎ import a ⏎ print(a.x) ⏎ \""
/// );
/// ```
pub fn command_gist(command: &str) -> String {
    /// Past this many bytes no more lines join: a digest shows far less,
    /// and a script of thousands of lines costs no more than a short one.
    const MAX_GIST_BYTES: usize = 1024;
    let pieces = pieces(command.trim());
    // Where the last line the shell runs stands: a body before it has
    // something run after it.
    let last_run = pieces
        .iter()
        .rposition(|p| matches!(p, Piece::Run(l) if !l.trim().is_empty()));
    let runs_after = |i: usize| last_run.is_some_and(|last| last > i);
    let mut out = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        let lines: &[&str] = match piece {
            Piece::Run(line) => std::slice::from_ref(line),
            // A body something runs after stands as `…`.
            Piece::Body(_) if runs_after(i) => {
                out.push_str(" …");
                continue;
            }
            Piece::Body(lines) => lines,
        };
        for line in lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
            if out.len() >= MAX_GIST_BYTES {
                return out;
            }
            if !out.is_empty() {
                out.push_str(" ⏎ ");
            }
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_inspects_with_its_subcommands_that_look() {
        for part in [
            "git status",
            "git diff --stat",
            "git -C /repo --no-pager log -3",
            "git -c core.pager=cat show HEAD",
            "git",
            "./git.sh",
        ] {
            assert_eq!(inspects(part), part != "./git.sh", "{part}");
        }
        for part in [
            "git commit -m fix",
            "git push origin main",
            "git apply fix.patch",
            "git -C /repo merge topic",
            "git rebase -i HEAD~3",
            "git stash pop",
        ] {
            assert!(!inspects(part), "{part}");
        }
        assert!(only_inspects("cd /repo && git diff | head -50"));
        assert!(!only_inspects("git diff && git commit -am fix"));
        assert!(!only_inspects("cd /repo"), "runs no program");
        assert!(!only_inspects(""));
        assert_eq!(program_of("git add -A && git commit -m x && pytest"), "git");
        assert_eq!(program_of("git status && pytest -q"), "pytest");
        assert_eq!(program_of("git log -1 | cat"), "git");
    }

    #[test]
    fn program_of_skips_prefixes_and_inspections() {
        assert_eq!(
            program_of("cd /repo && sed -i 's/a/b/' x.py && python x.py"),
            "python"
        );
        assert_eq!(program_of("FOO=1 timeout 60 cargo test"), "cargo");
        assert_eq!(program_of("cat a.txt | grep x"), "cat");
        // PowerShell: moving to a directory and reading a file are not
        // what the command line runs.
        assert_eq!(program_of("Set-Location C:\\src\\shop; npm test"), "npm");
        assert_eq!(
            program_of("Get-Content .\\log.txt | Select-String error"),
            "Get-Content"
        );
        assert_eq!(program_of("python - <<'EOF'\nimport os\nEOF\nls"), "python");
        assert_eq!(program_of(""), "");
        assert_eq!(program_word("sudo env A=b make"), Some("make"));
        assert_eq!(program_word("cd x"), None);
        // The heredoc's quoted end word is read whole, so the run after
        // it counts.
        assert_eq!(program_of("cat << 'EOF' > a.py\nls\nEOF\nmake"), "make");
        assert_eq!(program_of("cat <<< 'x'\nmake"), "make");
        // Operators inside quotes are the quoted text's.
        assert_eq!(program_of("grep -n \"try\\|except\" a.py"), "grep");
        assert_eq!(program_of("grep -n 'a|b;c' a.py | head"), "grep");
        assert_eq!(
            program_of("cd /r && echo \"select 1;;\" | sqlfluff lint -"),
            "sqlfluff"
        );
        // A quoted script's lines are not commands; what runs after it is.
        assert_eq!(program_of("echo \"\nimport os\n\" && pytest"), "pytest");
        // A line that goes on over `\\` still has its pipes.
        assert_eq!(program_of("cat a \\\n  | python x.py"), "python");
        assert_eq!(program_of("cat a \\\n  python x.py"), "cat");
        assert_eq!(program_of("ls \\\n&& make"), "make");
        assert_eq!(program_of("ls &&make"), "make");
        assert_eq!(program_of("git diff > p.txt && \\\n  pytest -q"), "pytest");
        assert_eq!(program_of("ls && \\\n"), "ls");
        assert_eq!(program_of("find . -name '*.py' | xargs -0 grep -l x"), "find");
        assert_eq!(program_of("ls | xargs -n1 python t.py"), "python");
        assert_eq!(program_word("xargs"), None);
        // Quotes as the shell reads them: a backslash is literal inside
        // single quotes and escapes outside them; each kind of quote is
        // plain text inside the other.
        assert_eq!(program_of("echo 'a\\' && make"), "make");
        assert_eq!(program_of("echo \\\"; make"), "make");
        assert_eq!(program_of("echo \"it's\" && make"), "make");
        assert_eq!(program_of("echo 'say \"hi' && make"), "make");
        assert_eq!(program_of("grep \"a&&b\" x.py"), "grep");
        // Variable assignments before a program.
        assert_eq!(program_word("A_B=1 make"), Some("make"));
        assert_eq!(program_word("1X=2 make"), Some("1X=2"));
    }

    proptest::proptest! {
        /// Any command's gist starts with its first line, trimmed, holds
        /// no line break, and stays short however long the command.
        #[test]
        fn command_gist_starts_with_the_first_line(
            lines in proptest::collection::vec("[ a-z'\"<>|;&\\\\.-]{0,30}", 0..12),
            many in 0usize..2_000,
        ) {
            let mut command = lines.join("\n");
            if many > 1_000 {
                command.push_str(&"\nprint(1)".repeat(many));
            }
            let gist = command_gist(&command);
            let first = command.trim().lines().next().unwrap_or_default().trim();
            proptest::prop_assert!(gist.starts_with(first), "{gist:?} / {first:?}");
            proptest::prop_assert!(!gist.contains('\n'));
            proptest::prop_assert!(gist.len() <= 1024 + first.len() + 40, "{}", gist.len());
        }
    }

    #[test]
    fn command_gist_tells_scripts_apart() {
        // One line: itself, trimmed.
        assert_eq!(command_gist(" cargo test -q "), "cargo test -q");
        // A script written then run: the run, not the script.
        assert_eq!(
            command_gist("cd /r && cat > t.py << 'EOF'\nimport a\n\nprint(1)\nEOF\n\npython t.py 2>&1"),
            "cd /r && cat > t.py << 'EOF' … ⏎ python t.py 2>&1"
        );
        // A script fed to its program: the script.
        assert_eq!(
            command_gist("python - <<'PY'\nimport os\n  print(os.sep)\nPY"),
            "python - <<'PY' ⏎ import os ⏎ print(os.sep)"
        );
        // Two heredocs then a run: each body stands as `…`.
        assert_eq!(
            command_gist("cat > a << A\nx\nA\ncat > b << B\ny\nB\nmake"),
            "cat > a << A … ⏎ cat > b << B … ⏎ make"
        );
        // A heredoc with no end word runs to the end of the command.
        assert_eq!(
            command_gist("python3 <<EOF\nprint(2)"),
            "python3 <<EOF ⏎ print(2)"
        );
        // A quoted script on lines of its own.
        assert_eq!(
            command_gist("python -c \"\nimport a\n\"\necho done"),
            "python -c \" ⏎ import a ⏎ \" ⏎ echo done"
        );
        assert_eq!(command_gist(""), "");
    }
}
