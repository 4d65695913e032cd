//! `strata-ctx mention`: @file mentions turned into a read reminder
//! (MENTION-1..3).

use std::io::Read;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;
use strata_ctx::Mentions;

use super::{out, out_json_pretty};
use crate::error::CliError;

/// Arguments of `strata-ctx mention`.
#[derive(Debug, Args)]
pub struct MentionArgs {
    /// The project root mentions are resolved against.
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,
    /// `{text, paths, ignored}` as JSON instead of the text.
    #[arg(long)]
    json: bool,
    /// The user's message (`-` reads it from stdin).
    text: String,
}

/// Runs `strata-ctx mention`.
pub fn run(args: &MentionArgs) -> Result<(), CliError> {
    if !args.root.is_dir() {
        return Err(CliError::Input(format!(
            "--root {}: not a directory",
            args.root.display()
        )));
    }
    let text = if args.text == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::Input(format!("stdin: {e}")))?;
        text
    } else {
        args.text.clone()
    };
    let applied = Mentions::new(&args.root).apply(&text);
    if args.json {
        return out_json_pretty(
            &json!({"text": applied.text, "paths": applied.paths, "ignored": applied.ignored}),
        );
    }
    out(&format!("{}\n", applied.text))
}
