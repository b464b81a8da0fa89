//! Checks a front end adds on behalf of a library it models (POSIX barriers and mutexes
//! for the C front end): each is an assertion with a kind, so that `check` names the defect
//! as the library's misuse ("an invalid unlock") rather than as a failed `assert`.
//!
//! A front end reaches them through calls whose names no litmus test can write (they hold
//! a `#`): `check#invalid_unlock(cond)` is `assert(cond)` with the kind
//! [`CheckKind::InvalidUnlock`].

use serde::Serialize;

/// What a failed check means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum CheckKind {
    /// `pthread_barrier_init` with a count of 0, or on a barrier already initialised
    /// (GenMC's "Invalid barrier_init() operation").
    InvalidBarrierInit,
    /// `pthread_barrier_wait` on a barrier never initialised (GenMC's "Attempt to read
    /// from uninitialized memory").
    UninitialisedBarrier,
    /// `pthread_barrier_wait` on a destroyed barrier (GenMC's "Attempt to access freed
    /// memory").
    DestroyedBarrier,
    /// `pthread_mutex_unlock` of a mutex the thread does not hold (GenMC's "Invalid
    /// unlock() operation").
    InvalidUnlock,
    /// `pthread_mutex_lock` of a destroyed mutex (GenMC's "Attempt to read from
    /// uninitialized memory").
    DestroyedMutex,
    /// `malloc` of a size that is not positive, or `aligned_alloc` with an alignment that
    /// is not a power of two or a size that is not a multiple of it (GenMC's "Allocation
    /// error").
    AllocationError,
}

impl CheckKind {
    pub const ALL: [CheckKind; 6] = [
        CheckKind::InvalidBarrierInit,
        CheckKind::UninitialisedBarrier,
        CheckKind::DestroyedBarrier,
        CheckKind::InvalidUnlock,
        CheckKind::DestroyedMutex,
        CheckKind::AllocationError,
    ];

    /// The call a front end writes for the check (one argument, the condition).
    pub fn call_name(self) -> &'static str {
        match self {
            CheckKind::InvalidBarrierInit => "check#barrier_init",
            CheckKind::UninitialisedBarrier => "check#barrier_uninitialised",
            CheckKind::DestroyedBarrier => "check#barrier_destroyed",
            CheckKind::InvalidUnlock => "check#invalid_unlock",
            CheckKind::DestroyedMutex => "check#mutex_destroyed",
            CheckKind::AllocationError => "check#allocation",
        }
    }

    /// The kind a call name stands for.
    pub fn from_call(name: &str) -> Option<CheckKind> {
        CheckKind::ALL.into_iter().find(|k| k.call_name() == name)
    }

    /// The defect, in the words `check` reports (text and JSON).
    pub fn defect(self) -> &'static str {
        match self {
            CheckKind::InvalidBarrierInit => "an invalid barrier init",
            CheckKind::UninitialisedBarrier => "a wait on an uninitialised barrier",
            CheckKind::DestroyedBarrier => "a wait on a destroyed barrier",
            CheckKind::InvalidUnlock => "an invalid unlock",
            CheckKind::DestroyedMutex => "a lock of a destroyed mutex",
            CheckKind::AllocationError => "an allocation error",
        }
    }

    /// The heading of the failure's witness.
    pub fn heading(self) -> &'static str {
        match self {
            CheckKind::InvalidBarrierInit => "Invalid barrier init:",
            CheckKind::UninitialisedBarrier => "Wait on an uninitialised barrier:",
            CheckKind::DestroyedBarrier => "Wait on a destroyed barrier:",
            CheckKind::InvalidUnlock => "Invalid unlock:",
            CheckKind::DestroyedMutex => "Lock of a destroyed mutex:",
            CheckKind::AllocationError => "Allocation error:",
        }
    }
}

/// The suffix of the location a C front end gives a barrier's arrivals (`b#arrivals` for
/// `pthread_barrier_t b`, `bs#arrivals[i]` for an array of them).
pub const BARRIER_ARRIVALS: &str = "#arrivals";

/// Whether a location (a cell's name) counts a barrier's arrivals. The order in which
/// threads arrive at a barrier, and which of the later arrivals a waiting thread sees, are
/// how the barrier is built, not choices of the program: counting executions leaves them
/// out, as GenMC's barrier-aware exploration does.
pub fn is_barrier_arrivals(name: &str) -> bool {
    name.split('[')
        .next()
        .is_some_and(|object| object.ends_with(BARRIER_ARRIVALS))
}
