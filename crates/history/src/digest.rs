//! The in-round progress digest (REACT-6) and the change tracker behind it.
//!
//! When the steps of a long round no longer fit the window, what the agent
//! learnt from them must not vanish with them. A [`Digest`] observes each
//! step that leaves the window (with its results as the tools returned
//! them) and keeps the working facts a developer would note down: the
//! files changed and read, the commands run with their outcome (exit
//! status, test counts) and the last error line of each failing output,
//! and the todo state. [`Digest::render`] turns them into one short text,
//! newest facts first within a budget. It is deterministic: the same steps
//! and budget give the same bytes, so the window's prefix does not churn
//! while nothing new leaves it.

use strata_ctx_core::{Message, MessageId, ResultStatus, Role, ToolCall};
use strata_ctx_tools::{classify, session, TodoBoard, ToolKind};

/// The longest command line a digest shows, in characters (its first line).
const MAX_COMMAND_CHARS: usize = 100;
/// The most files (changed, read) and commands a digest holds; older ones
/// are only counted, so that observing a step costs the same at step
/// 10,000 as at step 10 (REL-3). A rendering never shows that many.
const MAX_ITEMS: usize = 256;
/// Earlier distinct error lines a command keeps: an agent that runs the
/// same script a dozen times while it fixes one error after another reads
/// each error it met. A rendering short of room shows the most recent
/// ones that fit.
const EARLIER_ERRORS: usize = 12;
/// The longest earlier error a digest shows, in characters: the message of
/// an error line comes first, and earlier runs are many.
const EARLIER_ERROR_CHARS: usize = 120;
/// The longest error or outcome line a digest shows, in characters.
const MAX_LINE_CHARS: usize = 200;
/// What heads the one line of commands that ended with exit 0 and no
/// error ([`CommandFact::is_plain_success`]).
const PLAIN_HEADING: &str = "Exit 0 and no error (newest first): ";

mod check;
mod facts;
mod last_error;

pub(crate) use facts::cut;
pub use facts::{command_argument, outcome_note, path_argument};
use facts::{command_fact, read_run, shell_writes};
pub use last_error::last_error_line;
use strata_ctx_tools::{changed_files, only_inspects};

/// One command the agent ran, with what came of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandFact {
    /// The command as one line ([`strata_ctx_tools::command_gist`]: its
    /// first line, then what it goes on to run), cut to 100 characters.
    pub command: String,
    /// The outcome: exit status and the test summary line, or else the
    /// verdict the run ended on (`error: could not compile …`, `FAIL\tpkg`,
    /// `make: *** … Error 1`), when the output tells them.
    pub outcome: Option<String>,
    /// The last error line of the output.
    pub error: Option<String>,
    /// Distinct error lines of earlier runs of the same command, the most
    /// recent first (at most twelve, each cut to 120 characters): each run's
    /// last error, and its failing test summary (`1 failed, 4 passed`)
    /// when a later run no longer shows it.
    pub earlier_errors: Vec<String>,
    /// The test summary of this run's output, when it counts failures
    /// (`1 failed, 4 passed`): it joins the earlier errors once a later
    /// run replaces the outcome that shows it.
    pub failing_summary: Option<String>,
}

impl CommandFact {
    /// Whether the command's last run ended with exit 0 and printed no
    /// error line, and no earlier run reported one: a digest names it
    /// only.
    pub fn is_plain_success(&self) -> bool {
        self.outcome.as_deref() == Some("exit 0") && self.error.is_none() && self.earlier_errors.is_empty()
    }

    /// The command's first line, as the agent wrote it, or as much of it
    /// as the 100 characters of [`CommandFact::command`] hold (without the
    /// `…` that marks the cut): a text that names the command holds it.
    pub fn first_line(&self) -> &str {
        let line = self.command.split(" ⏎ ").next().unwrap_or_default();
        let line = line.strip_suffix(" …").unwrap_or(line);
        line.strip_suffix('…').unwrap_or(line)
    }

    /// Records a later run of the same command: its outcome replaces this
    /// one's, whose error joins the earlier ones.
    fn then(&mut self, later: &CommandFact) {
        let mut earlier = Vec::with_capacity(EARLIER_ERRORS + 2);
        earlier.extend(later.earlier_errors.iter().cloned());
        // This run's verdict leaves the outcome when the later one's
        // differs: it is an earlier error then.
        if self.failing_summary != later.failing_summary {
            earlier.extend(self.failing_summary.take().map(|s| cut(&s, EARLIER_ERROR_CHARS)));
        }
        earlier.extend(self.error.take().map(|e| cut(&e, EARLIER_ERROR_CHARS)));
        earlier.append(&mut self.earlier_errors);
        let shown_later = later.error.as_ref().map(|e| cut(e, EARLIER_ERROR_CHARS));
        let mut seen = Vec::new();
        for e in earlier {
            if Some(&e) != shown_later.as_ref() && !seen.contains(&e) && seen.len() < EARLIER_ERRORS {
                seen.push(e);
            }
        }
        self.failing_summary.clone_from(&later.failing_summary);
        self.outcome.clone_from(&later.outcome);
        self.error.clone_from(&later.error);
        self.earlier_errors = seen;
    }
}

/// Files read and changed, commands run with their outcome, and the todo
/// state of the steps it observed: the change tracker behind the in-round
/// progress digest (REACT-6).
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{Message, ToolCall, ToolResult};
/// use strata_ctx_history::Digest;
///
/// let call = ToolCall::new("c1", "bash", json!({"command": "cd /repo && python -m pytest -q"}));
/// let out = "F.\nE   AssertionError: 2 != 3\n1 failed, 1 passed in 0.1s\n<returncode>1</returncode>";
/// let mut digest = Digest::new();
/// digest.observe(
///     &Message::assistant_with_calls("Run the tests.", vec![call.clone()]),
///     &[Message::tool_result(&call, ToolResult::success(out))],
/// );
/// let text = digest.render(1_000);
/// assert!(text.contains("`cd /repo && python -m pytest -q` → exit 1; 1 failed, 1 passed in 0.1s"));
/// assert!(text.contains("last error: E   AssertionError: 2 != 3"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Digest {
    steps: usize,
    files_changed: Vec<String>,
    files_read: Vec<String>,
    commands: Vec<CommandFact>,
    /// Files changed, files read and commands dropped past [`MAX_ITEMS`].
    dropped: [usize; 3],
    inspections: usize,
    /// The todo list as the observed calls left it.
    todos: TodoBoard,
    /// Sentences of the user's messages that state a constraint, newest
    /// last (at most eight).
    constraints: Vec<String>,
    /// The first and last step observed (their assistant messages), for
    /// the recall handle of the rendering (#30.5).
    span: Option<(MessageId, MessageId)>,
    /// Commands still running when their call returned, by session id
    /// (Codex CLI's `exec_command`), newest last: what a later
    /// `write_stdin` reads belongs to them (at most eight).
    running: Vec<(i64, String)>,
}

/// The most running commands remembered by their session.
const MAX_RUNNING: usize = 8;

/// Moves `item` to the end of `list` (newest last), adding it when absent;
/// past [`MAX_ITEMS`], the oldest goes and `dropped` counts it.
fn touch(list: &mut Vec<String>, item: String, dropped: &mut usize) {
    match list.iter().position(|x| *x == item) {
        Some(i) => {
            list.remove(i);
        }
        None if list.len() >= MAX_ITEMS => {
            list.remove(0);
            *dropped += 1;
        }
        None => {}
    }
    list.push(item);
}

impl Digest {
    /// An empty digest.
    pub fn new() -> Self {
        Digest::default()
    }

    /// Steps observed.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Whether no step was observed.
    pub fn is_empty(&self) -> bool {
        self.steps == 0
    }

    /// Whether any fact was observed: a file, a command or a todo state.
    pub fn has_facts(&self) -> bool {
        !(self.files_changed.is_empty()
            && self.files_read.is_empty()
            && self.commands.is_empty()
            && self.inspections == 0
            && !self.todos.is_set())
    }

    /// Files the agent changed (by an edit or write tool, or a shell
    /// command such as `sed -i` or `> file`), the most recent last.
    pub fn files_changed(&self) -> &[String] {
        &self.files_changed
    }

    /// Files the agent read, the most recent last.
    pub fn files_read(&self) -> &[String] {
        &self.files_read
    }

    /// Programs the agent ran, the most recent last; a command run again
    /// keeps its latest outcome only.
    pub fn commands(&self) -> &[CommandFact] {
        &self.commands
    }

    /// Adds what `other` observed, as if its steps came after this
    /// digest's.
    pub fn merge(&mut self, other: &Digest) {
        self.steps += other.steps;
        for f in &other.files_changed {
            touch(&mut self.files_changed, f.clone(), &mut self.dropped[0]);
        }
        for f in &other.files_read {
            touch(&mut self.files_read, f.clone(), &mut self.dropped[1]);
        }
        for c in &other.commands {
            self.add_command(c.clone());
        }
        self.inspections += other.inspections;
        for (mine, theirs) in self.dropped.iter_mut().zip(other.dropped) {
            *mine += theirs;
        }
        self.span = match (self.span, other.span) {
            (Some((first, _)), Some((_, last))) => Some((first, last)),
            (mine, theirs) => mine.or(theirs),
        };
        self.todos.merge(&other.todos);
        for c in &other.constraints {
            self.note_constraints(c);
        }
    }

    /// Takes in one step: the assistant message and the results of its
    /// calls, preferably as the tools returned them (a result cut for the
    /// model may have lost its error lines).
    pub fn observe(&mut self, assistant: &Message, results: &[Message]) {
        self.steps += 1;
        let last = results.last().map_or(assistant.id, |r| r.id);
        self.span = Some(match self.span {
            Some((first, _)) => (first, last),
            None => (assistant.id, last),
        });
        for call in &assistant.tool_calls {
            let result = results
                .iter()
                .find(|r| r.tool_call_id.as_deref() == Some(call.id.as_str()));
            self.observe_call(call, result);
        }
    }

