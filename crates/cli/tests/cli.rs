//! The `strata` binary run as a user runs it (EDGE-3), on files from the
//! workspace's `tests/data/` (real transcripts from `tests/data/corpus/`,
//! whose sources are listed in its README, and small files in
//! `tests/data/cli/`).

// Test code: unwrapping, panicking and printing are how it reports; the
// house lints (Cargo.toml) are for library code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use strata_ctx::{Message, Pairs, Role};
use strata_ctx_testkit::{HttpServer, Reply};

fn data(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(relative)
}

fn corpus(name: &str) -> PathBuf {
    data(&format!("corpus/{name}.json"))
}

const PORT: &str = "claude-code__python-to-rust-port";
const COVERAGE: &str = "claude-code__coverage-test-fix";
const DJANGO: &str = "openhands__django__django-11099";

fn strata() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata-ctx"));
    for var in [
        "STRATA_OPENAI_BASE_URL",
        "STRATA_OPENAI_API_KEY",
        "OPENAI_API_KEY",
        "STRATA_MODEL",
    ] {
        cmd.env_remove(var);
    }
    cmd.stdin(Stdio::null());
    cmd
}

fn run(args: &[&str]) -> Output {
    strata().args(args).output().unwrap()
}

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = strata()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[track_caller]
fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstderr: {}",
        o.status.code(),
        stderr(o)
    );
    stdout(o)
}

