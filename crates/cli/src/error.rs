//! The command's failures and their exit codes.

use std::fmt;

/// Why a command failed; decides the exit code.
#[derive(Debug)]
pub enum CliError {
    /// Bad input or bad usage: exit code 2. The message names the line or
    /// field that is wrong.
    Input(String),
    /// The work itself failed (I/O, the model): exit code 1.
    Runtime(String),
    /// The reader of the output went away (`strata … | head`): not a
    /// failure; the command stops quietly with exit code 0.
    Closed,
}

impl CliError {
    /// The process exit code for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Runtime(_) => 1,
            CliError::Closed => 0,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(m) | CliError::Runtime(m) => f.write_str(m),
            CliError::Closed => f.write_str("the output was closed"),
        }
    }
}

/// Errors of the library used by the commands: configuration and message
/// errors are the user's input, everything else a runtime failure.
impl From<strata_ctx::types::Error> for CliError {
    fn from(e: strata_ctx::types::Error) -> Self {
        use strata_ctx::types::Error as E;
        match e {
            E::InvalidConfig { .. }
            | E::ConfigParse { .. }
            | E::InvalidTokenAmount { .. }
            | E::InvalidDuration { .. }
            | E::InvalidMessage { .. }
            | E::InvalidMessageId { .. }
            | E::InvalidTimestamp { .. } => CliError::Input(e.to_string()),
            other => CliError::Runtime(error_chain(&other)),
        }
    }
}

impl From<strata_ctx::EngineError> for CliError {
    fn from(e: strata_ctx::EngineError) -> Self {
        CliError::Runtime(error_chain(&e))
    }
}

/// `e` and its sources, joined with `: `.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// A write to stdout failed: a closed pipe ends the command quietly, any
/// other failure (a full disk) is an error.
pub fn output_error(e: std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return CliError::Closed;
    }
    CliError::Runtime(format!("cannot write the output: {e}"))
}
