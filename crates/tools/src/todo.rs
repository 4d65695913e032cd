//! The agent's todo list: what its todo tools say, and the board that
//! folds their calls into the list as it stands.
//!
//! Agents keep their plan two ways. Most write the whole list on every
//! call (Claude Code's `TodoWrite`, opencode's `todowrite`, Codex CLI's
//! `update_plan`, Gemini CLI's `write_todos`, OpenHands' `task_tracker`).
//! Claude Code's task tools change it one item at a time: `TaskCreate`
//! adds an item and answers `Task #3 created successfully: …`,
//! `TaskUpdate` changes an item's status or subject by its `taskId` (a
//! status of `deleted` removes it), and `TaskList` prints the whole list,
//! one `#3 [in_progress] Subject` line per item. [`TodoBoard`] is the one
//! place that knows both, so the recap and the digest agree on what is
//! open.

use serde_json::Value;

use crate::kind::{classify, normalize, ToolKind};

/// One item of a todo list or plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Todo<'a> {
    /// What is to be done.
    pub text: &'a str,
    /// Its status as written (`pending`, `in_progress`, `completed` …);
    /// `pending` when none is given.
    pub status: &'a str,
}

/// Whether `status` says an item is done (`completed`, `done`,
/// `cancelled`).
fn done_status(status: &str) -> bool {
    ["completed", "complete", "done", "cancelled", "canceled"]
        .iter()
        .any(|s| status.eq_ignore_ascii_case(s))
}

/// Whether `status` says an item is being worked on.
fn in_progress_status(status: &str) -> bool {
    ["in_progress", "in-progress", "active"]
        .iter()
        .any(|s| status.eq_ignore_ascii_case(s))
}

impl Todo<'_> {
    /// Whether the item is done (`completed`, `done`, `cancelled`).
    pub fn is_done(&self) -> bool {
        done_status(self.status)
    }

    /// Whether the item is being worked on (`in_progress`, `in-progress`,
    /// `active`).
    pub fn is_in_progress(&self) -> bool {
        in_progress_status(self.status)
    }
}

/// The items of a todo list or plan: `todos` (Claude Code, opencode,
/// Gemini CLI, Kimi CLI), `plan` (Codex CLI's `update_plan`),
/// `task_list` (OpenHands' `task_tracker`) or `todoList` (VS Code's
/// agent), each item's text under `content`, `text`, `description`,
/// `step` or `title`; or a Markdown checklist under one of those names
/// (Roo Code's `update_todo_list`: `[x]` done, `[-]` in progress, `[ ]`
/// pending). `None` when the call carries no list.
///
/// ```
/// use serde_json::json;
/// let plan = json!({"plan": [{"step": "Fix parser", "status": "in_progress"}, {"step": "Test"}]});
/// let todos = strata_ctx_tools::todos(&plan).unwrap();
/// assert_eq!(todos[0].text, "Fix parser");
/// assert!(todos[0].is_in_progress());
/// assert_eq!(todos[1].status, "pending");
///
/// let checklist = json!({"todos": "[x] Read the issue\n[-] Fix parser\n[ ] Test"});
/// let todos = strata_ctx_tools::todos(&checklist).unwrap();
/// assert_eq!((todos[0].text, todos[0].is_done()), ("Read the issue", true));
/// assert!(todos[1].is_in_progress());
/// assert_eq!(todos[2].status, "pending");
/// ```
pub fn todos(arguments: &Value) -> Option<Vec<Todo<'_>>> {
    let list = crate::field(arguments, &["todos", "plan", "task_list", "todo_list"])?;
    if let Some(checklist) = list.as_str() {
        return Some(checklist.lines().filter_map(checklist_item).collect());
    }
    let items = list.as_array()?;
    Some(
        items
            .iter()
            .filter_map(|t| {
                let text = ["content", "text", "description", "step", "title"]
                    .iter()
                    .find_map(|k| t.get(*k).and_then(Value::as_str))?;
                let status = t.get("status").and_then(Value::as_str).unwrap_or("pending");
                Some(Todo { text, status })
            })
            .collect(),
    )
}

