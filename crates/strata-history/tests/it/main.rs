//! Integration tests of strata-history.
