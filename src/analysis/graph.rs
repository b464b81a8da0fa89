//! What a picture of an execution adds to its `po`, `rf`, `co` and `fr`: the model's own
//! synchronisation (`sw`, `hb`, when the model defines them) and, for an outcome the model
//! forbids, the execution that reaches it with the forbidding check skipped and the cycle
//! on which that check fails.

use super::explain::Explanation;
use super::{AnalysisError, Session};
use crate::events::EventId;
use crate::witness::eval::Explicit;
use crate::witness::relations::{named_pairs, violation, Violation};
use crate::witness::Execution;

/// The model's relations drawn over an execution.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    /// The model's `sw`, if it defines one.
    pub sw: Vec<(EventId, EventId)>,
    /// The model's `hb`, if it defines one (whole: the picture chooses what to draw).
    pub hb: Vec<(EventId, EventId)>,
    /// The check the execution fails, and where.
    pub violation: Option<Violation>,
}

impl Session<'_> {
    /// The model's `sw` and `hb` on `execution`.
    pub fn overlay(&self, execution: &Execution) -> Result<Overlay, AnalysisError> {
        let explicit =
            Explicit::of_execution(self.encoding.events, &self.encoding.mutexes, execution);
        let pairs = |name: &str| {
            named_pairs(&explicit, &self.model, name)
                .map(Option::unwrap_or_default)
                .map_err(AnalysisError::Evaluation)
        };
        Ok(Overlay {
            sw: pairs("sw")?,
            hb: pairs("hb")?,
            violation: None,
        })
    }

    /// How the check named `check` fails on `execution`, if it does.
    pub fn violation(
        &self,
        execution: &Execution,
        check: &str,
    ) -> Result<Option<Violation>, AnalysisError> {
        let explicit =
            Explicit::of_execution(self.encoding.events, &self.encoding.mutexes, execution);
        violation(&explicit, &self.model, check).map_err(AnalysisError::Evaluation)
    }

    /// For an outcome no allowed execution reaches: an execution that reaches it with one
    /// forbidding check skipped (the first of `explain`'s minimal set that alone allows it),
    /// with the model's relations and that check's violation. `None` when the program
    /// itself never reaches the outcome, or only several checks skipped together allow it.
    pub fn forbidden_picture(&mut self) -> Result<Option<(Execution, Overlay)>, AnalysisError> {
        let forbidding = self.forbidding()?;
        for (check, witness) in forbidding.without_one {
            let Some(execution) = witness else {
                continue;
            };
            let mut overlay = self.overlay(&execution)?;
            overlay.violation = self.violation(&execution, &check)?;
            return Ok(Some((execution, overlay)));
        }
        Ok(None)
    }
}

impl Session<'_> {
    /// What `check --dot` draws: the witness the report shows with the model's relations,
    /// or, with none (the outcome is forbidden), [`Session::forbidden_picture`].
    pub fn check_picture(
        &mut self,
        witness: Option<&Execution>,
    ) -> Result<Option<(Execution, Overlay)>, AnalysisError> {
        match witness {
            Some(execution) => Ok(Some((execution.clone(), self.overlay(execution)?))),
            None => self.forbidden_picture(),
        }
    }

    /// What `explain --dot` draws: the witness when the outcome is allowed, else the first
    /// execution that reaches it with one check of the core skipped, with its violation.
    pub fn explanation_picture(
        &self,
        explanation: &Explanation,
    ) -> Result<Option<(Execution, Overlay)>, AnalysisError> {
        if let Some(execution) = &explanation.allowed {
            return Ok(Some((execution.clone(), self.overlay(execution)?)));
        }
        for skipped in &explanation.without_one {
            if let Some(execution) = &skipped.witness {
                let mut overlay = self.overlay(execution)?;
                overlay.violation = skipped.violation.clone();
                return Ok(Some((execution.clone(), overlay)));
            }
        }
        Ok(None)
    }
}
