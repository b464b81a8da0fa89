//! `check`'s data races of a C program under a model that raises no flag for them.
//!
//! Under the C11 models (rc11, c11) a race is the model's flag `undefined`, raised by the
//! check's own encoding. sc, tso, pso and coherence declare no such flag, yet GenMC reports
//! a "Non-atomic race!" under every model it has (`-sc`, `-tso`, `-rc11`, ...). Under such a
//! model `check` asks what `races` asks, in a session of its own that stops at the first
//! racing pair: the model's own relation `race` where it defines one, SC's definition
//! otherwise (conflicting accesses, at least one plain, unordered by program order, lock
//! order and reads-from between atomics), over the executions the model allows.

use super::races::{Race, RaceSearch};
use super::{AnalysisError, AnalysisOptions, Session};
use crate::cat::Model;
use crate::load::Test;

/// The racing pair `check` found by `races`' definition, and that definition in words.
#[derive(Clone, Debug)]
pub struct CheckRace {
    pub race: Race,
    pub definition: String,
}

/// Whether `model` reports a data race itself, by a flag named `flag`.
pub fn model_flags_races(model: &Model, flag: &str) -> bool {
    model
        .checks
        .iter()
        .any(|c| c.flag && c.name.as_deref() == Some(flag))
}

/// The first racing pair of `test` in some execution the model of `analysis` allows, as
/// `races --first` finds it; `analysis` is the session `races` opens.
pub fn first_race(
    test: &Test,
    analysis: &AnalysisOptions,
) -> Result<Option<CheckRace>, AnalysisError> {
    let mut session = Session::new(&test.program, &test.events, analysis)?;
    // Only the pair is read: the bound and deadlocks are the check session's questions.
    let result = match session.model_races_with(RaceSearch::FirstPair) {
        Some(result) => result?,
        None => session.races_with(RaceSearch::FirstPair)?,
    };
    Ok(result.races.into_iter().next().map(|race| CheckRace {
        race,
        definition: result.definition,
    }))
}
