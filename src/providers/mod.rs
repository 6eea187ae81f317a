//! Providers: compositions of passes behind one entry, each working on a `Draft` of the history.

pub mod lossless;
pub mod native;
pub mod smart;
pub mod truncation;
