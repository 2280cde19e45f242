//! Statistics: descriptive measures and two-sample tests.
