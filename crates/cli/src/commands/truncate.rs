//! `strata-ctx truncate`: what the model sees of a long output (TRUNC-1..3).

use std::path::PathBuf;

use clap::Args;
use strata_ctx::compress::{Limits, Spill};
use strata_ctx::Truncator;

use super::out_json_pretty;
use crate::error::CliError;

/// Arguments of `strata-ctx truncate`.
#[derive(Debug, Args)]
pub struct TruncateArgs {
    /// The tool that produced the output (limits and wording depend on it).
    #[arg(long)]
    tool: String,
    /// Where the full output is saved when it is cut, relative to the
    /// current directory unless absolute.
    #[arg(long, value_name = "DIR", default_value = "tool-output")]
    spill_dir: PathBuf,
    /// Do not save the full output anywhere.
    #[arg(long, conflicts_with = "spill_dir")]
    no_spill: bool,
    /// The most lines shown.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_lines)]
    max_lines: usize,
    /// The most bytes shown.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_bytes)]
    max_bytes: usize,
    /// The largest spill file, in bytes: of a longer output it keeps the
    /// start.
    #[arg(long, value_name = "N", default_value_t = strata_ctx::compress::DEFAULT_MAX_SPILL_BYTES)]
    max_spill_bytes: u64,
    /// The most bytes read: an endless output stops there, with exit code
    /// 1 after the result.
    #[arg(long, value_name = "N", default_value_t = strata_ctx::compress::DEFAULT_MAX_READ_BYTES)]
    max_read_bytes: u64,
    /// The raw output (stdin when absent or `-`); read as a stream, so it
    /// may be larger than memory.
    file: Option<std::path::PathBuf>,
}

/// Runs `strata-ctx truncate`.
pub fn run(args: &TruncateArgs) -> Result<(), CliError> {
    let root =
        std::env::current_dir().map_err(|e| CliError::Runtime(format!("no current directory: {e}")))?;
    let truncator = Truncator::builder(root)
        .limits(Limits::new(args.max_lines, args.max_bytes))
        .spill_dir((!args.no_spill).then(|| args.spill_dir.clone()))
        .max_spill_bytes(args.max_spill_bytes)
        .max_read_bytes(args.max_read_bytes)
        .build();
    let cut = match args.file.as_deref().filter(|p| *p != std::path::Path::new("-")) {
        Some(path) => truncator.truncate_reader(&args.tool, crate::input::open(path)?),
        None => truncator.truncate_reader(&args.tool, std::io::stdin().lock()),
    };
    if cut.truncated {
        let saved = match &cut.spill {
            Spill::Saved(path) => format!("full output in {}", path.display()),
            Spill::Failed(why) => format!("the full output could not be saved: {why}"),
            _ => "the full output was not saved".to_owned(),
        };
        super::note(&format!(
            "strata-ctx: {} of {} lines shown; {saved}",
            cut.shown_lines, cut.total_lines
        ));
    }
    let value = serde_json::to_value(&cut.result).map_err(|e| CliError::Runtime(e.to_string()))?;
    out_json_pretty(&value)?;
    if cut.limit_reached {
        return Err(CliError::Runtime(format!(
            "the input was not read to its end: reading stops at {} bytes (--max-read-bytes)",
            args.max_read_bytes
        )));
    }
    Ok(())
}
