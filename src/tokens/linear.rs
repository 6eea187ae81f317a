//! The linear-time engine (GitHub's `bpe` crate) for texts whose pre-tokens are too long for the
//! plain engine's merge, built at first use from the built-in token tables, with pieces too
//! long to wait for counted on a helper thread. Counts only.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::plain::Pretokenizer;
use super::vocab::Vocab;
use bpe::byte_pair_encoding::BytePairEncoding;

use crate::error::CondenseError;

use super::*;

/// The linear engine: GitHub's `bpe` crate (backtracking encoder, linear in the length of a
/// piece), built from the built-in token tables, behind the plain engine's pre-tokenizer.
pub(super) struct Linear {
    bpe: BytePairEncoding,
    pre: &'static Pretokenizer,
}

/// The hash factor `bpe-openai` uses for both encodings: no two tokens collide with it.
pub(super) const HASH_FACTOR: u64 = 17_846_336_922_010_275_747;

impl Linear {
    fn build(encoding: Encoding) -> Option<Linear> {
        let pre = Pretokenizer::of(encoding)?;
        let tokens = Vocab::of(encoding).tokens();
        // The constructor asserts that every token encodes to itself: a failure there means the
        // vocabulary is not what it expects, and the plain engine counts instead.
        let bpe =
            std::panic::catch_unwind(AssertUnwindSafe(|| BytePairEncoding::from_dictionary(tokens, Some(HASH_FACTOR))))
                .ok()?;
        Some(Linear { bpe, pre })
    }

    /// Counts `text`, looking at `cancel` every [`CHECK_EVERY`] bytes and handing pieces longer
    /// than [`HELPER_PIECE`] to a helper thread when the count can be stopped.
    fn count(&'static self, text: &str, cancel: Cancel) -> Result<usize, CondenseError> {
        let mut total = 0;
        let mut since_check = 0;
        for piece in self.pre.pieces(text) {
            total += if piece.len() > HELPER_PIECE && cancel.flag.is_some() {
                self.count_on_helper(piece, cancel)?
            } else {
                self.bpe.count(piece)
            };
            since_check += piece.len();
            if since_check >= CHECK_EVERY {
                cancel.check()?;
                since_check = 0;
            }
        }
        Ok(total)
    }

    fn count_on_helper(&'static self, piece: &[u8], cancel: Cancel) -> Result<usize, CondenseError> {
        let owned = piece.to_vec();
        wait_for(cancel, move || self.bpe.count(&owned))
    }
}

/// The linear engine of `encoding`, built on first use (about 1 s for o200k_base, 0.4 s for
/// cl100k_base; only texts with a long run need it). `None` when it cannot be built: the
/// plain engine counts then. A count that can be stopped waits for the build on a helper
/// thread, so an abort during the build answers at once (the build goes on and is kept).
pub(super) fn linear(encoding: Encoding, cancel: Cancel) -> Result<Option<&'static Linear>, CondenseError> {
    static O200K: OnceLock<Option<Linear>> = OnceLock::new();
    static CL100K: OnceLock<Option<Linear>> = OnceLock::new();
    let cell: &'static OnceLock<Option<Linear>> = match encoding {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    };
    if let Some(l) = cell.get() {
        return Ok(l.as_ref());
    }
    if cancel.flag.is_none() {
        return Ok(cell.get_or_init(|| Linear::build(encoding)).as_ref());
    }
    wait_for(cancel, move || cell.get_or_init(|| Linear::build(encoding)).as_ref())
}

/// Runs `work` on a helper thread and waits for it, looking at `cancel` every 10 ms; on abort
/// it stops waiting and answers `Aborted` while the helper finishes on its own (the work is
/// linear, so it ends soon) and its result is dropped. Runs `work` here if no thread can start.
pub(super) fn wait_for<T: Send + 'static>(
    cancel: Cancel,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, CondenseError> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let work = Arc::new(Mutex::new(Some(work)));
    let shared = work.clone();
    let spawned = std::thread::Builder::new().name("context-condense-count".into()).spawn(move || {
        let job = shared.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(job) = job {
            let _ = tx.send(job());
        }
    });
    if spawned.is_err() {
        let job = work.lock().unwrap_or_else(|e| e.into_inner()).take();
        return match job {
            Some(job) => Ok(job()),
            None => Err(CondenseError::Internal("a counting helper thread neither started nor ran".into())),
        };
    }
    loop {
        cancel.check()?;
        match rx.recv_timeout(Duration::from_millis(10)) {
            Ok(v) => return Ok(v),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(CondenseError::Internal("a counting helper thread stopped without an answer".into()))
            }
        }
    }
}

pub(super) fn count_linear(text: &str, encoding: Encoding, cancel: Cancel) -> Result<usize, CondenseError> {
    match linear(encoding, cancel)? {
        Some(engine) => engine.count(text, cancel),
        None => count_plain(text, encoding),
    }
}
