//! Dense Boolean matrices over events, without literals: the static upper bounds of a
//! model's relations and the pairs each of them is asked for (see `model/plan.rs`).
//!
//! A test has a few hundred events at most, so `n x n` bits are a few kilobytes, and the
//! products and closures below cost `n^3 / 64` word operations: nothing next to building
//! one literal per pair.

use crate::events::EventId;

/// An `n x n` Boolean matrix, row by row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bits {
    n: usize,
    words: usize,
    rows: Vec<u64>,
}

impl Bits {
    pub fn new(n: usize) -> Bits {
        let words = n.div_ceil(64).max(1);
        Bits {
            n,
            words,
            rows: vec![0; n * words],
        }
    }

    pub fn size(&self) -> usize {
        self.n
    }

    pub fn get(&self, a: EventId, b: EventId) -> bool {
        a < self.n && b < self.n && self.rows[a * self.words + b / 64] >> (b % 64) & 1 == 1
    }

    pub fn set(&mut self, a: EventId, b: EventId) {
        if a < self.n && b < self.n {
            self.rows[a * self.words + b / 64] |= 1 << (b % 64);
        }
    }

    fn row(&self, a: EventId) -> &[u64] {
        &self.rows[a * self.words..(a + 1) * self.words]
    }

    /// Row `a` has a bit in common with row `b` of `other`.
    pub fn rows_meet(&self, a: EventId, other: &Bits, b: EventId) -> bool {
        self.row(a)
            .iter()
            .zip(other.row(b))
            .any(|(x, y)| x & y != 0)
    }

    /// Or row `b` of `other` into row `a` of `self`.
    fn or_row(&mut self, a: EventId, other: &Bits, b: EventId) {
        let w = self.words;
        for i in 0..w {
            self.rows[a * w + i] |= other.rows[b * w + i];
        }
    }

    /// Some pair is in both.
    pub fn meets(&self, other: &Bits) -> bool {
        self.rows.iter().zip(&other.rows).any(|(x, y)| x & y != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|&w| w == 0)
    }

