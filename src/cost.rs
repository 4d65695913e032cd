//! What model calls cost: prices per model and the cost of a call's usage
//! (MODEL-5).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use strata_ctx_core::{Error, Result, Usage};

/// The price table shipped with Strata (`data/prices.toml`).
const BUILTIN: &str = include_str!("../data/prices.toml");

/// What a model charges, in US dollars per million tokens.
///
/// # Example
///
/// ```
/// use strata_ctx::{Price, Usage};
///
/// let price = Price::new(3.0, 15.0).with_cached_input(0.3).with_cache_write(3.75);
/// // 10,000 tokens sent, 8,000 of them read from the cache; 500 written.
/// let mut usage = Usage::new(10_000, 500);
/// usage.cached_input_tokens = Some(8_000);
/// let usd = price.cost(&usage);
/// assert!((usd - (2_000.0 * 3.0 + 8_000.0 * 0.3 + 500.0 * 15.0) / 1e6).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Price {
    /// Input tokens.
    pub input: f64,
    /// Input tokens read from the provider's prompt cache. By default, the
    /// input price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input: Option<f64>,
    /// Input tokens written to the provider's prompt cache. By default,
    /// the input price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    /// Output tokens.
    pub output: f64,
}

impl Price {
    /// A price of `input` and `output` dollars per million tokens, cache
    /// reads and writes at the input price.
    pub fn new(input: f64, output: f64) -> Self {
        Price {
            input,
            cached_input: None,
            cache_write: None,
            output,
        }
    }

    /// Sets the price of input read from the prompt cache.
    pub fn with_cached_input(mut self, usd_per_million: f64) -> Self {
        self.cached_input = Some(usd_per_million);
        self
    }

    /// Sets the price of input written to the prompt cache.
    pub fn with_cache_write(mut self, usd_per_million: f64) -> Self {
        self.cache_write = Some(usd_per_million);
        self
    }

    /// What `usage` costs, in US dollars. Strata's usage counts the whole
    /// window as input, cache reads and writes included; those parts are
    /// charged at their own prices and the rest at the input price.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_input_tokens.unwrap_or(0);
        let written = usage.cache_write_tokens.unwrap_or(0);
        let plain = usage.input_tokens.saturating_sub(cached).saturating_sub(written);
        let usd = plain as f64 * self.input
            + cached as f64 * self.cached_input.unwrap_or(self.input)
            + written as f64 * self.cache_write.unwrap_or(self.input)
            + usage.output_tokens as f64 * self.output;
        usd / 1_000_000.0
    }

    fn check(&self, model: &str) -> Result<()> {
        let prices = [
            Some(self.input),
            self.cached_input,
            self.cache_write,
            Some(self.output),
        ];
        if prices.into_iter().flatten().all(|p| p.is_finite() && p >= 0.0) {
            Ok(())
        } else {
            Err(Error::ConfigParse {
                origin: "price table".into(),
                message: format!("the prices of `{model}` must be finite and not negative"),
            })
        }
    }
}

impl std::str::FromStr for Price {
    type Err = Error;

    /// `INPUT,OUTPUT` in US dollars per million tokens (`2.5,10`), as
    /// command lines take a price.
    fn from_str(text: &str) -> Result<Self> {
        let bad = || Error::InvalidConfig {
            field: "price".into(),
            reason: format!("`{text}`: expected INPUT,OUTPUT in dollars per million tokens"),
        };
        let (input, output) = text.split_once(',').ok_or_else(bad)?;
        let price = Price::new(
            input.trim().parse().map_err(|_| bad())?,
            output.trim().parse().map_err(|_| bad())?,
        );
        price.check(text).map_err(|_| bad())?;
        Ok(price)
    }
}

/// Prices per model (MODEL-5): the table shipped with Strata, your own, or
/// both merged.
///
/// A model name finds its entry exactly, or else the longest entry it
/// starts with, followed by `-` (`gpt-4o-2024-08-06` is priced as
/// `gpt-4o`, `gpt-4o-mini-2024-07-18` as `gpt-4o-mini`).
///
/// # Example
///
/// ```
/// use strata_ctx::PriceTable;
///
/// let mut prices = PriceTable::builtin();
/// assert!(prices.get("gpt-4o-2024-08-06").is_some());
/// prices.merge(PriceTable::from_toml_str(r#"
///     [models."my-local-model"]
///     input = 0.0
///     output = 0.0
/// "#)?);
/// assert_eq!(prices.get("my-local-model").map(|p| p.output), Some(0.0));
/// # Ok::<(), strata_ctx_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    models: BTreeMap<String, Price>,
}

impl PriceTable {
    /// An empty table.
    pub fn new() -> Self {
        PriceTable::default()
    }

    /// The table shipped with Strata: current models of OpenAI and
    /// Anthropic as their pricing pages list them. Prices change; check
    /// and override them.
    pub fn builtin() -> Self {
        // The shipped table is tested to parse; an empty table is the
        // harmless answer should it ever not.
        PriceTable::from_toml_str(BUILTIN).unwrap_or_default()
    }

