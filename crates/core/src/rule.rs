//! The plug-in trait for the history form of tool results (TOOL-10).

use serde_json::Value;

use crate::error::RuleError;
use crate::message::ResultStatus;

/// What a [`CompressRule`] is given: one tool result's `data`, with the
/// call that produced it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RuleInput<'a> {
    /// The tool's name as the model called it.
    pub tool: &'a str,
    /// The call's arguments (`Value::Null` when unknown).
    pub arguments: &'a Value,
    /// How the run ended.
    pub status: ResultStatus,
    /// The result's `data`: structured JSON, or a JSON string holding the
    /// raw output. Marker fields (`truncated`, `applied`, `fallback`,
    /// `full_output_path`) have been taken out and are put back by the
    /// caller.
    pub data: &'a Value,
}

impl<'a> RuleInput<'a> {
    /// An input for `tool` with these arguments, status and data.
    pub fn new(tool: &'a str, arguments: &'a Value, status: ResultStatus, data: &'a Value) -> Self {
        RuleInput {
            tool,
            arguments,
            status,
            data,
        }
    }
}

/// Turns a tool result's `data` into its history form: what the agent
/// remembers of it after the round (TOOL-1 … TOOL-10).
///
/// Contract:
///
/// - Return a value no larger than the input; when there is nothing worth
///   cutting, return the input unchanged. Callers keep the input when the
///   output is larger.
/// - Be idempotent: the rule applied to its own output returns it
///   unchanged (TOOL-11).
/// - Accept `data` both as structured JSON and as a JSON string of raw
///   output; tolerate missing fields and ignore unknown ones (TOOL-0).
/// - On input the rule cannot handle, return an error
///   ([`RuleError`]). Callers then use the generic
///   rule and report the failure; a panic is caught and treated the same.
///
/// The trait is object safe; `&T`, `Box<T>` and `Arc<T>` forward to `T`,
/// and [`rule_fn`] turns a closure into a rule.
pub trait CompressRule: Send + Sync {
    /// The history form of `input.data`.
    ///
    /// # Errors
    ///
    /// When the input cannot be handled; see the trait's contract.
    fn compress(&self, input: RuleInput<'_>) -> Result<Value, RuleError>;
}

crate::forward::forward_impls!(CompressRule sync {
    fn compress(&self, input: RuleInput<'_>) -> Result<Value, RuleError>;
});

/// A [`CompressRule`] made from a closure; see [`rule_fn`].
#[derive(Clone)]
pub struct RuleFn<F>(F);

impl<F> std::fmt::Debug for RuleFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuleFn")
    }
}

/// Turns a closure into a [`CompressRule`].
///
/// # Example
///
/// ```
/// use serde_json::{json, Value};
/// use strata_ctx_core::{rule_fn, CompressRule, ResultStatus, RuleInput};
///
/// // Keep only the first line of a deploy tool's output.
/// let rule = rule_fn(|input: RuleInput<'_>| {
///     let text = input.data.as_str().unwrap_or_default();
///     Ok(Value::from(text.lines().next().unwrap_or_default()))
/// });
/// let data = json!("deployed v1.2\nstep 1\nstep 2");
/// let out = rule.compress(RuleInput::new("deploy", &Value::Null, ResultStatus::Success, &data))?;
/// assert_eq!(out, json!("deployed v1.2"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rule_fn<F>(f: F) -> RuleFn<F>
where
    F: Fn(RuleInput<'_>) -> Result<Value, RuleError> + Send + Sync,
{
    RuleFn(f)
}

impl<F> CompressRule for RuleFn<F>
where
    F: Fn(RuleInput<'_>) -> Result<Value, RuleError> + Send + Sync,
{
    fn compress(&self, input: RuleInput<'_>) -> Result<Value, RuleError> {
        (self.0)(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn _obj(_: &dyn CompressRule) {}

    #[test]
    fn tool_10_rules_are_object_safe() {
        let rule = rule_fn(|i: RuleInput<'_>| Ok(i.data.clone()));
        _obj(&rule);
        let boxed: Box<dyn CompressRule> = Box::new(rule.clone());
        let shared: Arc<dyn CompressRule> = Arc::new(rule);
        let data = Value::from("x");
        let input = RuleInput::new("t", &Value::Null, ResultStatus::Success, &data);
        assert_eq!(boxed.compress(input).unwrap(), data);
        assert_eq!(shared.compress(input).unwrap(), data);
    }
}
