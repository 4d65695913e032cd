//! `strata-ctx compress`: the history form of a tool result (TOOL-0..11).

use clap::Args;
use serde_json::Value;
use strata_ctx::{Compressor, ToolResult};

use super::{out, out_json_pretty};
use crate::error::CliError;
use crate::input::read_bytes;

/// Arguments of `strata-ctx compress`.
#[derive(Debug, Args)]
pub struct CompressArgs {
    /// The tool that produced the result (`Bash`, `Read`, `Grep`, …; any
    /// other name gets the generic rule).
    #[arg(long)]
    tool: String,
    /// The call's arguments as JSON (some rules use them, e.g. Read's
    /// `path`).
    #[arg(long, value_name = "JSON", default_value = "{}")]
    arguments: String,
    /// The input is the tool's raw text output, not an envelope; the
    /// history form is written as text.
    #[arg(long)]
    raw: bool,
    /// The result envelope (stdin when absent or `-`).
    file: Option<std::path::PathBuf>,
}

/// Runs `strata-ctx compress`.
pub fn run(args: &CompressArgs) -> Result<(), CliError> {
    let arguments: Value = serde_json::from_str(&args.arguments)
        .map_err(|e| CliError::Input(format!("--arguments: invalid JSON at column {}: {e}", e.column())))?;
    let (source, bytes) = read_bytes(args.file.as_deref())?;
    let compressor = Compressor::new();
    if args.raw {
        let text = String::from_utf8_lossy(&bytes);
        let (form, failure) = compressor.compress_text(&args.tool, &arguments, &text);
        if let Some(f) = failure {
            super::note(&format!(
                "strata-ctx: the {} rule failed ({f:?}); the generic rule was used",
                args.tool
            ));
        }
        return out(&form);
    }
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| CliError::Input(format!("{source}: {}", crate::parse::json_error(&e))))?;
    if !value.is_object() {
        return Err(CliError::Input(format!(
            "{source}: not a tool result envelope: expected an object such as \
             {{\"status\": \"success\", \"data\": …}}, found {}; \
             pass --raw for a tool's text output",
            crate::parse::kind(&value)
        )));
    }
    let result: ToolResult = serde_json::from_value(value).map_err(|e| {
        CliError::Input(format!(
            "{source}: not a tool result envelope: {}",
            crate::parse::cut_message(&e.to_string())
        ))
    })?;
    let compressed = compressor.compress(&args.tool, &arguments, &result);
    if let Some(f) = compressed.fallback {
        super::note(&format!(
            "strata-ctx: the {} rule failed ({f:?}); the generic rule was used",
            args.tool
        ));
    }
    let value = serde_json::to_value(&compressed.result).map_err(|e| CliError::Runtime(e.to_string()))?;
    out_json_pretty(&value)
}
