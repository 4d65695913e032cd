//! Integration tests of strata-compress.
