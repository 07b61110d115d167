//! Links the `hookshot` binary as a position-dependent executable.
//!
//! Agents start `hookshot fire` once per event, so its start-up is paid on
//! every tool call. As a PIE the loader applies ~28,000 relocations at
//! every start, copying each page of `.data.rel.ro` it touches (about 110
//! page faults, a quarter of a no-match `fire`); linked at a fixed address
//! they are resolved once, at link time (`bench/fire.py` measures it).
//!
//! A static build (`+crt-static`, as `cargo static-build` and musl targets
//! make) is left to rustc: it links `-static` at a fixed address when the
//! relocation model is `static`, and `-static-pie` otherwise, whose start
//! code relocates itself and crashes at once when linked `-no-pie`.
fn main() {
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let static_crt = features.split(',').any(|f| f == "crt-static");
    if linux && !static_crt {
        println!("cargo:rustc-link-arg-bin=hookshot=-no-pie");
    }
}
