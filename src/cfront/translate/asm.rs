//! Inline assembly as GenMC 0.11 runs it (`Interpreter::visitInlineAsm` in its
//! `Execution.cpp`): an `asm` whose text is empty once its white space is trimmed is "a
//! plain compiler fence" and does nothing; any other text GenMC skips with a warning, which
//! nemos refuses instead (named: `inline assembly`). An empty asm does nothing only when it
//! has no operands (clobbers such as `"memory"` are fine): an operand's expression would be
//! evaluated. lang-c reads a basic `asm("")` with no qualifier as a call of a function
//! `asm`; both forms are taken here.

use super::*;

/// The text of a string literal's parts, quotes and prefixes left out; `None` when a part
/// is not a plain quoted string.
fn literal_text(parts: &[String]) -> Option<String> {
    let mut text = String::new();
    for part in parts {
        let inner = part.strip_prefix('"')?.strip_suffix('"')?;
        text.push_str(inner);
    }
    Some(text)
}

/// Whether a string literal is an empty asm text: nothing but white space (escaped white
/// space, `\n` and `\t`, counts as white space too).
fn blank(parts: &[String]) -> bool {
    literal_text(parts).is_some_and(|text| {
        text.replace("\\n", " ")
            .replace("\\t", " ")
            .trim()
            .is_empty()
    })
}

/// Whether an asm statement is an empty one with no operands: a compiler fence.
pub(super) fn is_compiler_fence(a: &c::AsmStatement) -> bool {
    match a {
        c::AsmStatement::GnuBasic(text) => blank(&text.node),
        c::AsmStatement::GnuExtended(x) => {
            x.outputs.is_empty() && x.inputs.is_empty() && blank(&x.template.node)
        }
    }
}

impl Translator<'_> {
    /// `asm("...");` as lang-c reads it, a call of `asm` (or `__asm__`, `__asm`) with one
    /// string literal, and no function of that name in the program: `true` when the
    /// statement was one (nothing written when its text is empty; refused otherwise).
    pub(super) fn asm_call(&mut self, e: &Node<c::Expression>) -> bool {
        let c::Expression::Call(call_node) = &e.node else {
            return false;
        };
        let Some(name @ ("asm" | "__asm__" | "__asm")) = callee_name(call_node) else {
            return false;
        };
        if self.functions.contains(name) {
            return false;
        }
        match call_node.node.arguments.as_slice() {
            [text] if matches!(&text.node, c::Expression::StringLiteral(s) if blank(&s.node)) => {}
            _ => self.refuse("inline assembly", e.span),
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_white_space_is_blank() {
        assert!(blank(&parts(&["\"\""])));
        assert!(blank(&parts(&["\" \"", "\"\\n\\t\""])));
        assert!(!blank(&parts(&["\"nop\""])));
        assert!(!blank(&parts(&["\"\"", "\"mfence\""])));
        assert!(!blank(&parts(&["L\"\""])));
    }
}
