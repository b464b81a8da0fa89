fn main() {
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .process()
        .expect("lalrpop grammar must compile");
    println!("cargo:rerun-if-changed=grammar");
}
