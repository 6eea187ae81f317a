//! How the built-in token tables are laid out, shared word for word by the build script (which
//! writes them from the vocabularies) and the engine (which reads them in place, so a fresh process
//! loads nothing): the hash of a token's bytes, the slot that holds it, and the layout itself.
//! Pure functions of bytes; touches no files.
//!
//! A table is four arrays. Tokens of one byte and of two bytes are found by indexing: `singles`
//! (256 ranks) and `pairs` (65,536 ranks, [`ABSENT`] where the two bytes are no token). Longer
//! tokens sit in `arena`, one after another (then 8 zero bytes, so any token's first 8 bytes can be
//! read as one word), and in `slots`, an open-addressing hash table of `2^bits` words, each holding
//! a token's rank, length, place in the arena and a tag of its hash (see [`slot`]); probing is
//! linear and an empty slot is [`EMPTY`]. A lookup reads one slot, mostly, then the arena once.

/// A rank that is no token in `singles` and `pairs`.
pub const ABSENT: u32 = u32::MAX;
/// An empty slot.
pub const EMPTY: u64 = u64::MAX;

/// Bits of a slot: the rank (o200k_base has 199,998 ranks), the length, the offset in the arena,
/// the tag (what is left).
pub const RANK_BITS: u32 = 18;
pub const LEN_BITS: u32 = 8;
pub const OFFSET_BITS: u32 = 22;
pub const LEN_SHIFT: u32 = RANK_BITS;
pub const OFFSET_SHIFT: u32 = RANK_BITS + LEN_BITS;
pub const TAG_SHIFT: u32 = RANK_BITS + LEN_BITS + OFFSET_BITS;

/// The slot of a token: its rank, length and offset in the arena, and the tag of its hash.
#[inline]
pub fn slot(rank: u32, len: usize, offset: usize, hash: u64) -> u64 {
    rank as u64 | (len as u64) << LEN_SHIFT | (offset as u64) << OFFSET_SHIFT | tag(hash)
}

/// The rank a slot holds.
#[inline]
pub fn slot_rank(slot: u64) -> u32 {
    (slot & ((1 << RANK_BITS) - 1)) as u32
}

/// Where the token of a slot lies in the arena.
#[inline]
pub fn slot_bytes(slot: u64) -> std::ops::Range<usize> {
    let offset = (slot >> OFFSET_SHIFT) as usize & ((1 << OFFSET_BITS) - 1);
    offset..offset + ((slot >> LEN_SHIFT) as usize & ((1 << LEN_BITS) - 1))
}

/// What a slot must hold, under [`KEY_MASK`], for a token of this length and hash.
#[inline]
pub fn key(len: usize, hash: u64) -> u64 {
    (len as u64) << LEN_SHIFT | tag(hash)
}

/// The length and tag bits of a slot.
pub const KEY_MASK: u64 = (((1u64 << LEN_BITS) - 1) << LEN_SHIFT) | !((1u64 << TAG_SHIFT) - 1);

#[inline]
fn tag(hash: u64) -> u64 {
    hash << TAG_SHIFT
}

/// The first `bytes.len()` (at most 8) bytes of `bytes` as a little-endian word, zero-padded.
#[inline]
pub fn word(bytes: &[u8]) -> u64 {
    // Fixed-size reads (two overlapping ones below 8 bytes), which compile to plain loads where a
    // copy of a variable length would call `memcpy`.
    let n = bytes.len();
    if let Some(b) = bytes.first_chunk::<8>() {
        return u64::from_le_bytes(*b);
    }
    if n >= 4 {
        let (Some(lo), Some(hi)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) else { return 0 };
        return u32::from_le_bytes(*lo) as u64 | (u32::from_le_bytes(*hi) as u64) << ((n - 4) * 8);
    }
    bytes.iter().rev().fold(0, |w, &b| w << 8 | b as u64)
}

/// The 64-bit hash of a token's bytes (three or more): their little-endian 8-byte words (the last
/// zero-padded) folded by multiply and rotate, the length first, then mixed so that both the high
/// bits (the slot) and the low bits (the tag) are good.
#[inline]
pub fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        h = (h ^ word(w)).wrapping_mul(K).rotate_left(31);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        h = (h ^ word(rest)).wrapping_mul(K).rotate_left(31);
    }
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^ (h >> 32)
}

/// The first slot to probe for `hash` in a table of `2^bits` slots.
#[inline]
pub fn home(hash: u64, bits: u32) -> usize {
    (hash >> (64 - bits)) as usize
}

/// A laid-out table.
#[allow(dead_code)] // the engine reads tables in place; only the build script and tests build one
pub struct Laid {
    pub singles: Vec<u32>,
    pub pairs: Vec<u32>,
    pub arena: Vec<u8>,
    pub slots: Vec<u64>,
    /// The longest run of slots one lookup probes.
    pub longest_probe: usize,
}

/// Lays out `tokens` (indexed by rank) in a table of `2^bits` slots. Fails when the tokens do not
/// fit the slot format or repeat.
#[allow(dead_code)]
pub fn lay_out(tokens: &[Vec<u8>], bits: u32) -> Result<Laid, String> {
    if tokens.len() >= 1 << RANK_BITS || tokens.len() * 2 > 1 << bits {
        return Err(format!("{} tokens do not fit a table of 2^{bits} slots", tokens.len()));
    }
    let mut singles = vec![ABSENT; 256];
    let mut pairs = vec![ABSENT; 1 << 16];
    let mut arena = Vec::new();
    let mut slots = vec![EMPTY; 1 << bits];
    let mask = (1usize << bits) - 1;
    let mut longest_probe = 0;
    for (rank, token) in tokens.iter().enumerate() {
        let rank = rank as u32;
        let place = match token.len() {
            0 => return Err(format!("rank {rank} has no bytes")),
            1 => &mut singles[token[0] as usize],
            2 => &mut pairs[(token[0] as usize) << 8 | token[1] as usize],
            n if n >= 1 << LEN_BITS => return Err(format!("rank {rank} is {n} bytes long")),
            _ => {
                let offset = arena.len();
                if offset + token.len() >= 1 << OFFSET_BITS {
                    return Err("the tokens pass the arena's offsets".to_string());
                }
                arena.extend_from_slice(token);
                let h = hash(token);
                let mut at = home(h, bits);
                let mut probe = 1;
                while slots[at] != EMPTY {
                    if arena.get(slot_bytes(slots[at])) == Some(&token[..]) {
                        return Err(format!("rank {rank} repeats an earlier token"));
                    }
                    at = (at + 1) & mask;
                    probe += 1;
                }
                slots[at] = slot(rank, token.len(), offset, h);
                longest_probe = longest_probe.max(probe);
                continue;
            }
        };
        if *place != ABSENT {
            return Err(format!("ranks {} and {rank} are the same bytes", *place));
        }
        *place = rank;
    }
    arena.extend_from_slice(&[0; 8]);
    Ok(Laid { singles, pairs, arena, slots, longest_probe })
}
