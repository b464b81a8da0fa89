//! The library calls a thread may make, as one table: lowering reads it to turn a call into
//! an instruction, and the diagnostics read it to list what exists.
//!
//! Each entry maps a call to one primitive access with a memory order that is either fixed
//! by the call or given by an argument, which is the shape of herd's `.def` files
//! (`READ_ONCE(X) __load{once}(X)`): a table read from such a file can replace this one
//! without touching lowering.

use super::{BinaryOp, MemOrder, RmwOp};

use MemOrder::{AcqRel, Acquire, Consume, Relaxed, Release, SeqCst};

/// The orders C11 allows on a load (and on the failure of a compare-exchange).
const LOAD_ORDERS: &[MemOrder] = &[Relaxed, Consume, Acquire, SeqCst];
const STORE_ORDERS: &[MemOrder] = &[Relaxed, Release, SeqCst];
const ALL_ORDERS: &[MemOrder] = &[Relaxed, Consume, Acquire, Release, AcqRel, SeqCst];

/// The access a call performs. Its operands are the leading arguments, in this order:
/// the location, then (by primitive) the value stored, the operand of the modification, or
/// the expected location and the desired value; a condition for `Assert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primitive {
    Load,
    Store,
    Rmw(RmwOp),
    CompareExchange {
        weak: bool,
    },
    Fence,
    Lock,
    Unlock,
    Assert,
    /// `assume(e)`: executions in which `e` is false when the call runs do not exist.
    Assume,
    /// `await(e)`: `while (!e) ;`, a spin loop (reduced as every side-effect-free spin).
    Await,
    /// `ordering_point(e)`: the memory access before it is an ordering point of its
    /// method call when `e` holds (CDSSpec's ordering points, for `nemos spec`).
    OrderingPoint,
    /// `potential_ordering_point(L)`, `check_ordering_point(L, e)` and
    /// `clear_ordering_points(e)`: CDSSpec's `@PotentialOP`, `@OPCheck` and `@OPClear`.
    PotentialOrderingPoint,
    CheckOrderingPoint,
    ClearOrderingPoints,
}

impl Primitive {
    /// Whether the call is an expression with a value (the value read from memory).
    pub fn returns_value(self) -> bool {
        matches!(
            self,
            Primitive::Load | Primitive::Rmw(_) | Primitive::CompareExchange { .. }
        )
    }

    /// How the diagnostics name the access.
    pub fn description(self) -> &'static str {
        match self {
            Primitive::Load => "a load",
            Primitive::Store => "a store",
            Primitive::Rmw(_) => "a read-modify-write",
            Primitive::CompareExchange { .. } => "a compare-exchange",
            Primitive::Fence => "a fence",
            Primitive::Lock => "a lock",
            Primitive::Unlock => "an unlock",
            Primitive::Assert => "an assertion",
            Primitive::Assume => "an assumption",
            Primitive::Await => "a wait",
            Primitive::OrderingPoint
            | Primitive::PotentialOrderingPoint
            | Primitive::CheckOrderingPoint
            | Primitive::ClearOrderingPoints => "an ordering point",
        }
    }
}

/// Where a call's memory order comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderSource {
    /// The call's own: `READ_ONCE` is relaxed, `atomic_load` is seq_cst.
    Fixed(MemOrder),
    /// The argument at this position, one of these orders (`atomic_load_explicit(x, mo)`).
    Argument(usize, &'static [MemOrder]),
}

/// Which family of calls an entry belongs to, for the help texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    C11,
    Linux,
    Locks,
    Assertions,
}

/// One library call.
#[derive(Clone, Copy, Debug)]
pub struct LibraryCall {
    pub name: &'static str,
    pub family: Family,
    pub primitive: Primitive,
    /// The parameters' names, as the help shows them; their number is the call's arity.
    pub params: &'static [&'static str],
    /// The order of the access (of its success, for a compare-exchange). `None` for calls
    /// without one (locks, assertions).
    pub order: Option<OrderSource>,
    /// The order of a failed compare-exchange.
    pub failure_order: Option<OrderSource>,
}

impl LibraryCall {
    pub fn arity(&self) -> usize {
        self.params.len()
    }

    /// `atomic_store_explicit(obj, desired, order)`.
    pub fn signature(&self) -> String {
        format!("{}({})", self.name, self.params.join(", "))
    }
}

const fn call(
    name: &'static str,
    family: Family,
    primitive: Primitive,
    params: &'static [&'static str],
    order: Option<OrderSource>,
) -> LibraryCall {
    LibraryCall {
        name,
        family,
        primitive,
        params,
        order,
        failure_order: None,
    }
}

const fn fixed(order: MemOrder) -> Option<OrderSource> {
    Some(OrderSource::Fixed(order))
}

