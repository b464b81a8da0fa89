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

// herd's cat beyond nemos's subset: each error names the construct, at its first token.
model_error!(
    procedure,
    "let a = po\nprocedure total(r, E) =\n  acyclic r\nend\n"
);
model_error!(call, "let a = po\ncall total(a, W)\n");
model_error!(
    with_from,
    "with co from generate_orders(R, co0)\nacyclic po | co\n"
);
model_error!(match_with, "let f = match S with || {} -> {} end\n");
model_error!(fun, "let f = fun r -> r ; po\n");
model_error!(
    local_function_definition,
    "let all =\n  let one e = e\n  in one\n"
);
model_error!(
    function_applied_to_a_set,
    "let A-cumul(r) = (rfe ; [M])? ; r\nacyclic A-cumul(W)\n"
);
model_error!(
    function_of_two_parameters_given_one,
    "let f(a, b) = a ; b\nacyclic f(po)\n"
);
model_error!(let_rec_mixing_types, "let rec s = W | r and r = s ; po\n");
model_error!(recursive_function, "let rec f(x) = f(x)\n");
model_error!(map_of_a_function, "let f e = e\nlet s = map f W\n");
model_error!(
    if_variant,
    "if \"opt\" include \"opt.cat\" else include \"plain.cat\" end\n"
);
model_error!(forall, "forall e in W do acyclic po end\n");
model_error!(set_addition, "let s = po ++ 0\n");
model_error!(tag, "let s = 'once\n");
model_error!(
    herd_library_include,
    "include \"armfences.cat\"\nacyclic po | rf\n"
);
model_error!(
    unfinished_expression_before_let,
    "let a = po |\nlet b = rf\n"
);

/// What herd's models start with and say only to herd's drawings is read and ignored: the
/// identity line (a string, a name, or a name and a string), `show` (of names or of
/// `EXPR as NAME`), `unshow`; `//` and `#` comments; `begin ... end` as parentheses; `~`
/// as complement; `undefined_unless` as a flag.
#[test]
fn herd_headers_show_and_comments_are_accepted() {
    let body = "// SPDX-License-Identifier: X\n# a comment\nlet com = rf | co | fr\n\
                show com\nunshow com\nshow (po \\ id) | rf as foo\n\
                let nonw = [~W] ; begin po | 0 end\n\
                undefined_unless empty nonw & ~po as Dr\nacyclic po | com as sc\n";
    for (identity, title) in [
        (
            "\"Sequential Consistency\"\n",
            Some("Sequential Consistency"),
        ),
        ("SC\n", Some("SC")),
        ("C RC11\n", Some("RC11")),
        ("X86 \"x86-TSO\"\n", Some("x86-TSO")),
        ("", None),
    ] {
        let file = SourceFile::new("herd.cat", format!("{identity}{body}"));
        let model = nemos::cat::load(&file, "herd", &mut |p: &str| Err(p.to_string()))
            .unwrap_or_else(|e| panic!("{identity:?}: {}", e.short()));
        assert_eq!(model.title.as_deref(), title);
        assert_eq!(model.check_names(), ["sc"]);
        assert_eq!(model.flag_names(), ["Dr"]);
        let dr = model.checks.iter().find(|c| c.flag).expect("the flag");
        assert!(dr.negated, "undefined_unless empty is flag ~empty");
    }
}

/// herd's constructs beyond the old subset that nemos now compiles: functions (with one
/// parameter, a tuple of them, or by juxtaposition), `let rec`, `let .. in`, `enum` and
/// the tag sets it names, `instructions`, `try .. with`, `{}`, `if "variant"`, herd's
/// library names.
#[test]
fn herd_constructs_beyond_the_old_subset_compile() {
    for text in [
        "let rec hb = po | hb; rf\nacyclic hb\n",
        "let RL = try RL with emptyset\nempty RL\n",
        "if \"v\" then let a = po else let a = rf end\nacyclic a\n",
        "let a = if \"v\" then po else rf\nacyclic a\n",
        "let all =\n  let one = po\n  in one | rf\nacyclic all\n",
        "enum Accesses = 'once || 'plain\ninstructions R[{'once,'plain}]\nempty Once & Plain\n",
        "let A-cumul(r) = (rfe ; [M])? ; r\nacyclic A-cumul(po)\n",
        "let f(a, b) = a ; [b]\nacyclic f(po, W)\n",
        "let pair-to-relation p = p ++ 0\nlet g x = x | po\nacyclic g rf\n",
        "let s = (W * {}) & loc\nempty s\n",
        "let r = fencerel(F) | co0 | singlestep(co) | different-values(rf) | addr\nacyclic r\n",
        "let rcu = let rec a = R \\ domain(b) and b = b | [a] ; po in b\nacyclic rcu\n",
    ] {
        let file = SourceFile::new("herd.cat", text);
        if let Err(e) = nemos::cat::load(&file, "herd", &mut |p: &str| Err(p.to_string())) {
            panic!("{text:?}: {}", e.short());
        }
    }
}

/// A `let rec` group's members may be of both types: the types are found from the
/// bodies.
#[test]
fn let_rec_types_its_members_from_their_bodies() {
    let text = "let rec locks = R \\ domain(m)\n and pairs = [locks] ; po ; [W]\n                 and m = m | pairs\nempty m\n";
    let file = SourceFile::new("rec.cat", text);
    let model = nemos::cat::load(&file, "rec", &mut |p: &str| Err(p.to_string()))
        .unwrap_or_else(|e| panic!("{}", e.short()));
    let types: Vec<_> = model.defs.iter().map(|d| (d.0.as_str(), d.2)).collect();
    use nemos::cat::Type::{Rel, Set};
    assert_eq!(
        types,
        [("locks", Some(Set)), ("pairs", Some(Rel)), ("m", Some(Rel))]
    );
    assert_eq!(model.rec_groups.len(), 1);
    assert_eq!(model.rec_groups[0].members, [0, 1, 2]);
}

/// The tags nemos cannot derive yet are empty, and the model says so (the CLI prints it):
/// never silently. The dependencies are computed, and not listed.
#[test]
fn placeholders_are_listed() {
    let text =
        "enum A = 'once || 'noreturn\nlet dep = addr | data\nacyclic po | dep | [Noreturn]\n";
    let file = SourceFile::new("p.cat", text);
    let model = nemos::cat::load(&file, "p", &mut |p: &str| Err(p.to_string()))
        .unwrap_or_else(|e| panic!("{}", e.short()));
    assert_eq!(model.placeholders, ["the tag 'noreturn"]);
}

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
