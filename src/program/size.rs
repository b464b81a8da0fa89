//! The cells a test declares, counted on its syntax before lowering lays any of them out.
//!
//! Every cell of the program is a location, and every location starts with an initial
//! write: one event. A test that declares more cells than `--max-events` allows is
//! therefore refused by the unrolling anyway, but only after lowering has made a
//! `Location` (a name, an address, a table entry) for each cell, which for
//! `int a[100000000];` is gigabytes. [`check_declared_cells`] refuses it before that, from
//! the declared lengths alone, so the limit acts before the work it bounds.

use std::collections::HashMap;
use std::fmt;

use crate::syntax::ast;

/// The init block declares more cells than the limit on events allows: a limit (each cell's
/// initial value is an event), not a problem of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooManyCells {
    /// The largest object declared, and its cells.
    pub object: String,
    pub object_cells: u64,
    /// All the cells the init block declares (at least).
    pub cells: u64,
    pub max: usize,
}

impl fmt::Display for TooManyCells {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.object_cells > self.max as u64 {
            write!(
                f,
                "array `{}` has {} cells, more than --max-events {} allows (each cell's \
                 initial value is an event)",
                self.object, self.object_cells, self.max
            )
        } else {
            write!(
                f,
                "the init block declares {} cells, more than --max-events {} allows (each \
                 cell's initial value is an event)",
                self.cells, self.max
            )
        }
    }
}

/// The cells `test`'s init block declares, at least: per name, its declared length (one
/// for a scalar; a struct array counts one cell per element, its fields at least that).
/// Each name is a different object, so lowering lays out at least this many locations.
/// Returns the total and the largest object with its cells.
pub fn declared_cells(test: &ast::LitmusTest) -> (u64, Option<(String, u64)>) {
    let mut objects: HashMap<&str, u64> = HashMap::new();
    for item in &test.init {
        if let ast::StateVar::Location { name, index, .. } = &item.target {
            // `a[3] = 1;` names a cell of `a`, laid out with `a` when `a` is an array.
            let cells = match (item.array_len, index) {
                (Some(len), _) => u64::from(len),
                (None, Some(_)) => 0,
                (None, None) => 1,
            };
            let entry = objects.entry(name.name.as_str()).or_insert(0);
            *entry = (*entry).max(cells);
        }
    }
    let total = objects.values().sum();
    let largest = objects
        .into_iter()
        .max_by_key(|&(name, cells)| (cells, std::cmp::Reverse(name)))
        .map(|(name, cells)| (name.to_string(), cells));
    (total, largest)
}

/// Refuse `test` when its init block declares more than `max` cells: every cell is an
/// initial write, so the test has more than `max` events; the refusal costs a pass over the
/// init block, not a location per cell.
pub fn check_declared_cells(test: &ast::LitmusTest, max: usize) -> Result<(), TooManyCells> {
    let (cells, largest) = declared_cells(test);
    if cells <= max as u64 {
        return Ok(());
    }
    let (object, object_cells) = largest.unwrap_or_default();
    Err(TooManyCells {
        object,
        object_cells,
        cells,
        max,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;

    fn parse(text: &str) -> ast::LitmusTest {
        let file = SourceFile::new("t.litmus", text);
        match crate::syntax::parse(&file) {
            Ok(test) => test,
            Err(e) => panic!("{}", e.short()),
        }
    }

    #[test]
    fn counts_each_object_once_with_its_length() {
        let test = parse(
            "C t\n{ int a[100000000]; x = 1; int b[3] = {1,2,3}; b[1] = 4; }\n\
             P0(int *a) { a[5] = 1; }\nexists (a[5]=1)\n",
        );
        let (cells, largest) = declared_cells(&test);
        assert_eq!(cells, 100_000_004);
        assert_eq!(largest, Some(("a".to_string(), 100_000_000)));
    }

    #[test]
    fn refuses_past_the_limit_only() {
        let test = parse("C t\n{ int a[10]; y = 0; }\nP0(int *a) { a[5] = 1; }\nexists (a[5]=1)\n");
        assert!(check_declared_cells(&test, 11).is_ok());
        let refused = check_declared_cells(&test, 10).err();
        assert_eq!(
            refused.map(|r| r.to_string()),
            Some(
                "the init block declares 11 cells, more than --max-events 10 allows (each \
                 cell's initial value is an event)"
                    .to_string()
            )
        );
        let refused = check_declared_cells(&test, 9).err();
        assert!(refused.is_some_and(|r| r.to_string().starts_with("array `a` has 10 cells")));
    }
}