    /// Takes in a call of a tool that is not a shell (a write, a read, a
    /// todo list); returns whether it was one.
    fn observe_tool(&mut self, call: &ToolCall, result: Option<&Message>, failed: bool) -> bool {
        match classify(&call.name, &call.arguments) {
            Some(kind) if kind.writes() => {
                if !failed {
                    for path in changed_files(&call.name, &call.arguments) {
                        touch(&mut self.files_changed, path, &mut self.dropped[0]);
                    }
                }
                true
            }
            Some(ToolKind::Read) => {
                if let Some(path) = path_argument(&call.arguments) {
                    touch(&mut self.files_read, path, &mut self.dropped[1]);
                }
                true
            }
            kind if kind == Some(ToolKind::TodoWrite)
                || TodoBoard::is_todo_call(&call.name, &call.arguments) =>
            {
                if !failed {
                    let text = result.map(Message::text);
                    self.todos.apply(&call.name, &call.arguments, text.as_deref());
                }
                true
            }
            _ => false,
        }
    }

    fn observe_call(&mut self, call: &ToolCall, result: Option<&Message>) {
        let failed = result
            .and_then(|r| r.result.as_ref())
            .is_some_and(|r| r.status == ResultStatus::Error);
        if self.observe_tool(call, result, failed) {
            return;
        }
        let Some(command) = command_argument(call) else {
            self.observe_session(call, result, failed);
            return;
        };
        let command = command.as_ref();
        let run = read_run(result);
        self.note_running(command, run.session);
        for m in shell_writes().captures_iter(command) {
            if let Some(path) = m.get(1) {
                touch(
                    &mut self.files_changed,
                    path.as_str().to_owned(),
                    &mut self.dropped[0],
                );
            }
        }
        if only_inspects(command) {
            self.inspections += 1;
            return;
        }
        self.add_command(command_fact(command, run, failed));
    }

    /// Remembers `command` by its `session` when its result says it is
    /// still running ([`facts::Run::session`]).
    fn note_running(&mut self, command: &str, session: Option<i64>) {
        let Some(id) = session else {
            return;
        };
        self.running.retain(|(known, _)| *known != id);
        if self.running.len() >= MAX_RUNNING {
            self.running.remove(0);
        }
        self.running.push((id, command.to_owned()));
    }

    /// A call that reads from or writes to a running command's session
    /// (Codex CLI's `write_stdin`): what it read is that command's output,
    /// its outcome once the process exited.
    fn observe_session(&mut self, call: &ToolCall, result: Option<&Message>, failed: bool) {
        let Some(id) = session(&call.arguments) else {
            return;
        };
        let Some(at) = self.running.iter().position(|(known, _)| *known == id) else {
            return;
        };
        let command = self.running[at].1.clone();
        let run = read_run(result);
        if run.session.is_none() {
            self.running.remove(at);
        }
        self.add_command(command_fact(&command, run, failed));
    }

    /// Adds a command run, the most recent: a command run before moves to
    /// the end with the new outcome, keeping its earlier errors.
    fn add_command(&mut self, fact: CommandFact) {
        match self.commands.iter().position(|c| c.command == fact.command) {
            Some(i) => {
                let mut known = self.commands.remove(i);
                known.then(&fact);
                self.commands.push(known);
            }
            None => {
                if self.commands.len() >= MAX_ITEMS {
                    self.commands.remove(0);
                    self.dropped[2] += 1;
                }
                self.commands.push(fact);
            }
        }
    }

    /// Takes in a whole conversation (or a part of one): each assistant
    /// message with calls is a step, with the results of its calls from
    /// wherever they are in `messages`.
    pub fn observe_messages(&mut self, messages: &[Message]) {
        let results: std::collections::HashMap<&str, &Message> = messages
            .iter()
            .filter_map(|m| Some((m.tool_call_id.as_deref()?, m)))
            .collect();
        for m in messages.iter().filter(|m| m.role == Role::User) {
            self.note_constraints(&m.content);
        }
        for m in messages.iter().filter(|m| m.has_tool_calls()) {
            let found: Vec<Message> = m
                .tool_calls
                .iter()
                .filter_map(|c| results.get(c.id.as_str()).map(|r| (*r).clone()))
                .collect();
            self.observe(m, &found);
        }
    }

    /// The commands that fit in `room` characters, which they reduce:
    /// the commands that reported errors first, then the others, newest
    /// first; shown in the order they ran, newest first. A command whose
    /// last run ended with exit 0 and no error line, and that never
    /// reported one ([`CommandFact::is_plain_success`]), is named only,
    /// with the others like it on one line: the second list.
    fn fitting_commands(&self, room: &mut usize) -> (Vec<String>, Vec<String>) {
        let (failing, passing): (Vec<_>, Vec<_>) = self
            .commands
            .iter()
            .enumerate()
            .rev()
            .partition(|(_, c)| c.error.is_some() || !c.earlier_errors.is_empty());
        let mut commands: Vec<(usize, bool, String)> = Vec::new();
        // Each list's heading, until the list has an item.
        let mut headings = [40, PLAIN_HEADING.chars().count() + 2];
        for (i, c) in failing.into_iter().chain(passing) {
            let plain = c.is_plain_success();
            let heading = &mut headings[usize::from(plain)];
            let cost = |entry: &str| entry.chars().count() + if plain { 2 } else { 1 } + *heading;
            let entry = if plain {
                Some(format!("`{}`", c.command))
            } else {
                // All its earlier errors, or as many of the most recent
                // as fit: the command and its last error before them.
                (0..=c.earlier_errors.len())
                    .rev()
                    .map(|shown| command_line(c, shown))
                    .find(|entry| cost(entry) <= *room)
            };
            // Counted once: the entry, found or made, must still fit.
            let Some((entry, n)) = entry
                .map(|e| {
                    let n = cost(&e);
                    (e, n)
                })
                .filter(|(_, n)| *n <= *room)
            else {
                continue;
            };
            *room -= n;
            *heading = 0;
            commands.push((i, plain, entry));
        }
        commands.sort_by_key(|c| std::cmp::Reverse(c.0));
        let (plain, lines): (Vec<_>, Vec<_>) = commands.into_iter().partition(|c| c.1);
        (
            lines.into_iter().map(|c| c.2).collect(),
            plain.into_iter().map(|c| c.2).collect(),
        )
    }

    /// The digest as text of at most `max_chars` characters (a budget of
    /// about three characters a token is safe with any tokenizer): a
    /// header naming the number of steps, then the files changed, the
    /// commands run (newest first, each with its outcome and last error
    /// line; those that ended with exit 0 and no error named together on
    /// one line), the files read, and the todo state. When the facts do not
    /// all fit, the oldest go first and each list says how many it left
    /// out. An empty digest renders as an empty string.
    pub fn render(&self, max_chars: usize) -> String {
        if self.steps == 0 {
            return String::new();
        }
        let recall = self.span.map_or_else(String::new, |(first, last)| {
            format!(": {} to {}", crate::recall_handle(&first), last.short())
        });
        let header = format!(
            "[Progress digest of {} earlier step{}, whose results left the context window; the full log keeps them{recall}]",
            self.steps,
            if self.steps == 1 { "" } else { "s" }
        );
        // The counts of left-out items and of inspections take at most
        // this much.
        const TRAILERS: usize = 100;
        let mut room = max_chars.saturating_sub(header.chars().count() + TRAILERS);
        // Sections in order of priority; each takes what fits of its
        // items, newest first.
        let changed = take_fitting(self.files_changed.iter().rev().cloned(), &mut room, 2);
        // Commands that reported errors first, then the others; shown in
        // the order they ran, newest first.
        let (commands, succeeded) = self.fitting_commands(&mut room);
        let todo = self.todo_line().filter(|t| {
            let n = t.chars().count() + 1;
            let fits = n <= room;
            if fits {
                room -= n;
            }
            fits
        });
        let read = take_fitting(self.files_read.iter().rev().cloned(), &mut room, 2);

        let mut out = header;
        if !changed.is_empty() {
            out.push_str("\nFiles changed (newest first): ");
            out.push_str(&changed.join(", "));
            more(
                &mut out,
                self.files_changed.len() - changed.len() + self.dropped[0],
            );
        }
        if !(commands.is_empty() && succeeded.is_empty()) {
            out.push_str("\nCommands run (newest first):");
            for c in &commands {
                out.push('\n');
                out.push_str(c);
            }
            if !succeeded.is_empty() {
                out.push_str("\n- ");
                out.push_str(PLAIN_HEADING);
                out.push_str(&succeeded.join(", "));
            }
            let left_out = self.commands.len() - commands.len() - succeeded.len() + self.dropped[2];
            if left_out > 0 {
                out.push_str(&format!("\n- … {left_out} earlier"));
            }
        }
        if self.inspections > 0 {
            out.push_str(&format!(
                "\nInspection commands (cat, grep, ls, …): {}",
                self.inspections
            ));
        }
        if !read.is_empty() {
            out.push_str("\nFiles read (newest first): ");
            out.push_str(&read.join(", "));
            more(&mut out, self.files_read.len() - read.len() + self.dropped[1]);
        }
        if let Some(todo) = todo {
            out.push('\n');
            out.push_str(&todo);
        }
        out
    }
}

/// A command's line in the digest: the command, its outcome, its last
/// error and the `shown` most recent of its earlier errors, with a count
/// of those left out.
fn command_line(c: &CommandFact, shown: usize) -> String {
    let mut line = format!("- `{}`", c.command);
    if let Some(outcome) = &c.outcome {
        line.push_str(" → ");
        line.push_str(outcome);
    }
    if let Some(error) = &c.error {
        line.push_str(" — last error: ");
        line.push_str(error);
    }
    let shown = shown.min(c.earlier_errors.len());
    if shown > 0 {
        line.push_str(" — earlier runs: ");
        line.push_str(&c.earlier_errors[..shown].join(" | "));
    }
    let left_out = c.earlier_errors.len() - shown;
    if left_out > 0 {
        line.push_str(&format!(
            " (+{left_out} earlier error{})",
            if left_out == 1 { "" } else { "s" }
        ));
    }
    line
}

