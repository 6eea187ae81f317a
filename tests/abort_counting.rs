//! An abort set while the engine counts one long block (a run of letters with no space, the worst
//! case of byte-pair encoding) stops `condense` and `analyze` well before the count would end.
//! How fast is for the benchmark (`benchmark/worstcase.mjs`); here only "well under the time of
//! the whole count".

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use context_condense::analyze::analyze_within;
use context_condense::condense::{condense, Options};
use context_condense::error::CondenseError;
use context_condense::tokens::{count_uncached, Encoding};
use context_condense::{json, json::Value};

fn random_letters(n: usize, seed: u64) -> String {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'a' + (x % 26) as u8)
        })
        .collect()
}

fn history(block: &str) -> Vec<Value> {
    vec![
        json!({"role":"user","content":[{"type":"text","text":"Read the file."}]}),
        json!({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"blob.txt"}}]}),
        json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":block}]}),
        json!({"role":"assistant","content":[{"type":"text","text":"Done."}]}),
    ]
}

/// Runs `work` with an abort flag that a second thread sets after `after`; returns its answer
/// and how long it took.
fn aborted_after<T: Send>(after: Duration, work: impl FnOnce(&AtomicBool) -> T + Send) -> (T, Duration) {
    let flag = AtomicBool::new(false);
    let started = Instant::now();
    let answer = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(after);
            flag.store(true, Ordering::Relaxed);
        });
        work(&flag)
    });
    (answer, started.elapsed())
}

/// The time of the whole uncached count of `block` (the linear engine built beforehand).
fn whole_count(block: &str) -> Duration {
    count_uncached(&"x".repeat(70_000), Encoding::O200kBase);
    let t = Instant::now();
    assert!(count_uncached(block, Encoding::O200kBase) > 0);
    t.elapsed()
}

#[test]
fn condense_stops_inside_a_long_count() {
    for (seed, provider) in [(101, "lossless"), (102, "truncation")] {
        let block = random_letters(24 << 20, seed);
        let unaborted = whole_count(&block);
        let messages = history(&block);
        let options = Options::from_value(&serde_json::json!({"provider": provider})).expect("valid options");
        let (answer, took) = aborted_after(unaborted / 10, |flag| condense(&messages, &options, flag, None));
        assert!(matches!(answer, Err(CondenseError::Aborted)), "{provider}: {:?}", answer.map(|o| o.error));
        assert!(took < unaborted / 2, "{provider}: aborted after {took:?}; the count alone takes {unaborted:?}");
    }
}

#[test]
fn analyze_stops_inside_a_long_count() {
    let block = random_letters(24 << 20, 103);
    let unaborted = whole_count(&block);
    let messages = history(&block);
    let (answer, took) = aborted_after(unaborted / 10, |flag| analyze_within(&messages, Encoding::O200kBase, flag));
    assert!(matches!(answer, Err(CondenseError::Aborted)));
    assert!(took < unaborted / 2, "aborted after {took:?}; the count alone takes {unaborted:?}");
}
