//! Configuration (CORE-7) and token amounts (CORE-8).

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::server::ServerContext;

mod values;

use values::duration_serde;
pub use values::{parse_duration, CompactionTarget, TokenAmount};

/// Declares every field of [`Config`] once: its documentation and serde
/// attributes, its type, its default, the documentation of the default,
/// and how [`Config::set`] parses it from text. The struct, its `Default`,
/// [`CONFIG_FIELDS`], the text setter and the [`ConfigBuilder`] setters are
/// all generated from this one table.
macro_rules! config_fields {
    ($(
        $(#[$attr:meta])*
        $name:ident: $ty:ty = $default:expr, $default_doc:literal, $parse:expr;
    )*) => {
        /// Settings shared by the crates of Strata (CORE-7).
        ///
        /// Build one in code ([`Config::builder`] or [`Config::default`] and field
        /// assignments), from a TOML or JSON file ([`Config::from_file`]) and from
        /// `STRATA_*` environment variables ([`Config::apply_env`]); the variable of
        /// a field is its name in upper case, e.g. `STRATA_CONTEXT_WINDOW=128k`.
        /// [`Config::load`] does all three in that order.
        ///
        /// # Example
        ///
        /// ```
        /// use strata_ctx_core::Config;
        ///
        /// let config = Config::from_toml_str(r#"
        ///     context_window = "128k"
        ///     compact_threshold = 0.75
        ///     summary_timeout = "90s"
        /// "#)?;
        /// assert_eq!(config.window_tokens(), 131_072);
        /// assert_eq!(config.threshold_tokens(), 98_304);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        #[non_exhaustive]
        pub struct Config {
            $($(#[$attr])* pub $name: $ty,)*
        }

        impl Default for Config {
            fn default() -> Self {
                Config { $($name: $default,)* }
            }
        }

        /// The names of the fields that [`Config::set`] and the environment accept.
        pub const CONFIG_FIELDS: &[&str] = &[$(stringify!($name)),*];

        impl Config {
            fn set_field(&mut self, field: &str, value: &str) -> Result<()> {
                match field {
                    $(stringify!($name) => self.$name = ($parse)(field, value)?,)*
                    _ => return Err(Error::config(field, "unknown field")),
                }
                Ok(())
            }
        }

        impl ConfigBuilder {
            $(
                #[doc = concat!("Sets [`Config::", stringify!($name), "`]. By default, ", $default_doc, ".")]
                pub fn $name(&mut self, value: $ty) -> &mut Self {
                    self.config.$name = value;
                    self
                }
            )*
        }
    };
}

config_fields! {
    /// The model's context window. By default, 200,000 tokens. Must be a
    /// whole amount, not a fraction.
    context_window: TokenAmount = TokenAmount::Tokens(200_000), "200,000 tokens", parse_text;
    /// The window size at which compaction runs: a fraction of
    /// `context_window` or an absolute amount. By default, 0.8. An absolute
    /// `0` switches automatic compaction off, as does `auto_compact`.
    compact_threshold: TokenAmount = TokenAmount::Fraction(0.8), "0.8", parse_text;
    /// Whether compaction runs on its own when the threshold is reached
    /// (HIST-13). By default, `true`; when `false`, only explicit calls
    /// compact.
    auto_compact: bool = true, "`true`", parse_bool;
    /// The fewest history messages that make compaction worth running. By
    /// default, 3.
    min_messages_to_compact: usize = 3, "3", parse_count;
    /// The newest complete rounds that compaction always keeps (HIST-3). By
    /// default, 10.
    min_retain_rounds: usize = 10, "10", parse_count;
    /// Which side of old rounds compaction summarises (HIST-8). By default,
    /// all.
    compaction_target: CompactionTarget = CompactionTarget::All, "all", parse_text;
    /// How long summary generation may take (HIST-7): compaction and the
    /// rolling step summary wait this long, and `LlmSummarizer::from_config`
    /// takes it as its limit. By default, 120 s.
    #[serde(with = "duration_serde")]
    summary_timeout: Duration = Duration::from_secs(120), "120 s", parse_duration_field;
    /// The model used for summaries, by the summarisers built with
    /// `LlmSummarizer::from_config` and `ToolSummarizer::from_config`. By
    /// default, `None`: the agent's model.
    #[serde(skip_serializing_if = "Option::is_none")]
    summary_model: Option<String> = None, "the agent's model", parse_model;
    /// How long an LLM summary of one tool result may take (TOOL-12), for
    /// the summariser built with `ToolSummarizer::from_config`. By default,
    /// 3 s.
    #[serde(with = "duration_serde")]
    tool_summary_timeout: Duration = Duration::from_secs(3), "3 s", parse_duration_field;
    /// The newest steps of a round that always stay full (REACT-5). By
    /// default, 5.
    keep_full_steps: usize = 5, "5", parse_count;
    /// The newest tool messages that are never cleared to save tokens
    /// (HIST-6). By default, 6.
    keep_tool_messages: usize = 6, "6", parse_count;
    /// The size cap of the project rules layer in bytes (CTX-2). By default,
    /// 32 KiB.
    rules_max_bytes: usize = 32 * 1024, "32 KiB", parse_bytes;
    /// What the engine delegates to the model provider (MODEL-7): `off`,
    /// `clear`, `compact` or `both`. When on, the provider acts at
    /// `compact_threshold` and the engine's own compaction and condensing
    /// step back to `server_context_guard`, as a safety net. By default,
    /// `off`.
    server_context: ServerContext = ServerContext::Off, "`off`", parse_text;
    /// Where the engine steps in itself when context management is
    /// delegated (MODEL-7): a fraction of `context_window` or an amount;
    /// never below `compact_threshold`. By default, 0.95.
    server_context_guard: TokenAmount = TokenAmount::Fraction(0.95), "0.95", parse_text;
}

/// A field's value through its `FromStr`, the error naming the field.
fn parse_text<T: FromStr<Err = Error>>(field: &str, value: &str) -> Result<T> {
    value
        .parse()
        .map_err(|e: Error| Error::config(field, e.to_string()))
}

fn parse_bool(field: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(Error::config(field, format!("`{value}` is not true or false"))),
    }
}

fn parse_count(field: &str, value: &str) -> Result<usize> {
    value
        .trim()
        .parse::<usize>()
        .map_err(|_| Error::config(field, format!("`{value}` is not a whole number")))
}

fn parse_duration_field(field: &str, value: &str) -> Result<Duration> {
    parse_duration(value).map_err(|e| Error::config(field, e.to_string()))
}

fn parse_model(_: &str, value: &str) -> Result<Option<String>> {
    Ok(Some(value.trim().to_owned()).filter(|m| !m.is_empty()))
}

/// A number of bytes, with the suffixes of token amounts (`32k`).
fn parse_bytes(field: &str, value: &str) -> Result<usize> {
    match parse_text::<TokenAmount>(field, value)? {
        TokenAmount::Tokens(n) => usize::try_from(n).map_err(|_| Error::config(field, "too large")),
        TokenAmount::Fraction(_) => Err(Error::config(field, "must be a number of bytes")),
    }
}

impl Config {
    /// A builder starting from the defaults.
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder::default()
    }

    /// The context window in tokens.
    pub fn window_tokens(&self) -> u64 {
        self.context_window.resolve(0)
    }

    /// The window size at which the engine compacts and condenses, in
    /// tokens: `compact_threshold`, or, when context management is
    /// delegated to the provider ([`Config::server_context`]), the larger
    /// of it and `server_context_guard`.
    ///
    /// ```
    /// use strata_ctx_core::{Config, ServerContext};
    ///
    /// let mut config = Config::default();
    /// assert_eq!(config.threshold_tokens(), 160_000);
    /// config.server_context = ServerContext::Compact;
    /// assert_eq!(config.threshold_tokens(), 190_000);
    /// assert_eq!(config.server_trigger_tokens(), 160_000);
    /// ```
    pub fn threshold_tokens(&self) -> u64 {
        let own = self.server_trigger_tokens();
        if self.server_context.is_on() && own > 0 {
            own.max(self.server_context_guard.resolve(self.window_tokens()))
        } else {
            own
        }
    }

    /// The input tokens at which the provider clears or compacts when
    /// context management is delegated (MODEL-7): `compact_threshold`.
    pub fn server_trigger_tokens(&self) -> u64 {
        self.compact_threshold.resolve(self.window_tokens())
    }

    /// Returns `true` when compaction runs on its own (HIST-13).
    pub fn auto_compact_enabled(&self) -> bool {
        self.auto_compact && self.server_trigger_tokens() > 0
    }

    /// Checks the values against each other.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] naming the first bad field.
    pub fn validate(&self) -> Result<()> {
        match self.context_window {
            TokenAmount::Fraction(_) => {
                return Err(Error::config(
                    "context_window",
                    "must be a number of tokens, not a fraction",
                ))
            }
            TokenAmount::Tokens(0) => return Err(Error::config("context_window", "must be above 0")),
            TokenAmount::Tokens(_) => {}
        }
        if let TokenAmount::Tokens(n) = self.compact_threshold {
            if n > self.window_tokens() {
                return Err(Error::config(
                    "compact_threshold",
                    format!(
                        "{n} tokens is more than the context window of {}",
                        self.window_tokens()
                    ),
                ));
            }
        }
        if self.server_context_guard.resolve(self.window_tokens()) > self.window_tokens() {
            return Err(Error::config(
                "server_context_guard",
                "is more than the context window",
            ));
        }
        if self.summary_timeout.is_zero() {
            return Err(Error::config("summary_timeout", "must be above 0"));
        }
        if self.tool_summary_timeout.is_zero() {
            return Err(Error::config("tool_summary_timeout", "must be above 0"));
        }
        Ok(())
    }

    /// Parses and validates TOML text.
    ///
    /// # Errors
    ///
    /// [`Error::ConfigParse`] with the parser's message (which names the
    /// line and key) for bad syntax, unknown fields or bad values;
    /// [`Error::InvalidConfig`] when validation fails.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        let config: Config = toml::from_str(text).map_err(|e| Error::ConfigParse {
            origin: "TOML text".into(),
            message: e.to_string().trim_end().to_owned(),
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Parses and validates JSON text.
    ///
    /// # Errors
    ///
    /// As [`Config::from_toml_str`].
    pub fn from_json_str(text: &str) -> Result<Self> {
        let config: Config = serde_json::from_str(text).map_err(|e| Error::ConfigParse {
            origin: "JSON text".into(),
            message: e.to_string(),
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Reads a `.toml` or `.json` file (judged by its extension; anything
    /// else is read as TOML).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be read; otherwise as
    /// [`Config::from_toml_str`], with the path as the origin.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        let is_json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let parsed = if is_json {
            Config::from_json_str(&text)
        } else {
            Config::from_toml_str(&text)
        };
        parsed.map_err(|e| match e {
            Error::ConfigParse { message, .. } => Error::ConfigParse {
                origin: path.display().to_string(),
                message,
            },
            other => other,
        })
    }

    /// Sets one field from text, as a file or variable would give it.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] naming `field` when the field is unknown or
    /// the value does not parse. The configuration is unchanged then.
    pub fn set(&mut self, field: &str, value: &str) -> Result<()> {
        self.set_field(field, value)
    }

    /// Applies `STRATA_<FIELD>` variables from the process environment,
    /// then validates.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] naming the variable whose value is bad, or
    /// the field that fails validation.
    pub fn apply_env(&mut self) -> Result<()> {
        self.apply_vars(
            std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
        )
    }

    /// Applies `STRATA_<FIELD>` pairs from `vars` (for tests, or an
    /// environment kept elsewhere), then validates. Other variables,
    /// including `STRATA_*` ones of other crates, are ignored.
    ///
    /// # Errors
    ///
    /// As [`Config::apply_env`].
    pub fn apply_vars<K, V>(&mut self, vars: impl IntoIterator<Item = (K, V)>) -> Result<()>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut next = self.clone();
        for (key, value) in vars {
            let Some(field) = key.as_ref().strip_prefix("STRATA_") else {
                continue;
            };
            let field = field.to_ascii_lowercase();
            if CONFIG_FIELDS.contains(&field.as_str()) {
                next.set(&field, value.as_ref()).map_err(|e| match e {
                    Error::InvalidConfig { reason, .. } => Error::InvalidConfig {
                        field: key.as_ref().to_owned(),
                        reason,
                    },
                    other => other,
                })?;
            }
        }
        next.validate()?;
        *self = next;
        Ok(())
    }

    /// The defaults, then the file at `path` if given, then the
    /// environment.
    ///
    /// # Errors
    ///
    /// As [`Config::from_file`] and [`Config::apply_env`].
    pub fn load(path: Option<&Path>) -> Result<Self> {
        let mut config = match path {
            Some(path) => Config::from_file(path)?,
            None => Config::default(),
        };
        config.apply_env()?;
        Ok(config)
    }
}

/// Builds a validated [`Config`].
///
/// # Example
///
/// ```
/// use strata_ctx_core::{Config, TokenAmount};
///
/// let config = Config::builder()
///     .context_window(TokenAmount::Tokens(32_000))
///     .min_retain_rounds(4)
///     .build()?;
/// assert_eq!(config.threshold_tokens(), 25_600);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ConfigBuilder {
    config: Config,
}

impl ConfigBuilder {
    /// Validates and returns the configuration. The builder can be used
    /// again.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] naming the first bad field.
    pub fn build(&self) -> Result<Config> {
        self.config.validate()?;
        Ok(self.config.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_8_token_amount_table() {
        let good: &[(&str, TokenAmount)] = &[
            ("81920", TokenAmount::Tokens(81_920)),
            ("80k", TokenAmount::Tokens(81_920)),
            ("80K", TokenAmount::Tokens(81_920)),
            ("1.5M", TokenAmount::Tokens(1_572_864)),
            ("2m", TokenAmount::Tokens(2_097_152)),
            ("0.5k", TokenAmount::Tokens(512)),
            (" 0.8 ", TokenAmount::Fraction(0.8)),
            (".25", TokenAmount::Fraction(0.25)),
            ("0", TokenAmount::Tokens(0)),
        ];
        for (text, want) in good {
            assert_eq!(text.parse::<TokenAmount>().unwrap(), *want, "{text}");
        }
        let bad: &[(&str, &str)] = &[
            ("80kk", "invalid token amount `80kk`: expected a whole number (81920), a number with k or M (80k, 1.5M) or a fraction below 1 (0.8)"),
            ("-1", "invalid token amount `-1`: negative amounts are not allowed"),
            ("1.0", "invalid token amount `1.0`: a number with a decimal point is a share of the window and must lie strictly between 0 and 1 (or carry a k or M unit)"),
            ("0.0", "invalid token amount `0.0`: a number with a decimal point is a share of the window and must lie strictly between 0 and 1 (or carry a k or M unit)"),
            ("", "invalid token amount ``: empty"),
            ("  ", "invalid token amount `  `: empty"),
            ("k", "invalid token amount `k`: expected a whole number (81920), a number with k or M (80k, 1.5M) or a fraction below 1 (0.8)"),
            ("1.2.3", "invalid token amount `1.2.3`: expected a whole number (81920), a number with k or M (80k, 1.5M) or a fraction below 1 (0.8)"),
            ("80 k", "invalid token amount `80 k`: expected a whole number (81920), a number with k or M (80k, 1.5M) or a fraction below 1 (0.8)"),
            ("1e5", "invalid token amount `1e5`: expected a whole number (81920), a number with k or M (80k, 1.5M) or a fraction below 1 (0.8)"),
            ("NaN", "invalid token amount `NaN`: expected a whole number (81920), a number with k or M (80k, 1.5M) or a fraction below 1 (0.8)"),
            ("99999999999999999999", "invalid token amount `99999999999999999999`: too large"),
            ("99999999999999999M", "invalid token amount `99999999999999999M`: too large"),
        ];
        for (text, message) in bad {
            let err = text.parse::<TokenAmount>().unwrap_err();
            assert!(matches!(err, Error::InvalidTokenAmount { ref value, .. } if value == text));
            assert_eq!(err.to_string(), *message);
        }
    }

    #[test]
    fn core_7_defaults() {
        let c = Config::default();
        assert_eq!(c.window_tokens(), 200_000);
        assert_eq!(c.threshold_tokens(), 160_000);
        assert_eq!(c.min_messages_to_compact, 3);
        assert_eq!(c.min_retain_rounds, 10);
        assert_eq!(c.summary_timeout, Duration::from_secs(120));
        assert!(c.auto_compact_enabled());
        c.validate().unwrap();
    }

    #[test]
    fn core_7_toml_and_json_files() {
        let dir = std::env::temp_dir().join(format!("strata-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let toml_path = dir.join("strata.toml");
        std::fs::write(&toml_path, "context_window = \"64k\"\ncompact_threshold = \"48k\"\nsummary_timeout = \"2m\"\ncompaction_target = \"user\"\n").unwrap();
        let c = Config::from_file(&toml_path).unwrap();
        assert_eq!(c.threshold_tokens(), 49_152);
        assert_eq!(c.summary_timeout, Duration::from_secs(120));
        assert_eq!(c.compaction_target, CompactionTarget::User);

        let json_path = dir.join("strata.json");
        std::fs::write(&json_path, serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(Config::from_file(&json_path).unwrap(), c);

        std::fs::write(&toml_path, "context_window = \"80kk\"\n").unwrap();
        let err = Config::from_file(&toml_path).unwrap_err().to_string();
        assert!(
            err.contains("strata.toml") && err.contains("80kk") && err.contains("context_window"),
            "{err}"
        );

        std::fs::write(&toml_path, "context_windw = 5\n").unwrap();
        let err = Config::from_file(&toml_path).unwrap_err().to_string();
        assert!(err.contains("context_windw"), "{err}");

        let err = Config::from_file(dir.join("missing.toml")).unwrap_err();
        assert!(matches!(err, Error::Io { .. }));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn core_7_validation_names_the_field() {
        let err =
            Config::from_json_str(r#"{"context_window": 1000, "compact_threshold": 5000}"#).unwrap_err();
        assert!(
            matches!(err, Error::InvalidConfig { ref field, .. } if field == "compact_threshold"),
            "{err}"
        );
        let err = Config::from_json_str(r#"{"context_window": 0.5}"#).unwrap_err();
        assert!(
            matches!(err, Error::InvalidConfig { ref field, .. } if field == "context_window"),
            "{err}"
        );
        let err = Config::from_json_str(r#"{"min_retain_rounds": -2}"#).unwrap_err();
        assert!(
            err.to_string().contains("min_retain_rounds") || err.to_string().contains("-2"),
            "{err}"
        );
        let err = Config::builder()
            .summary_timeout(Duration::ZERO)
            .build()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid configuration field `summary_timeout`: must be above 0"
        );
    }

    #[test]
    fn core_7_env_vars() {
        let mut c = Config::default();
        c.apply_vars([
            ("STRATA_CONTEXT_WINDOW", "128k"),
            ("STRATA_COMPACT_THRESHOLD", "0.5"),
            ("STRATA_AUTO_COMPACT", "off"),
            ("STRATA_SUMMARY_TIMEOUT", "500ms"),
            ("STRATA_OPENAI_API_KEY", "ignored"),
            ("HOME", "/root"),
        ])
        .unwrap();
        assert_eq!(c.threshold_tokens(), 65_536);
        assert!(!c.auto_compact_enabled());
        assert_eq!(c.summary_timeout, Duration::from_millis(500));

        let before = c.clone();
        let err = c.apply_vars([("STRATA_MIN_RETAIN_ROUNDS", "ten")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid configuration field `STRATA_MIN_RETAIN_ROUNDS`: `ten` is not a whole number"
        );
        assert_eq!(c, before, "a failed update changes nothing");
        let err = c
            .apply_vars([
                ("STRATA_CONTEXT_WINDOW", "1k"),
                ("STRATA_COMPACT_THRESHOLD", "2k"),
            ])
            .unwrap_err();
        assert!(matches!(err, Error::InvalidConfig { ref field, .. } if field == "compact_threshold"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("120").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("2.5").unwrap(), Duration::from_millis(2500));
        assert_eq!(parse_duration("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("1h 30m").unwrap(), Duration::from_secs(5_400));
        assert_eq!(parse_duration("5 days").unwrap(), Duration::from_secs(5 * 86_400));
        for bad in ["", "-1", "-3s", "5 parsecs", "ms", "1e3"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(values::format_duration(Duration::from_millis(1500)), "1s 500ms");
        assert_eq!(values::format_duration(Duration::from_secs(3)), "3s");
        for d in [
            Duration::from_millis(1500),
            Duration::from_secs(120),
            Duration::from_secs(5_400),
        ] {
            assert_eq!(
                parse_duration(&values::format_duration(d)).unwrap(),
                d,
                "round trip of {d:?}"
            );
        }
    }
}