/// One line of a Markdown checklist (`- [x] Fix parser`, `[ ] Test`,
/// `[-] Build`) as an item; `None` for any other line.
fn checklist_item(line: &str) -> Option<Todo<'_>> {
    let line = line.trim_start();
    let line = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .unwrap_or(line);
    let rest = line.strip_prefix('[')?;
    let (mark, text) = rest.split_once(']')?;
    let status = match mark {
        "x" | "X" => "completed",
        "-" | "~" => "in_progress",
        " " | "" => "pending",
        _ => return None,
    };
    let text = text.trim();
    (!text.is_empty()).then_some(Todo { text, status })
}

/// What a todo tool's call does to the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Writes the whole list (`TodoWrite` and its peers).
    Write,
    /// Adds one item (`TaskCreate`).
    Create,
    /// Changes one item (`TaskUpdate`).
    Update,
    /// Prints the whole list (`TaskList`): its output is the list.
    List,
}

fn op(name: &str, arguments: &Value) -> Option<Op> {
    let name = normalize(name);
    let last = name.rsplit("__").next().unwrap_or(&name);
    match last {
        "taskcreate" | "task_create" => Some(Op::Create),
        "taskupdate" | "task_update" => Some(Op::Update),
        "tasklist" | "task_list" => Some(Op::List),
        _ => (classify(&name, arguments) == Some(ToolKind::TodoWrite) && todos(arguments).is_some())
            .then_some(Op::Write),
    }
}

/// The string or number under the first of `keys`, as text.
fn id_under(value: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match value.get(*k)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().trim_start_matches('#').to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

/// The digits after `lead` near the start of `text` (`Task #12 created`
/// → `12` after `task #`), case aside.
fn number_after(text: &str, lead: &str) -> Option<String> {
    let head = text
        .chars()
        .take(lead.len() + 24)
        .collect::<String>()
        .to_lowercase();
    let at = head.find(lead)? + lead.len();
    let digits: String = head[at..].chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty()).then_some(digits)
}

/// One item as the board holds it. A field an update did not give stays
/// unknown, so that merging a later board into an earlier one changes only
/// what the later calls said.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    id: Option<String>,
    /// Whether the id is the agent's (from a result or an argument)
    /// rather than the next free number the board gave it.
    numbered: bool,
    text: Option<String>,
    status: Option<String>,
}

impl Item {
    fn deleted(&self) -> bool {
        self.status.as_deref() == Some("deleted")
    }
}

/// The agent's todo list as its calls left it: the one owner of what is
/// done and what is open (CTX-5).
///
/// Feed it every call in order with [`TodoBoard::apply`]; a call of a tool
/// that is not a todo tool changes nothing. A whole-list write replaces the
/// board; Claude Code's `TaskCreate` adds an item (its number read from the
/// result, or the next free one), `TaskUpdate` changes one, and the output
/// of `TaskList` is taken as the whole list.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_tools::TodoBoard;
///
/// let mut board = TodoBoard::new();
/// board.apply("TaskCreate", &json!({"subject": "Fix the parser", "description": "…"}),
///     Some("Task #1 created successfully: Fix the parser"));
/// board.apply("TaskCreate", &json!({"subject": "Run the tests", "description": "…"}),
///     Some("Task #2 created successfully: Run the tests"));
/// board.apply("TaskUpdate", &json!({"taskId": "1", "status": "completed"}),
///     Some("Updated task #1 status"));
/// let items = board.items();
/// assert_eq!(items.len(), 2);
/// assert!(items[0].is_done());
/// assert_eq!((items[1].text, items[1].status), ("Run the tests", "pending"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TodoBoard {
    items: Vec<Item>,
    /// Whether the whole list was written (or listed): the board then
    /// stands on its own, and merging it over an earlier one replaces it.
    whole: bool,
    /// Whether any todo call was seen.
    seen: bool,
}

impl TodoBoard {
    /// An empty board.
    pub fn new() -> Self {
        TodoBoard::default()
    }

