//! The linear engine's tables are built at the first text that needs them (a second or so): an
//! abort set meanwhile answers at once, and the build goes on for the next count. Its own test
//! binary, so that no other test has built the tables first.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use context_condense::error::CondenseError;
use context_condense::tokens::{count_uncached, count_uncached_within, Cancel, Encoding};

#[test]
fn an_abort_during_the_table_build_answers_at_once() {
    // One run of 70 KB of letters: more than the length at which the linear engine counts.
    let text = "qwertyuiopasdfghjklzxcvbnm".repeat(2_700);
    let flag = AtomicBool::new(false);
    let started = Instant::now();
    let answer = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(20));
            flag.store(true, Ordering::Relaxed);
        });
        count_uncached_within(&text, Encoding::Cl100kBase, Cancel::new(&flag))
    });
    let took = started.elapsed();
    assert_eq!(answer, Err(CondenseError::Aborted));

    // The next count waits for the rest of the build, then counts exactly.
    let t = Instant::now();
    let n = count_uncached(&text, Encoding::Cl100kBase);
    let rest = t.elapsed();
    // tiktoken-rs, the reference every engine is held to.
    let reference = tiktoken_rs::cl100k_base_singleton().encode_ordinary(&text).len();
    assert_eq!(n, reference);
    assert!(took < (took + rest) / 2, "aborted after {took:?}; the build took {:?}", took + rest);
}
