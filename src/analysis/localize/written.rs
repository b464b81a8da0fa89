//! `localize --write DIR`: the verified fixes as whole files, one per distinct rewritten
//! source, in the order the report lists them (each set's fixes, then the whole
//! program's). The binary writes them; what is written and under which name is decided here.

use super::repair::{Repair, RepairKind};
use super::Localization;

/// One fix to write: `NAME.fixN.EXT` beside the other fixes of the test.
#[derive(Clone, Debug)]
pub struct FixFile<'a> {
    /// 1-based, in the order the report lists the fixes (a source already written under
    /// an earlier number is not written again).
    pub number: usize,
    /// Which set it fixes (1-based), `None` for a fix of the whole program.
    pub set: Option<usize>,
    pub repair: &'a Repair,
}

impl FixFile<'_> {
    /// What the fix is, for the line that names the written file.
    pub fn describe(&self) -> String {
        let kind = match self.repair.kind {
            RepairKind::LockBlocks => "a fresh mutex around each thread's atomic block",
            RepairKind::LockAccesses => {
                "a fresh mutex around each thread's accesses to the set's locations"
            }
            RepairKind::LockThreads => "a fresh mutex around each thread's shared accesses",
            RepairKind::Fences => "sequentially consistent fences",
            RepairKind::Orders => "stronger memory orders",
        };
        match self.set {
            Some(set) => format!("set {set}: {kind}"),
            None => format!("the whole program: {kind} (verified on this test only)"),
        }
    }

    /// The file name for a test file named `stem` with extension `ext`.
    pub fn file_name(&self, stem: &str, ext: &str) -> String {
        format!("{stem}.fix{}.{ext}", self.number)
    }
}

impl Localization {
    /// Every distinct verified fix, numbered in report order.
    pub fn fix_files(&self) -> Vec<FixFile<'_>> {
        let listed = self
            .sets
            .iter()
            .enumerate()
            .flat_map(|(i, set)| set.repairs.iter().map(move |r| (Some(i + 1), r)))
            .chain(self.repairs.iter().map(|r| (None, r)));
        let mut files: Vec<FixFile> = Vec::new();
        for (set, repair) in listed {
            if files.iter().any(|f| f.repair.source == repair.source) {
                continue;
            }
            files.push(FixFile {
                number: files.len() + 1,
                set,
                repair,
            });
        }
        files
    }
}