const fn argument(position: usize, allowed: &'static [MemOrder]) -> Option<OrderSource> {
    Some(OrderSource::Argument(position, allowed))
}

const fn c11_rmw(name: &'static str, op: RmwOp, explicit: bool) -> LibraryCall {
    if explicit {
        call(
            name,
            Family::C11,
            Primitive::Rmw(op),
            &["obj", "arg", "order"],
            argument(2, ALL_ORDERS),
        )
    } else {
        call(
            name,
            Family::C11,
            Primitive::Rmw(op),
            &["obj", "arg"],
            fixed(SeqCst),
        )
    }
}

const fn sync_extreme(name: &'static str, min: bool, unsigned: bool) -> LibraryCall {
    call(
        name,
        Family::C11,
        Primitive::Rmw(RmwOp::Extreme { min, unsigned }),
        &["obj", "arg"],
        fixed(SeqCst),
    )
}

const fn c11_compare_exchange(name: &'static str, weak: bool, explicit: bool) -> LibraryCall {
    let primitive = Primitive::CompareExchange { weak };
    if explicit {
        LibraryCall {
            failure_order: argument(4, LOAD_ORDERS),
            ..call(
                name,
                Family::C11,
                primitive,
                &["obj", "expected", "desired", "success", "failure"],
                argument(3, ALL_ORDERS),
            )
        }
    } else {
        LibraryCall {
            failure_order: fixed(SeqCst),
            ..call(
                name,
                Family::C11,
                primitive,
                &["obj", "expected", "desired"],
                fixed(SeqCst),
            )
        }
    }
}

const ADD: RmwOp = RmwOp::Fetch(BinaryOp::Add);
const SUB: RmwOp = RmwOp::Fetch(BinaryOp::Sub);
const AND: RmwOp = RmwOp::Fetch(BinaryOp::BitAnd);
const OR: RmwOp = RmwOp::Fetch(BinaryOp::BitOr);
const XOR: RmwOp = RmwOp::Fetch(BinaryOp::BitXor);

