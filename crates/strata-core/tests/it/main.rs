//! Integration tests of strata-core, over histories made by strata-testkit.

mod props;
