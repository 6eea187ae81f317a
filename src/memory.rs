//! Memory the engine keeps small: freed memory given back to the system (glibc keeps it in its
//! arenas otherwise, so a burst of work leaves the process that much larger), vectors held
//! between calls grown by an eighth rather than doubled, and large histories freed a little at a
//! time. Changes no data.

/// Returns the free memory of every malloc arena to the system (glibc on Linux; a no-op elsewhere).
pub fn give_back_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it is thread-safe in glibc.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Frees `values` on the calling thread a little at a time, tidying the allocator between steps.
///
/// A history made by the JavaScript thread lives in glibc's main arena. Freed all at once from
/// another thread, its millions of small blocks pile up in the arena's fast bins, and the next
/// large free (or the JavaScript thread's next allocation) consolidates them all under the arena's
/// lock: the JavaScript thread waits for it, 10-20 ms on a 20M-token history. Consolidating every
/// half millisecond of freeing keeps each hold of the lock that short.
pub fn free_gently(values: Vec<crate::json::Value>) {
    const STEP: std::time::Duration = std::time::Duration::from_micros(500);
    let mut since = std::time::Instant::now();
    for value in values {
        drop(value);
        if since.elapsed() >= STEP {
            tidy_main_arena();
            std::thread::yield_now();
            since = std::time::Instant::now();
        }
    }
    tidy_main_arena();
}

/// Consolidates the free small blocks of glibc's main arena (a no-op elsewhere).
fn tidy_main_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes the main arena's lock and consolidates its fast bins before it looks
    // at its parameter; M_KEEP is one glibc documents as unused, so nothing else changes.
    unsafe {
        libc::mallopt(libc::M_KEEP, 0);
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
