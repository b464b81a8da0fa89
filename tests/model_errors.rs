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