/// Every call nemos knows.
pub static LIBRARY: &[LibraryCall] = &[
    // C11 <stdatomic.h>
    call(
        "atomic_load",
        Family::C11,
        Primitive::Load,
        &["obj"],
        fixed(SeqCst),
    ),
    call(
        "atomic_load_explicit",
        Family::C11,
        Primitive::Load,
        &["obj", "order"],
        argument(1, LOAD_ORDERS),
    ),
    call(
        "atomic_store",
        Family::C11,
        Primitive::Store,
        &["obj", "desired"],
        fixed(SeqCst),
    ),
    call(
        "atomic_store_explicit",
        Family::C11,
        Primitive::Store,
        &["obj", "desired", "order"],
        argument(2, STORE_ORDERS),
    ),
    c11_rmw("atomic_exchange", RmwOp::Exchange, false),
    c11_rmw("atomic_exchange_explicit", RmwOp::Exchange, true),
    c11_rmw("atomic_fetch_add", ADD, false),
    c11_rmw("atomic_fetch_add_explicit", ADD, true),
    c11_rmw("atomic_fetch_sub", SUB, false),
    c11_rmw("atomic_fetch_sub_explicit", SUB, true),
    c11_rmw("atomic_fetch_and", AND, false),
    c11_rmw("atomic_fetch_and_explicit", AND, true),
    c11_rmw("atomic_fetch_or", OR, false),
    c11_rmw("atomic_fetch_or_explicit", OR, true),
    c11_rmw("atomic_fetch_xor", XOR, false),
    c11_rmw("atomic_fetch_xor_explicit", XOR, true),
    // clang's `__sync` maxima and minima: seq_cst read-modify-writes, as it emits them
    // (`atomicrmw max ... seq_cst`), of a pointer's cell.
    sync_extreme("__sync_fetch_and_max", false, false),
    sync_extreme("__sync_fetch_and_min", true, false),
    sync_extreme("__sync_fetch_and_umax", false, true),
    sync_extreme("__sync_fetch_and_umin", true, true),
    c11_compare_exchange("atomic_compare_exchange_strong", false, false),
    c11_compare_exchange("atomic_compare_exchange_strong_explicit", false, true),
    c11_compare_exchange("atomic_compare_exchange_weak", true, false),
    c11_compare_exchange("atomic_compare_exchange_weak_explicit", true, true),
    call(
        "atomic_thread_fence",
        Family::C11,
        Primitive::Fence,
        &["order"],
        argument(0, ALL_ORDERS),
    ),
    call(
        "atomic_signal_fence",
        Family::C11,
        Primitive::Fence,
        &["order"],
        argument(0, ALL_ORDERS),
    ),
    // The Linux kernel's macros, mapped as the C11 translation of the LKMM does.
    call(
        "READ_ONCE",
        Family::Linux,
        Primitive::Load,
        &["x"],
        fixed(Relaxed),
    ),
    call(
        "WRITE_ONCE",
        Family::Linux,
        Primitive::Store,
        &["x", "v"],
        fixed(Relaxed),
    ),
    call(
        "smp_load_acquire",
        Family::Linux,
        Primitive::Load,
        &["p"],
        fixed(Acquire),
    ),
    call(
        "smp_store_release",
        Family::Linux,
        Primitive::Store,
        &["p", "v"],
        fixed(Release),
    ),
    call(
        "smp_mb",
        Family::Linux,
        Primitive::Fence,
        &[],
        fixed(SeqCst),
    ),
    call(
        "smp_rmb",
        Family::Linux,
        Primitive::Fence,
        &[],
        fixed(Acquire),
    ),
    call(
        "smp_wmb",
        Family::Linux,
        Primitive::Fence,
        &[],
        fixed(Release),
    ),
    // Locks: a lock is a location; its acquisitions are ordered (`lko`).
    call("lock", Family::Locks, Primitive::Lock, &["l"], None),
    call("unlock", Family::Locks, Primitive::Unlock, &["l"], None),
    call("mtx_lock", Family::Locks, Primitive::Lock, &["l"], None),
    call("mtx_unlock", Family::Locks, Primitive::Unlock, &["l"], None),
    call("spin_lock", Family::Locks, Primitive::Lock, &["l"], None),
    call(
        "spin_unlock",
        Family::Locks,
        Primitive::Unlock,
        &["l"],
        None,
    ),
    call(
        "assert",
        Family::Assertions,
        Primitive::Assert,
        &["cond"],
        None,
    ),
    call(
        "assume",
        Family::Assertions,
        Primitive::Assume,
        &["cond"],
        None,
    ),
    call(
        "ordering_point",
        Family::Assertions,
        Primitive::OrderingPoint,
        &["cond"],
        None,
    ),
    call(
        "potential_ordering_point",
        Family::Assertions,
        Primitive::PotentialOrderingPoint,
        &["label"],
        None,
    ),
    call(
        "check_ordering_point",
        Family::Assertions,
        Primitive::CheckOrderingPoint,
        &["label", "cond"],
        None,
    ),
    call(
        "clear_ordering_points",
        Family::Assertions,
        Primitive::ClearOrderingPoints,
        &["cond"],
        None,
    ),
    call(
        "await",
        Family::Assertions,
        Primitive::Await,
        &["cond"],
        None,
    ),
];

/// The call of this name, if nemos knows it.
pub fn lookup(name: &str) -> Option<&'static LibraryCall> {
    LIBRARY.iter().find(|call| call.name == name)
}

/// The calls of a family, in the table's order; an `_explicit` variant is folded into its
/// base call (`atomic_load[_explicit]`).
pub fn names(family: Family) -> Vec<String> {
    LIBRARY
        .iter()
        .filter(|call| call.family == family && !call.name.ends_with("_explicit"))
        .map(|call| {
            if lookup(&format!("{}_explicit", call.name)).is_some() {
                format!("{}[_explicit]", call.name)
            } else {
                call.name.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_order_argument_is_a_parameter_and_every_name_is_unique() {
        for (i, call) in LIBRARY.iter().enumerate() {
            assert!(
                LIBRARY[i + 1..].iter().all(|other| other.name != call.name),
                "{} is listed twice",
                call.name
            );
            for source in [call.order, call.failure_order].into_iter().flatten() {
                if let OrderSource::Argument(position, _) = source {
                    assert!(position < call.arity(), "{}", call.signature());
                    assert!(
                        call.params[position].contains("order")
                            || ["success", "failure"].contains(&call.params[position])
                    );
                }
            }
            let has_failure = call.failure_order.is_some();
            let is_cas = matches!(call.primitive, Primitive::CompareExchange { .. });
            assert_eq!(has_failure, is_cas, "{}", call.name);
        }
    }

    #[test]
    fn explicit_variants_fold_into_their_base_call() {
        let c11 = names(Family::C11);
        assert!(c11.contains(&"atomic_load[_explicit]".to_string()));
        assert!(c11.contains(&"atomic_thread_fence".to_string()));
        assert!(!c11.iter().any(|n| n.ends_with("_explicit")));
        assert_eq!(
            names(Family::Assertions),
            [
                "assert",
                "assume",
                "ordering_point",
                "potential_ordering_point",
                "check_ordering_point",
                "clear_ordering_points",
                "await"
            ]
        );
    }
}
