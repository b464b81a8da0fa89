//! `if (pthread_create(...))`, `if (pthread_join(...) != 0)`, `if (!thrd_create(...))`:
//! nemos's thread calls always succeed (their value is 0, as GenMC's are, since GenMC
//! models no failure to start or join a thread), so such a condition is a constant once
//! the call is made, and only one branch of its `if` can run. The branch that cannot run
//! (the failure handling, often `printf(...); return -1;` or `abort()`) is not read, so it
//! neither keeps a loop around the call from being unrolled nor holds constructs nemos
//! refuses.

use super::*;

/// The value of a condition that is a create or join call (possibly compared with an
/// integer constant, or negated) when the call returns 0; `None` for any other condition.
pub(super) fn thread_condition(e: &Node<c::Expression>) -> Option<bool> {
    match &e.node {
        c::Expression::Call(_) => thread_call(e).map(|_| false),
        c::Expression::BinaryOperator(b) => {
            let equal = match b.node.operator.node {
                c::BinaryOperator::Equals => true,
                c::BinaryOperator::NotEquals => false,
                _ => return None,
            };
            let (call, other) = if thread_call(&b.node.lhs).is_some() {
                (&b.node.lhs, &b.node.rhs)
            } else {
                (&b.node.rhs, &b.node.lhs)
            };
            let c::Expression::Call(_) = &call.node else {
                return None;
            };
            thread_call(call)?;
            let c::Expression::Constant(k) = &other.node else {
                return None;
            };
            let zero = integer(&k.node)? == 0;
            Some(zero == equal)
        }
        c::Expression::UnaryOperator(u)
            if matches!(u.node.operator.node, c::UnaryOperator::Negate) =>
        {
            thread_condition(&u.node.operand).map(|holds| !holds)
        }
        _ => None,
    }
}
