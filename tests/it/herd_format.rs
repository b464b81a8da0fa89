//! herd7's layout details that its comparison scripts rely on.

use std::process::Command;

#[test]
fn a_condition_written_over_several_lines_is_printed_on_one() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("multi.litmus");
    std::fs::write(
        &path,
        "C multi\n{ x = 0; }\nP0 (int* x) { *x = 1; int r0 = *x; }\n\
         exists (0:r0=1 /\\\n        x=1)\n",
    )
    .expect("write the test");
    let output = Command::new(env!("CARGO_BIN_EXE_nemos"))
        .args(["check", "--format", "herd"])
        .arg(&path)
        .output()
        .expect("run nemos");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Condition exists (0:r0=1 /\\ [x]=1)\n"),
        "{stdout}"
    );
}