fn more(out: &mut String, n: usize) {
    if n > 0 {
        out.push_str(&format!(" (+{n} earlier)"));
    }
}

/// The items that fit in `room` characters, each costing its length plus
/// `separator`, in order; `room` is reduced by what they take. A section
/// also reserves 40 characters for its heading and count.
fn take_fitting(items: impl Iterator<Item = String>, room: &mut usize, separator: usize) -> Vec<String> {
    let mut kept = Vec::new();
    let mut heading = 40;
    for item in items {
        let n = item.chars().count() + separator + heading;
        if n > *room {
            break;
        }
        *room -= n;
        heading = 0;
        kept.push(item);
    }
    kept
}

/// What running `command` did, from its `result`: the command's first
/// line, its exit code or failure and test summary, its last error line,
/// and the summary of failing tests.
#[cfg(test)]
mod tests {
    use super::*;
    use facts::Run;
    use serde_json::{json, Value};
    use strata_ctx_core::ToolResult;
    use strata_ctx_tools::program_of;

    fn step(digest: &mut Digest, name: &str, args: Value, out: &str) {
        let call = ToolCall::new(format!("c{}", digest.steps()), name, args);
        let result = Message::tool_result(&call, ToolResult::success(out));
        digest.observe(&Message::assistant_with_calls("", vec![call]), &[result]);
    }

    /// A shell's output as mini-SWE-agent records it.
    fn run(code: u8, out: &str) -> String {
        format!("<returncode>{code}</returncode>\n<output>\n{out}\n</output>")
    }

    /// TOOL-1: a command left running is read on by its session until it
    /// exits; a session is forgotten once its process exited, and the
    /// oldest of more than eight.
    #[test]
    fn tool_1_a_running_command_is_read_on_by_its_session() {
        let running = |id: u32, out: &str| {
            format!("Chunk ID: x\nWall time: 10.0 seconds\nProcess running with session ID {id}\nOutput:\n{out}\n")
        };
        let exited = |code: u32, out: &str| format!("Process exited with code {code}\nOutput:\n{out}\n");
        let mut d = Digest::new();
        step(
            &mut d,
            "exec_command",
            json!({"cmd": "npm test"}),
            &running(4, "> jest"),
        );
        step(
            &mut d,
            "write_stdin",
            json!({"session_id": 4, "chars": ""}),
            &running(4, "PASS a.test.js"),
        );
        step(
            &mut d,
            "write_stdin",
            json!({"session_id": "4", "chars": ""}),
            &exited(1, "FAIL b.test.js\nTests: 1 failed, 9 passed, 10 total"),
        );
        let text = d.render(2_000);
        assert!(
            text.contains("`npm test` → exit 1; Tests: 1 failed, 9 passed, 10 total"),
            "{text}"
        );
        // The process exited: its session reads on to nothing.
        step(
            &mut d,
            "write_stdin",
            json!({"session_id": 4, "chars": ""}),
            &exited(0, "late"),
        );
        let facts = |t: &str| t.split_once('\n').map(|(_, rest)| rest.to_owned());
        assert_eq!(facts(&d.render(2_000)), facts(&text));
        // Nine commands left running: the first one's session is forgotten.
        for i in 0..9 {
            step(
                &mut d,
                "exec_command",
                json!({"cmd": format!("make job{i}")}),
                &running(10 + i, "..."),
            );
        }
        step(
            &mut d,
            "write_stdin",
            json!({"session_id": 10}),
            &exited(2, "make: *** [job0] Error 2"),
        );
        step(
            &mut d,
            "write_stdin",
            json!({"session_id": 11}),
            &exited(2, "make: *** [job1] Error 2"),
        );
        let text = d.render(4_000);
        assert!(!text.contains("[job0] Error 2"), "{text}");
        assert!(text.contains("`make job1` → exit 2"), "{text}");

        // A result whose data holds the envelope in a list or an object.
        let mut d = Digest::new();
        for (id, name, args, data) in [
            (
                "s1",
                "exec_command",
                json!({"cmd": "go test ./..."}),
                json!([{"type": "text", "text": running(5, "ok  \tapp/a")}]),
            ),
            (
                "s2",
                "write_stdin",
                json!({"session_id": 5}),
                json!({"text": exited(1, "--- FAIL: TestCart (0.00s)\nFAIL\tapp/cart\t0.01s")}),
            ),
        ] {
            let call = ToolCall::new(id, name, args);
            let result = Message::tool_result(&call, ToolResult::success(data));
            d.observe(&Message::assistant_with_calls("", vec![call]), &[result]);
        }
        let text = d.render(2_000);
        assert!(text.contains("`go test ./...` → exit 1"), "{text}");
    }

    #[test]
    fn program_skips_prefixes() {
        assert_eq!(program_of("cd /testbed && python reproduce.py"), "python");
        assert_eq!(program_of("FOO=1 timeout 30 pytest -x"), "pytest");
        assert_eq!(program_of("sudo env make test"), "make");
        assert_eq!(program_of("cd /x"), "");
        assert_eq!(program_of("grep -n x a.py | head"), "grep");
        assert_eq!(program_of("sed -i 's/a/b/' a.py && python a.py"), "python");
    }

    #[test]
    fn react_6_facts_of_real_shapes() {
        let mut d = Digest::new();
        step(&mut d, "bash", json!({"command": "cat src/a.py"}), "x = 1");
        step(
            &mut d,
            "bash",
            json!({"command": "sed -i 's/a/b/' src/a.py && python -c 'import a'"}),
            "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"a.py\", line 1\n    raise ValueError('bad')\nValueError: bad value for x\n</output>",
        );
        step(
            &mut d,
            "str_replace_editor",
            json!({"command": "str_replace", "path": "/repo/b.py", "old_str": "a", "new_str": "b"}),
            "ok",
        );
        step(
            &mut d,
            "str_replace_editor",
            json!({"command": "view", "path": "/repo/c.py"}),
            "...",
        );
        step(
            &mut d,
            "execute_bash",
            json!({"command": "python -m pytest tests -q"}),
            "..F\nFAILED tests/test_x.py::test_y - AssertionError: 1 != 2\n1 failed, 2 passed in 0.3s\n[Command finished with exit code 1]",
        );
        assert_eq!(d.files_changed(), ["src/a.py", "/repo/b.py"]);
        assert_eq!(d.files_read(), ["/repo/c.py"]);
        assert_eq!(d.commands().len(), 2, "{:?}", d.commands());
        assert_eq!(
            d.commands()[0].error.as_deref(),
            Some("ValueError: bad value for x")
        );
        assert_eq!(d.commands()[0].outcome.as_deref(), Some("exit 1"));
        assert_eq!(
            d.commands()[1].outcome.as_deref(),
            Some("exit 1; 1 failed, 2 passed in 0.3s")
        );
        let text = d.render(2_000);
        assert!(
            text.starts_with("[Progress digest of 5 earlier steps, whose results"),
            "{text}"
        );
        assert!(
            text.contains("Files changed (newest first): /repo/b.py, src/a.py"),
            "{text}"
        );
        assert!(
            text.contains("Inspection commands (cat, grep, ls, …): 1"),
            "{text}"
        );
        assert_eq!(d.render(2_000), text, "deterministic");
    }

    /// REACT-6: git's subcommands that look are inspections; one that
    /// changes the repository is a command whose failure the digest keeps
    /// (a patch that does not apply, a push refused, a hook that failed).
    #[test]
    fn react_6_git_that_changes_the_repository_is_a_command() {
        let mut d = Digest::new();
        step(
            &mut d,
            "bash",
            json!({"command": "git status && git diff"}),
            "nothing to commit",
        );
        step(
            &mut d,
            "bash",
            json!({"command": "git apply fix.patch"}),
            "error: patch failed: f.txt:1\nerror: f.txt: patch does not apply\n<returncode>1</returncode>",
        );
        step(
            &mut d,
            "shell",
            json!({"command": ["bash", "-lc", "git commit -am 'Fix totals'"]}),
            "ruff.....................................................Failed\n- hook id: ruff\n- exit code: 1\n\napp.py:3:1: F401 [*] `os` imported but unused\nFound 1 error.\n<returncode>1</returncode>",
        );
        let commands: Vec<_> = d.commands().iter().map(|c| c.command.as_str()).collect();
        assert_eq!(commands, ["git apply fix.patch", "git commit -am 'Fix totals'"]);
        assert_eq!(
            d.commands()[0].error.as_deref(),
            Some("error: f.txt: patch does not apply")
        );
        assert_eq!(
            d.commands()[1].error.as_deref(),
            Some("app.py:3:1: F401 [*] `os` imported but unused")
        );
        let call = ToolCall::new("c9", "bash", json!({"command": "git push origin main"}));
        let refused = "To github.com:shop/web.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:shop/web.git'\nhint: Updates were rejected because the remote contains work that you do not\n<returncode>1</returncode>";
        let note = outcome_note(&call, &Message::tool_result(&call, ToolResult::success(refused)));
        assert_eq!(
            note.as_deref(),
            Some("exit 1; last error: error: failed to push some refs to 'github.com:shop/web.git'")
        );
        let call = ToolCall::new("c10", "bash", json!({"command": "git diff --exit-code"}));
        let diff = "diff --git a/f b/f\n-error: x\n+ok\n<returncode>1</returncode>";
        assert_eq!(
            outcome_note(&call, &Message::tool_result(&call, ToolResult::success(diff))),
            None
        );
    }

    #[test]
    fn render_keeps_newest_within_budget() {
        let mut d = Digest::new();
        for i in 0..50 {
            step(
                &mut d,
                "bash",
                json!({"command": format!("python run_{i}.py")}),
                &format!("RuntimeError: attempt {i} failed badly"),
            );
        }
        let text = d.render(600);
        assert!(text.chars().count() <= 600, "{}", text.chars().count());
        assert!(
            text.contains("python run_49.py") && !text.contains("python run_0.py"),
            "{text}"
        );
        assert!(
            text.find("run_49").unwrap() < text.find("run_48").unwrap(),
            "newest first: {text}"
        );
        assert!(text.contains("earlier"), "{text}");
        assert_eq!(Digest::new().render(100), "");
    }