    /// Whether a call of `name` with `arguments` is a todo tool's: a
    /// whole-list write, or Claude Code's `TaskCreate`, `TaskUpdate` or
    /// `TaskList`.
    pub fn is_todo_call(name: &str, arguments: &Value) -> bool {
        op(name, arguments).is_some()
    }

    /// Takes in one call and, when there is one, the text of its result;
    /// returns whether it was a todo tool's call. Leave out calls whose
    /// result is an error: they changed nothing.
    pub fn apply(&mut self, name: &str, arguments: &Value, result: Option<&str>) -> bool {
        let Some(op) = op(name, arguments) else {
            return false;
        };
        match op {
            Op::Write => {
                let items = todos(arguments).unwrap_or_default();
                self.replace(items.iter().map(|t| Item {
                    id: None,
                    numbered: false,
                    text: Some(t.text.to_owned()),
                    status: Some(t.status.to_owned()),
                }));
            }
            Op::Create => self.create(arguments, result),
            Op::Update => self.update(arguments, result),
            Op::List => match result {
                Some(text) => self.list(text),
                None => return true,
            },
        }
        self.seen = true;
        true
    }

    fn replace(&mut self, items: impl Iterator<Item = Item>) {
        self.items = items.collect();
        self.whole = true;
    }

    fn create(&mut self, arguments: &Value, result: Option<&str>) {
        let Some(text) = ["subject", "title", "content", "description"]
            .iter()
            .find_map(|k| arguments.get(*k).and_then(Value::as_str))
        else {
            return;
        };
        let numbered = result.and_then(|r| number_after(r, "task #"));
        let id = numbered.clone().unwrap_or_else(|| self.next_id());
        let status = arguments
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("pending");
        let item = Item {
            id: Some(id),
            numbered: numbered.is_some(),
            text: Some(text.to_owned()),
            status: Some(status.to_owned()),
        };
        // A number the board holds already (listed, or named by an update
        // before the result said it) is that item, where it stands.
        match self.items.iter_mut().find(|i| i.id == item.id) {
            Some(known) => *known = item,
            None => self.items.push(item),
        }
    }

    /// The number after the highest numbered item.
    fn next_id(&self) -> String {
        let top = self
            .items
            .iter()
            .filter_map(|i| i.id.as_deref()?.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        (top + 1).to_string()
    }

    fn update(&mut self, arguments: &Value, result: Option<&str>) {
        let Some(id) = id_under(arguments, &["taskId", "task_id", "id"])
            .or_else(|| result.and_then(|r| number_after(r, "updated task #")))
        else {
            return;
        };
        let text = ["subject", "title", "content"]
            .iter()
            .find_map(|k| arguments.get(*k).and_then(Value::as_str))
            .map(str::to_owned);
        let status = arguments.get("status").and_then(Value::as_str).map(str::to_owned);
        match self
            .items
            .iter_mut()
            .find(|i| i.id.as_deref() == Some(id.as_str()))
        {
            Some(item) => {
                item.text = text.or(item.text.take());
                item.status = status.or(item.status.take());
            }
            None => self.items.push(Item {
                id: Some(id),
                numbered: true,
                text,
                status,
            }),
        }
    }

    /// `TaskList`'s output: `#3 [in_progress] Subject (owner) [blocked by
    /// #1]` per item, or `No tasks found`.
    fn list(&mut self, output: &str) {
        let items: Vec<Item> = output
            .lines()
            .filter_map(|line| {
                let rest = line.trim().strip_prefix('#')?;
                let (id, rest) = rest.split_once(' ')?;
                let (status, text) = rest.strip_prefix('[')?.split_once("] ")?;
                let text = text.split(" [blocked by ").next().unwrap_or(text);
                Some(Item {
                    id: Some(id.to_owned()),
                    numbered: true,
                    text: Some(text.trim().to_owned()),
                    status: Some(status.to_owned()),
                })
            })
            .collect();
        if items.is_empty() && !output.trim().eq_ignore_ascii_case("no tasks found") {
            return;
        }
        self.replace(items.into_iter());
    }

    /// Whether any todo call was taken in.
    pub fn is_set(&self) -> bool {
        self.seen
    }

    /// The items as they stand, in the order they were added; deleted
    /// ones left out. An item known only by an update shows as `task #N`
    /// until its subject is known, and as `pending` until its status is.
    pub fn items(&self) -> Vec<Todo<'_>> {
        self.items
            .iter()
            .filter(|i| !i.deleted())
            .filter_map(|i| {
                let text = i.text.as_deref().or(i.id.as_deref())?;
                Some(Todo {
                    text,
                    status: i.status.as_deref().unwrap_or("pending"),
                })
            })
            .collect()
    }