    /// The pairs, row by row.
    pub fn iter(&self) -> Pairs<'_> {
        Pairs {
            bits: self,
            index: 0,
            word: self.rows.first().copied().unwrap_or(0),
        }
    }

    pub fn union_with(&mut self, other: &Bits) {
        for (x, y) in self.rows.iter_mut().zip(&other.rows) {
            *x |= y;
        }
    }

    pub fn intersect_with(&mut self, other: &Bits) {
        for (x, y) in self.rows.iter_mut().zip(&other.rows) {
            *x &= y;
        }
    }

    /// Remove the pairs of `other`.
    pub fn remove_all(&mut self, other: &Bits) {
        for (x, y) in self.rows.iter_mut().zip(&other.rows) {
            *x &= !y;
        }
    }

    pub fn union(&self, other: &Bits) -> Bits {
        let mut out = self.clone();
        out.union_with(other);
        out
    }

    pub fn intersection(&self, other: &Bits) -> Bits {
        let mut out = self.clone();
        out.intersect_with(other);
        out
    }

    /// Every pair of `self` is in `other`.
    pub fn is_subset(&self, other: &Bits) -> bool {
        self.rows.iter().zip(&other.rows).all(|(x, y)| x & !y == 0)
    }

    pub fn transpose(&self) -> Bits {
        let mut out = Bits::new(self.n);
        for (a, b) in self.iter() {
            out.set(b, a);
        }
        out
    }

    /// The relational composition `self ; other`: row `a` is the union of the rows of
    /// `other` at the columns set in row `a` of `self`, read a word at a time. Only the
    /// rows of `other` that have a pair are visited (a model's bounds are mostly empty
    /// rows: the writes of `rf`, the events of one location), so a dense `self` such as
    /// program order costs its pairs into `other`'s non-empty rows, not all of them.
    pub fn compose(&self, other: &Bits) -> Bits {
        let mut out = Bits::new(self.n);
        let w = self.words;
        if w == 0 || other.words != w {
            return out;
        }
        let live = other.domain_mask();
        for (row, out_row) in self.rows.chunks_exact(w).zip(out.rows.chunks_exact_mut(w)) {
            for (i, (&word, &m)) in row.iter().zip(&live).enumerate() {
                let mut rest = word & m;
                while rest != 0 {
                    let b = i * 64 + rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    if let Some(through) = other.rows.get(b * w..(b + 1) * w) {
                        for (cell, &x) in out_row.iter_mut().zip(through) {
                            *cell |= x;
                        }
                    }
                }
            }
        }
        out
    }

    /// The events with a pair in their row, as a row of bits.
    fn domain_mask(&self) -> Vec<u64> {
        let w = self.words;
        let mut mask = vec![0u64; w];
        for a in 0..self.n {
            if self.row(a).iter().any(|&x| x != 0) {
                mask[a / 64] |= 1 << (a % 64);
            }
        }
        mask
    }

    /// `self⁻¹ ; other` without building the transpose: row `y` is the union of the rows
    /// `x` of `other` with `(x, y)` in `self`, over the non-empty rows of `other` only.
    fn transpose_compose(&self, other: &Bits) -> Bits {
        let mut out = Bits::new(self.n);
        let w = self.words;
        for x in 0..self.n {
            if other.row(x).iter().all(|&v| v == 0) {
                continue;
            }
            for i in 0..w {
                let mut word = self.rows[x * w + i];
                while word != 0 {
                    let y = i * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    out.or_row(y, other, x);
                }
            }
        }
        out
    }

    /// The transitive closure (Warshall): after round `k`, the paths through `0..=k`. Row
    /// `k` does not change in its own round, so it is read from a copy; a round whose row
    /// is empty adds nothing (most of a model's rows: the initial writes, the reads in
    /// `rf`'s range).
    pub fn closure(&self) -> Bits {
        let mut out = self.clone();
        let w = out.words;
        if w == 0 {
            return out;
        }
        let mut through = vec![0u64; w];
        for k in 0..self.n {
            through.copy_from_slice(out.row(k));
            if through.iter().all(|&v| v == 0) {
                continue;
            }
            let (word, bit) = (k / 64, 1u64 << (k % 64));
            for row in out.rows.chunks_exact_mut(w) {
                if row[word] & bit != 0 {
                    for (cell, &x) in row.iter_mut().zip(&through) {
                        *cell |= x;
                    }
                }
            }
        }
        out
    }

    /// The pairs `(a, a)` of `self`.
    pub fn diagonal(&self) -> Bits {
        let mut out = Bits::new(self.n);
        for a in 0..self.n {
            if self.get(a, a) {
                out.set(a, a);
            }
        }
        out
    }

    /// `[s]`: the identity on the members of `s`.
    pub fn identity(s: &[bool]) -> Bits {
        let mut out = Bits::new(s.len());
        for (a, _) in s.iter().enumerate().filter(|(_, &m)| m) {
            out.set(a, a);
        }
        out
    }

    /// `s * t`.
    pub fn product(s: &[bool], t: &[bool]) -> Bits {
        let mut out = Bits::new(s.len());
        let mut row = Bits::new(t.len());
        for (b, _) in t.iter().enumerate().filter(|(_, &m)| m) {
            row.set(0, b);
        }
        for (a, _) in s.iter().enumerate().filter(|(_, &m)| m) {
            out.or_row(a, &row, 0);
        }
        out
    }

    /// The events with a pair in their row (`domain`) or column (`range`).
    pub fn domain(&self) -> Vec<bool> {
        (0..self.n)
            .map(|a| self.row(a).iter().any(|&w| w != 0))
            .collect()
    }

    pub fn range(&self) -> Vec<bool> {
        let mut out = vec![false; self.n];
        for (_, b) in self.iter() {
            out[b] = true;
        }
        out
    }
}

/// The pairs of a [`Bits`], row by row: one word at a time, its bits by
/// `trailing_zeros` (the nested `flat_map` it replaces was a tenth of a small test's
/// instructions under the kernel's model).
pub struct Pairs<'a> {
    bits: &'a Bits,
    /// The word of `bits.rows` being read.
    index: usize,
    /// What is left of it.
    word: u64,
}

impl Iterator for Pairs<'_> {
    type Item = (EventId, EventId);

    fn next(&mut self) -> Option<(EventId, EventId)> {
        loop {
            if self.word != 0 {
                let bit = self.word.trailing_zeros() as usize;
                self.word &= self.word - 1;
                let words = self.bits.words;
                return Some((self.index / words, (self.index % words) * 64 + bit));
            }
            self.index += 1;
            self.word = *self.bits.rows.get(self.index)?;
        }
    }
}

/// The pairs of `a` and of `b` a composition `a ; b` needs for its pairs in `wanted`:
/// `(x, y)` of `a` when some `(y, z)` of `b` has `(x, z)` wanted, and the converse.
pub fn compose_needs(a: &Bits, b: &Bits, wanted: &Bits) -> (Bits, Bits) {
    let n = a.size();
    let mut need_a = Bits::new(n);
    // Only rows x with a wanted pair and columns y with a pair of b can be needed.
    let live_b = b.domain_mask();
    let w = a.words;
    for x in 0..n {
        if wanted.row(x).iter().all(|&v| v == 0) {
            continue;
        }
        for (i, &m) in live_b.iter().enumerate() {
            let mut word = a.rows[x * w + i] & m;
            while word != 0 {
                let y = i * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                if wanted.rows_meet(x, b, y) {
                    need_a.set(x, y);
                }
            }
        }
    }
    // Row y of `reach`: the targets z wanted from some x with (x, y) in a.
    let reach = a.transpose_compose(wanted);
    let mut need_b = b.clone();
    need_b.intersect_with(&reach);
    (need_a, need_b)
}

