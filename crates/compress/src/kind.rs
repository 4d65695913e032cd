//! The tool kinds, as the tools crate knows them (TOOL-1).

use serde_json::Value;
pub use strata_ctx_tools::ToolKind;

/// The built-in kind a tool's name stands for, if any: the names and
/// aliases of every common agent ([`strata_ctx_tools::kind_of`]).
pub fn canonical(tool: &str) -> Option<ToolKind> {
    strata_ctx_tools::kind_of(tool)
}

/// The kind of one call, by its name, an editor's sub-command or the shape
/// of its arguments ([`strata_ctx_tools::classify`]).
pub fn canonical_call(tool: &str, arguments: &Value) -> Option<ToolKind> {
    strata_ctx_tools::classify(tool, arguments)
}
