//! `strata-ctx render`: a conversation as the model would receive it (CTX-1,
//! CTX-4).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use strata_ctx::history::{repair, Repair};
use strata_ctx::prompt::{todo_recap, Rules};
use strata_ctx::types::ShortIds;
use strata_ctx::{Context, Message, Role, SystemLayer};

use super::{out, out_json_pretty};
use crate::error::CliError;
use crate::input::read_conversation;

/// The renderings of a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The ReAct text of REACT-1.
    React,
    /// OpenAI chat-completions `messages`.
    Openai,
    /// An Anthropic Messages body: `{system, messages}`.
    Anthropic,
}

/// Arguments of `strata-ctx render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The conversation (stdin when absent or `-`).
    file: Option<std::path::PathBuf>,
    /// The rendering.
    #[arg(long, value_enum)]
    format: Format,
    /// A file holding the system prompt; by default the conversation's
    /// leading system messages, or Strata's ReAct prompt when it has none.
    #[arg(long, value_name = "FILE")]
    system: Option<PathBuf>,
    /// A project root whose rule files (`CODE_LAW.md`, `AGENTS.md`,
    /// `CLAUDE.md`) become the rules layer.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Append `[message_id: …]` to each message the model could prune
    /// (HIST-10).
    #[arg(long)]
    id_hints: bool,
}

/// The layered context of a conversation: the history up to the last user
/// message, that message as the input, what follows it as the
/// scratchpad, and the todo recap of the scratchpad.
///
/// The leading system messages are the system prompt (L1); system
/// messages later in the conversation stay where they are. The body is
/// repaired for the pairing invariant first (HIST-2, REL-1): every call is
/// answered once, right after its message; the repairs are returned.
pub fn context(system: SystemLayer, rules: Option<String>, messages: &[Message]) -> (Context, Vec<Repair>) {
    let leading = messages.iter().take_while(|m| m.role == Role::System).count();
    let (body, repairs) = repair(&messages[leading..]);
    let mut context = Context::new(system).with_rules(rules.unwrap_or_default());
    match body.iter().rposition(|m| m.role == Role::User) {
        Some(last) => {
            let scratchpad = body[last + 1..].to_vec();
            let recap = todo_recap(&scratchpad);
            context = context
                .with_history(body[..last].to_vec())
                .with_input(body[last].clone())
                .with_scratchpad(scratchpad)
                .with_recap(recap);
        }
        None => context = context.with_history(body),
    }
    (context, repairs)
}

/// Runs `strata-ctx render`.
pub fn run(args: &RenderArgs) -> Result<(), CliError> {
    let conversation = read_conversation(args.file.as_ref())?;
    let system = match &args.system {
        Some(path) => SystemLayer::new(
            std::fs::read_to_string(path)
                .map_err(|e| CliError::Input(format!("--system {}: {e}", path.display())))?,
        ),
        None => conversation
            .system_prompt()
            .map_or_else(SystemLayer::react, SystemLayer::new),
    };
    let rules = match &args.root {
        Some(root) if !root.is_dir() => {
            return Err(CliError::Input(format!(
                "--root {}: not a directory",
                root.display()
            )))
        }
        Some(root) => {
            let layer = Rules::new(root)
                .with_file("AGENTS.md")
                .with_file("CLAUDE.md")
                .build();
            for warning in &layer.warnings {
                super::note(&format!("strata-ctx: {warning}"));
            }
            Some(layer.text)
        }
        None => None,
    };
    let (mut context, repairs) = context(system, rules, &conversation.messages);
    for r in &repairs {
        super::note(&format!("strata-ctx: repaired: {r}"));
    }
    if args.id_hints {
        let ids = ShortIds::new(conversation.messages.iter().map(|m| m.id));
        context = context.with_id_hints(Some(ids));
    }
    match args.format {
        Format::React => out(&context.render_react()),
        Format::Openai => out_json_pretty(&context.to_openai()),
        Format::Anthropic => out_json_pretty(&context.to_anthropic()),
    }
}
