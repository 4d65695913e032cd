//! Errors that print what failed as structured data. An error whose
//! message is a payload it opens on its own line: Zod's `ZodError: [`
//! over the issues as JSON, each with its `"message": "Too small:
//! expected string to have >=2 characters"`, as Vitest and Jest print a
//! thrown `ZodError`; an `AggregateError: [` or `Error: {` over an object
//! util.inspect draws (`message: 'No user'`). The payload's message
//! fields say what failed; the rest (codes, paths, bounds) is its shape.
//! And a Pydantic `ValidationError`'s errors, each under the field it is
//! about (`email` over `  Field required [type=missing, …]`).

use std::sync::OnceLock;

use regex::Regex;

use super::{compiled, without_colours};

/// The most lines of a payload read for its messages and its end: a
/// union's issues nest the issues of each of its options.
const PAYLOAD_LINES: usize = 80;

/// An error's name and colon, then only the bracket its payload opens
/// with (`ZodError: [`, `AggregateError: {`, Node's `Error [ERR_X]: {`).
fn opens_payload() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"^\s*(?:[\w$.]+\.)?[A-Z][\w$]*(?:Error|Exception)(?: \[[\w-]+\])?:\s*[\[{]$",
    )
}

/// A field of the payload that carries a message: JSON's `"message":
/// "…"`, util.inspect's `message: '…'`, and `msg`, as Pydantic's errors
/// name it.
fn message_field() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r#"^\s*(?:"(?:message|msg)"|'(?:message|msg)'|message|msg)\s*:\s*\S"#,
    )
}

/// A Pydantic error line ([`field_error!`]).
fn field_error() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, field_error!())
}

/// A field's location as Pydantic prints it over its errors, at the
/// line's start: `email`, `items.0.sku`, `body.user.name`,
/// `function-after[check(), str]`.
fn field_location() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^[\w$][\w$.\[\]()<>,:-]*(?:, \w+\])?$")
}

/// Whether `above`, the line right above `failure`, is the field a
/// Pydantic error is about (`email` over `  Field required
/// [type=missing, …]`): the error says what is wrong, only the line
/// above says with which field.
pub(crate) fn field_above(failure: &str, above: &str) -> bool {
    let above = without_colours(above);
    field_error().is_match(&without_colours(failure)) && field_location().is_match(above.trim_end())
}

/// The payload `failure` opens, from `after`, the text that follows it
/// (from the end of its line): its lines up to and with the bracket that
/// closes it at the failure's indent or less, within [`PAYLOAD_LINES`];
/// `None` when the failure opens none or its end is not within reach.
fn payload<'a>(failure: &str, after: &'a str) -> Option<Vec<&'a str>> {
    let failure = without_colours(failure);
    let failure = failure.trim_end();
    if !opens_payload().is_match(failure) {
        return None;
    }
    let indent = failure.len() - failure.trim_start().len();
    let mut lines = Vec::new();
    for line in after.split('\n').skip(1).take(PAYLOAD_LINES) {
        let line = line.trim_end_matches('\r');
        lines.push(line);
        let plain = without_colours(line);
        let body = plain.trim_end();
        let closes = matches!(body.trim_start(), "]" | "}" | "]," | "},");
        if closes && body.len() - body.trim_start().len() <= indent {
            return Some(lines);
        }
    }
    None
}

/// The message fields of the payload `failure` opens, given `after`, the
/// text that follows it (from the end of its line), in order; none when
/// it opens none ([`payload`]).
pub(crate) fn payload_messages<'a>(failure: &str, after: &'a str) -> Vec<&'a str> {
    payload(failure, after)
        .unwrap_or_default()
        .into_iter()
        .filter(|l| message_field().is_match(&without_colours(l)))
        .collect()
}

