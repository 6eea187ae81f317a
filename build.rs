//! Build script: the token tables the counting engine reads in place.
//! The tables are written into the build's output folder from the `tiktoken` crate's vocabularies
//! (the bytes of every rank), laid out by `src/tokens/layout.rs`, so a fresh process loads and
//! decompresses nothing before its first count. Writes nothing outside the output folder.

#[path = "src/tokens/layout.rs"]
#[allow(dead_code)] // the reading half is the engine's
mod layout;

use std::path::Path;

/// Each built-in encoding and the size of its hash table (about 2.6 slots per token).
const ENCODINGS: [(&str, u32); 2] = [("o200k_base", 19), ("cl100k_base", 18)];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/tokens/layout.rs");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    for (name, bits) in ENCODINGS {
        if let Err(e) = write_table(Path::new(&out), name, bits) {
            panic!("the {name} token table: {e}");
        }
    }
}

fn write_table(out: &Path, name: &str, bits: u32) -> Result<(), String> {
    let encoding = tiktoken::get_encoding(name).ok_or("the tiktoken crate does not have it")?;
    // The ordinary ranks, 0 to the vocabulary size (special tokens are counted as plain text).
    let ranks = encoding.vocab_size();
    let tokens: Vec<Vec<u8>> = (0..ranks as u32).map(|rank| encoding.decode(&[rank])).collect();
    let laid = layout::lay_out(&tokens, bits)?;
    if laid.longest_probe > 64 {
        return Err(format!("a lookup probes {} slots: the hash spreads tokens badly", laid.longest_probe));
    }
    let write = |ext: &str, bytes: Vec<u8>| {
        std::fs::write(out.join(format!("{name}.{ext}")), bytes).map_err(|e| format!("writing {name}.{ext}: {e}"))
    };
    write("singles", laid.singles.iter().flat_map(|w| w.to_le_bytes()).collect())?;
    write("pairs", laid.pairs.iter().flat_map(|w| w.to_le_bytes()).collect())?;
    write("slots", laid.slots.iter().flat_map(|w| w.to_le_bytes()).collect())?;
    write("arena", laid.arena)
}
