//! Memory the engine keeps small: freed memory given back to the system (glibc keeps it in its
//! arenas otherwise, so a burst of work leaves the process that much larger), and vectors held
//! between calls grown by an eighth rather than doubled. Touches no data.

/// Returns the free memory of every malloc arena to the system (glibc on Linux; a no-op elsewhere).
pub fn give_back_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it is thread-safe in glibc.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Makes room in `v` for `more` items, growing by an eighth of its length at least (not doubling
/// as `Vec` does): a vector held for the life of a conversation wastes at most an eighth of itself,
/// and appending stays amortized linear.
pub fn reserve_modestly<T>(v: &mut Vec<T>, more: usize) {
    if v.capacity() - v.len() < more {
        v.reserve_exact(more.max(v.len() / 8));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_grow_by_an_eighth() {
        let mut v: Vec<u64> = Vec::new();
        for _ in 0..1000 {
            reserve_modestly(&mut v, 1);
            v.push(0);
        }
        assert!(v.capacity() <= 1000 + 1000 / 8, "{}", v.capacity());
        reserve_modestly(&mut v, 5000);
        assert!(v.capacity() >= 6000 && v.capacity() <= 6000 + 1000 / 8);
    }
}
