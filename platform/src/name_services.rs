//! Host-name lookups in a statically linked glibc build (`cargo
//! static-build`, the binary agents start on every event).
//!
//! glibc reads `/etc/nsswitch.conf` to resolve a host name (an `http` hook's
//! URL, the OTLP endpoint). Its `files` and `dns` services are built into a
//! static binary; any other (`myhostname`, `mdns4_minimal`, `resolve`, which
//! Fedora's and Ubuntu's defaults name) is a shared library a static binary
//! would `dlopen`, bringing a second, possibly different, C library into
//! the process: unsupported, and a crash in the middle of a hook is a guard
//! that stopped guarding. So a static build asks only `files` (/etc/hosts)
//! and `dns` (/etc/resolv.conf; systemd-resolved's stub answers there too).
//! A dynamic build keeps the system's configuration.
//!
//! Telling glibc so reads `/etc/nsswitch.conf` (a twentieth of a no-match
//! `fire`), so it is done by whatever is about to resolve a name, once:
//! the HTTP clients, when they are made.

/// Limits host-name lookups to `files` and `dns` in a static glibc build;
/// nothing elsewhere. Call it before making anything that resolves names.
pub fn pin() {
    #[cfg(all(target_os = "linux", target_env = "gnu", target_feature = "crt-static"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(files_and_dns);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu", target_feature = "crt-static"))]
#[expect(
    unsafe_code,
    reason = "glibc's __nss_configure_lookup has no safe binding; it takes two NUL-terminated \
              literals, and the Once keeps a second call from racing a lookup"
)]
fn files_and_dns() {
    unsafe extern "C" {
        fn __nss_configure_lookup(
            dbname: *const std::ffi::c_char,
            service_line: *const std::ffi::c_char,
        ) -> std::ffi::c_int;
    }
    // SAFETY: both arguments are static C strings; glibc copies what it keeps.
    // It fails only for an unknown database name (this one is constant) or
    // out of memory; then lookups follow nsswitch.conf as before.
    let _ = unsafe { __nss_configure_lookup(c"hosts".as_ptr(), c"files dns".as_ptr()) };
}

#[cfg(test)]
mod tests {
    use std::net::ToSocketAddrs;

    /// Pinned, names still resolve through /etc/hosts (in a static build:
    /// `.ci/run` runs this test there too).
    #[test]
    fn localhost_resolves_after_the_pin() {
        super::pin();
        super::pin();
        let found: Vec<_> = ("localhost", 80)
            .to_socket_addrs()
            .expect("localhost resolves")
            .collect();
        assert!(found.iter().any(|a| a.ip().is_loopback()), "{found:?}");
    }
}