/// The pairs of `r` that lie on a path of `r` from `s` to `t` for some wanted `(s, t)`:
/// what the closure `r+` needs of `r` for its pairs in `wanted`.
pub fn closure_needs(r: &Bits, wanted: &Bits) -> Bits {
    let n = r.size();
    let mut star = r.closure();
    for a in 0..n {
        star.set(a, a);
    }
    // Row x of `ahead`: the targets wanted from some s that reaches x (x itself included).
    let ahead = star.transpose_compose(wanted);
    let mut need = Bits::new(n);
    for (x, y) in r.iter() {
        if ahead.rows_meet(x, &star, y) {
            need.set(x, y);
        }
    }
    need
}

/// The pairs of `r` that lie on a cycle of `r`: those within one strongly connected
/// component (`(a, b)` with `b` reaching `a` again). Computed from the components
/// ([`components`]) rather than from the closure `r+` (Warshall: `n^3 / 64` word
/// operations, seconds for the thousands of events of a long thread, whose program order
/// is a dense triangle).
pub fn on_cycles(r: &Bits) -> Bits {
    let n = r.n;
    let component = components(r);
    let mut members: Vec<Vec<EventId>> = vec![Vec::new(); n];
    for (a, &c) in component.iter().enumerate() {
        members[c].push(a);
    }
    let mut out = Bits::new(n);
    for nodes in members.iter().filter(|m| !m.is_empty()) {
        let mut mask = vec![0u64; r.words];
        for &a in nodes {
            mask[a / 64] |= 1 << (a % 64);
        }
        for &a in nodes {
            let w = r.words;
            for (i, m) in mask.iter().enumerate() {
                out.rows[a * w + i] = r.rows[a * w + i] & m;
            }
        }
    }
    out
}