fn json(o: &Output) -> Value {
    serde_json::from_str(&ok(o)).unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn messages(v: &Value) -> Vec<Message> {
    serde_json::from_value(v.clone()).unwrap()
}

#[test]
fn demo_shows_the_main_job() {
    let text = ok(&run(&["demo"]));
    assert!(
        text.contains("You MUST read these files with the Read tool"),
        "{text}"
    );
    assert!(
        text.contains("output cut for the model: 35 of 3006 lines (its start, its failures and its end)"),
        "{text}"
    );
    assert!(
        text.contains("src/lib.rs changed since the agent read it"),
        "{text}"
    );
    assert!(text.contains("[Todo recap] 2 done, 1 in progress"), "{text}");
    assert!(text.contains("✓ compacted"), "{text}");
    assert!(
        text.contains("## Objectives & Status"),
        "the archived summary is shown: {text}"
    );
}

#[test]
fn inspect_shows_rounds_and_the_tool_output_share() {
    let text = ok(&run(&["inspect", path(&corpus(COVERAGE))]));
    assert!(text.contains("37 messages, 3 rounds"), "{text}");
    assert!(text.contains("tool output is"), "{text}");
    assert_eq!(text.matches("\nround ").count(), 3, "{text}");
    // Claude Code records parallel calls as consecutive assistant
    // messages, with two results after the next call (HIST-2).
    assert!(text.contains("2 pairing problem(s)"), "{text}");
    assert!(text.contains("does not follow its call"), "{text}");

    let v = json(&run(&["inspect", "--json", path(&corpus(COVERAGE))]));
    assert_eq!(v["messages"], 37);
    assert_eq!(v["rounds"], 3);
    assert_eq!(v["format"], "messages-object");
    let by_role: u64 = v["tokens_by_role"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(by_role, v["tokens"].as_u64().unwrap());
    let share = v["tool_output_share"].as_f64().unwrap();
    assert!(share > 0.3 && share < 0.7, "{share}");
    let kinds = problem_kinds(&v);
    assert_eq!(kinds, ["misplaced_result", "misplaced_result"]);
    assert_eq!(v["rounds_detail"].as_array().unwrap().len(), 3);
}

/// The kinds of the pairing problems `inspect --json` reported.
fn problem_kinds(report: &serde_json::Value) -> Vec<&str> {
    report["pairing_problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect()
}

#[test]
fn inspect_reports_pairing_problems() {
    let input = br#"[{"role":"user","content":"go"},
        {"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"Bash","arguments":"{}"}}]},
        {"role":"tool","tool_call_id":"zz","content":"stray"}]"#;
    let v = json(&run_with_stdin(&["inspect", "--json"], input));
    let kinds = problem_kinds(&v);
    assert_eq!(kinds, ["unanswered_call", "orphan_result"]);
    let text = ok(&run_with_stdin(&["inspect"], input));
    assert!(text.contains("message 1: call c1 (Bash) has no result"), "{text}");
}

#[test]
fn every_input_format_reads_the_same_conversation() {
    let openai = std::fs::read_to_string(data("cli/chat.openai.json")).unwrap();
    let list: Vec<Value> = serde_json::from_str(&openai).unwrap();
    let jsonl: String = list.iter().map(|m| format!("{m}\n")).collect();
    let object = serde_json::json!({"source": {"note": "hand-written"}, "messages": list}).to_string();
    let strata_jsonl = {
        let parsed = strata_ctx::from_openai_messages(&Value::Array(list.clone())).unwrap();
        parsed
            .iter()
            .map(|m| serde_json::to_string(m).unwrap() + "\n")
            .collect::<String>()
    };
    let anthropic = {
        let parsed = strata_ctx::from_openai_messages(&Value::Array(list.clone())).unwrap();
        strata_ctx::prompt::anthropic_messages(&parsed).to_string()
    };
    for (input, format) in [
        (anthropic.as_str(), "anthropic-json"),
        (openai.as_str(), "openai-json"),
        (jsonl.as_str(), "openai-jsonl"),
        (object.as_str(), "messages-object"),
        (strata_jsonl.as_str(), "strata-jsonl"),
    ] {
        let v = json(&run_with_stdin(&["inspect", "--json", "-"], input.as_bytes()));
        assert_eq!(v["format"], format);
        assert_eq!(
            (v["messages"].as_u64(), v["rounds"].as_u64()),
            (Some(10), Some(2)),
            "{format}"
        );
    }
}

#[test]
fn bad_input_exits_2_naming_the_line_or_field() {
    let cases = [
        ("cli/bad-line.jsonl", "line 3: invalid JSON"),
        ("cli/not-utf8.jsonl", "line 1: not UTF-8"),
        (
            "cli/bad-field.json",
            "messages[1]: tool call 0 has no `id` or no `function.name`",
        ),
    ];
    for (file, expected) in cases {
        let o = run(&["inspect", path(&data(file))]);
        assert_eq!(o.status.code(), Some(2), "{file}");
        assert!(stderr(&o).contains(expected), "{file}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    let o = run(&["compact", "--window", "lots", path(&corpus(COVERAGE))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--window lots: invalid token amount"),
        "{}",
        stderr(&o)
    );
    let o = run(&["inspect", "/no/such/file.json"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["inspect", "--no-such-flag"]);
    assert_eq!(o.status.code(), Some(2));
    // A directory where a file is expected is bad input (REL-2, issue:
    // `truncate` of a directory exited 0).
    let cli_dir = data("cli");
    for command in ["inspect", "truncate"] {
        let args: Vec<&str> = if command == "truncate" {
            vec!["truncate", "--tool", "Bash", "--no-spill", path(&cli_dir)]
        } else {
            vec![command, path(&cli_dir)]
        };
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
    }
    // An input over --max-input stops there, as bad input.
    let django = corpus(DJANGO);
    let o = run(&["--max-input", "100", "inspect", path(&django)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("larger than the input limit of 100 bytes"),
        "{}",
        stderr(&o)
    );
    // An endless output stops at --max-read-bytes with exit 1, after the
    // result (REL-2).
    let o = run(&[
        "truncate",
        "--tool",
        "Bash",
        "--no-spill",
        "--max-read-bytes",
        "200000",
        "/dev/zero",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("reading stopped at the limit of 200000 bytes"),
        "{}",
        stdout(&o)
    );
    assert_eq!(run(&["--help"]).status.code(), Some(0));
}

fn assert_compacted(v: &Value, name: &str) {
    let stats = &v["stats"];
    let window = messages(&v["window"]);
    assert!(Pairs::new(&window).is_complete(), "{name}: a pair was split");
    let after = stats["tokens_after"].as_u64().unwrap();
    let threshold = stats["threshold_tokens"].as_u64().unwrap();
    assert!(
        after <= threshold || stats["over_budget"] == true,
        "{name}: {after} > {threshold} unflagged"
    );
    for key in [
        "tokens_before",
        "tokens_archived",
        "summary_tokens",
        "rounds_archived",
        "rounds_retained",
        "elapsed_ms",
    ] {
        assert!(stats[key].is_u64(), "{name}: {key} missing");
    }
    assert!(stats["degraded"].is_boolean());
    // A system prompt is kept, first; a user message is kept.
    let systems = window.iter().take_while(|m| m.role == Role::System).count();
    assert!(window[systems..].iter().all(|m| m.role != Role::System), "{name}");
    assert!(window.iter().any(|m| m.role == Role::User), "{name}");
}

#[test]
fn compact_a_real_transcript_into_a_20k_window() {
    let v = json(&run(&[
        "compact",
        "--window",
        "20000",
        "--json",
        path(&corpus(PORT)),
    ]));
    assert_compacted(&v, PORT);
    let stats = &v["stats"];
    assert_eq!(stats["threshold_tokens"], 16000);
    assert!(stats["tokens_after"].as_u64().unwrap() <= 16000, "{stats}");
    assert!(stats["tokens_before"].as_u64().unwrap() > 16000, "{stats}");
    assert_eq!(stats["over_budget"], false);

    // Without --json: Strata JSONL on stdout, the statistics on stderr,
    // and the same window.
    let o = run(&["compact", "--window", "20000", path(&corpus(PORT))]);
    let lines: Vec<Message> = ok(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines, messages(&v["window"]));
    assert!(stderr(&o).contains("compacted: "), "{}", stderr(&o));

    // Every transcript of tests/data/corpus: under the threshold or
    // flagged, pairs intact.
    for entry in std::fs::read_dir(data("corpus")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "json") {
            let v = json(&run(&["compact", "--window", "20000", "--json", path(&p)]));
            assert_compacted(&v, &p.display().to_string());
        }
    }
}

#[test]
fn compact_without_a_summariser_leaves_a_notice() {
    let v = json(&run(&[
        "compact",
        "--window",
        "2000",
        "--keep-rounds",
        "1",
        "--target",
        "user",
        "--json",
        path(&corpus(COVERAGE)),
    ]));
    assert_compacted(&v, COVERAGE);
    assert_eq!(v["stats"]["degraded"], true);
    assert_eq!(v["stats"]["rounds_archived"], 2);
    assert_eq!(v["stats"]["rounds_retained"], 1);
}

#[test]
fn compact_with_an_openai_compatible_summariser() {
    let server = HttpServer::start_in_thread(vec![Reply::completion(
        "## Objectives & Status\nAdd multiply_numbers with a test.\n## Completed Milestones\n- Added it; tests pass.",
        900,
        40,
    )]);
    let o = strata()
        .env("STRATA_OPENAI_BASE_URL", server.base_url())
        .env("STRATA_OPENAI_API_KEY", "sk-cli")
        .env("STRATA_MODEL", "summary-model")
        .args([
            "compact",
            "--window",
            "2000",
            "--keep-rounds",
            "1",
            "--summarizer",
            "openai",
            "--json",
        ])
        .arg(corpus(COVERAGE))
        .output()
        .unwrap();
    let v = json(&o);
    assert_eq!(v["stats"]["degraded"], false, "{}", v["stats"]);
    let window = messages(&v["window"]);
    let summary = window
        .iter()
        .find(|m| m.role == Role::Summary)
        .expect("a summary");
    assert!(
        summary.content.contains("Added it; tests pass."),
        "{}",
        summary.content
    );
    let got = server.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body["model"], "summary-model");
    assert!(got[0]
        .head
        .to_lowercase()
        .contains("authorization: bearer sk-cli"));

    // Without STRATA_MODEL the option is refused before any work.
    let o = run(&["compact", "--summarizer", "openai", path(&corpus(COVERAGE))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("STRATA_MODEL"), "{}", stderr(&o));
}

#[test]
fn replay_reports_every_step_and_a_summary() {
    let o = run(&["replay", "--window", "16000", "--json", path(&corpus(DJANGO))]);
    let text = ok(&o);
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (last, steps) = lines.split_last().unwrap();
    assert_eq!(steps.len(), 16);
    for (i, s) in steps.iter().enumerate() {
        assert_eq!(s["step"], i + 1);
        let tokens = s["window_tokens"].as_u64().unwrap();
        let threshold = s["threshold_tokens"].as_u64().unwrap();
        assert_eq!(threshold, 12800);
        assert!(tokens <= threshold || s["over_budget"] == true, "{s}");
        assert_eq!(s["pairs_intact"], true);
        assert!(s["truncated"].is_boolean() && s["compacted"].is_boolean());
        assert!(s["in_round_actions"]["condensed"].is_u64());
    }
    let summary = &last["summary"];
    assert_eq!(summary["steps"], 16);
    assert_eq!(summary["rounds"], 2);
    assert_eq!(summary["broken_steps"], 0);
    let raw = summary["tool_output_tokens_raw"].as_u64().unwrap();
    let history = summary["tool_output_tokens_history"].as_u64().unwrap();
    assert!(history < raw, "{summary}");
    let window = messages(&last["window"]);
    assert!(Pairs::new(&window).is_complete());

    let text = ok(&run(&["replay", "--window", "16000", path(&corpus(DJANGO))]));
    assert!(text.contains("16 steps in 2 rounds"), "{text}");
    assert!(text.contains("in history form"), "{text}");
}

/// What each call of a replay would cost with prompt caching: every step's
/// cache figures add up to the summary's, the dumped bodies are the
/// requests they price, and a price turns them into dollars.
#[test]
fn replay_prices_each_call_with_the_prompt_cache_and_dumps_its_body() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("calls");
    let o = run(&[
        "replay",
        "--window",
        "16000",
        "--json",
        "--format",
        "anthropic",
        "--price",
        "3,15",
        "--dump",
        path(&dump),
        path(&corpus(DJANGO)),
    ]);
    let text = ok(&o);
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (last, steps) = lines.split_last().unwrap();
    let sum = |key: &str| {
        steps
            .iter()
            .map(|s| s["cache"][key].as_u64().unwrap())
            .sum::<u64>()
    };
    let total = &last["summary"]["cache"];
    for key in ["calls", "input_tokens", "cache_read_tokens", "cache_write_tokens"] {
        assert_eq!(total[key].as_u64().unwrap(), sum(key), "{key}");
    }
    // Sixteen steps, the last a `finish` call the run never answered: no
    // model call followed it.
    assert_eq!(total["calls"], 15);
    assert_eq!(steps.last().unwrap()["cache"]["calls"], 0);
    let (input, read, written) = (
        sum("input_tokens"),
        sum("cache_read_tokens"),
        sum("cache_write_tokens"),
    );
    assert!(
        read > input / 2,
        "a growing window is mostly read from the cache: {total}"
    );
    assert_eq!(read + written, input, "Anthropic writes what it does not read");
    let usd = last["summary"]["cost_usd"].as_f64().unwrap();
    let expected = 3.0 * input as f64 / 1e6;
    assert!(
        (usd - expected).abs() < 1e-9,
        "--price has no cache prices: {usd} vs {expected}"
    );
    let mut files: Vec<_> = std::fs::read_dir(&dump)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    files.sort();
    assert_eq!(files.len(), 16);
    assert_eq!(files[0], "000001.json");
    let body: Value = serde_json::from_slice(&std::fs::read(dump.join("000016.json")).unwrap()).unwrap();
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    assert!(body["messages"].as_array().is_some_and(|m| !m.is_empty()));

    let openai = ok(&run(&[
        "replay",
        "--window",
        "16000",
        "--model",
        "gpt-4o",
        path(&corpus(DJANGO)),
    ]));
    assert!(
        openai.contains("model calls: 15;") && openai.contains("at gpt-4o"),
        "{openai}"
    );
    let unknown = run(&["replay", "--model", "no-such-model", path(&corpus(DJANGO))]);
    assert_eq!(unknown.status.code(), Some(2), "{}", stderr(&unknown));
}

#[test]
fn render_in_three_formats() {
    let file = data("cli/chat.openai.json");
    let openai = json(&run(&["render", "--format", "openai", path(&file)]));
    let roles: Vec<&str> = openai
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    assert_eq!(openai[0]["content"], "You are a coding agent.");

    let anthropic = json(&run(&["render", "--format", "anthropic", path(&file)]));
    assert_eq!(anthropic["system"][0]["text"], "You are a coding agent.");
    assert_eq!(anthropic["system"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(anthropic["messages"][0]["role"], "user");

    let react = ok(&run(&["render", "--format", "react", path(&file)]));
    assert!(
        react.contains("Action: Read[{\"path\":\"src/lib.rs\"}]"),
        "{react}"
    );

    // Rules from a project root and a system prompt from a file.
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("code_law.md"), "Never push on Fridays.").unwrap();
    let system = project.path().join("system.md");
    std::fs::write(&system, "Be terse.").unwrap();
    let v = json(&run(&[
        "render",
        "--format",
        "openai",
        "--system",
        path(&system),
        "--root",
        path(project.path()),
        path(&file),
    ]));
    assert_eq!(v[0]["content"], "Be terse.");
    assert!(
        v[1]["content"]
            .as_str()
            .unwrap()
            .contains("Never push on Fridays."),
        "{}",
        v[1]
    );
}

#[test]
fn compress_gives_the_history_form() {
    let v = json(&run(&[
        "compress",
        "--tool",
        "Bash",
        path(&data("cli/bash-envelope.json")),
    ]));
    assert_eq!(v["status"], "partial");
    assert!(v.get("text").is_none() && v.get("stats").is_none(), "{v}");
    assert_eq!(v["data"]["exit_code"], 101);
    assert!(v["data"].to_string().contains("test d ... FAILED"), "{v}");

    let o = run_with_stdin(&["compress", "--tool", "Bash"], b"{\"status\": ");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("stdin: line 1 column"), "{}", stderr(&o));
    let o = run_with_stdin(&["compress", "--tool", "Bash"], b"{\"status\": \"fine\"}");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a tool result envelope"),
        "{}",
        stderr(&o)
    );
    // A tool's output given as a JSON string is refused in a line that
    // says what to do, without quoting the whole output back.
    let text = serde_json::to_string(&"FAILED test_x\n".repeat(2_000)).unwrap();
    let o = run_with_stdin(&["compress", "--tool", "Bash"], text.as_bytes());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("found a string; pass --raw"), "{err}");
    assert!(err.len() < 300, "{} bytes: {err}", err.len());
    // A field of the wrong type inside the object: the message is cut.
    let wrong = format!("{{\"status\": {text}}}");
    let err = stderr(&run_with_stdin(&["compress", "--tool", "Bash"], wrong.as_bytes()));
    assert!(
        err.contains("not a tool result envelope") && err.len() < 400,
        "{err}"
    );
}

#[test]
fn truncate_cuts_and_spills() {
    let dir = tempfile::tempdir().unwrap();
    let input: String = (0..5000).map(|i| format!("line {i}\n")).collect();
    let spill = dir.path().join("spill");
    let o = run_with_stdin(
        &["truncate", "--tool", "Bash", "--spill-dir", path(&spill)],
        input.as_bytes(),
    );
    let v: Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(v["status"], "partial");
    let saved = PathBuf::from(v["full_output_path"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        input,
        "the spill file holds everything"
    );
    // A shell's output shows its head and its tail (TOOL-8): with no
    // diagnostic line to make room for, all of 2,000 lines but the two
    // its gap markers take.
    assert!(stderr(&o).contains("1998 of 5000 lines shown"), "{}", stderr(&o));
    let view = v["data"]["output"].as_str().unwrap();
    assert!(
        view.starts_with("line 0\n") && view.ends_with("line 4999\n"),
        "{view}"
    );

    // Short output passes unchanged; bytes that are not UTF-8 are shown
    // lossily.
    let o = run_with_stdin(&["truncate", "--tool", "Bash", "--no-spill"], b"ok \xff\n");
    let v: Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(v["status"], "success");
    assert!(v.to_string().contains("ok \u{fffd}"), "{v}");
}

#[test]
fn mention_adds_the_reminder() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join("src")).unwrap();
    std::fs::write(project.path().join("src/main.rs"), "fn main() {}").unwrap();
    let text = ok(&run(&[
        "mention",
        "--root",
        path(project.path()),
        "请看 @src/main.rs 和 @../../etc/passwd。",
    ]));
    assert!(
        text.starts_with("请看 @src/main.rs 和 @../../etc/passwd。"),
        "{text}"
    );
    assert!(
        text.contains("The user mentioned @src/main.rs.\nYou MUST read this file with the Read tool"),
        "{text}"
    );
    assert!(!text.contains("etc/passwd.\n"), "{text}");
    let v = json(&run(&[
        "mention",
        "--json",
        "--root",
        path(project.path()),
        "see @src/main.rs, @nope.rs",
    ]));
    assert_eq!(v["paths"], serde_json::json!(["src/main.rs"]));
    assert_eq!(
        run(&["mention", "--root", "/no/such/dir", "x"]).status.code(),
        Some(2)
    );
}

#[test]
fn exact_token_counts_with_a_tokenizer() {
    let chars = json(&run(&["inspect", "--json", path(&data("cli/chat.openai.json"))]));
    let o200k = json(&run(&[
        "--tokenizer",
        "o200k",
        "inspect",
        "--json",
        path(&data("cli/chat.openai.json")),
    ]));
    assert_ne!(chars["tokens"], o200k["tokens"]);
    assert!(o200k["tokens"].as_u64().unwrap() > 50);
}

/// What people read, reviewed by eye: the text of `inspect`, the ReAct
/// rendering and a history form.
#[test]
fn snapshots_of_human_output() {
    let chat = std::fs::read(data("cli/chat.openai.json")).unwrap();
    insta::assert_snapshot!("inspect_chat", ok(&run_with_stdin(&["inspect"], &chat)));
    insta::assert_snapshot!(
        "render_react_chat",
        ok(&run_with_stdin(
            &[
                "render",
                "--format",
                "react",
                "--system",
                path(&data("cli/system.md"))
            ],
            &chat
        ))
    );
    insta::assert_snapshot!(
        "compress_bash",
        ok(&run(&[
            "compress",
            "--tool",
            "Bash",
            path(&data("cli/bash-envelope.json"))
        ]))
    );
}

/// `strata … | head`: a reader that goes away ends the command quietly.
#[test]
fn a_closed_pipe_is_not_an_error() {
    use std::io::Write;
    let mut child = strata()
        .args([
            "truncate",
            "--tool",
            "Bash",
            "--no-spill",
            "--max-lines",
            "1000000",
            "--max-bytes",
            "100000000",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Far more output than a pipe holds; nobody reads it.
    drop(child.stdout.take());
    let input: String = (0..200_000).map(|i| format!("line {i}\n")).collect();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

/// EVAL-1, EVAL-2: `strata-ctx eval` over the real transcripts of
/// `tests/data/corpus/`: the facts table with the trim baseline, command
/// output retention, JSON with per-session detail, and the HTML report.
#[test]
fn eval_measures_facts_and_retention() {
    let dir = data("corpus");
    let text = ok(&run(&[
        "eval",
        path(&dir),
        "--windows",
        "8000,16000",
        "--min-steps",
        "10",
    ]));
    assert!(
        text.starts_with("Working facts in the final window (sessions of 10 steps or more)"),
        "{text}"
    );
    assert!(
        text.contains("\n    8000  ") && text.contains("\n   16000  "),
        "{text}"
    );
    assert!(
        text.contains("Command outputs of 2,000 characters or more: "),
        "{text}"
    );
    assert!(text.contains("diagnostic lines kept: strata "), "{text}");

    let html = tempfile::tempdir().unwrap();
    let report = html.path().join("report.html");
    let v = json(&run(&[
        "eval",
        path(&dir),
        "--windows",
        "16000",
        "--min-steps",
        "10",
        "--json",
        "--per",
        "--html",
        path(&report),
    ]));
    let at16 = &v["facts"][0];
    assert_eq!(at16["window"], 16000);
    let sessions = at16["per_session"].as_array().unwrap();
    assert_eq!(sessions.len(), at16["sessions"].as_u64().unwrap() as usize);
    assert!(sessions.len() >= 3, "{sessions:?}");
    let total = &at16["total"];
    let (facts, kept, trim) = (
        total["facts"].as_u64().unwrap(),
        total["strata"].as_u64().unwrap(),
        total["trim"].as_u64().unwrap(),
    );
    assert!(facts > 50 && kept <= facts && trim <= facts, "{total}");
    assert!(kept > trim, "the engine keeps more than trimming: {total}");
    for s in sessions {
        assert_eq!(s["over_budget_steps"], 0, "{s}");
    }
    // #32.2: each strategy's calls priced alike, Strata first.
    let costs = at16["costs"].as_array().unwrap();
    let names: Vec<&str> = costs.iter().map(|c| c["strategy"].as_str().unwrap()).collect();
    assert_eq!(names, ["strata", "full", "trim", "mask", "opencode", "codex"]);
    let units = |i: usize| costs[i]["anthropic"]["units"].as_f64().unwrap();
    assert_eq!(costs[2]["to_trim"]["anthropic"], 1.0);
    assert!(units(0) < units(2), "Strata costs less than trimming: {costs:?}");
    assert!(
        costs[1]["input_tokens"].as_u64() > costs[2]["input_tokens"].as_u64(),
        "full sends the most"
    );
    assert!(costs
        .iter()
        .all(|c| c["facts"] == costs[0]["facts"] && c["calls"].as_u64().unwrap() > 0));
    let retention = &v["retention"];
    assert!(retention["outputs"].as_u64().unwrap() > 0);
    assert!(retention["reduction"].as_f64().unwrap() > 0.5, "{retention}");
    assert!(retention["per_output"]
        .as_array()
        .unwrap()
        .iter()
        .all(|o| o["raw_chars"].as_u64().unwrap() >= 2_000));
    let page = std::fs::read_to_string(&report).unwrap();
    assert!(page.starts_with("<!doctype html>") && page.contains("<svg") && page.contains("threshold 12800"));
    // #33.11: one chart per session, those that lost a fact first and
    // open; a link to the definitions; every layer in the legend; axes
    // with scales; the terminal's figures, error lines included.
    assert_eq!(page.matches("<details").count(), sessions.len());
    let lost = sessions
        .iter()
        .filter(|s| !s["lost"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(page.matches("<details open>").count(), lost);
    if lost > 0 {
        assert!(page.find("<details open>") < page.find("<details>").or(Some(usize::MAX)));
    }
    assert!(page.contains("/docs/eval.md\">docs/eval.md</a>"));
    for layer in [
        "system prompt and tools",
        "project rules",
        "history",
        "scratchpad",
        "digest",
    ] {
        assert!(page.contains(layer), "{layer}");
    }
    assert!(page.matches("<polygon").count() >= sessions.len(), "layer bands");
    assert!(page.contains(">tokens</text>") && page.contains(">step</text>") && page.contains(">10k</text>"));
    assert!(page.contains("<td>error lines</td>") && page.contains("<td>diagnostic lines</td>"));
    assert!(
        page.contains("<h2>What the calls cost at 16000</h2>") && page.contains("<td>codex-compact</td>")
    );

    // A directory without transcripts is bad input.
    let empty = tempfile::tempdir().unwrap();
    let o = run(&["eval", path(empty.path())]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no transcript found"));
}

/// REL-1 (issue: 46 of 58 real transcripts rendered with a call lacking
/// its result): `render` repairs first, so every call is answered in the
/// provider's body, and names each repair on stderr.
#[test]
fn render_never_sends_an_unpaired_call() {
    let mut repaired = 0;
    for entry in std::fs::read_dir(data("corpus")).unwrap() {
        let file = entry.unwrap().path();
        if file.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let o = run(&["render", "--format", "openai", path(&file)]);
        let body = json(&o);
        let mut open: Vec<String> = Vec::new();
        for m in body.as_array().unwrap() {
            if m["role"] == "tool" {
                let id = m["tool_call_id"].as_str().unwrap().to_owned();
                assert!(
                    open.contains(&id),
                    "{}: result {id} answers no call",
                    file.display()
                );
                open.retain(|x| *x != id);
            } else {
                assert!(open.is_empty(), "{}: calls {open:?} unanswered", file.display());
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    open.push(c["id"].as_str().unwrap().to_owned());
                }
            }
        }
        assert!(
            open.is_empty(),
            "{}: calls {open:?} unanswered at the end",
            file.display()
        );
        repaired += usize::from(stderr(&o).contains("strata-ctx: repaired: call"));
    }
    assert!(
        repaired > 0,
        "the corpus has transcripts that end on an unanswered call"
    );
}

/// PERF-1: `bench` times every phase from file to window on the user's own
/// transcripts, reports the peak memory, and rejects what is not a
/// conversation as bad input.
#[test]
fn bench_reports_each_phase_and_the_peak_memory() {
    let files = [corpus(DJANGO), corpus(PORT)];
    let o = run(&[
        "bench",
        "--runs",
        "2",
        "--json",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["files"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (row, file) in rows.iter().zip(&files) {
        assert_eq!(
            row["bytes"].as_u64().unwrap(),
            std::fs::metadata(file).unwrap().len()
        );
        assert!(row["messages"].as_u64().unwrap() > 10);
        let phases = ["read", "parse", "count", "build", "plan", "compact", "render"];
        let ms: Vec<f64> = phases.iter().map(|p| row["ms"][p].as_f64().unwrap()).collect();
        assert!(ms.iter().all(|m| m.is_finite() && *m >= 0.0), "{ms:?}");
        // A whole transcript takes some time: a clock that was never read
        // gives zeros.
        assert!(ms.iter().sum::<f64>() > 0.0, "{ms:?}");
        // #32.5: the agent steps replayed, and the time of one.
        assert!(row["steps"].as_u64().unwrap() > 5, "{row}");
        assert!(row["us_per_step"].as_f64().unwrap() > 0.0, "{row}");
    }
    if cfg!(target_os = "linux") {
        assert!(v["peak_memory_bytes"].as_u64().unwrap() > 0);
    }
    let table = run(&["bench", "--runs", "1", files[0].to_str().unwrap()]);
    assert!(table.status.success());
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.starts_with("median of 1 runs, in milliseconds\n"), "{text}");
    assert!(text.contains("openhands__django__django-11099.json"), "{text}");
    assert!(text.contains("µs/step"), "{text}");

    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "not json at all").unwrap();
    let o = run(&["bench", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// MODEL-5: `inspect --model` / `--price` estimates each round's calls (the
/// whole conversation before a call as its input, the call's answer as
/// its output) and the session's; an unknown model is bad input.
#[test]
fn inspect_estimates_cost_per_round_and_session() {
    let file = corpus(COVERAGE);
    let json_at = |price: &str| -> serde_json::Value {
        let o = run(&["inspect", "--json", "--price", price, file.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let v = json_at("1,10");
    let session = v["cost_usd"]["session"].as_f64().unwrap();
    let rounds: f64 = v["rounds_detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["cost_usd"].as_f64().unwrap())
        .sum();
    assert!(
        session > 0.0 && (session - rounds).abs() < 1e-9,
        "{session} {rounds}"
    );
    let doubled = json_at("2,20")["cost_usd"]["session"].as_f64().unwrap();
    assert!((doubled - 2.0 * session).abs() < 1e-9);
    assert_eq!(json_at("0,0")["cost_usd"]["session"].as_f64(), Some(0.0));
    // Input only: the conversation before each call, summed.
    let input_only = json_at("1,0")["cost_usd"]["session"].as_f64().unwrap();
    assert!(input_only > 0.0 && input_only < session);

    let text = stdout(&run(&["inspect", "--model", "gpt-4o", file.to_str().unwrap()]));
    assert!(text.contains("estimated cost at gpt-4o's price: $"), "{text}");
    let o = run(&["inspect", "--model", "no-such-model", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no price is known"), "{}", stderr(&o));
    let o = run(&["inspect", "--price", "cheap", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

/// MEM-2: `strata-ctx memory` saves once, lists, searches by relevance,
/// forgets, and names what is wrong with exit code 2.
#[test]
fn mem_2_memory_command() {
    let dir = tempfile::tempdir().unwrap();
    let at = path(dir.path());
    let memory = |args: &[&str]| {
        let mut all = vec!["memory", "--dir", at, "--user-id", "ada"];
        all.extend_from_slice(args);
        run(&all)
    };
    assert_eq!(
        ok(&memory(&["add", "Ada prefers tabs."])),
        "added m1: Ada prefers tabs.\n"
    );
    assert_eq!(
        ok(&memory(&["add", "ada PREFERS tabs"])),
        "already known m1: Ada prefers tabs.\n"
    );
    ok(&memory(&["add", "Ada deploys with Docker."]));
    assert_eq!(
        ok(&memory(&["list"])),
        "m1    Ada prefers tabs.\nm2    Ada deploys with Docker.\n"
    );
    let found = json(&memory(&["--json", "search", "docker compose file"]));
    assert_eq!(found.as_array().map(Vec::len), Some(1));
    assert_eq!(found[0]["id"], "m2");
    let gone = json(&memory(&["--json", "forget", "m1"]));
    assert_eq!(gone["change"], "forgotten");
    let missing = memory(&["forget", "m1"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("no fact has the id `m1`"));
    let bad = run(&["memory", "--dir", at, "--user-id", "../x", "list"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// MEM-1, MEM-3: `inspect` of a conversation log shows the session
/// context its changes rebuild and the suggestions made; with
/// `--user-id`, the user's long-term memory (MEM-2).
#[test]
fn mem_inspect_shows_session_suggestions_and_memory() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("c.jsonl");
    let lines = [
        r#"{"type":"user","message":{"id":"00000000-0000-0000-0000-000000000001","role":"user","content":"Fix the tabs."}}"#,
        r#"{"type":"session","update":{"op":"set","key":"task","value":"fix the tabs","source":"agent"}}"#,
        r#"{"type":"session","update":{"op":"push","key":"files","item":"src/lexer.py","max_items":8,"source":{"rule":"files"}}}"#,
        r#"{"type":"answer","message":{"id":"00000000-0000-0000-0000-000000000002","role":"assistant","content":"Fixed."}}"#,
        r#"{"type":"suggestions","items":["Run the tests"]}"#,
    ];
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let memory = dir.path().join("memory");
    ok(&run(&[
        "memory",
        "--dir",
        path(&memory),
        "--user-id",
        "ada",
        "add",
        "Ada uses tabs.",
    ]));
    let report = json(&run(&[
        "inspect",
        path(&log),
        "--json",
        "--user-id",
        "ada",
        "--memory-dir",
        path(&memory),
    ]));
    assert_eq!(report["format"], "strata-log");
    assert_eq!(report["messages"], 2);
    assert_eq!(report["session_context"]["task"], "fix the tabs");
    assert_eq!(report["session_context"]["files"], "src/lexer.py");
    assert_eq!(report["suggestions"][0], "Run the tests");
    assert_eq!(report["long_term_memory"]["facts"][0]["text"], "Ada uses tabs.");
    let text = ok(&run(&["inspect", path(&log)]));
    assert!(
        text.contains("session context:\n  files: src/lexer.py\n  task: fix the tabs\n"),
        "{text}"
    );
    assert!(
        text.contains("follow-up suggestions made:\n  Run the tests\n"),
        "{text}"
    );
}

/// Every file of `dir`, by its path under `dir`, with its bytes.
fn tree(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                files.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    files
}

/// Reads never write (STORE-2): listing a store that is not there, or
/// reading a conversation by name from it, creates nothing; listing one
/// changes none of its files.
#[test]
fn store_list_and_reads_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-store");
    let listed = json(&run(&["store", "--store", path(&missing), "list", "--json"]));
    assert_eq!(listed, serde_json::json!({}));
    let read = run(&["inspect", "--store", path(&missing), "default/main"]);
    assert_eq!(read.status.code(), Some(2), "{}", stderr(&read));
    assert!(!missing.exists(), "a read created the store");

    let store = dir.path().join("store");
    let o = run(&[
        "store",
        "--store",
        path(&store),
        "import",
        "--namespace",
        "corpus",
        path(&corpus(COVERAGE)),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = tree(&store);
    ok(&run(&["store", "--store", path(&store), "list"]));
    ok(&run(&[
        "inspect",
        "--store",
        path(&store),
        &format!("corpus/{COVERAGE}"),
    ]));
    assert_eq!(tree(&store), before, "a read changed the store");
    assert!(!store.join("other").exists());
}

/// STORE-6: transcripts imported into a directory store and exported
/// again come back byte for byte; a second import does not overwrite.
#[test]
fn store_6_import_export_directory() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    let transcripts = [corpus(PORT), corpus(COVERAGE), corpus(DJANGO)];
    let mut import = vec!["store", "--store", path(&a), "import", "--namespace", "corpus"];
    import.extend(transcripts.iter().map(|p| path(p)));
    let o = run(&import);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("imported 3 conversation(s)"));
    ok(&run(&["store", "--store", path(&a), "export", "--to", path(&b)]));
    let (ta, tb) = (tree(&a), tree(&b));
    assert_eq!(ta.len(), 4, "three logs and CURRENT");
    assert_eq!(ta, tb, "byte for byte");
    let listed = json(&run(&["store", "--store", path(&b), "list", "--json"]));
    assert_eq!(
        listed["corpus"]["conversations"].as_array().map(Vec::len),
        Some(3)
    );
    let again = run(&import);
    assert_eq!(again.status.code(), Some(2), "not overwritten");
    // Each conversation resumes: its records replay to the transcript's
    // messages, answers and all; read from the store by name, it is the
    // same conversation.
    let log = a.join("corpus").join(format!("{DJANGO}.jsonl"));
    let report = json(&run(&["inspect", path(&log), "--json"]));
    assert_eq!(report["format"], "strata-log");
    assert!(report["messages"].as_u64().unwrap() > 10);
    let by_name = json(&run(&[
        "--store",
        path(&a),
        "inspect",
        &format!("corpus/{DJANGO}"),
        "--json",
    ]));
    assert_eq!(by_name["messages"], report["messages"]);
    assert_eq!(by_name["tokens"], report["tokens"]);
    let missing = run(&["--store", path(&a), "inspect", "corpus/nope"]);
    assert_eq!(missing.status.code(), Some(2));
}

/// STORE-6: the same on PostgreSQL, when `STRATA_TEST_POSTGRES_URL`
/// names a server: imported there and exported, the conversations are
/// the bytes of the directory store's.
#[test]
#[ignore = "needs a PostgreSQL server: set STRATA_TEST_POSTGRES_URL, run with --include-ignored"]
fn store_6_import_export_postgres() {
    let url = std::env::var("STRATA_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .expect("STRATA_TEST_POSTGRES_URL must name a PostgreSQL server for this test");
    let dir = tempfile::tempdir().unwrap();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let ns = format!("cli-{}-{nanos}", std::process::id());
    // Every transcript of the workspace's corpus.
    let corpus_dir = data("corpus");
    for store in [url.as_str(), path(&dir.path().join("jsonl"))] {
        let o = run(&[
            "store",
            "--store",
            store,
            "import",
            "--namespace",
            &ns,
            path(&corpus_dir),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let exported = dir.path().join("from-pg");
    ok(&run(&[
        "store",
        "--store",
        &url,
        "export",
        "--to",
        path(&exported),
    ]));
    assert_eq!(
        tree(&exported.join(&ns)),
        tree(&dir.path().join("jsonl").join(&ns)),
        "byte for byte"
    );
    assert!(ok(&run(&["store", "--store", &url, "migrate"])).starts_with("schema at version "));
}

/// EVAL-1 (#30.9): a session the window cannot hold (its task alone is over
/// the threshold) is reported and skipped; the others are still measured
/// and the command succeeds.
#[test]
fn eval_skips_a_session_that_cannot_fit() {
    let dir = tempfile::tempdir().unwrap();
    let step = |i: usize| {
        serde_json::json!([
            {"role": "assistant", "content": "", "tool_calls": [{"id": format!("c{i}"), "type": "function",
                "function": {"name": "bash", "arguments": format!("{{\"command\": \"python run_{i}.py\"}}")}}]},
            {"role": "tool", "tool_call_id": format!("c{i}"), "content": "Traceback (most recent call last):\nValueError: bad input"}
        ])
    };
    let session = |task: String| {
        let mut messages = vec![serde_json::json!({"role": "user", "content": task})];
        for i in 0..3 {
            messages.extend(step(i).as_array().unwrap().iter().cloned());
        }
        serde_json::json!({"messages": messages})
    };
    std::fs::write(
        dir.path().join("huge.json"),
        session("fix it ".repeat(40_000)).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("small.json"),
        session("fix the parser".into()).to_string(),
    )
    .unwrap();
    let text = ok(&run(&[
        "eval",
        path(dir.path()),
        "--windows",
        "16000",
        "--min-steps",
        "1",
    ]));
    assert!(text.contains("Skipped (the window cannot hold them):"), "{text}");
    assert!(text.contains("huge.json"), "{text}");
    assert!(!text.contains("small.json:"), "{text}");
    assert!(
        text.contains("\n   16000         1 "),
        "the other session is measured:\n{text}"
    );
}

/// EDGE-3 (#30.2): a Codex CLI rollout and a Claude Code session file are
/// read as conversations, told by their first line.
#[test]
fn inspect_reads_codex_rollouts_and_claude_code_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let rollout = dir.path().join("rollout-2025-10-29T00-59-38-019a2d7a.jsonl");
    std::fs::write(
        &rollout,
        concat!(
            r#"{"timestamp":"2025-10-29T00:59:38Z","type":"session_meta","payload":{"id":"s1","cwd":"/repo"}}"#,
            "\n",
            r#"{"timestamp":"2025-10-29T00:59:39Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}}"#,
            "\n",
            r#"{"timestamp":"2025-10-29T00:59:40Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo test\"}","call_id":"c1"}}"#,
            "\n",
            r#"{"timestamp":"2025-10-29T00:59:41Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"test result: ok. 3 passed"}}"#,
            "\n"
        ),
    )
    .unwrap();
    let v = json(&run(&["inspect", "--json", path(&rollout)]));
    assert_eq!(v["format"], "codex-rollout");
    assert_eq!(v["messages"], 3);
    assert_eq!(v["pairing_problems"], serde_json::json!([]));

    let session = dir.path().join("0f3c.jsonl");
    std::fs::write(
        &session,
        concat!(
            r#"{"parentUuid":null,"isSidechain":false,"sessionId":"s1","type":"user","message":{"role":"user","content":"list files"},"uuid":"u1"}"#,
            "\n",
            r#"{"parentUuid":"u1","isSidechain":false,"sessionId":"s1","type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"uuid":"u2"}"#,
            "\n",
            r#"{"parentUuid":"u2","isSidechain":false,"sessionId":"s1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.rs"}]},"uuid":"u3"}"#,
            "\n"
        ),
    )
    .unwrap();
    let v = json(&run(&["inspect", "--json", path(&session)]));
    assert_eq!(v["format"], "claude-code-session");
    assert_eq!(v["messages"], 3);
}
