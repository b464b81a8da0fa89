//! `infer --together`: one assignment of orders for the object code several client tests
//! share, under which every test's property holds (CDSSpec's InferParams runs its
//! inference over all the test cases of one data structure).
//!
//! The object code is the tests' functions. A function of one name must be the same text,
//! byte for byte, in every test that defines it (a test is refused otherwise, at the
//! function); a site inside it is the same site in every test, identified by the function's
//! name and the site's offset in its text. Sites outside every function (the clients' own
//! accesses in the threads) keep their written orders: each test is a client, not part of
//! the object. The search is MARCO's over the shared sites, as the incremental search
//! runs it, with a verdict that asks each test's own instance (`Oracle::passes`) under the
//! assignment projected onto its sites: an assignment passes when it passes in every test.
//! Each test's instance keeps its caches (verdicts, failed cores, counterexamples) across
//! the joint search.

use std::collections::HashMap;

use super::search::{covers, known_verdict, Direction, Oracle, Seeds};
use super::{at_most, sites, Checker, Choice, InferError, Property, Site, Violation};
use crate::analysis::{AnalysisError, AnalysisOptions};
use crate::diagnostics::{Diagnostic, InputError};
use crate::program::Program;

/// One site of the shared object code.
#[derive(Clone, Debug)]
pub struct SharedSite {
    /// The function that holds it.
    pub function: String,
    /// The first test that defines the function, and the site there.
    pub test: usize,
    pub site: Site,
    /// Where the site starts in the function's text.
    pub offset: usize,
}

/// Why one weaker order at a shared site is not enough: the first test it breaks.
#[derive(Clone, Debug)]
pub struct SharedReason {
    pub site: usize,
    pub weaker: Choice,
    pub test: usize,
    pub violation: Violation,
}

/// A minimal assignment to the shared sites under which every test passes.
#[derive(Clone, Debug)]
pub struct SharedMinimal {
    pub assignment: Vec<Choice>,
    pub reasons: Vec<SharedReason>,
}

/// The answer of [`together`].
#[derive(Clone, Debug)]
pub struct Together {
    pub shared: Vec<SharedSite>,
    /// Per test, its sites (the private ones pinned to their written orders) and, per site,
    /// the shared site it is (`None`: a private one).
    pub sites: Vec<Vec<Site>>,
    pub shared_of: Vec<Vec<Option<usize>>>,
    /// Per test, the shared sites in functions it defines but never runs (no event, so no
    /// site of its own): placed in its text, so that `--write` changes every copy of the
    /// object's code alike.
    pub unrun: Vec<Vec<(Site, usize)>>,
    /// How many assignments of the shared sites there are (saturating).
    pub assignments: usize,
    pub minimal: Vec<SharedMinimal>,
    /// Per test that the written orders break: what breaks first.
    pub written_failures: Vec<(usize, Violation)>,
    /// The minimal assignments to compare the written one with (as `Inference::nearest`).
    pub nearest: Vec<usize>,
    pub bound_hit: bool,
}

impl Together {
    /// The written orders of the shared sites.
    pub fn written(&self) -> Vec<Choice> {
        self.shared.iter().map(|s| s.site.written).collect()
    }

    /// The minimal assignment to adopt: the first nearest the written orders, else the
    /// first.
    pub fn suggested(&self) -> Option<&SharedMinimal> {
        let first_nearest = self.nearest.first().and_then(|&n| self.minimal.get(n));
        first_nearest.or(self.minimal.first())
    }

    /// Test `test`'s whole assignment under the shared assignment `a` (its private sites
    /// as written), for [`super::patched`].
    pub fn projected(&self, test: usize, a: &[Choice]) -> Vec<Choice> {
        project(&self.sites[test], &self.shared_of[test], a)
    }

    /// What [`super::patched`] writes into test `test` under the shared assignment `a`:
    /// its sites with their orders, and the shared sites of the functions it does not run.
    pub fn to_write(&self, test: usize, a: &[Choice]) -> (Vec<Site>, Vec<Choice>) {
        let mut sites = self.sites[test].clone();
        let mut choices = self.projected(test, a);
        for (site, k) in &self.unrun[test] {
            sites.push(site.clone());
            choices.push(a[*k]);
        }
        (sites, choices)
    }
}

