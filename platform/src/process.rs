//! Processes: which program one runs, and its parent.

use std::path::PathBuf;

/// The executable process `pid` runs, `None` when it cannot be known (the
/// process is gone, or another user's).
pub fn exe_of(pid: u32) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_link(format!("/proc/{pid}/exe")).ok()
    }
    #[cfg(target_os = "macos")]
    {
        macos::pid_path(pid)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = pid;
        None
    }
}

/// This process's executable.
pub fn own_exe() -> Option<PathBuf> {
    exe_of(std::process::id())
}

/// The parent of process `pid`.
pub fn parent_of(pid: u32) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
        let rest = &stat[stat.rfind(')')? + 1..];
        rest.split_whitespace().nth(1)?.parse().ok()
    }
    #[cfg(target_os = "macos")]
    {
        macos::parent_of(pid)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = pid;
        None
    }
}

/// This process's umask.
pub fn umask() -> u32 {
    #[cfg(target_os = "linux")]
    if let Some(mask) = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        let field = s.lines().find_map(|l| l.strip_prefix("Umask:"))?.trim().to_string();
        u32::from_str_radix(&field, 8).ok()
    }) {
        return mask;
    }
    // Elsewhere the only way to read it is to set it: set and put back at
    // once (no file is made between the two in this process).
    use nix::sys::stat::{Mode, umask};
    let old = umask(Mode::from_bits_truncate(0o077));
    umask(old);
    #[cfg_attr(
        target_os = "linux",
        expect(clippy::useless_conversion, reason = "mode_t is u32 on Linux, u16 on macOS")
    )]
    let bits = u32::from(old.bits());
    bits
}

/// libproc's two calls, through the C library's declarations (`libc`):
/// the path of a process's executable, and its BSD information.
#[cfg(target_os = "macos")]
mod macos {
    use std::path::PathBuf;

    pub(super) fn pid_path(pid: u32) -> Option<PathBuf> {
        use std::os::unix::ffi::OsStringExt;
        let pid = libc::c_int::try_from(pid).ok()?;
        let mut buf = vec![0u8; libc::PROC_PIDPATHINFO_MAXSIZE as usize];
        #[expect(
            unsafe_code,
            reason = "proc_pidpath has no safe binding; it writes at most the given size into the buffer"
        )]
        // SAFETY: `buf` is valid for `buf.len()` bytes, the size passed.
        let n = unsafe { libc::proc_pidpath(pid, buf.as_mut_ptr().cast(), buf.len() as u32) };
        if n <= 0 {
            return None;
        }
        buf.truncate(n as usize);
        Some(PathBuf::from(std::ffi::OsString::from_vec(buf)))
    }

    pub(super) fn parent_of(pid: u32) -> Option<u32> {
        let pid = libc::c_int::try_from(pid).ok()?;
        let mut info = std::mem::MaybeUninit::<libc::proc_bsdinfo>::zeroed();
        let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
        #[expect(
            unsafe_code,
            reason = "proc_pidinfo has no safe binding; PROC_PIDTBSDINFO fills one proc_bsdinfo"
        )]
        // SAFETY: `info` is a proc_bsdinfo's worth of zeroed memory, the
        // size passed; the struct is read only when the call filled it whole.
        let filled = unsafe { libc::proc_pidinfo(pid, libc::PROC_PIDTBSDINFO, 0, info.as_mut_ptr().cast(), size) };
        if filled != size {
            return None;
        }
        #[expect(unsafe_code, reason = "the call above filled the whole struct")]
        // SAFETY: checked just above: every byte was written.
        let info = unsafe { info.assume_init() };
        Some(info.pbi_ppid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_and_its_parent_are_known() {
        assert_eq!(parent_of(std::process::id()), Some(std::os::unix::process::parent_id()));
        let exe = own_exe().expect("the test binary");
        assert_eq!(exe, std::env::current_exe().unwrap().canonicalize().unwrap());
        let mask = umask();
        assert_eq!(mask, umask(), "reading the umask leaves it as it was");
        assert!(mask <= 0o777);
    }
}