    /// A table from TOML: `[models."NAME"]` tables with `input`, `output`
    /// and optionally `cached_input` and `cache_write`, in US dollars per
    /// million tokens.
    ///
    /// # Errors
    ///
    /// [`Error::ConfigParse`] when the text is not such a table or a
    /// price is negative or not a number.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        let table: PriceTable = toml::from_str(text).map_err(|e| Error::ConfigParse {
            origin: "price table".into(),
            message: e.to_string(),
        })?;
        for (model, price) in &table.models {
            price.check(model)?;
        }
        Ok(table)
    }

    /// Adds or replaces the price of `model`.
    pub fn insert(&mut self, model: impl Into<String>, price: Price) -> &mut Self {
        self.models.insert(model.into(), price);
        self
    }

    /// Adds the entries of `other`, which replace this table's for the
    /// same model.
    pub fn merge(&mut self, other: PriceTable) -> &mut Self {
        self.models.extend(other.models);
        self
    }

    /// The price of `model`: its own entry, or the longest entry it
    /// starts with followed by `-`.
    pub fn get(&self, model: &str) -> Option<Price> {
        if let Some(price) = self.models.get(model) {
            return Some(*price);
        }
        self.models
            .iter()
            .filter(|(name, _)| {
                model
                    .strip_prefix(name.as_str())
                    .is_some_and(|rest| rest.starts_with('-'))
            })
            .max_by_key(|(name, _)| name.len())
            .map(|(_, price)| *price)
    }

    /// The models the table prices, in name order.
    pub fn models(&self) -> impl Iterator<Item = &str> {
        self.models.keys().map(String::as_str)
    }
}

/// What the calls of an engine cost so far, in US dollars (MODEL-5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Cost {
    /// The last call.
    pub call: f64,
    /// The calls of the round in progress (or of the last round).
    pub round: f64,
    /// Every call since the engine was built.
    pub session: f64,
}

impl Cost {
    /// Adds a call that cost `usd`.
    pub fn add(&mut self, usd: f64) {
        self.call = usd;
        self.round += usd;
        self.session += usd;
    }

    /// Starts a new round: its cost is 0 again.
    pub fn new_round(&mut self) {
        self.round = 0.0;
        self.call = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prov_2_builtin_table_parses_and_matches_dated_names() {
        let table = PriceTable::from_toml_str(BUILTIN).unwrap();
        assert!(table.models().count() >= 10);
        assert_eq!(PriceTable::builtin(), table);
        let mini = table.get("gpt-4o-mini").unwrap();
        assert_eq!(table.get("gpt-4o-mini-2024-07-18"), Some(mini));
        assert_ne!(table.get("gpt-4o-2024-08-06"), Some(mini));
        assert_eq!(table.get("gpt-4o-2024-08-06"), table.get("gpt-4o"));
        assert_eq!(
            table.get("claude-sonnet-4-5-20250929"),
            table.get("claude-sonnet-4-5")
        );
        assert_eq!(
            table.get("claude-sonnet-4-20250514"),
            table.get("claude-sonnet-4")
        );
        assert!(table.get("gpt-4o1").is_none(), "a prefix must end at a dash");
        assert!(table.get("unknown-model").is_none());
    }

    #[test]
    fn prov_2_cost_charges_cache_reads_and_writes_apart() {
        let price = Price::new(3.0, 15.0)
            .with_cached_input(0.3)
            .with_cache_write(3.75);
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cached_input_tokens: Some(600_000),
            cache_write_tokens: Some(100_000),
        };
        let usd = price.cost(&usage);
        let expected = 0.3 * 3.0 + 0.6 * 0.3 + 0.1 * 3.75 + 0.1 * 15.0;
        assert!((usd - expected).abs() < 1e-9, "{usd}");
        // Cache figures larger than the input never make the cost negative.
        let odd = Usage {
            input_tokens: 10,
            output_tokens: 0,
            cached_input_tokens: Some(50),
            cache_write_tokens: None,
        };
        assert!(price.cost(&odd) >= 0.0);
        assert_eq!(Price::new(1.0, 2.0).cost(&Usage::new(1_000_000, 1_000_000)), 3.0);
    }

    #[test]
    fn prov_2_bad_tables_are_typed_errors() {
        for bad in [
            "models = 3",
            "[models.x]\ninput = -1.0\noutput = 1.0",
            "[models.x]\ninput = nan\noutput = 1.0",
            "[models.x]\noutput = 1.0",
        ] {
            assert!(
                matches!(PriceTable::from_toml_str(bad), Err(Error::ConfigParse { .. })),
                "{bad}"
            );
        }
        let mut table = PriceTable::builtin();
        table.merge(PriceTable::from_toml_str("[models.\"gpt-4o\"]\ninput = 1.0\noutput = 2.0").unwrap());
        assert_eq!(table.get("gpt-4o-2024-08-06"), Some(Price::new(1.0, 2.0)));
        assert_eq!("2.5, 10".parse::<Price>().unwrap(), Price::new(2.5, 10.0));
        for bad in ["2.5", "cheap,1", "-1,2", "1,nan", ""] {
            assert!(
                matches!(bad.parse::<Price>(), Err(Error::InvalidConfig { .. })),
                "{bad}"
            );
        }
        let mut cost = Cost::default();
        cost.add(0.5);
        cost.add(0.25);
        cost.new_round();
        cost.add(1.0);
        assert_eq!((cost.call, cost.round, cost.session), (1.0, 1.0, 1.75));
    }
}
