//! Links the `hookshot` binary as a position-dependent executable.
//!
//! Agents start `hookshot fire` once per event, so its start-up is paid on
//! every tool call. As a PIE the loader applies ~28,000 relocations at
//! every start, copying each page of `.data.rel.ro` it touches (about 110
//! page faults, a quarter of a no-match `fire`); linked at a fixed address
//! they are resolved once, at link time (`bench/fire.py` measures it).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=hookshot=-no-pie");
    }
}