/// Per node, the number of its strongly connected component in `r` (Kosaraju's two
/// passes). The nodes not visited yet are a row of bits, so a node's unvisited successors
/// are found a word at a time: `n^2 / 64` word operations, not one per pair.
fn components(r: &Bits) -> Vec<usize> {
    let (n, w) = (r.n, r.words);
    let mut unvisited = vec![0u64; w];
    for a in 0..n {
        unvisited[a / 64] |= 1 << (a % 64);
    }
    // The first unvisited successor of `a` from word `from` on, marked visited.
    let next = |rel: &Bits, unvisited: &mut [u64], a: usize, from: &mut usize| {
        while *from < w {
            let word = rel.rows[a * w + *from] & unvisited[*from];
            if word != 0 {
                let b = *from * 64 + word.trailing_zeros() as usize;
                unvisited[b / 64] &= !(1 << (b % 64));
                return Some(b);
            }
            *from += 1;
        }
        None
    };
    // Depth first on `r`: the nodes in the order they finish.
    let mut finished = Vec::with_capacity(n);
    let mut first = unvisited.clone();
    for root in 0..n {
        if first[root / 64] >> (root % 64) & 1 == 0 {
            continue;
        }
        first[root / 64] &= !(1 << (root % 64));
        let mut stack = vec![(root, 0usize)];
        while let Some(top) = stack.last_mut() {
            let (a, mut from) = *top;
            let found = next(r, &mut first, a, &mut from);
            top.1 = from;
            match found {
                Some(b) => stack.push((b, 0)),
                None => {
                    finished.push(a);
                    stack.pop();
                }
            }
        }
    }
    // On the transpose, latest finished first: each search finds one component.
    let back = r.transpose();
    let mut component = vec![0; n];
    let mut count = 0;
    for &root in finished.iter().rev() {
        if unvisited[root / 64] >> (root % 64) & 1 == 0 {
            continue;
        }
        unvisited[root / 64] &= !(1 << (root % 64));
        let mut stack = vec![root];
        while let Some(a) = stack.pop() {
            component[a] = count;
            let mut from = 0;
            while let Some(b) = next(&back, &mut unvisited, a, &mut from) {
                stack.push(b);
            }
        }
        count += 1;
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(n: usize, pairs: &[(usize, usize)]) -> Bits {
        let mut b = Bits::new(n);
        for &(x, y) in pairs {
            b.set(x, y);
        }
        b
    }

    #[test]
    fn closure_and_cycles() {
        let r = bits(70, &[(0, 1), (1, 65), (65, 0), (65, 69)]);
        let c = r.closure();
        assert!(c.get(0, 69) && c.get(0, 0) && !c.get(69, 0));
        let cyc = on_cycles(&r);
        assert_eq!(
            cyc.iter().collect::<Vec<_>>(),
            vec![(0, 1), (1, 65), (65, 0)]
        );
    }

    #[test]
    fn pairs_on_cycles_are_those_the_closure_finds() {
        // Pseudo-random relations of several densities and sizes (across word bounds).
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for n in [1, 2, 5, 63, 64, 65, 130] {
            for density in [1, 3, 10, 40] {
                let mut r = Bits::new(n);
                for a in 0..n {
                    for b in 0..n {
                        if next() % 100 < density {
                            r.set(a, b);
                        }
                    }
                }
                let by_closure = r.intersection(&r.closure().transpose());
                assert_eq!(on_cycles(&r), by_closure, "n = {n}, density {density}");
            }
        }
    }

    /// Pseudo-random relations of several sizes (across word bounds) and densities, with
    /// rows left empty at random, as a model's bounds have them.
    fn random_relations() -> Vec<Bits> {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut out = Vec::new();
        for n in [1, 3, 63, 64, 65, 130] {
            for density in [0, 2, 10, 50] {
                for empty_rows in [0, 50, 90] {
                    let mut r = Bits::new(n);
                    for a in 0..n {
                        if next() % 100 < empty_rows {
                            continue;
                        }
                        for b in 0..n {
                            if next() % 100 < density {
                                r.set(a, b);
                            }
                        }
                    }
                    out.push(r);
                }
            }
        }
        out
    }

    #[test]
    fn compositions_and_their_needs_are_those_of_the_definitions() {
        // The definitions, pair by pair: `a ; b`, and what `a ; b` needs of `a` and `b`
        // for the pairs of `wanted`.
        let rels = random_relations();
        for (k, a) in rels.iter().enumerate() {
            let n = a.size();
            let same: Vec<&Bits> = rels.iter().filter(|r| r.size() == n).collect();
            let b = same[k % same.len()];
            let wanted = same[(k * 7 + 3) % same.len()];
            let mut composed = Bits::new(n);
            let mut need_a = Bits::new(n);
            let mut need_b = Bits::new(n);
            for (x, y) in a.iter() {
                for z in 0..n {
                    if b.get(y, z) {
                        composed.set(x, z);
                        if wanted.get(x, z) {
                            need_a.set(x, y);
                            need_b.set(y, z);
                        }
                    }
                }
            }
            assert_eq!(a.compose(b), composed, "relation {k}");
            let (na, nb) = compose_needs(a, b, wanted);
            assert_eq!(na, need_a, "relation {k}");
            assert_eq!(nb, need_b, "relation {k}");
            let mut transposed = Bits::new(n);
            for (x, y) in a.transpose().iter() {
                for z in 0..n {
                    if wanted.get(y, z) {
                        transposed.set(x, z);
                    }
                }
            }
            assert_eq!(a.transpose_compose(wanted), transposed, "relation {k}");
        }
    }

    #[test]
    fn compose_and_closure_agree_with_their_definitions_on_pairs() {
        // Pseudo-random relations across word bounds, against a pair-by-pair composition
        // and a closure by composing until nothing is added.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let naive_compose = |r: &Bits, s: &Bits| {
            let n = r.size();
            let mut out = Bits::new(n);
            for (a, b) in r.iter() {
                for c in 0..n {
                    if s.get(b, c) {
                        out.set(a, c);
                    }
                }
            }
            out
        };
        for n in [1, 2, 5, 63, 64, 65, 130] {
            for density in [1, 3, 10, 40] {
                let mut random = || {
                    let mut r = Bits::new(n);
                    for a in 0..n {
                        for b in 0..n {
                            if next() % 100 < density {
                                r.set(a, b);
                            }
                        }
                    }
                    r
                };
                let (r, s) = (random(), random());
                assert_eq!(
                    r.compose(&s),
                    naive_compose(&r, &s),
                    "n = {n}, density {density}"
                );
                let mut plus = r.clone();
                loop {
                    let grown = plus.union(&naive_compose(&plus, &r));
                    if grown == plus {
                        break;
                    }
                    plus = grown;
                }
                assert_eq!(r.closure(), plus, "n = {n}, density {density}");
            }
        }
    }

    #[test]
    fn needs_of_compositions_and_closures() {
        let a = bits(5, &[(0, 1), (0, 2), (3, 4)]);
        let b = bits(5, &[(1, 3), (2, 4), (4, 0)]);
        let wanted = bits(5, &[(0, 3)]);
        let (na, nb) = compose_needs(&a, &b, &wanted);
        assert_eq!(na.iter().collect::<Vec<_>>(), vec![(0, 1)]);
        assert_eq!(nb.iter().collect::<Vec<_>>(), vec![(1, 3)]);
        let r = bits(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (1, 4)]);
        let need = closure_needs(&r, &bits(5, &[(0, 2)]));
        assert_eq!(need.iter().collect::<Vec<_>>(), vec![(0, 1), (1, 2)]);
    }
}
