//! Prints CP's Verilog with the default configuration (a debugging aid).
fn main() {
    let c = ccrtl_golden::cp::CpConfig::default();
    print!("{}", ccrtl_hdl::cp::verilog(&c).unwrap());
}