    /// REACT-6: commands that ended with exit 0 and no error are named
    /// together on one line, newest first, after those with something to
    /// say; one that failed before keeps its own line.
    #[test]
    fn react_6_plain_successes_share_a_line() {
        let mut d = Digest::new();
        step(
            &mut d,
            "bash",
            json!({"command": "pip install -e ."}),
            &run(0, "installed"),
        );
        step(
            &mut d,
            "bash",
            json!({"command": "python t.py"}),
            &run(1, "ValueError: bad"),
        );
        step(&mut d, "bash", json!({"command": "make lint"}), &run(0, ""));
        step(&mut d, "bash", json!({"command": "python t.py"}), &run(0, "fine"));
        step(
            &mut d,
            "bash",
            json!({"command": "pytest -q"}),
            &run(1, "E   AssertionError: 1 != 2\n1 failed in 0.1s"),
        );
        assert!(d.commands()[0].is_plain_success(), "{:?}", d.commands());
        assert!(!d.commands()[2].is_plain_success(), "it failed before");
        let text = d.render(2_000);
        let list = &text[text.find("Commands run").unwrap()..];
        assert_eq!(
            list.lines().collect::<Vec<_>>(),
            [
                "Commands run (newest first):",
                "- `pytest -q` → exit 1; 1 failed in 0.1s — last error: E   AssertionError: 1 != 2",
                "- `python t.py` → exit 0 — earlier runs: ValueError: bad",
                "- Exit 0 and no error (newest first): `make lint`, `pip install -e .`",
            ]
        );
        // Within any room, the newest go last and the text fits.
        for max in (150..520).step_by(7) {
            let text = d.render(max);
            assert!(text.chars().count() <= max, "{max}: {text}");
        }
        // Past the commands a digest holds, the count of those left out
        // still counts every one.
        let mut many = Digest::new();
        for i in 0..300 {
            step(
                &mut many,
                "bash",
                json!({"command": format!("make t{i}")}),
                &run(0, ""),
            );
        }
        let text = many.render(600);
        let shown = text.matches("`make t").count();
        assert!(shown > 5, "{text}");
        assert!(text.ends_with(&format!("- … {} earlier", 300 - shown)), "{text}");
        let text = d.render(470);
        assert!(
            text.contains("`make lint`") && !text.contains("pip install"),
            "{text}"
        );
        assert!(text.ends_with("- … 1 earlier"), "{text}");
    }

    #[test]
    fn repeated_command_keeps_its_distinct_errors() {
        let mut d = Digest::new();
        for e in [
            "NameError: name 'x' is not defined",
            "TypeError: bad operand type",
            "NameError: name 'x' is not defined",
        ] {
            step(&mut d, "bash", json!({"command": "python repro.py"}), e);
        }
        step(&mut d, "bash", json!({"command": "python repro.py"}), "all good");
        assert_eq!(d.commands().len(), 1);
        let c = &d.commands()[0];
        assert_eq!(c.error, None);
        assert_eq!(
            c.earlier_errors,
            [
                "NameError: name 'x' is not defined",
                "TypeError: bad operand type"
            ]
        );
    }

    /// A script run once per missing module, then once more with success.
    fn fixed_error_by_error(modules: &[&str]) -> Digest {
        let mut d = Digest::new();
        for m in modules {
            let out = format!("Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nModuleNotFoundError: No module named '{m}'");
            step(&mut d, "bash", json!({"command": "python t.py"}), &out);
        }
        step(&mut d, "bash", json!({"command": "python t.py"}), "ok");
        d
    }

    const MODULES: [&str; 14] = [
        "pytz", "numpy", "scipy", "pandas", "asgiref", "sqlparse", "wrapt", "attr", "six", "yaml", "toml",
        "jinja2", "click", "rich",
    ];

    #[test]
    fn a_script_fixed_error_by_error_keeps_twelve_of_its_errors() {
        // REACT-6: an agent installs one missing module after another.
        let d = fixed_error_by_error(&MODULES);
        let c = &d.commands()[0];
        let earlier: Vec<&str> = c.earlier_errors.iter().map(String::as_str).collect();
        assert_eq!(
            earlier,
            MODULES[2..]
                .iter()
                .rev()
                .map(|m| format!("ModuleNotFoundError: No module named '{m}'"))
                .collect::<Vec<_>>(),
            "the newest twelve, newest first"
        );
        let text = d.render(4_000);
        assert!(text.contains("No module named 'scipy'"), "{text}");
        assert!(!text.contains("earlier error"), "{text}");
    }

    #[test]
    fn a_command_short_of_room_shows_its_newest_earlier_errors() {
        // REACT-6: the command and its newest errors stay, rather than the
        // whole line going because its oldest errors do not fit.
        let d = fixed_error_by_error(&MODULES);
        let full = d.render(4_000);
        let text = d.render(full.chars().count() - 150);
        assert!(
            text.contains("`python t.py` — earlier runs: ModuleNotFoundError: No module named 'rich' | "),
            "{text}"
        );
        assert!(!text.contains("No module named 'scipy'"), "{text}");
        let shown = text.matches("ModuleNotFoundError").count();
        assert!(shown > 1, "{text}");
        assert!(
            text.ends_with(&format!("(+{} earlier errors)", 12 - shown)),
            "{text}"
        );
        let text = d.render(330);
        assert!(text.ends_with("\n- `python t.py` (+12 earlier errors)"), "{text}");
        assert!(text.chars().count() <= 330, "{text}");
    }

    #[test]
    fn a_failing_summary_stays_once_a_later_run_passes() {
        let mut d = Digest::new();
        let failing =
            "FAILED tests/test_a.py::test_x - assert 1 == 2\n===== 1 failed, 4 passed in 0.1s =====";
        step(&mut d, "bash", json!({"command": "pytest -q"}), failing);
        step(
            &mut d,
            "bash",
            json!({"command": "pytest -q"}),
            "===== 5 passed in 0.1s =====",
        );
        let c = &d.commands()[0];
        assert_eq!(c.outcome.as_deref(), Some("===== 5 passed in 0.1s ====="));
        assert_eq!(c.failing_summary, None);
        assert_eq!(
            c.earlier_errors,
            [
                "===== 1 failed, 4 passed in 0.1s =====",
                "FAILED tests/test_a.py::test_x - assert 1 == 2"
            ]
        );
        let text = d.render(2_000);
        assert!(text.contains("1 failed, 4 passed"), "{text}");
    }

    #[test]
    fn codex_shell_output_kept_as_json_is_read() {
        // Codex CLI's `shell` answers an object; transcripts in chat form
        // carry it as the tool message's text.
        let mut d = Digest::new();
        let call = ToolCall::new("c1", "shell", json!({"command": ["bash", "-lc", "cargo build"]}));
        let printed = "   Compiling app v0.1.0\nerror[E0425]: cannot find value `x` in this scope\nerror: could not compile `app` (bin \"app\") due to 1 previous error\n";
        let text =
            json!({"output": printed, "metadata": {"exit_code": 101, "duration_seconds": 1.5}}).to_string();
        let result = Message::tool_text(call.id.clone(), "shell", text);
        d.observe(&Message::assistant_with_calls("", vec![call]), &[result]);
        let c = &d.commands()[0];
        assert_eq!(c.command, "cargo build");
        // The build's verdict is its outcome; the error, the one it names.
        assert_eq!(
            c.outcome.as_deref(),
            Some("exit 101; error: could not compile `app` (bin \"app\") due to 1 previous error")
        );
        assert_eq!(
            c.error.as_deref(),
            Some("error[E0425]: cannot find value `x` in this scope")
        );
    }

