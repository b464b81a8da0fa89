//! A batch split over machines and put back together: `--shard K/N` keeps the tests of
//! shard K among N, and [`merge`] joins the shards' JSON documents into the document the
//! unsharded batch prints (its timing, `wall_seconds`, aside).
//!
//! The split is by position in the batch's sorted list of files (the list the batch runs
//! in path order): the test at position `i` (from 0) belongs to shard `i mod N + 1`. Every
//! shard must therefore be given the same arguments over the same files; in return the
//! shards differ by at most one test, and neighbours in the list (often one family, of
//! similar cost) go to different shards.

use std::cmp::Ordering;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde_json::Value;

use super::batch::{document, Summary};

/// Shard `index` of `count` (`1 <= index <= count`), as `--shard K/N` writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let usage = || format!("`{s}` is not a shard: give K/N with 1 <= K <= N, as 2/4");
        let (k, n) = s.split_once('/').ok_or_else(usage)?;
        let index: usize = k.trim().parse().map_err(|_| usage())?;
        let count: usize = n.trim().parse().map_err(|_| usage())?;
        if index == 0 || count == 0 || index > count {
            return Err(usage());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Whether the test at `position` (from 0) of the sorted batch is this shard's.
    pub fn holds(&self, position: usize) -> bool {
        position % self.count == self.index - 1
    }

    /// This shard's items of a batch already in its run order.
    pub fn select<T>(&self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| self.holds(*i))
            .map(|(_, item)| item)
            .collect()
    }

    /// A shard's JSON document: the batch's document ([`document`]) with a `shard` field
    /// (`index`, `count`), always a document, even for one test or none, so that
    /// [`merge`] can check that every shard is there.
    pub fn document(&self, tests: Vec<Value>, summary: &Summary) -> Value {
        let mut doc = document(tests, summary);
        if let Value::Object(fields) = &mut doc {
            fields.insert(
                "shard".to_string(),
                serde_json::json!({ "index": self.index, "count": self.count }),
            );
        }
        doc
    }
}

/// Why documents do not merge; `file` names the document at fault when one is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeError {
    pub file: Option<String>,
    pub message: String,
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{file}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// One batch document to merge, with the name it is reported by (its file).
pub struct Part<'a> {
    pub name: &'a str,
    pub document: &'a Value,
}

/// The documents of a batch's shards merged into the unsharded batch's document: the tests
/// of all of them in path order (as a batch runs them) and the summary's counts added up;
/// `wall_seconds` is the longest shard's. Documents with a `shard` field must be all the
/// shards of one split, each once; documents without one (whole batches) are joined as
/// they are. A test in two documents is refused: the merged counts would count it twice.
pub fn merge(parts: &[Part<'_>]) -> Result<Value, MergeError> {
    let at = |name: &str, message: String| MergeError {
        file: Some(name.to_string()),
        message,
    };
    let mut tests: Vec<(String, Value)> = Vec::new();
    let mut summaries = Vec::new();
    let mut shards: Vec<(Shard, &str)> = Vec::new();
    for part in parts {
        let doc = part.document;
        let Some(list) = doc.get("tests").and_then(Value::as_array) else {
            return Err(at(
                part.name,
                "not a batch document of nemos (no `tests` array): write each shard with \
                 --format json"
                    .to_string(),
            ));
        };
        let summary: Summary = doc
            .get("summary")
            .cloned()
            .ok_or_else(|| "no `summary`".to_string())
            .and_then(|s| serde_json::from_value(s).map_err(|e| e.to_string()))
            .map_err(|e| {
                at(
                    part.name,
                    format!("the batch's summary is not nemos's: {e}"),
                )
            })?;
        summaries.push(summary);
        match doc.get("shard") {
            None => {}
            Some(shard) => {
                let number = |key: &str| {
                    shard
                        .get(key)
                        .and_then(Value::as_u64)
                        .and_then(|n| usize::try_from(n).ok())
                };
                let shard =
                    match (number("index"), number("count")) {
                        (Some(index), Some(count)) if index >= 1 && index <= count => {
                            Shard { index, count }
                        }
                        _ => return Err(at(
                            part.name,
                            "its `shard` is not `{\"index\": K, \"count\": N}` with 1 <= K <= N"
                                .to_string(),
                        )),
                    };
                shards.push((shard, part.name));
            }
        }
        for test in list {
            let Some(path) = test.get("path").and_then(Value::as_str) else {
                return Err(at(part.name, "a test without a `path`".to_string()));
            };
            tests.push((path.to_string(), test.clone()));
        }
    }
    check_shards(&shards, parts)?;
    // A batch runs its files sorted as paths (component by component), not as strings.
    tests.sort_by(|(a, _), (b, _)| Path::new(a).cmp(Path::new(b)));
    if let Some(pair) = tests
        .windows(2)
        .find(|pair| Path::new(&pair[0].0).cmp(Path::new(&pair[1].0)) == Ordering::Equal)
    {
        return Err(MergeError {
            file: None,
            message: format!(
                "test {} is in more than one document: merge each shard once",
                pair[0].0
            ),
        });
    }
    let summary = added(&summaries);
    Ok(document(
        tests.into_iter().map(|(_, test)| test).collect(),
        &summary,
    ))
}

/// Every shard of one split, each once, or documents that are no shards at all.
fn check_shards(shards: &[(Shard, &str)], parts: &[Part<'_>]) -> Result<(), MergeError> {
    let Some((first, first_name)) = shards.first() else {
        return Ok(());
    };
    if shards.len() != parts.len() {
        let whole = parts
            .iter()
            .find(|p| p.document.get("shard").is_none())
            .map_or("", |p| p.name);
        return Err(MergeError {
            file: Some(whole.to_string()),
            message: "a whole batch among shards: merge the shards of one split alone".to_string(),
        });
    }
    let mut seen: Vec<Option<&str>> = vec![None; first.count];
    for (shard, name) in shards {
        if shard.count != first.count {
            return Err(MergeError {
                file: Some(name.to_string()),
                message: format!("shard {shard} is of another split than {first_name}'s ({first})"),
            });
        }
        if let Some(other) = seen[shard.index - 1].replace(name) {
            return Err(MergeError {
                file: Some(name.to_string()),
                message: format!("shard {shard} is also {other}"),
            });
        }
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, name)| name.is_none())
        .map(|(i, _)| format!("{}/{}", i + 1, first.count))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError {
            file: None,
            message: format!(
                "shard(s) {} missing: the merge would leave their tests out",
                missing.join(", ")
            ),
        });
    }
    Ok(())
}