/// How many lines the payload `failure` opens takes under it, its closing
/// bracket with them: where what is printed under the error goes on (the
/// place Vitest names under it). 0 when it opens none.
pub(crate) fn payload_lines(failure: &str, after: &str) -> usize {
    payload(failure, after).map_or(0, |lines| lines.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZOD: &str = "ZodError: [\n  {\n    \"origin\": \"string\",\n    \"code\": \"too_small\",\n    \"minimum\": 2,\n    \"path\": [\n      \"name\"\n    ],\n    \"message\": \"Too small: expected string to have >=2 characters\"\n  }\n]\n ❯ src/user.test.ts:14:19\n";

    fn split(text: &str) -> (&str, &str) {
        let end = text.find('\n').unwrap_or(text.len());
        (&text[..end], &text[end..])
    }

    /// TOOL-8: the message fields of a payload an error opens, and where
    /// the payload ends: not at the inner `]` of a path, at the one that
    /// closes it.
    #[test]
    fn tool_8_a_payload_s_messages_and_its_end() {
        let (failure, after) = split(ZOD);
        assert_eq!(
            payload_messages(failure, after),
            ["    \"message\": \"Too small: expected string to have >=2 characters\""]
        );
        assert_eq!(payload_lines(failure, after), 10);
        // In colour, as Vitest prints it.
        let coloured =
            "\x1b[31m\x1b[1mZodError\x1b[22m: [\x1b[39m\n  {\n    \"message\": \"Invalid input\"\n  }\n]\n";
        let (failure, after) = split(coloured);
        assert_eq!(
            payload_messages(failure, after),
            ["    \"message\": \"Invalid input\""]
        );
        assert_eq!(payload_lines(failure, after), 4);
        // util.inspect's object, indented under a test's title; Pydantic's `msg`.
        let inspected = "    AggregateError: {\n      code: 'E_MANY',\n      message: 'No user 7'\n    }\n";
        let (failure, after) = split(inspected);
        assert_eq!(payload_messages(failure, after), ["      message: 'No user 7'"]);
        let pydantic = "ValidationError: [\n  {\"type\": \"missing\", \"loc\": [\"name\"]},\n  \"msg\": \"Field required\"\n]\n";
        let (failure, after) = split(pydantic);
        assert_eq!(
            payload_messages(failure, after),
            ["  \"msg\": \"Field required\""]
        );
    }

    /// TOOL-8: a Pydantic error's field is the line above it, Pydantic 1's
    /// and 2's, with its input shown or hidden; not a sentence, an
    /// indented line, or the line above another failure.
    #[test]
    fn tool_8_a_pydantic_error_s_field_is_above_it() {
        let v2 =
            "  Field required [type=missing, input_value={'id': 'x31', 'items': [{...}]}, input_type=dict]";
        for (failure, field) in [
            (v2, "email"),
            (
                "  Input should be a valid integer [type=int_parsing]",
                "items.0.qty",
            ),
            ("  field required (type=value_error.missing)", "body.user.name"),
            (
                "  Value error, bad sku [type=value_error, input_value='ab', input_type=str]",
                "function-after[check(), str]",
            ),
        ] {
            assert!(field_above(failure, field), "{field} over {failure}");
        }
        assert!(!field_above(v2, "Traceback (most recent call last):"));
        assert!(!field_above(v2, "  email"));
        assert!(!field_above("  email is required", "email"));
    }

    /// TOOL-8: no payload: an error with a message, a bracket that is not
    /// an error's, a payload whose end is out of reach.
    #[test]
    fn tool_8_no_payload_no_messages() {
        for text in [
            "ZodError: invalid input\n  \"message\": \"x\"\n]\n",
            "config: {\n  \"message\": \"x\"\n}\n",
            "const errors = [\n  \"message\": \"x\"\n]\n",
        ] {
            let (failure, after) = split(text);
            assert!(payload_messages(failure, after).is_empty(), "{text:?}");
            assert_eq!(payload_lines(failure, after), 0, "{text:?}");
        }
        let endless = format!(
            "ZodError: [\n{}",
            "  \"message\": \"x\",\n".repeat(PAYLOAD_LINES + 1)
        );
        let (failure, after) = split(&endless);
        assert!(payload_messages(failure, after).is_empty());
        // A bracket deeper than the error's closes an inner list only.
        let (failure, after) = split("ZodError: [\n  [\n  \"message\": \"x\"\n  ]\n");
        assert_eq!(payload_lines(failure, after), 0);
    }
}
