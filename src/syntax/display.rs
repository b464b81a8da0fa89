//! herd-style printing of final-state propositions, and small queries on them.

use std::fmt;

use crate::syntax::ast::{AddressOf, AtomValue, Member, Prop, Span, StateVar};

impl fmt::Display for Member {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Member::Field(name) => write!(f, ".{}", name.name),
            Member::Index(i, _) => write!(f, "[{i}]"),
        }
    }
}

impl fmt::Display for StateVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateVar::Register { thread, name } => write!(f, "{thread}:{}", name.name),
            StateVar::Location {
                name,
                index: None,
                members,
            } if members.is_empty() => write!(f, "[{}]", name.name),
            StateVar::Location {
                name,
                index,
                members,
            } => {
                f.write_str(&name.name)?;
                if let Some(i) = index {
                    write!(f, "[{i}]")?;
                }
                members.iter().try_for_each(|m| write!(f, "{m}"))
            }
        }
    }
}

impl fmt::Display for AddressOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.members.is_empty() {
            f.write_str("&")?;
        }
        f.write_str(&self.name.name)?;
        self.members.iter().try_for_each(|m| write!(f, "{m}"))?;
        if self.offset != 0 {
            write!(f, " + {}", self.offset)?;
        }
        Ok(())
    }
}

impl fmt::Display for AtomValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AtomValue::Int(n) => write!(f, "{n}"),
            AtomValue::Address(address) => write!(f, "{address}"),
            AtomValue::Var(var) => write!(f, "{var}"),
        }
    }
}

impl Prop {
    /// Binding strength, loosest first, so printing adds only the parentheses needed to
    /// read the same tree back.
    fn precedence(&self) -> u8 {
        match self {
            Prop::Implies(..) => 0,
            Prop::Or(..) => 1,
            Prop::And(..) => 2,
            Prop::Not(..) => 3,
            Prop::True(_) | Prop::False(_) | Prop::Atom { .. } => 4,
        }
    }

    /// Every atom, left to right.
    pub fn atoms(&self) -> impl Iterator<Item = &Prop> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            while let Some(p) = stack.pop() {
                match p {
                    Prop::Atom { .. } => return Some(p),
                    Prop::True(_) | Prop::False(_) => {}
                    Prop::Not(inner, _) => stack.push(inner),
                    Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
                        stack.push(b);
                        stack.push(a);
                    }
                }
            }
            None
        })
    }

    /// Every state variable mentioned, left to right (with repeats).
    pub fn state_vars(&self) -> impl Iterator<Item = &StateVar> {
        self.atoms().filter_map(|p| match p {
            Prop::Atom { var, .. } => Some(var),
            _ => None,
        })
    }

    pub fn span(&self) -> Span {
        match self {
            Prop::True(s) | Prop::False(s) | Prop::Not(_, s) | Prop::Atom { span: s, .. } => *s,
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => a.span().to(b.span()),
        }
    }
}

impl fmt::Display for Prop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sub = |f: &mut fmt::Formatter<'_>, p: &Prop, min: u8| {
            if p.precedence() < min {
                write!(f, "({p})")
            } else {
                write!(f, "{p}")
            }
        };
        match self {
            Prop::True(_) => f.write_str("true"),
            Prop::False(_) => f.write_str("false"),
            Prop::Atom {
                var,
                negated,
                value,
                ..
            } => write!(f, "{var}{}{value}", if *negated { "!=" } else { "=" }),
            Prop::Not(p, _) => {
                f.write_str("~")?;
                sub(f, p, 3)
            }
            Prop::And(a, b) => {
                sub(f, a, 2)?;
                f.write_str(" /\\ ")?;
                sub(f, b, 3)
            }
            Prop::Or(a, b) => {
                sub(f, a, 1)?;
                f.write_str(" \\/ ")?;
                sub(f, b, 2)
            }
            Prop::Implies(a, b) => {
                sub(f, a, 1)?;
                f.write_str(" => ")?;
                sub(f, b, 0)
            }
        }
    }
}