    /// The open items: in progress first, then the rest not done, each in
    /// the order they were added.
    pub fn open(&self) -> Vec<Todo<'_>> {
        let items = self.items();
        let (mut open, rest): (Vec<Todo<'_>>, Vec<Todo<'_>>) = items
            .into_iter()
            .filter(|t| !t.is_done())
            .partition(Todo::is_in_progress);
        open.extend(rest);
        open
    }

    /// Adds what `later` took in, as if its calls came after this board's:
    /// a whole list there replaces this one; its single-item changes apply
    /// to the items here they name.
    pub fn merge(&mut self, later: &TodoBoard) {
        if !later.seen {
            return;
        }
        self.seen = true;
        if later.whole {
            self.clone_from(later);
            return;
        }
        for item in &later.items {
            // An item the later board numbered itself is new here: it
            // takes this board's next number.
            if !item.numbered {
                let id = self.next_id();
                self.items.push(Item {
                    id: Some(id),
                    ..item.clone()
                });
                continue;
            }
            match self.items.iter_mut().find(|i| i.id.is_some() && i.id == item.id) {
                Some(mine) => {
                    if item.text.is_some() {
                        mine.text.clone_from(&item.text);
                    }
                    if item.status.is_some() {
                        mine.status.clone_from(&item.status);
                    }
                }
                None => self.items.push(item.clone()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn todos_of_every_agent() {
        let claude = json!({"todos": [{"content": "A", "status": "completed", "activeForm": "Doing A"}]});
        assert!(todos(&claude).unwrap()[0].is_done());
        let gemini = json!({"todos": [{"description": "B", "status": "in_progress"}]});
        assert_eq!(todos(&gemini).unwrap()[0].text, "B");
        // OpenHands' task_tracker: a `command` beside the list, which does
        // not make it a shell.
        let openhands = json!({"command": "plan", "task_list": [{"id": "1", "title": "C", "status": "todo", "notes": ""}, {"id": "2", "title": "D", "status": "done"}]});
        assert_eq!(classify("task_tracker", &openhands), Some(ToolKind::TodoWrite));
        let items = todos(&openhands).unwrap();
        assert_eq!((items[0].text, items[0].is_done()), ("C", false));
        assert!(items[1].is_done());
        assert!(todos(&json!({"x": 1})).is_none());
        // VS Code's agent keeps its list under `todoList`.
        let vscode =
            json!({"operation": "write", "todoList": [{"id": 1, "title": "C", "status": "completed"}]});
        let list = todos(&vscode).unwrap();
        assert_eq!((list[0].text, list[0].is_done()), ("C", true));
        // A checklist's other lines are not items.
        let roo = json!({"todos": "Plan:\n- [x] A\n- [?] B\n[ ]\n* [ ] D"});
        let list: Vec<_> = todos(&roo).unwrap().iter().map(|t| (t.text, t.status)).collect();
        assert_eq!(list, [("A", "completed"), ("D", "pending")]);
        assert!(todos(&json!({"todos": [{"status": "pending"}]}))
            .unwrap()
            .is_empty());
    }

    fn texts(board: &TodoBoard) -> Vec<(String, String)> {
        board
            .items()
            .iter()
            .map(|t| (t.text.to_owned(), t.status.to_owned()))
            .collect()
    }

    fn pair(text: &str, status: &str) -> (String, String) {
        (text.to_owned(), status.to_owned())
    }

    /// CTX-5: Claude Code's task tools, as its documentation shows them:
    /// created items numbered by the result, updated and deleted by
    /// `taskId`, and `TaskList`'s output taken as the whole list.
    #[test]
    fn claude_code_task_tools() {
        let mut b = TodoBoard::new();
        let create =
            |subject: &str| json!({"subject": subject, "description": "details", "activeForm": "Working"});
        assert!(b.apply(
            "TaskCreate",
            &create("Parse"),
            Some("Task #4 created successfully: Parse")
        ));
        // Without a result, the next number.
        assert!(b.apply("TaskCreate", &create("Test"), None));
        assert!(b.apply(
            "TaskCreate",
            &create("Ship"),
            Some("Task #6 created successfully: Ship")
        ));
        b.apply(
            "TaskUpdate",
            &json!({"taskId": "5", "status": "in_progress"}),
            Some("Updated task #5 status"),
        );
        b.apply(
            "TaskUpdate",
            &json!({"taskId": "#4", "status": "completed", "subject": "Parse TOML"}),
            None,
        );
        b.apply(
            "TaskUpdate",
            &json!({"taskId": 6, "status": "deleted"}),
            Some("Updated task #6 deleted"),
        );
        assert_eq!(
            texts(&b),
            [pair("Parse TOML", "completed"), pair("Test", "in_progress")]
        );
        assert_eq!(
            b.open(),
            [Todo {
                text: "Test",
                status: "in_progress"
            }]
        );

        let listed = "#1 [completed] Parse TOML\n#2 [pending] Write docs (agent-a) [blocked by #1]\n#3 [in_progress] Test";
        assert!(b.apply("TaskList", &json!({}), Some(listed)));
        assert_eq!(
            texts(&b),
            [
                pair("Parse TOML", "completed"),
                pair("Write docs (agent-a)", "pending"),
                pair("Test", "in_progress")
            ]
        );
        b.apply("TaskList", &json!({}), Some("No tasks found"));
        assert!(b.items().is_empty() && b.is_set());
        // An output of another shape says nothing about the list.
        b.apply("TaskCreate", &create("Again"), None);
        b.apply("TaskList", &json!({}), Some("error: the task list is locked"));
        assert_eq!(texts(&b), [pair("Again", "pending")]);
    }

    #[test]
    fn other_calls_change_nothing() {
        let mut b = TodoBoard::new();
        assert!(!b.apply(
            "Bash",
            &json!({"command": "ls"}),
            Some("Task #1 created successfully: x")
        ));
        assert!(!b.apply("Read", &json!({"file_path": "todo.md"}), None));
        // A subagent task is not a todo item.
        assert!(!TodoBoard::is_todo_call(
            "Task",
            &json!({"description": "Explore", "prompt": "find it"})
        ));
        assert!(!b.is_set());
        // A create without a subject adds nothing but is a todo call.
        assert!(b.apply("TaskCreate", &json!({}), None));
        assert!(b.items().is_empty());
        assert!(TodoBoard::is_todo_call(
            "mcp__tasks__TaskUpdate",
            &json!({"taskId": "1"})
        ));
        // A todo tool's name without a list, or a list under another
        // tool's name, writes no list.
        assert!(!TodoBoard::is_todo_call(
            "update_plan",
            &json!({"explanation": "later"})
        ));
        assert!(!TodoBoard::is_todo_call(
            "Bash",
            &json!({"command": "ls", "todos": []})
        ));
    }

    /// The item's number as a number, or only in the result when the
    /// argument is blank; in progress first among the open items.
    #[test]
    fn numbers_and_order() {
        let mut b = TodoBoard::new();
        b.apply(
            "TaskCreate",
            &json!({"subject": "A"}),
            Some("Task #1 created successfully: A"),
        );
        b.apply(
            "TaskCreate",
            &json!({"subject": "B"}),
            Some("Task #2 created successfully: B"),
        );
        b.apply("TaskUpdate", &json!({"taskId": 2, "status": "in_progress"}), None);
        b.apply(
            "TaskUpdate",
            &json!({"taskId": " ", "status": "completed"}),
            Some("Updated task #1 status"),
        );
        assert_eq!(texts(&b), [pair("A", "completed"), pair("B", "in_progress")]);
        let mut b = TodoBoard::new();
        b.apply(
            "TodoWrite",
            &json!({"todos": [{"content": "P", "status": "pending"}, {"content": "Q", "status": "in_progress"}]}),
            None,
        );
        let open = b.open();
        assert_eq!((open[0].text, open[1].text), ("Q", "P"));
        assert!(!b.items()[0].is_in_progress());
    }

    #[test]
    fn a_whole_list_replaces_the_board() {
        let mut b = TodoBoard::new();
        b.apply("TaskCreate", &json!({"subject": "old"}), None);
        b.apply(
            "update_plan",
            &json!({"plan": [{"step": "A", "status": "completed"}, {"step": "B"}]}),
            None,
        );
        assert_eq!(texts(&b), [pair("A", "completed"), pair("B", "pending")]);
        assert_eq!(
            b.open(),
            [Todo {
                text: "B",
                status: "pending"
            }]
        );
    }

    /// An update of an item the board never saw is kept as far as it
    /// goes, and completes the item when the boards are merged.
    #[test]
    fn merge_applies_later_changes_to_earlier_items() {
        let mut earlier = TodoBoard::new();
        earlier.apply(
            "TaskCreate",
            &json!({"subject": "Parse"}),
            Some("Task #1 created successfully: Parse"),
        );
        earlier.apply(
            "TaskCreate",
            &json!({"subject": "Test"}),
            Some("Task #2 created successfully: Test"),
        );
        let mut later = TodoBoard::new();
        later.apply("TaskUpdate", &json!({"taskId": "1", "status": "completed"}), None);
        later.apply("TaskUpdate", &json!({"taskId": "2", "subject": "Test all"}), None);
        later.apply(
            "TaskCreate",
            &json!({"subject": "Ship"}),
            Some("Task #3 created successfully: Ship"),
        );
        assert_eq!(
            texts(&later),
            [
                pair("1", "completed"),
                pair("Test all", "pending"),
                pair("Ship", "pending")
            ]
        );

        let mut merged = earlier.clone();
        merged.merge(&later);
        assert_eq!(
            texts(&merged),
            [
                pair("Parse", "completed"),
                pair("Test all", "pending"),
                pair("Ship", "pending")
            ]
        );
        // An item created without its number is new to the earlier
        // board, whatever number the later one gave it.
        let mut unnumbered = TodoBoard::new();
        unnumbered.apply("TaskCreate", &json!({"subject": "Document"}), None);
        let mut m = merged.clone();
        m.merge(&unnumbered);
        assert_eq!(texts(&m).len(), 4);
        assert_eq!(texts(&m)[0], pair("Parse", "completed"));
        assert_eq!(texts(&m)[3], pair("Document", "pending"));
        m.apply(
            "TaskUpdate",
            &json!({"taskId": "4", "status": "in_progress"}),
            None,
        );
        assert_eq!(texts(&m)[3], pair("Document", "in_progress"));
        // A result's number is read whatever the text around it.
        assert_eq!(
            number_after("Task #12 created successfully: x", "task #").as_deref(),
            Some("12")
        );
        assert_eq!(number_after("✓ Task #7 created", "task #").as_deref(), Some("7"));
        assert_eq!(number_after("Task created", "task #"), None);
        // Only near the start: a number far into another text is not it.
        assert_eq!(
            number_after("The notes of this release say task #9 was created", "task #"),
            None
        );
        // A later whole list wins; an empty later board changes nothing.
        let mut written = TodoBoard::new();
        written.apply(
            "TodoWrite",
            &json!({"todos": [{"content": "Z", "status": "pending"}]}),
            None,
        );
        let mut m = merged.clone();
        m.merge(&TodoBoard::new());
        assert_eq!(m, merged);
        m.merge(&written);
        assert_eq!(texts(&m), [pair("Z", "pending")]);
    }

    /// One call of a todo tool, as the agent makes it and the tool answers.
    #[derive(Debug, Clone)]
    enum Call {
        Create,
        Update {
            created: usize,
            status: usize,
            subject: bool,
        },
        UpdateUnknown {
            id: usize,
            status: usize,
        },
        Write(Vec<usize>),
        List(Vec<(usize, usize)>),
    }

    const STATUSES: [&str; 4] = ["pending", "in_progress", "completed", "deleted"];

    fn call() -> impl proptest::strategy::Strategy<Value = Call> {
        use proptest::prelude::*;
        prop_oneof![
            3 => Just(Call::Create),
            3 => (0..8usize, 0..4usize, any::<bool>())
                .prop_map(|(created, status, subject)| Call::Update { created, status, subject }),
            1 => (100..104usize, 0..3usize).prop_map(|(id, status)| Call::UpdateUnknown { id, status }),
            1 => proptest::collection::vec(0..3usize, 0..4).prop_map(Call::Write),
            1 => proptest::collection::vec((1..6usize, 0..3usize), 0..4).prop_map(Call::List),
        ]
    }

    /// Plays `calls` on `board`, numbering created items from `next` as
    /// Claude Code does (its results say the number).
    fn play(board: &mut TodoBoard, calls: &[Call], next: &mut usize) {
        for c in calls {
            match c {
                Call::Create => {
                    *next += 1;
                    let subject = format!("task {next}");
                    let result = format!("Task #{next} created successfully: {subject}");
                    board.apply("TaskCreate", &json!({ "subject": subject }), Some(&result));
                }
                Call::Update {
                    created,
                    status,
                    subject,
                } => {
                    let id = (created % (*next).max(1)) + 1;
                    let mut args = json!({"taskId": id.to_string(), "status": STATUSES[*status]});
                    if *subject {
                        args["subject"] = json!(format!("renamed {id}"));
                    }
                    board.apply("TaskUpdate", &args, Some(&format!("Updated task #{id} status")));
                }
                Call::UpdateUnknown { id, status } => {
                    board.apply(
                        "TaskUpdate",
                        &json!({"taskId": id.to_string(), "status": STATUSES[*status]}),
                        None,
                    );
                }
                Call::Write(items) => {
                    let todos: Vec<_> = items
                        .iter()
                        .enumerate()
                        .map(|(i, s)| json!({"content": format!("step {i}"), "status": STATUSES[*s]}))
                        .collect();
                    board.apply("TodoWrite", &json!({ "todos": todos }), Some("ok"));
                }
                Call::List(items) => {
                    let listed: Vec<String> = items
                        .iter()
                        .map(|(id, s)| format!("#{id} [{}] listed {id}", STATUSES[*s]))
                        .collect();
                    let text = if listed.is_empty() {
                        "No tasks found".to_owned()
                    } else {
                        listed.join("\n")
                    };
                    board.apply("TaskList", &json!({}), Some(&text));
                }
            }
        }
    }

    proptest::proptest! {
        /// CTX-5: a board of the later calls merged over a board of the
        /// earlier ones is the board of all the calls in order, wherever
        /// they are split: what a digest merged across a compaction
        /// shows is what one digest of the whole session would.
        #[test]
        fn merging_boards_is_playing_their_calls_in_order(
            calls in proptest::collection::vec(call(), 0..24),
            split in 0..24usize,
        ) {
            let split = split.min(calls.len());
            let mut whole = TodoBoard::new();
            let mut next = 0;
            play(&mut whole, &calls, &mut next);
            let (mut earlier, mut later) = (TodoBoard::new(), TodoBoard::new());
            let mut next = 0;
            play(&mut earlier, &calls[..split], &mut next);
            play(&mut later, &calls[split..], &mut next);
            earlier.merge(&later);
            proptest::prop_assert_eq!(texts(&earlier), texts(&whole));
            proptest::prop_assert_eq!(earlier.is_set(), whole.is_set());
        }
    }
}
