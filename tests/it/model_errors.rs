//! The messages a user's model file gets: syntax, unknown names, set/relation mismatches,
//! unsupported constructs, includes. Each names the file, line and column.

use nemos::diagnostics::SourceFile;

fn error_of(name: &str, text: &str) -> String {
    let file = SourceFile::new(format!("{name}.cat"), text);
    let mut resolve = |path: &str| -> Result<SourceFile, String> {
        match path {
            "broken.cat" => Ok(SourceFile::new("broken.cat", "let x = po |\n")),
            other => nemos::cat::shipped(other).ok_or_else(|| "no such file".to_string()),
        }
    };
    match nemos::cat::load(&file, name, &mut resolve) {
        Ok(_) => panic!("{name}: expected an error"),
        Err(e) => e.render(false),
    }
}

macro_rules! model_error {
    ($name:ident, $text:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(error_of(stringify!($name), $text));
        }
    };
}

model_error!(
    set_where_relation_needed,
    "let com = rf | co | fr\nacyclic W as oops\n"
);
model_error!(unknown_relation, "acyclic po | rff | co as sc\n");
model_error!(mixed_union, "let r = po | W\n");
model_error!(sequence_of_a_set, "empty rmw & (R; coe) as atomic\n");
model_error!(product_of_relations, "let r = po * rf\n");
model_error!(identity_of_a_relation, "let r = [po]; rf\n");
model_error!(let_rec, "let rec hb = po | hb; rf\n");
model_error!(negated_acyclic, "~acyclic po as cyclic\n");
model_error!(syntax_error, "let a = po |\nacyclic a as x\n");
model_error!(unknown_function, "let s = dom(po)\n");
model_error!(missing_include, "include \"nowhere.cat\"\n");
model_error!(
    error_in_included_file,
    "include \"broken.cat\"\nacyclic x\n"
);
model_error!(
    unterminated_comment,
    "let a = po\n(* never closed\nacyclic a\n"
);

/// Prefixes of every shipped model, and the model with one character deleted (at every
/// third position, to keep the debug build quick), either load or get located
/// diagnostics: never a panic.
#[test]
fn truncated_and_mangled_models_never_panic() {
    for (name, _, text) in nemos::cat::SHIPPED {
        let cut = |i: usize| text.is_char_boundary(i);
        for i in (0..text.len()).step_by(3).filter(|&i| cut(i)) {
            for candidate in [
                text[..i].to_string(),
                format!(
                    "{}{}",
                    &text[..i],
                    text[i..].chars().skip(1).collect::<String>()
                ),
            ] {
                let file = SourceFile::new(format!("{name}.cat"), candidate);
                let result = nemos::cat::load(&file, name, &mut |p: &str| {
                    nemos::cat::shipped(p).ok_or_else(|| "absent".to_string())
                });
                if let Err(e) = result {
                    assert!(!e.diagnostics.is_empty());
                    assert!(e.short().starts_with(&format!("{name}.cat:")));
                }
            }
        }
    }
}