    /// REACT-6, #30: each runner's outcome and last error as it prints
    /// them (shapes of real runs of go, RSpec, Maven, make, php and
    /// Minitest).
    #[test]
    fn react_6_each_runner_s_outcome_is_read_in_its_words() {
        let fact = |command: &str, out: &str| {
            let mut d = Digest::new();
            step(&mut d, "bash", json!({ "command": command }), out);
            let c = &d.commands()[0];
            (
                c.outcome.clone().unwrap_or_default(),
                c.error.clone().unwrap_or_default(),
            )
        };
        // A closing pointer to help is not the error it points at.
        let (_, error) = fact(
            "pip install -r requirements.txt",
            "Collecting requests==2.31.0\nERROR: Cannot install requests==2.31.0 and urllib3<1.21 because these package versions have conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested urllib3<1.21\n\nERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/\n",
        );
        assert!(
            error.starts_with("ERROR: Cannot install requests==2.31.0 and urllib3<1.21"),
            "{error}"
        );
        // A server's log: the exception logged, not the access record of
        // the request it failed (Django's development server).
        let (_, error) = fact(
            "python manage.py runserver",
            "Internal Server Error: /orders/summary/\nTraceback (most recent call last):\n  File \"/app/orders/views.py\", line 9, in summary\nAttributeError: 'Manager' object has no attribute 'aggregate_total'\n[04/Dec/2026 11:35:23] \"GET /orders/summary/ HTTP/1.1\" 500 56964\n[04/Dec/2026 11:35:23] \"GET /orders/1/ HTTP/1.1\" 200 34\n",
        );
        assert_eq!(
            error,
            "AttributeError: 'Manager' object has no attribute 'aggregate_total'"
        );
        // An error about an address is no pointer to help (a Celery
        // task's last retry, under the traceback it ends).
        let (_, error) = fact(
            "celery -A tasks worker",
            "Traceback (most recent call last):\n  File \"/app/tasks.py\", line 15, in fetch\nConnectionError: cannot reach http://inventory.local/items\n\nworker: Warm shutdown (MainProcess)\n",
        );
        assert_eq!(
            error,
            "ConnectionError: cannot reach http://inventory.local/items"
        );
        // Go's `ok` names a package that passed, not the run's outcome.
        let (outcome, error) = fact(
            "go test ./...",
            "--- FAIL: TestTax (0.00s)\n    pricing_test.go:26: Tax(100, \"uk\") = 0\nFAIL\nFAIL\texample.com/shop/pricing\t0.003s\nok  \texample.com/shop/util\t10.005s\nFAIL\n",
        );
        assert_eq!(outcome, "FAIL\texample.com/shop/pricing\t0.003s");
        assert_eq!(error, "pricing_test.go:26: Tax(100, \"uk\") = 0");
        // `go test -v` logs a test's message under its `=== RUN` line,
        // before the verdict that names the test: the last error has both,
        // a subtest's too, listed far below its log.
        let (_, error) = fact(
            "go test -v ./...",
            "=== RUN   TestTax\n    pricing_test.go:26: Tax(100, \"uk\") = 0\n--- FAIL: TestTax (0.00s)\nFAIL\nFAIL\texample.com/shop/pricing\t0.003s\n",
        );
        assert_eq!(
            error,
            "--- FAIL: TestTax (0.00s) pricing_test.go:26: Tax(100, \"uk\") = 0"
        );
        let (_, error) = fact(
            "go test -v ./big",
            "=== RUN   TestFib\n=== RUN   TestFib/n=13\n    big_test.go:11: computing fib(13)\n    big_test.go:14: Fib(13) = 233, want 232\n=== RUN   TestFib/n=14\n    big_test.go:11: computing fib(14)\n--- FAIL: TestFib (0.00s)\n    --- FAIL: TestFib/n=13 (0.00s)\n    --- PASS: TestFib/n=14 (0.00s)\nFAIL\n",
        );
        assert_eq!(
            error,
            "--- FAIL: TestFib/n=13 (0.00s) big_test.go:14: Fib(13) = 233, want 232"
        );
        // Cut by `| tail`, the log has no `=== RUN` line: the message right
        // above the verdict, not a passing test's above that.
        let (_, error) = fact(
            "go test -v ./... 2>&1 | tail -5",
            "    calc_test.go:28: Add(3, 1) = 4, want 5\n--- FAIL: TestAdd3 (0.00s)\nFAIL\n",
        );
        assert_eq!(
            error,
            "--- FAIL: TestAdd3 (0.00s) calc_test.go:28: Add(3, 1) = 4, want 5"
        );
        let (_, error) = fact(
            "go test -v ./... 2>&1 | tail -5",
            "    calc_test.go:33: checking 4\n--- PASS: TestOk4 (0.00s)\n--- FAIL: TestAdd3 (0.00s)\nFAIL\n",
        );
        assert_eq!(error, "--- FAIL: TestAdd3 (0.00s)");
        // Colour codes are left out; ESLint's `--fix` count is not the
        // summary; a table's heading after the summary is not a verdict.
        let (outcome, error) = fact(
            "npx vitest run",
            "\u{1b}[31m\u{1b}[1mAssertionError\u{1b}[22m: expected 1 to be 2\u{1b}[39m\n\u{1b}[2m      Tests \u{1b}[22m \u{1b}[1m\u{1b}[31m4 failed\u{1b}[39m\u{1b}[22m | 120 passed (124)\n",
        );
        assert_eq!(outcome, "Tests  4 failed | 120 passed (124)");
        assert_eq!(error, "AssertionError: expected 1 to be 2");
        let (outcome, _) = fact(
            "npx eslint .",
            "  2:10  error  'x' is not defined  no-undef\n\n✖ 250 problems (250 errors, 0 warnings)\n  50 errors and 0 warnings potentially fixable with the `--fix` option.\n",
        );
        assert_eq!(outcome, "✖ 250 problems (250 errors, 0 warnings)");
        let (outcome, _) = fact(
            "npx tsc --pretty",
            "src/a.ts:4:30 - error TS2304: Cannot find name 'x'.\n\nFound 2 errors in 2 files.\n\nErrors  Files\n     1  src/a.ts:4\n     1  src/b.ts:9\n",
        );
        assert_eq!(outcome, "Found 2 errors in 2 files.");
        // RSpec's `Failed examples:` heads a list; its count is the summary.
        let (outcome, _) = fact(
            "rspec",
            "33 examples, 6 failures\n\nFailed examples:\n\nrspec ./spec/cart_spec.rb:13 # Cart#total sums lines\n",
        );
        assert_eq!(outcome, "33 examples, 6 failures");
        // Maven's closing count, not the last class that passed.
        let (outcome, _) = fact(
            "mvn -B test",
            "[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0 s - in shop.Cart6Test\n[ERROR] Tests run: 17, Failures: 3, Errors: 1, Skipped: 0\n[INFO] BUILD FAILURE\n",
        );
        assert!(
            outcome.starts_with("[ERROR] Tests run: 17, Failures: 3"),
            "{outcome}"
        );
        // make's closing lines are verdicts: the last error is the compiler's.
        let (outcome, error) = fact(
            "cmake --build build -- -k",
            "src/a.cpp:5:48: error: invalid operands to binary 'operator+'\n/usr/include/c++/12/bits/allocator.h:219:5: note:   template argument deduction/substitution failed:\ngmake[2]: *** [CMakeFiles/shop.dir/build.make:90: a.o] Error 1\ngmake: Target 'default_target' not remade because of errors.\n",
        );
        assert_eq!(
            outcome,
            "gmake: Target 'default_target' not remade because of errors."
        );
        assert_eq!(
            error,
            "src/a.cpp:5:48: error: invalid operands to binary 'operator+'"
        );
        // php -l: the parse error, under its verdict.
        let (outcome, error) = fact(
            "php -l bad.php",
            "PHP Parse error:  syntax error, unexpected token \";\" in bad.php on line 2\nErrors parsing bad.php\n",
        );
        assert_eq!(outcome, "Errors parsing bad.php");
        assert!(error.starts_with("PHP Parse error:"), "{error}");
        // Minitest announces the test, which announces the message.
        let (_, error) = fact(
            "ruby -Ilib test/cart_test.rb",
            "  4) Failure:\nCartTest#test_hash [test/cart_test.rb:8]:\nExpected [] to include 1.\n\n54 runs, 54 assertions, 1 failures, 0 errors, 0 skips\n",
        );
        assert_eq!(
            error,
            "4) Failure: CartTest#test_hash [test/cart_test.rb:8]: Expected [] to include 1."
        );
    }

    #[test]
    fn react_6_a_run_without_test_counts_ends_on_its_verdict() {
        let outcome = |out: &str| {
            let mut d = Digest::new();
            step(&mut d, "bash", json!({"command": "make test"}), out);
            d.commands()[0].outcome.clone()
        };
        // Go's failing package, make's failed target.
        assert_eq!(
            outcome("--- FAIL: TestParse (0.00s)\n    a_test.go:9: got 1\nFAIL\nFAIL\texample.com/app/config\t0.014s\nFAIL\n")
                .as_deref(),
            Some("FAIL\texample.com/app/config\t0.014s")
        );
        assert_eq!(
            outcome("cc -c a.c\na.c:3:5: error: expected ';'\nmake: *** [Makefile:4: a.o] Error 1\nexit status 2\n").as_deref(),
            Some("exit 2; make: *** [Makefile:4: a.o] Error 1")
        );
        // An exception's message that holds a count is no test summary:
        // the run's verdict is what the runner closes on.
        assert_eq!(
            outcome(
                "node:internal/process/promises:394
Error: fetch 2 failed
    at main (/app/sync.js:9:11)
npm error code 1
"
            )
            .as_deref(),
            Some("npm error code 1")
        );
        // A test summary comes first, then a verdict the runner closes on
        // after it; a bare status says nothing more.
        assert_eq!(
            outcome("FAILED (failures=1)\nerror: test failed, to rerun pass `--lib`\n").as_deref(),
            Some("FAILED (failures=1); error: test failed, to rerun pass `--lib`")
        );
        assert_eq!(
            outcome("FAILED (errors=1)\nSystem check identified no issues (0 silenced).\n\n1 test(s) failed!\nexit code 1\n")
                .as_deref(),
            Some("exit 1; FAILED (errors=1); 1 test(s) failed!")
        );
        assert_eq!(
            outcome(
                "Ran 2 tests in 0.1s\n\nFAILED (failures=1)\n[The command completed with exit code 1.]\n"
            )
            .as_deref(),
            Some("exit 1; FAILED (failures=1)")
        );
        // A verdict that names what failed with its exit code is not a
        // bare status.
        assert_eq!(
            outcome("a.c:3:5: error: expected ';'\nerror: command '/usr/bin/gcc' failed with exit code 1\n")
                .as_deref(),
            Some("exit 1; error: command '/usr/bin/gcc' failed with exit code 1")
        );
        assert_eq!(
            outcome("Traceback (most recent call last):\nValueError: x\nERROR\n"),
            None
        );
        // A run that succeeded says so with its exit code.
        assert_eq!(
            outcome("All checks passed!\nexit code: 0\n").as_deref(),
            Some("exit 0")
        );
    }

    #[test]
    fn gemini_shell_output_gives_its_exit_code_not_its_error_field() {
        // Gemini CLI's `run_shell_command` labels its fields; `Error:
        // (none)` below the output is a field, not what the command printed.
        let mut d = Digest::new();
        let printed = "Command: npx tsc --noEmit\nDirectory: (root)\nOutput: src/a.ts(3,7): error TS2322: Type 'number' is not assignable to type 'string'.\nError: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242";
        step(
            &mut d,
            "run_shell_command",
            json!({"command": "npx tsc --noEmit"}),
            printed,
        );
        let c = &d.commands()[0];
        assert_eq!(c.command, "npx tsc --noEmit");
        assert_eq!(c.outcome.as_deref(), Some("exit 2"));
        assert_eq!(
            c.error.as_deref(),
            Some("src/a.ts(3,7): error TS2322: Type 'number' is not assignable to type 'string'.")
        );
    }

    #[test]
    fn earlier_errors_are_cut_to_their_message() {
        let mut d = Digest::new();
        let long = format!("ValueError: {}", "x".repeat(300));
        step(&mut d, "bash", json!({"command": "python t.py"}), &long);
        step(&mut d, "bash", json!({"command": "python t.py"}), "ok");
        let e = &d.commands()[0].earlier_errors[0];
        assert_eq!(
            e.chars().count(),
            EARLIER_ERROR_CHARS + 1,
            "cut, with an ellipsis"
        );
        assert!(e.starts_with("ValueError: xxx") && e.ends_with('…'));
    }

