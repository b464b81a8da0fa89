//! The rendered diagnostic for each kind of bad input: one message, at the right place.

use nemos::diagnostics::SourceFile;
use nemos::syntax::parse;

fn render(text: &str) -> String {
    let file = SourceFile::new("bad.litmus", text);
    match parse(&file) {
        Ok(_) => panic!("expected a syntax error for:\n{text}"),
        Err(e) => {
            assert_eq!(e.diagnostics.len(), 1, "one diagnostic per error");
            e.render(false)
        }
    }
}

#[test]
fn unexpected_token() {
    insta::assert_snapshot!(render(
        "C bad\n{ x = 0; }\nP0(int *x) {\n  int r0 = *x +;\n}\nexists (0:r0=0)\n"
    ));
}

#[test]
fn missing_semicolon() {
    insta::assert_snapshot!(render(
        "C bad\n{}\nP0(int *x) {\n  int r0 = *x\n  *x = 2;\n}\nexists (0:r0=0)\n"
    ));
}

#[test]
fn missing_semicolon_before_brace() {
    insta::assert_snapshot!(render(
        "C bad\n{}\nP0(atomic_int *x) {\n  atomic_store(x, 1)\n}\nexists (x=1)\n"
    ));
}

#[test]
fn unterminated_comment() {
    insta::assert_snapshot!(render(
        "C bad\n(* a comment\n   that never ends\n{}\nP0(int *x) { *x = 1; }\nexists (x=1)\n"
    ));
}

#[test]
fn unterminated_comment_in_init() {
    insta::assert_snapshot!(render(
        "C bad\n{ x = 0; /* oops }\nP0(int *x) { *x = 1; }\nexists (x=1)\n"
    ));
}

#[test]
fn bad_character() {
    insta::assert_snapshot!(render(
        "C bad\n{}\nP0(int *x) {\n  *x = 1 @ 2;\n}\nexists (x=1)\n"
    ));
}

#[test]
fn bad_thread_name() {
    insta::assert_snapshot!(render(
        "C bad\n{}\nThread0(int *x) {\n  *x = 1;\n}\nexists (x=1)\n"
    ));
}

#[test]
fn integer_too_large() {
    insta::assert_snapshot!(render(
        "C bad\n{}\nP0(int *x) {\n  *x = 0x1ffffffffffffffff;\n}\nexists (x=1)\n"
    ));
}

#[test]
fn condition_without_proposition() {
    insta::assert_snapshot!(render("C bad\n{}\nP0(int *x) {\n  *x = 1;\n}\nexists\n"));
}

#[test]
fn something_else_instead_of_condition() {
    insta::assert_snapshot!(render("C bad\n{}\nP0(int *x) {\n  *x = 1;\n}\nx = 1\n"));
}

#[test]
fn missing_closing_brace() {
    insta::assert_snapshot!(render(
        "C bad\n{}\nP0(int *x) {\n  if (*x) {\n    *x = 1;\n}\nexists (x=1)\n"
    ));
}

#[test]
fn extra_closing_brace() {
    insta::assert_snapshot!(render(
        "C bad\n{}\nP0(int *x) {\n  *x = 1;\n}\n}\nexists (x=1)\n"
    ));
}

#[test]
fn unclosed_brace_at_end_of_file() {
    insta::assert_snapshot!(render("C bad\n{}\nP0(int *x) {\n  *x = 1;\n"));
}

#[test]
fn bad_condition_atom() {
    insta::assert_snapshot!(render(
        "C bad\n{}\nP0(int *x) {\n  int r0 = *x;\n}\nexists (0:r0 > 0)\n"
    ));
}

#[test]
fn kernel_annotation() {
    insta::assert_snapshot!(render(
        "C bad\n{}\nP0(atomic_int *x) {\n  int r0 = __atomic_add_unless{mb}(x, 10, 0);\n}\nexists (0:r0=0)\n"
    ));
}

#[test]
fn unterminated_string() {
    insta::assert_snapshot!(render(
        "C bad\n\"a doc string\n{}\nP0(int *x) { *x = 1; }\nexists (x=1)\n"
    ));
}

#[test]
fn missing_init_block() {
    insta::assert_snapshot!(render("C bad\nP0(int *x) { *x = 1; }\nexists (x=1)\n"));
}

#[test]
fn missing_header() {
    insta::assert_snapshot!(render("{}\nP0(int *x) { *x = 1; }\nexists (x=1)\n"));
}

#[test]
fn bad_init_value() {
    insta::assert_snapshot!(render(
        "C bad\n{ atomic_t x = INIT(0); }\nP0(int *x) { *x = 1; }\nexists (x=1)\n"
    ));
}

#[test]
fn herd_comment_in_a_thread_body() {
    insta::assert_snapshot!(render(
        "C bad\n{ x = 0; }\nP0(int *x) {\n  (* publish x *)\n  *x = 1;\n}\nexists (x=1)\n"
    ));
}

/// The comment's text need not even be made of C tokens: the lexer's complaint about the
/// `'` is replaced by the same message.
#[test]
fn herd_comment_in_a_thread_body_with_odd_characters() {
    insta::assert_snapshot!(render(
        "C bad\n{ x = 0; }\nP0(int *x) {\n  *x = 1; (* don't reorder *)\n}\nexists (x=1)\n"
    ));
}

/// `(*` stays code inside a thread body: an error after a dereference in parentheses is
/// not blamed on a comment.
#[test]
fn paren_star_code_keeps_its_own_error() {
    insta::assert_snapshot!(render(
        "C bad\n{ x = 0; }\nP0(int *x) {\n  int r0 = (*x) +;\n}\nexists (x=1)\n"
    ));
}
