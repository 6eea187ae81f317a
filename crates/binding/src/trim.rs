//! Gives freed memory back to the system once the engine has been idle for a while (glibc keeps
//! it otherwise). Counts engine runs; touches nothing else.

use std::sync::atomic::Ordering;
use std::sync::Mutex;

/// Engine runs in progress, and how many have started so far. When the engine has been idle for
/// `TRIM_AFTER`, glibc is asked to give freed memory back to the system: a burst of concurrent
/// condensations otherwise leaves the process tens of MB larger (each engine thread's allocations
/// land in arenas glibc keeps). Waiting first, as jemalloc's decay does, keeps back-to-back calls
/// from giving memory back only to ask for it again.
pub(super) static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
pub(super) static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// Messages from which a finished run gives freed memory back at once (see `spawn_run`).
pub(super) const LARGE_HISTORY: usize = 50_000;
/// Tokens from which a finished run gives freed memory back at once (about 8 MB of text).
pub(super) const LARGE_HISTORY_TOKENS: u64 = 2_000_000;
pub(super) const TRIM_AFTER: std::time::Duration = std::time::Duration::from_millis(1000);

pub(super) fn run_started() {
    RUNNING.fetch_add(1, Ordering::AcqRel);
    STARTED.fetch_add(1, Ordering::AcqRel);
}

pub(super) fn run_ended() {
    if RUNNING.fetch_sub(1, Ordering::AcqRel) == 1 {
        went_idle();
    }
}

/// Says the engine has let go of memory while nothing runs (a conversation closed): freed memory
/// goes back once it stays idle for `TRIM_AFTER`.
pub(super) fn let_go() {
    if RUNNING.load(Ordering::Acquire) == 0 {
        went_idle();
    }
}

fn went_idle() {
    let (pending, wake) = idle_trimmer();
    *pending.lock().unwrap_or_else(|e| e.into_inner()) = true;
    wake.notify_one();
}

type Wake = (Mutex<bool>, std::sync::Condvar);

/// The thread that trims once the engine has stayed idle (started on first use), and the flag
/// that says the engine went idle since it last looked.
pub(super) fn idle_trimmer() -> &'static Wake {
    static WAKE: std::sync::OnceLock<&'static Wake> = std::sync::OnceLock::new();
    WAKE.get_or_init(|| {
        let wake: &'static Wake = Box::leak(Box::new((Mutex::new(false), std::sync::Condvar::new())));
        let _ = std::thread::Builder::new().name("context-condense-trim".into()).spawn(move || loop {
            let (pending, cv) = wake;
            let mut went_idle = pending.lock().unwrap_or_else(|e| e.into_inner());
            while !*went_idle {
                went_idle = cv.wait(went_idle).unwrap_or_else(|e| e.into_inner());
            }
            *went_idle = false;
            drop(went_idle);
            // Idle for TRIM_AFTER with nothing started meanwhile: give the memory back.
            let seen = STARTED.load(Ordering::Acquire);
            std::thread::sleep(TRIM_AFTER);
            if RUNNING.load(Ordering::Acquire) == 0 && STARTED.load(Ordering::Acquire) == seen {
                trim_now();
            }
        });
        wake
    })
}

/// Gives freed memory back now, on a helper thread, unless an engine run is going on (it would
/// only ask for it again; the idle trim follows it).
pub(super) fn give_back_if_idle() {
    if RUNNING.load(Ordering::Acquire) == 0 {
        trim_on_helper();
    }
}

/// Gives freed memory back on a helper thread, so the caller (the JavaScript thread) does not
/// wait for it.
fn trim_on_helper() {
    let _ = std::thread::Builder::new().name("context-condense-trim-now".into()).spawn(trim_now);
}

/// Frees a history the engine held, then gives the memory back: a large one on a helper thread
/// a little at a time (see [`context_condense::memory::free_gently`]), so that neither the caller (the
/// JavaScript thread) nor its allocations wait for it; a small one here, given back once the
/// engine stays idle.
pub(super) fn free_history(messages: std::sync::Arc<Vec<context_condense::json::Value>>) {
    if messages.len() < LARGE_HISTORY {
        drop(messages);
        let_go();
        return;
    }
    let spawned = std::thread::Builder::new().name("context-condense-free".into()).spawn(move || free_large(messages));
    // No thread to spare: the history went with the closure, freed here all the same.
    if spawned.is_err() {
        let_go();
    }
}

/// Frees a large history a little at a time on this thread, if nothing else holds it, and gives
/// the memory back.
pub(super) fn free_large(messages: std::sync::Arc<Vec<context_condense::json::Value>>) {
    if let Ok(values) = std::sync::Arc::try_unwrap(messages) {
        context_condense::memory::free_gently(values);
        trim_now();
    }
}

pub(super) fn trim_now() {
    context_condense::memory::give_back_freed();
}

/// Bytes of parts read since freed memory was last given back (see [`read_out`]).
static READ_SINCE_TRIM: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// Parts read between two givings back while a run waits on JavaScript (a summary request of a
/// large history is read out while the run holds on, so the idle trim never comes).
const TRIM_EVERY_READ: usize = 16 << 20;

/// Says a part of this many bytes was read out of a summary request, whose messages are freed as
/// they are written: every [`TRIM_EVERY_READ`] bytes that memory is given back on a helper thread,
/// not this one.
pub(super) fn read_out(bytes: usize) {
    let before = READ_SINCE_TRIM.fetch_add(bytes, Ordering::AcqRel);
    if before + bytes >= TRIM_EVERY_READ {
        READ_SINCE_TRIM.store(0, Ordering::Release);
        trim_on_helper();
    }
}