    #[test]
    fn heredoc_bodies_are_not_commands() {
        assert_eq!(
            program_of("cat > t.py << 'EOF'\nimport os\nEOF\npython t.py"),
            "python"
        );
        assert_eq!(program_of("cat > t.py <<EOF\nprint(1)\nEOF"), "cat");
    }

    /// REACT-6: scripts behind the same first line are told apart; a
    /// script written then run is named by its run; a grep whose pattern
    /// holds `\|` looks, it runs nothing.
    #[test]
    fn react_6_commands_are_named_past_their_first_line() {
        let mut d = Digest::new();
        for (script, out) in [
            ("import a", run(1, "ModuleNotFoundError: No module named 'a'")),
            ("import b", run(1, "ModuleNotFoundError: No module named 'b'")),
            ("import a", run(0, "ok")),
        ] {
            let command = format!("cd /r && python -c \"\n{script}\n\"");
            step(&mut d, "bash", json!({ "command": command }), &out);
        }
        step(
            &mut d,
            "bash",
            json!({"command": "cat > t.py << 'EOF'\nraise SystemExit(2)\nEOF\npython t.py"}),
            &run(2, ""),
        );
        step(
            &mut d,
            "bash",
            json!({"command": "grep -n \"try\\|except\" a.py"}),
            &run(0, "3:    except ValueError:"),
        );
        let names: Vec<&str> = d.commands().iter().map(|c| c.command.as_str()).collect();
        assert_eq!(
            names,
            [
                "cd /r && python -c \" ⏎ import b ⏎ \"",
                "cd /r && python -c \" ⏎ import a ⏎ \"",
                "cat > t.py << 'EOF' … ⏎ python t.py",
            ]
        );
        // The first script's second run keeps its first run's error.
        assert_eq!(
            d.commands()[1].earlier_errors,
            ["ModuleNotFoundError: No module named 'a'"]
        );
        assert_eq!(
            d.commands()[0].error.as_deref(),
            Some("ModuleNotFoundError: No module named 'b'")
        );
        assert_eq!(d.commands()[2].first_line(), "cat > t.py << 'EOF'");
        assert_eq!(d.commands()[0].first_line(), "cd /r && python -c \"");
        // A first line past the cut is named by what the cut kept.
        let long = format!("pytest {}", "tests/test_a.py ".repeat(10));
        step(&mut d, "bash", json!({ "command": long }), &run(0, ""));
        let named = d.commands().last().unwrap().first_line();
        assert!(long.starts_with(named) && named.chars().count() == 100, "{named}");
        let text = d.render(2_000);
        assert!(
            text.contains("Inspection commands (cat, grep, ls, …): 1"),
            "{text}"
        );
    }

    #[test]
    fn a_warning_raised_at_the_end_of_a_traceback_is_the_last_error() {
        // REACT-6: pytest failed to start on a warning turned into an
        // exception; the traceback's heading is not the error.
        let out = "ERROR: while parsing the following warning configuration:\n\nThis error occurred:\n\nTraceback (most recent call last):\n  File \"/opt/_pytest/config/__init__.py\", line 2127, in parse_warning_filter\n    category = _resolve_warning_category(category_)\n               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File \"/opt/numpy/core/_utils.py\", line 10, in _raise_warning\n    warnings.warn(\nDeprecationWarning: numpy.core is deprecated and has been renamed to numpy._core.\n\n";
        assert_eq!(
            last_error_line(out, None).as_deref(),
            Some("DeprecationWarning: numpy.core is deprecated and has been renamed to numpy._core.")
        );
        // Printed by the `warnings` module, a warning is no error.
        let printed =
            "/a/t.py:3: DeprecationWarning: numpy.core is deprecated\n  import numpy.core\n4 passed\n";
        assert_eq!(last_error_line(printed, None), None);
    }

    #[test]
    fn a_run_that_failed_on_its_warnings_keeps_the_last_as_its_error() {
        // REACT-6: hadolint exits 1 on warnings; none of its lines is a
        // failure, and the last warning is what the run failed on.
        let out = "-:3 DL3008 warning: Pin versions in apt get install.\n-:12 DL3025 warning: Use arguments JSON notation for CMD and ENTRYPOINT arguments\n";
        let call = ToolCall::new("c1", "bash", json!({"command": "hadolint Dockerfile"}));
        let failed = Message::tool_result(
            &call,
            ToolResult::success(format!("{out}<returncode>1</returncode>")),
        );
        assert_eq!(
            crate::outcome_note(&call, &failed).as_deref(),
            Some("exit 1; last error: -:12 DL3025 warning: Use arguments JSON notation for CMD and ENTRYPOINT arguments")
        );
        // The same warnings under a run that succeeded are no error.
        let passed = Message::tool_result(
            &call,
            ToolResult::success(format!("{out}<returncode>0</returncode>")),
        );
        assert_eq!(crate::outcome_note(&call, &passed), None);
    }

    #[test]
    fn a_command_that_met_errors_comes_before_plain_successes() {
        // REACT-6: short of room, a command whose earlier runs failed stays
        // before a newer one that only ever passed.
        let mut d = Digest::new();
        step(
            &mut d,
            "bash",
            json!({"command": "python a.py"}),
            &run(1, "NameError: name 'x' is not defined"),
        );
        step(&mut d, "bash", json!({"command": "python a.py"}), &run(0, "fine"));
        step(&mut d, "bash", json!({"command": "make"}), &run(0, "built"));
        let text = (100..2_000)
            .map(|n| d.render(n))
            .find(|t| t.contains("python a.py"))
            .unwrap_or_default();
        assert!(text.contains("earlier error"), "{text}");
        assert!(!text.contains("`make`"), "{text}");
        assert!(d.render(2_000).contains("`make`"));
    }

    #[test]
    fn a_check_that_reports_no_error_is_its_verdict_not_an_error() {
        // REACT-6: the checks agents write print `… without error`; the
        // run succeeded, and says what it checked.
        let mut d = Digest::new();
        let out = run(0, "Creating schema\nSUCCESS: Schema created without error");
        step(&mut d, "bash", json!({"command": "python check.py"}), &out);
        let c = &d.commands()[0];
        assert_eq!(c.error, None);
        assert_eq!(
            c.outcome.as_deref(),
            Some("exit 0; SUCCESS: Schema created without error")
        );
        let out = run(0, "Errors Found: ['L031']");
        step(&mut d, "bash", json!({"command": "python lint.py"}), &out);
        assert_eq!(d.commands()[1].error.as_deref(), Some("Errors Found: ['L031']"));
    }

    #[test]
    fn an_indented_test_log_line_is_the_last_error() {
        // `go test` logs a failing check indented under its test (here cut
        // before the verdict); the line is a failure only as printed.
        let out = "=== RUN   TestAdd\n    add_test.go:12: got 81, want 90\n";
        assert_eq!(
            last_error_line(out, None).as_deref(),
            Some("add_test.go:12: got 81, want 90")
        );
    }

    #[test]
    fn error_lines_skip_code() {
        assert_eq!(
            last_error_line("AssertionError: expected 3", None).as_deref(),
            Some("AssertionError: expected 3")
        );
        assert_eq!(last_error_line("    raise ValueError('bad')", None), None);
        assert_eq!(last_error_line("+    t.Errorf(\"wrong\")", None), None);
        assert_eq!(last_error_line("error", None), None, "too short");
        assert_eq!(
            last_error_line("--- FAIL: TestX (0.00s)\nFAIL\nexit status 1\n", None).as_deref(),
            Some("--- FAIL: TestX (0.00s)")
        );
        // A failure that announces its message on the next line brings it;
        // one followed by another failure or nothing stands alone.
        assert_eq!(
            last_error_line(
                "thread 'main' panicked at src/a.rs:3:5:\nindex out of bounds\n",
                None
            )
            .as_deref(),
            Some("thread 'main' panicked at src/a.rs:3:5: index out of bounds")
        );
        assert_eq!(
            last_error_line("Traceback (most recent call last):\n", None).as_deref(),
            Some("Traceback (most recent call last):")
        );
    }

    /// REACT-6: npm's last lines are its code, help text and the path of
    /// its debug log; the last error is what failed (npm 11's words).
    #[test]
    fn a_passing_tests_go_log_is_not_the_last_error() {
        let log = "=== RUN   TestAdd3\n    calc_test.go:28: Add(3, 1) = 4, want 5\n--- FAIL: TestAdd3 (0.00s)\n=== RUN   TestOk4\n    calc_test.go:33: checking 4\n--- PASS: TestOk4 (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.005s\nFAIL\n";
        assert_eq!(
            last_error_line(log, None).as_deref(),
            Some("--- FAIL: TestAdd3 (0.00s) calc_test.go:28: Add(3, 1) = 4, want 5")
        );
        // A log cut before the run's verdict: the last failure is the
        // failing test's, not the passing one's log below it.
        let cut = &log[..log.find("FAIL\n").unwrap()];
        assert_eq!(
            strata_ctx_compress::last_failure(cut),
            Some("--- FAIL: TestAdd3 (0.00s)")
        );
    }

    /// REACT-6: pytest's banner when it stops early (`-x`,
    /// `--maxfail`) is a verdict; the last error is the failure above it.
    #[test]
    fn pytest_s_stopping_banner_is_not_the_last_error() {
        let log = "tests/test_a.py::test_x FAILED\n\n=================================== FAILURES ===================================\n___________________________________ test_x ___________________________________\n\n    def test_x():\n>       assert parse('1h') == 3600\nE       AssertionError: assert 60 == 3600\n\ntests/test_a.py:4: AssertionError\n!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!\n============================== 1 failed in 0.10s ===============================\n";
        assert_eq!(
            last_error_line(log, None).as_deref(),
            Some("tests/test_a.py:4: AssertionError")
        );
    }

