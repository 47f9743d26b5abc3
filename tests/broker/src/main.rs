//! The client side of the real-broker test (tests/broker): not written yet.
fn main() {
    eprintln!("kwire-broker-check: not written yet");
    std::process::exit(1);
}