/// Why the tests could not be inferred together.
#[derive(Debug, thiserror::Error)]
pub enum TogetherError {
    /// A function's text differs between two tests, or a test is not a litmus test: the
    /// test's located error.
    #[error("{}", .1.short())]
    Input(usize, InputError),
    #[error(transparent)]
    Infer(#[from] InferError),
}

impl From<AnalysisError> for TogetherError {
    fn from(e: AnalysisError) -> Self {
        TogetherError::Infer(InferError::Analysis(e))
    }
}

fn project(sites: &[Site], shared_of: &[Option<usize>], a: &[Choice]) -> Vec<Choice> {
    sites
        .iter()
        .zip(shared_of)
        .map(|(site, shared)| match shared {
            Some(k) => a[*k],
            None => site.written,
        })
        .collect()
}

/// One assignment of orders to the functions `programs` share (each with its unrolling
/// bound) under which `property` holds in every one of them: every minimal such.
pub fn together(
    programs: &[(&Program, u32)],
    options: &AnalysisOptions,
    property: Property,
) -> Result<Together, TogetherError> {
    if property.spec == Some(crate::analysis::spec::SpecMode::Linearizable) {
        return Err(InferError::Linearizable.into());
    }
    // Per function name: the test that defined it first and its text.
    let mut defined: HashMap<String, (usize, String)> = HashMap::new();
    let mut shared: Vec<SharedSite> = Vec::new();
    let mut key_of: HashMap<(String, usize), usize> = HashMap::new();
    let mut all_sites = Vec::new();
    let mut shared_of = Vec::new();
    // Per test, its functions' names and spans.
    let mut spans: Vec<Vec<(String, crate::diagnostics::Span)>> = Vec::new();
    for (t, (program, _)) in programs.iter().enumerate() {
        let ast = crate::syntax::parse(&program.source).map_err(|e| {
            let span = e.diagnostics.first().map(|d| d.span).unwrap_or_default();
            let diagnostic = Diagnostic::new(
                "infer --together reads litmus tests (C programs are not matched)",
                span,
            );
            TogetherError::Input(t, InputError::single(&program.source, diagnostic))
        })?;
        let mut functions = Vec::new();
        for f in &ast.functions {
            let text = program.source.snippet(f.span).to_string();
            match defined.get(&f.name.name) {
                Some((first, earlier)) if *earlier != text => {
                    let diagnostic = Diagnostic::new(
                        format!(
                            "function `{}` differs from its definition in test {} ({}): tests inferred together must share the object's code byte for byte",
                            f.name.name,
                            programs[*first].0.name,
                            programs[*first].0.source.name
                        ),
                        f.name.span,
                    )
                    .with_label("this definition differs");
                    return Err(TogetherError::Input(
                        t,
                        InputError::single(&program.source, diagnostic),
                    ));
                }
                Some(_) => {}
                None => {
                    defined.insert(f.name.name.clone(), (t, text));
                }
            }
            functions.push((f.name.name.clone(), f.span));
        }
        let mut test_sites = sites(program);
        let mut keys = Vec::new();
        for site in &mut test_sites {
            let function = functions
                .iter()
                .find(|(_, span)| span.start <= site.span.start && site.span.end <= span.end);
            let key = match function {
                Some((name, span)) if !site.pinned => {
                    if !site.choices.contains(&site.written) {
                        site.choices.insert(0, site.written);
                    }
                    let id = (name.clone(), site.span.start - span.start);
                    let next = shared.len();
                    let k = *key_of.entry(id).or_insert(next);
                    if k == next {
                        shared.push(SharedSite {
                            function: name.clone(),
                            test: t,
                            site: site.clone(),
                            offset: site.span.start - span.start,
                        });
                    }
                    Some(k)
                }
                _ => {
                    site.pinned = true;
                    site.choices = vec![site.written];
                    None
                }
            };
            keys.push(key);
        }
        all_sites.push(test_sites);
        shared_of.push(keys);
        spans.push(functions);
    }
    let mut unrun = Vec::new();
    for (t, (program, _)) in programs.iter().enumerate() {
        let mut extra = Vec::new();
        for (k, s) in shared.iter().enumerate() {
            let Some((_, f)) = spans[t].iter().find(|(name, _)| *name == s.function) else {
                continue;
            };
            if shared_of[t].contains(&Some(k)) {
                continue;
            }
            let start = f.start + s.offset;
            let span =
                crate::diagnostics::Span::new(start, start + (s.site.span.end - s.site.span.start));
            let (line, _) = program.source.line_col(start);
            extra.push((
                Site {
                    span,
                    line,
                    ..s.site.clone()
                },
                k,
            ));
        }
        unrun.push(extra);
    }
    let assignments = shared
        .iter()
        .fold(1usize, |n, s| n.saturating_mul(s.site.choices.len()));
    let checkers: Vec<Checker> = programs
        .iter()
        .zip(&all_sites)
        .map(|(&(program, unroll), sites)| Checker {
            program,
            sites,
            unroll,
            options,
            property,
        })
        .collect();
    let written_each: Vec<Vec<Choice>> = all_sites
        .iter()
        .map(|s| s.iter().map(|site| site.written).collect())
        .collect();
    let loaded = checkers
        .iter()
        .zip(&written_each)
        .map(|(c, w)| c.load(w))
        .collect::<Result<Vec<_>, _>>()?;
    let mut oracles = Vec::new();
    for (checker, (program, events)) in checkers.iter().zip(&loaded) {
        oracles.push(Oracle::new(checker, program, events)?);
    }
    let joint_sites: Vec<Site> = shared.iter().map(|s| s.site.clone()).collect();
    let mut joint = Joint {
        oracles,
        sites: &all_sites,
        shared_of: &shared_of,
        verdicts: HashMap::new(),
        minimal: Vec::new(),
        failing: Vec::new(),
    };
    let mut seeds = Seeds::new(&joint_sites);
    while let Some(seed) = seeds.next(&joint_sites)? {
        if joint.passes(&seed)? {
            let least = joint.walk(&joint_sites, seed, Direction::Down, true)?;
            seeds.block(&joint_sites, &least, true);
            joint.minimal.push(least);
        } else {
            let most = joint.walk(&joint_sites, seed, Direction::Up, false)?;
            seeds.block(&joint_sites, &most, false);
            joint.failing.push(most);
        }
    }
    let mut minimal = Vec::new();
    for assignment in std::mem::take(&mut joint.minimal) {
        let mut reasons = Vec::new();
        for (i, site) in joint_sites.iter().enumerate() {
            let Some(&weaker) = covers(&site.choices, assignment[i], Direction::Down).first()
            else {
                continue;
            };
            let mut tried = assignment.clone();
            tried[i] = weaker;
            if let Some((test, violation)) = joint.first_failure(&tried)? {
                reasons.push(SharedReason {
                    site: i,
                    weaker,
                    test,
                    violation,
                });
            }
        }
        minimal.push(SharedMinimal {
            assignment,
            reasons,
        });
    }
    let written: Vec<Choice> = shared.iter().map(|s| s.site.written).collect();
    let mut written_failures = Vec::new();
    for t in 0..programs.len() {
        let a = project(&all_sites[t], &shared_of[t], &written);
        if let Some(failure) = joint.oracles[t].failure(&a)? {
            written_failures.push((t, failure.violation));
        }
    }
    let below = |a: &[Choice], b: &[Choice]| a.iter().zip(b).all(|(&x, &y)| at_most(x, y));
    let nearest = minimal
        .iter()
        .enumerate()
        .filter(|(_, m)| match written_failures.is_empty() {
            true => below(&m.assignment, &written),
            false => below(&written, &m.assignment),
        })
        .map(|(i, _)| i)
        .collect();
    let mut bound_hit = false;
    for oracle in &mut joint.oracles {
        bound_hit |= oracle.bound_reachable()?;
    }
    Ok(Together {
        shared,
        sites: all_sites.clone(),
        shared_of: shared_of.clone(),
        unrun,
        assignments,
        minimal,
        written_failures,
        nearest,
        bound_hit,
    })
}

/// The joint verdicts: every test's instance under its projection.
struct Joint<'a> {
    oracles: Vec<Oracle<'a>>,
    sites: &'a [Vec<Site>],
    shared_of: &'a [Vec<Option<usize>>],
    verdicts: HashMap<Vec<Choice>, bool>,
    minimal: Vec<Vec<Choice>>,
    failing: Vec<Vec<Choice>>,
}