    /// REACT-6: the last error of an Ansible run is the task that failed,
    /// not the recap's count of failed tasks below it; of a Perl script
    /// that `confess`es, the message over its callers, not a warning.
    #[test]
    fn ansible_s_recap_and_perl_s_warnings_are_not_the_last_error() {
        let play = "TASK [Render template] *********************************************************\n\
                    fatal: [localhost]: FAILED! => {\"changed\": false, \"msg\": \"AnsibleUndefinedVariable: 'port' is undefined\"}\n\n\
                    PLAY RECAP *********************************************************************\n\
                    localhost                  : ok=4    changed=3    unreachable=0    failed=1    skipped=0    rescued=0    ignored=1\n";
        assert_eq!(
            last_error_line(play, None).as_deref(),
            Some("fatal: [localhost]: FAILED! => {\"changed\": false, \"msg\": \"AnsibleUndefinedVariable: 'port' is undefined\"}")
        );
        let perl = "Argument \"x\" isn't numeric in addition (+) at app.pl line 11, <DATA> line 4.\n\
                    negative total for carol at lib/App/Report.pm line 17, <DATA> line 4.\n\
                    \tApp::Report::_row(App::Report=HASH(0x5627b5ff3860), \"carol\", 5) called at lib/App/Report.pm line 11\n\
                    alice: 13\n";
        assert_eq!(
            last_error_line(perl, None).as_deref(),
            Some("negative total for carol at lib/App/Report.pm line 17, <DATA> line 4.")
        );
    }

    /// REACT-6: the last error of a log is its last record at the error
    /// level, not a later retry at the warning level that says `failed`;
    /// of an output that holds no failure line, its last warning that
    /// says something failed.
    #[test]
    fn a_log_s_last_error_is_its_last_record_at_the_error_level() {
        let log = "2026-12-05 06:02:15,347 - sync - WARNING - fetch of orders failed (attempt 3/3): [Errno 111] Connection refused\n\
                   2026-12-05 06:02:15,348 - sync - ERROR - giving up on orders\n\
                   2026-12-05 06:02:15,349 - sync - WARNING - fetch of stock failed (attempt 1/3): [Errno 111] Connection refused\n\
                   2026-12-05 06:02:15,350 - sync - INFO - synced stock\n";
        assert_eq!(
            last_error_line(log, None).as_deref(),
            Some("2026-12-05 06:02:15,348 - sync - ERROR - giving up on orders")
        );
        let lint =
            "WARNING:sqlfluff.linter:One fix for L003 not applied, it would re-cause the same error.\n\
                    WARNING:sqlfluff.linter:Rule L036 is slow\n\
                    All Finished!\n";
        assert_eq!(
            last_error_line(lint, None).as_deref(),
            Some("WARNING:sqlfluff.linter:One fix for L003 not applied, it would re-cause the same error.")
        );
        assert_eq!(last_error_line("WARNING:app:disk at 91%\nok\n", None), None);
    }

    /// REACT-6: where every failure line with a message is only a link to
    /// help or advice, the last error is still such a line before the run's
    /// verdict: it names what failed.
    #[test]
    fn a_line_with_a_message_comes_before_a_verdict() {
        let log = "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/\nBUILD FAILED\n";
        assert_eq!(
            last_error_line(log, None).as_deref(),
            Some("ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/")
        );
    }

    /// REACT-6: a run's count is what `strata_ctx_compress::is_count`
    /// says, the one reading the history forms make: Black's and
    /// pre-commit's `8 files would be reformatted` over Black's `Oh no!`,
    /// the host whose recap counts a failure over the last host's, CTest's
    /// percentage over its `1 FAILED TEST`, pytest's count under nox; a
    /// Haskell call stack's call site is no error, RSpec-style `N
    /// examples, M failures` a count.
    #[test]
    fn react_6_a_run_s_count_is_read_as_the_forms_read_it() {
        let fact = |command: &str, out: &str| {
            let run = Run {
                text: out.to_owned(),
                code: Some(1),
                ..Run::default()
            };
            command_fact(command, run, false)
        };
        let outcome = |command: &str, out: &str| fact(command, out).outcome;
        assert_eq!(
            outcome("black --check .", "would reformat /src/a.py\n\nOh no! 💥 💔 💥\n8 files would be reformatted, 25 files would be left unchanged.\n").as_deref(),
            Some("exit 1; 8 files would be reformatted, 25 files would be left unchanged.")
        );
        let recap = "PLAY RECAP *********\n\
                     db01   : ok=4    changed=0    unreachable=0    failed=0    skipped=0\n\
                     web02  : ok=9    changed=2    unreachable=0    failed=1    skipped=0\n\
                     web03  : ok=12   changed=5    unreachable=0    failed=0    skipped=0\n";
        assert_eq!(
            outcome("ansible-playbook site.yml", recap).as_deref(),
            Some("exit 1; web02  : ok=9    changed=2    unreachable=0    failed=1    skipped=0")
        );
        let ctest = "The following tests FAILED:\n\t 12 - test_parse_price (Failed)\n96% tests passed, 1 tests failed out of 27\n\nTotal Test time (real) =   0.31 sec\nErrors while running CTest\n";
        assert!(
            outcome("ctest", ctest)
                .is_some_and(|o| o.starts_with("exit 1; 96% tests passed, 1 tests failed out of 27")),
            "{:?}",
            outcome("ctest", ctest)
        );
        let hspec = "  1) discount rejects negative percents\n       predicate failed on expected exception: ErrorCall (negative discount: -5\n       CallStack (from HasCallStack):\n         error, called at Cart.hs:16:15 in main:Cart)\n\n28 examples, 4 failures\n";
        let fact = fact("cabal test", hspec);
        assert_eq!(fact.outcome.as_deref(), Some("exit 1; 28 examples, 4 failures"));
        assert_eq!(
            fact.error.as_deref(),
            Some("predicate failed on expected exception: ErrorCall (negative discount: -5")
        );
    }

    /// REACT-6: `cargo test` over several targets: its outcome is the
    /// failing target's count, not the doc-tests' `ok` that close it, and
    /// its last error the panic, not Cargo's `error: 1 target failed:`.
    #[test]
    fn react_6_a_cargo_run_of_many_targets_keeps_the_failing_one() {
        let out = "     Running tests/test_version_req.rs (target/debug/deps/test_version_req-1)\n\n\
                   running 20 tests\ntest test_caret ... FAILED\n\nfailures:\n\n---- test_caret stdout ----\n\n\
                   thread 'test_caret' (12019) panicked at tests/test_version_req.rs:210:5:\ndid not match 1.1.2\n\n\
                   failures:\n    test_caret\n\n\
                   test result: FAILED. 19 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\n\
                   error: test failed, to rerun pass `--test test_version_req`\n   Doc-tests semver\n\nrunning 4 tests\n\
                   test src/lib.rs - (line 19) ... ok\ntest src/lib.rs - Version::new (line 376) ... ok\n\
                   test src/lib.rs - Version::cmp (line 433) ... ok\ntest src/parse.rs - parse::Error (line 11) ... ok\n\n\
                   test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.47s\n\n\
                   error: 1 target failed:\n    `--test test_version_req`\n";
        let fact = |code: i64| {
            let run = Run {
                text: out.to_owned(),
                code: Some(code),
                ..Run::default()
            };
            command_fact("cargo test --no-fail-fast", run, false)
        };
        let failed = fact(101);
        assert!(
            failed
                .outcome
                .as_deref()
                .is_some_and(|o| o.starts_with("exit 101; test result: FAILED. 19 passed; 1 failed;")),
            "{:?}",
            failed.outcome
        );
        assert_eq!(
            failed.error.as_deref(),
            Some("thread 'test_caret' (12019) panicked at tests/test_version_req.rs:210:5: did not match 1.1.2")
        );
        // A run that exited 0 is read by its closing counts alone.
        assert!(fact(0)
            .outcome
            .is_some_and(|o| o.starts_with("exit 0; test result: ok. 4 passed;")));
        // Without its exit code, the run failed by the verdict Cargo
        // closes on.
        let unknown = command_fact(
            "cargo test --no-fail-fast",
            Run {
                text: out.to_owned(),
                ..Run::default()
            },
            false,
        );
        assert!(
            unknown.outcome.as_deref().is_some_and(|o| {
                o.starts_with("test result: FAILED. 19 passed; 1 failed;")
                    && o.ends_with("; error: 1 target failed:")
            }),
            "{:?}",
            unknown.outcome
        );
        // The note under a cleared result cuts each part of the outcome
        // on its own: the verdict after a long summary stays whole.
        let call = ToolCall::new("c1", "bash", json!({"command": "cargo test --no-fail-fast"}));
        let note = outcome_note(&call, &Message::tool_result(&call, ToolResult::success(out)));
        assert_eq!(
            note.as_deref(),
            Some(
                "test result: FAILED. 19 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s; \
                 error: 1 target failed:; last error: thread 'test_caret' (12019) panicked at \
                 tests/test_version_req.rs:210:5: did not match 1.1.2"
            )
        );
    }

    /// REACT-6: the last error of a package manager is what it could not
    /// do, not the help and verdicts it prints after: `npm ci`'s missing
    /// entry over npm's usage, `npm run`'s missing script over where to
    /// list the scripts, the script's own error over pnpm's `ELIFECYCLE`.
    #[test]
    fn a_package_manager_s_help_and_verdicts_are_not_the_last_error() {
        let ci = "npm error code EUSAGE\nnpm error\nnpm error Missing: is-number@6.0.0 from lock file\nnpm error\n\
                  npm error Clean install a project\nnpm error\nnpm error Usage:\nnpm error npm ci\nnpm error\n\
                  npm error   --strict-peer-deps\nnpm error     If set to `true`, and `--legacy-peer-deps` is not set, then _any_\n\
                  npm error\nnpm error aliases: clean-install, ic, install-clean, isntall-clean\nnpm error\n\
                  npm error Run \"npm help ci\" for more info\n\
                  npm error A complete log of this run can be found in: /root/.npm/_logs/2026-12-05T02_50_38_293Z-debug-0.log\n";
        assert_eq!(
            last_error_line(ci, None).as_deref(),
            Some("npm error Missing: is-number@6.0.0 from lock file")
        );
        let run = "npm error Missing script: \"build\"\nnpm error\nnpm error To see a list of scripts, run:\nnpm error   npm run\n\
                   npm error A complete log of this run can be found in: /root/.npm/_logs/2026-12-05T02_52_27_231Z-debug-0.log\n";
        assert_eq!(
            last_error_line(run, None).as_deref(),
            Some("npm error Missing script: \"build\"")
        );
        let pnpm = "\n> shop-api@1.0.0 build /app\n> tsc -p .\n\nsh: 1: tsc: not found\n ELIFECYCLE  Command failed.\n";
        assert_eq!(
            last_error_line(pnpm, None).as_deref(),
            Some("sh: 1: tsc: not found")
        );
    }