/// The summaries of disjoint parts of a batch as one: each count added up (each test is in
/// one part), the wall time the longest part's (parts run side by side).
fn added(parts: &[Summary]) -> Summary {
    let sum = |f: fn(&Summary) -> usize| parts.iter().map(f).sum();
    Summary {
        tests: sum(|s| s.tests),
        reachable: sum(|s| s.reachable),
        unreachable: sum(|s| s.unreachable),
        racy: sum(|s| s.racy),
        violated: sum(|s| s.violated),
        assertion_failures: sum(|s| s.assertion_failures),
        errors: sum(|s| s.errors),
        limits: sum(|s| s.limits),
        wall_seconds: parts.iter().map(|s| s.wall_seconds).fold(0.0, f64::max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, status: &str) -> Value {
        serde_json::json!({ "path": path, "status": status, "result": null, "limit": null, "error": null })
    }

    fn summary(tests: usize, errors: usize, wall: f64) -> Summary {
        Summary {
            tests,
            errors,
            wall_seconds: wall,
            ..Summary::default()
        }
    }

    #[test]
    fn shards_parse_and_split_by_position() {
        let shard: Shard = "2/3".parse().expect("a shard");
        assert_eq!(shard, Shard { index: 2, count: 3 });
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let items: Vec<usize> = (0..8).collect();
        assert_eq!(shard.select(items.clone()), vec![1, 4, 7]);
        let mut all: Vec<usize> = (1..=3)
            .flat_map(|k| Shard { index: k, count: 3 }.select(items.clone()))
            .collect();
        all.sort_unstable();
        assert_eq!(all, items, "the shards of a split cover the batch once");
    }

    #[test]
    fn shards_merge_in_path_order_with_counts_added() {
        let one = Shard { index: 1, count: 2 }.document(
            vec![
                entry("d/a/x.litmus", "clean"),
                entry("d/z/b.litmus", "error"),
            ],
            &summary(2, 1, 0.5),
        );
        let two = Shard { index: 2, count: 2 }
            .document(vec![entry("d/a-b.litmus", "clean")], &summary(1, 0, 0.7));
        let merged = merge(&[
            Part {
                name: "2.json",
                document: &two,
            },
            Part {
                name: "1.json",
                document: &one,
            },
        ])
        .expect("the shards merge");
        let paths: Vec<&str> = merged["tests"]
            .as_array()
            .expect("tests")
            .iter()
            .filter_map(|t| t["path"].as_str())
            .collect();
        // As paths, `d/a/x` comes before `d/a-b` (the component `a` before `a-b`), though
        // as strings `/` sorts after `-`.
        assert_eq!(paths, ["d/a/x.litmus", "d/a-b.litmus", "d/z/b.litmus"]);
        assert_eq!(merged["summary"]["tests"], 3);
        assert_eq!(merged["summary"]["errors"], 1);
        assert_eq!(merged["summary"]["wall_seconds"], 0.7);
        assert!(merged.get("shard").is_none());
    }

    #[test]
    fn a_missing_or_repeated_shard_is_refused() {
        let one = Shard { index: 1, count: 3 }
            .document(vec![entry("a.litmus", "clean")], &summary(1, 0, 0.1));
        let part = |document| Part {
            name: "x.json",
            document,
        };
        let error = merge(&[part(&one)]).expect_err("two shards missing");
        assert!(error.message.contains("2/3, 3/3 missing"), "{error}");
        let error = merge(&[part(&one), part(&one)]).expect_err("a shard twice");
        assert!(error.message.contains("shard 1/3 is also"), "{error}");
        let whole = document(vec![entry("b.litmus", "clean")], &summary(1, 0, 0.1));
        let error = merge(&[part(&one), part(&whole)]).expect_err("a whole batch among shards");
        assert!(error.message.contains("whole batch"), "{error}");
        let error = merge(&[part(&whole), part(&whole)]).expect_err("a test twice");
        assert!(error.message.contains("b.litmus"), "{error}");
        let error = merge(&[part(&serde_json::json!({"test": "SB"}))]).expect_err("no batch");
        assert!(error.message.contains("no `tests` array"), "{error}");
    }
}