impl Joint<'_> {
    fn passes(&mut self, a: &[Choice]) -> Result<bool, InferError> {
        if let Some(known) = known_verdict(&self.minimal, &self.failing, &self.verdicts, a) {
            return Ok(known);
        }
        let mut passes = true;
        for t in 0..self.oracles.len() {
            let projected = project(&self.sites[t], &self.shared_of[t], a);
            if !self.oracles[t].passes(&projected)? {
                passes = false;
                break;
            }
        }
        self.verdicts.insert(a.to_vec(), passes);
        Ok(passes)
    }

    /// From `a`, step in `direction` while some neighbour's verdict is `passing`.
    fn walk(
        &mut self,
        sites: &[Site],
        mut a: Vec<Choice>,
        direction: Direction,
        passing: bool,
    ) -> Result<Vec<Choice>, InferError> {
        'step: loop {
            for i in 0..a.len() {
                for next in covers(&sites[i].choices, a[i], direction) {
                    let mut b = a.clone();
                    b[i] = next;
                    if self.passes(&b)? == passing {
                        a = b;
                        continue 'step;
                    }
                }
            }
            return Ok(a);
        }
    }

    /// The first test whose property `a` breaks, with what breaks.
    fn first_failure(&mut self, a: &[Choice]) -> Result<Option<(usize, Violation)>, InferError> {
        for t in 0..self.oracles.len() {
            let projected = project(&self.sites[t], &self.shared_of[t], a);
            if let Some(failure) = self.oracles[t].failure(&projected)? {
                return Ok(Some((t, failure.violation)));
            }
        }
        Ok(None)
    }
}