    /// HIST-6: an output read through a terminal is read as it shows:
    /// Cargo's error after its progress bar, which it clears first, is
    /// the last error, its lines ending in `\r\n`.
    #[test]
    fn an_outcome_is_read_as_a_terminal_shows_it() {
        let call = ToolCall::new("c1", "exec_command", json!({"cmd": "cargo build", "tty": true}));
        let pty = "   Compiling app v0.1.0\r\n    Building [=====> ] 32/33: app(bin)    \r\u{1b}[K\u{1b}[1m\u{1b}[91merror[E0308]\u{1b}[0m: mismatched types\r\n --> src/main.rs:3:18\r\n    Building [=====> ] 32/33: app(bin)    \r\u{1b}[Kerror: could not compile `app` (bin \"app\") due to 1 previous error\r\n";
        let note = outcome_note(&call, &Message::tool_result(&call, ToolResult::success(pty)));
        assert_eq!(
            note.as_deref(),
            Some("error: could not compile `app` (bin \"app\") due to 1 previous error; last error: error[E0308]: mismatched types")
        );
    }

    /// HIST-6: of a runner's closing counts, the outcome keeps the one
    /// that says something failed, not a later one that does not (Jest's
    /// `Tests: 0 total` under `Test Suites: 2 failed, 2 total`, Bun's ` 4
    /// fail` over `Ran 29 tests across 1 file.`); a port that failed
    /// (libpq's) is no count.
    #[test]
    fn an_outcome_keeps_the_count_that_says_something_failed() {
        let note = |out: &str| {
            let call = ToolCall::new("c1", "bash", json!({"command": "npm test"}));
            outcome_note(&call, &Message::tool_result(&call, ToolResult::success(out)))
        };
        let jest = "FAIL test/cart.test.ts\n  error TS2322: Type 'number' is not assignable to type 'string'.\nTest Suites: 2 failed, 2 total\nTests:       0 total\nSnapshots:   0 total\nTime:        1.9 s\n<returncode>1</returncode>";
        assert!(note(jest).is_some_and(|n| n.starts_with("exit 1; Test Suites: 2 failed, 2 total; ")));
        let bun = "(fail) Cart > finds [0.04ms]\n\n 25 pass\n 4 fail\n 31 expect() calls\nRan 29 tests across 1 file. [6.00ms]\n<returncode>1</returncode>";
        assert!(note(bun).is_some_and(|n| n.starts_with("exit 1; 4 fail; ")));
        let libpq = "psql: error: connection to server at \"db\" (10.0.3.7), port 5432 failed: Connection refused\n<returncode>2</returncode>";
        assert_eq!(
            note(libpq).as_deref(),
            Some("exit 2; last error: psql: error: connection to server at \"db\" (10.0.3.7), port 5432 failed: Connection refused")
        );
    }

    /// HIST-6: what a cleared result keeps says how its command went
    /// wrong, whichever way the output tells it; a command that went well,
    /// or a read, keeps nothing.
    #[test]
    fn an_outcome_note_says_how_a_command_went_wrong() {
        let note = |name: &str, args: Value, result: ToolResult| {
            let call = ToolCall::new("c1", name, args);
            outcome_note(&call, &Message::tool_result(&call, result))
        };
        let run = |out: &str| {
            note(
                "bash",
                json!({"command": "python run.py"}),
                ToolResult::success(out),
            )
        };
        // An error line alone, the exit status saying nothing went wrong
        // (a pipe through `tail`).
        assert_eq!(
            run("loading\nError: bad input file\n<returncode>0</returncode>").as_deref(),
            Some("exit 0; last error: Error: bad input file")
        );
        // A failing test count alone.
        assert_eq!(
            run("collected 4 items\n1 failed, 3 passed in 0.12s\n<returncode>0</returncode>").as_deref(),
            Some("exit 0; 1 failed, 3 passed in 0.12s")
        );
        // A non-zero exit status alone.
        assert_eq!(run("done\n<returncode>2</returncode>").as_deref(), Some("exit 2"));
        // A result the tool marked failed, without an exit status.
        assert_eq!(
            note(
                "bash",
                json!({"command": "python run.py"}),
                ToolResult::error("interrupted", "")
            )
            .as_deref(),
            Some("failed")
        );
        assert_eq!(
            note(
                "bash",
                json!({"command": "python run.py"}),
                ToolResult::error("timeout", "timed out")
            )
            .as_deref(),
            Some("failed; last error: timed out")
        );
        // Nothing went wrong; or not a program run.
        assert_eq!(run("all good\n<returncode>0</returncode>"), None);
        assert_eq!(
            note(
                "bash",
                json!({"command": "cat notes.txt"}),
                ToolResult::success("Error: in the notes\n")
            ),
            None
        );
        assert_eq!(
            note(
                "Read",
                json!({"file_path": "a.py"}),
                ToolResult::success("raise ValueError('x')\nError: x\n")
            ),
            None
        );
    }

    /// HIST-6: Prettier's closing count of the files it would change is
    /// the outcome of a `prettier --check` whose tool left its exit code
    /// out, over the last file it names.
    #[test]
    fn an_outcome_note_holds_prettier_s_count() {
        let call = ToolCall::new("c1", "bash", json!({"command": "npx prettier --check src"}));
        let out = "Checking formatting...\n[warn] src/cart.ts\n[warn] src/util.ts\n[warn] Code style issues found in 2 files. Run Prettier with --write to fix.\n";
        assert_eq!(
            outcome_note(&call, &Message::tool_result(&call, ToolResult::success(out))).as_deref(),
            Some("[warn] Code style issues found in 2 files. Run Prettier with --write to fix.; last error: [warn] src/util.ts")
        );
    }

    /// HIST-6: a TAP run closes on no count: its last failed test point is
    /// the outcome, and the last error says it with the diagnostics under
    /// it, not an earlier point's.
    #[test]
    fn an_outcome_note_of_a_tap_run_says_its_last_failure_whole() {
        let call = ToolCall::new("c1", "bash", json!({"command": "bats test"}));
        let out = "1..4\nok 1 builds\nnot ok 2 rollback exists\n# (in test file a.bats, line 22)\n#   `./deploy.sh rollback' failed with status 64\nnot ok 3 config round-trips\n# (in test file a.bats, line 40)\n#   `[ \"$output\" = \"k0\" ]' failed\nok 4 lists\n";
        assert_eq!(
            outcome_note(&call, &Message::tool_result(&call, ToolResult::success(out))).as_deref(),
            Some("not ok 3 config round-trips; last error: not ok 3 config round-trips # (in test file a.bats, line 40) #   `[ \"$output\" = \"k0\" ]' failed")
        );
        // A count is said once: the error is what else failed, if anything.
        let script = ToolCall::new("c2", "bash", json!({"command": "python check.py"}));
        let counted = "<returncode>0</returncode>\n<output>\nL036 found 1 violations\n  Line 2: Select targets should be on a new line.\n</output>";
        assert_eq!(
            outcome_note(
                &script,
                &Message::tool_result(&script, ToolResult::success(counted))
            )
            .as_deref(),
            Some("exit 0; L036 found 1 violations")
        );
    }

    /// HIST-6: a history form with its recall handle under it is read as
    /// the tool's envelope: Gemini CLI's `Error: (none)` field says
    /// nothing went wrong, and its exit code is the envelope's.
    #[test]
    fn a_history_form_s_recall_handle_is_not_the_tool_s() {
        let call = ToolCall::new("c1", "run_shell_command", json!({"command": "python a.py"}));
        let form = "Command: python a.py\nDirectory: (root)\nOutput: row 1\nValueError: bad row\nError: (none)\nExit Code: 1\n[recall 1a2b3c4d]";
        let result = Message::tool_text(&call.id, "run_shell_command", form);
        assert_eq!(
            outcome_note(&call, &result).as_deref(),
            Some("exit 1; last error: ValueError: bad row")
        );
        assert_eq!(crate::shrink::without_recall_handle("a\n[recall 1a2b3c4d]"), "a");
        assert_eq!(
            crate::shrink::without_recall_handle("a\n[recall later]"),
            "a\n[recall later]"
        );
        assert_eq!(
            crate::shrink::without_recall_handle("[recall 1a2b3c4d]"),
            "[recall 1a2b3c4d]"
        );
    }

    #[test]
    fn npm_trailers_are_not_the_last_error() {
        let log = "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/left-pad-xyz\nnpm error 404\nnpm error 404  The requested resource 'left-pad-xyz@*' could not be found or you do not have permission to access it.\nnpm error 404\nnpm error 404 Note that you can also install from a\nnpm error 404 tarball, folder, http url, or git url.\nnpm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-26T21_40_03_056Z-debug-0.log\n";
        assert_eq!(
            last_error_line(log, None).as_deref(),
            Some("npm error 404  The requested resource 'left-pad-xyz@*' could not be found or you do not have permission to access it.")
        );
        let old = "npm ERR! Missing script: \"tset\"\nnpm ERR!\nnpm ERR! A complete log of this run can be found in:\nnpm ERR!     /home/u/.npm/_logs/2024-01-02T10_00_00_000Z-debug-0.log\n";
        assert_eq!(
            last_error_line(old, None).as_deref(),
            Some("npm ERR! Missing script: \"tset\"")
        );
    }
}
