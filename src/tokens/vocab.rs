//! The built-in token tables, read in place from the library's own image: the rank of a byte
//! string, and every rank's bytes, for both encodings. The build script writes them (see
//! `layout`), so nothing is decompressed or hashed when a process starts: a lookup touches only
//! the pages it reads. Lookups never allocate.

use super::layout::{self, slot_bytes, slot_rank, ABSENT, EMPTY, KEY_MASK};
use super::Encoding;

/// Bytes of an embedded table, aligned so its words can be read in place.
#[repr(C, align(8))]
struct Aligned<B: ?Sized>(B);

macro_rules! table {
    ($name:literal) => {{
        static SINGLES: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".singles")));
        static PAIRS: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".pairs")));
        static SLOTS: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".slots")));
        static ARENA: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".arena"));
        Vocab::new(words(&SINGLES.0), words(&PAIRS.0), words(&SLOTS.0), ARENA)
    }};
}

/// The words of `bytes`, as the build script wrote them (little-endian: every target Node runs
/// on is). Empty if they do not fill whole aligned words, which a table never fails to.
fn words<T: Word>(bytes: &'static [u8]) -> &'static [T] {
    // SAFETY: `T` is `u32` or `u64`, for which every bit pattern is valid; `align_to` hands back
    // whatever is misaligned or left over in `prefix` and `suffix`, checked empty.
    let (prefix, words, suffix) = unsafe { bytes.align_to::<T>() };
    if prefix.is_empty() && suffix.is_empty() {
        words
    } else {
        &[]
    }
}

/// The word types a table holds.
trait Word {}
impl Word for u32 {}
impl Word for u64 {}

/// One encoding's table.
pub(super) struct Vocab {
    singles: &'static [u32],
    pairs: &'static [u32],
    slots: &'static [u64],
    arena: &'static [u8],
    bits: u32,
}

impl Vocab {
    /// The table of `encoding`.
    pub(super) fn of(encoding: Encoding) -> &'static Vocab {
        static O200K: std::sync::OnceLock<Vocab> = std::sync::OnceLock::new();
        static CL100K: std::sync::OnceLock<Vocab> = std::sync::OnceLock::new();
        match encoding {
            Encoding::O200kBase => O200K.get_or_init(|| table!("o200k_base")),
            Encoding::Cl100kBase => CL100K.get_or_init(|| table!("cl100k_base")),
        }
    }

    fn new(singles: &'static [u32], pairs: &'static [u32], slots: &'static [u64], arena: &'static [u8]) -> Vocab {
        let bits = slots.len().trailing_zeros();
        // A table that is not what the build script writes (it never is) reads as empty: every
        // lookup misses, and counting falls back to one token per byte rather than failing.
        if singles.len() != 256 || pairs.len() != 1 << 16 || slots.len() != 1 << bits || bits == 0 {
            return Vocab { singles: &[], pairs: &[], slots: &[], arena: &[], bits: 0 };
        }
        Vocab { singles, pairs, slots, arena, bits }
    }

    /// The rank of `bytes`, if they are a token.
    #[inline]
    pub(super) fn rank(&self, bytes: &[u8]) -> Option<u32> {
        let found = match bytes {
            [a] => self.singles.get(*a as usize).copied(),
            [a, b] => self.pairs.get((*a as usize) << 8 | *b as usize).copied(),
            _ => return self.long_rank(bytes),
        };
        found.filter(|&r| r != ABSENT).map(u32::from_le)
    }

    fn long_rank(&self, bytes: &[u8]) -> Option<u32> {
        if self.bits == 0 {
            return None;
        }
        let h = layout::hash(bytes);
        let key = layout::key(bytes.len(), h);
        let mask = (1usize << self.bits) - 1;
        let mut at = layout::home(h, self.bits);
        for _ in 0..self.slots.len() {
            let slot = u64::from_le(*self.slots.get(at)?);
            if slot == EMPTY {
                return None;
            }
            if slot & KEY_MASK == key && self.holds(slot, bytes) {
                return Some(slot_rank(slot));
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// Whether the token of `slot` (of the same length as `bytes`) is `bytes`.
    #[inline]
    fn holds(&self, slot: u64, bytes: &[u8]) -> bool {
        let offset = slot_bytes(slot).start;
        if bytes.len() <= 8 {
            // The arena ends in 8 zero bytes, so 8 bytes can be read at any token.
            let Some(stored) = self.arena.get(offset..offset + 8) else { return false };
            let shift = 64 - 8 * bytes.len() as u32;
            return (layout::word(stored) << shift) == (layout::word(bytes) << shift);
        }
        self.arena.get(offset..offset + bytes.len()) == Some(bytes)
    }

    /// Every rank's bytes, indexed by rank (for building the linear engine, and tests).
    pub(super) fn tokens(&self) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = Vec::new();
        let mut put = |rank: u32, bytes: &[u8]| {
            let r = rank as usize;
            if out.len() <= r {
                out.resize(r + 1, Vec::new());
            }
            out[r] = bytes.to_vec();
        };
        for (i, &rank) in self.singles.iter().enumerate() {
            if rank != ABSENT {
                put(u32::from_le(rank), &[i as u8]);
            }
        }
        for (i, &rank) in self.pairs.iter().enumerate() {
            if rank != ABSENT {
                put(u32::from_le(rank), &[(i >> 8) as u8, i as u8]);
            }
        }
        for &slot in self.slots {
            let slot = u64::from_le(slot);
            if slot == EMPTY {
                continue;
            }
            if let Some(bytes) = self.arena.get(slot_bytes(slot)) {
                put(slot_rank(slot), bytes);
            }
        }
        out
    }
}
