//! Providers: compositions of passes behind one entry. Only Lossless exists in this version;
//! the others are named so asking for them gives a clear "not built yet".

pub mod lossless;
pub mod native;
pub mod smart;
pub mod truncation;
