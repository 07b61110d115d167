//! Reading a settings file safely: whatever a project puts at a settings
//! path (a FIFO, a device, a symlink to `/dev/zero`, a gigabyte of JSON), a
//! read returns promptly with bounded memory, or fails with a reason.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use sha2::{Digest, Sha256};

/// The largest settings file hookshot reads. Real settings files are a few
/// KiB; anything near this is a mistake or an attack.
pub const MAX_SETTINGS_BYTES: u64 = 4 << 20;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The OS refused (missing, permissions, ...).
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not a regular file (FIFO, device, socket, directory).
    #[error("not a regular file ({0}); settings must be plain files")]
    NotRegular(&'static str),
    /// Larger than [`MAX_SETTINGS_BYTES`].
    #[error("larger than the {} MiB limit for settings files", MAX_SETTINGS_BYTES >> 20)]
    TooLarge,
}

/// Reads at most `cap` bytes of the regular file at `path` (following
/// symlinks). The file is opened non-blocking, so opening a FIFO does not
/// wait for a writer, and its type is checked on the opened descriptor, so
/// it cannot be swapped between the check and the read.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits() | nix::fcntl::OFlag::O_NOCTTY.bits())
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular(hookshot_core::paths::file_kind(meta.file_type())));
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The size may grow after the check: never read past the cap.
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// [`read_capped`] with the settings limit.
pub fn read_settings(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_capped(path, MAX_SETTINGS_BYTES)
}

/// Lower-case hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("settings.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let err = read_settings(&fifo).unwrap_err();
        assert!(err.to_string().contains("a FIFO"), "{err}");
    }

    #[test]
    fn symlink_to_a_device_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("settings.json");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let err = read_settings(&link).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
    }

    #[test]
    fn directory_and_oversized_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_settings(dir.path()),
            Err(ReadError::NotRegular(_)) | Err(ReadError::Io(_))
        ));
        let big = dir.path().join("big.json");
        std::fs::write(&big, vec![b' '; 100]).unwrap();
        assert!(matches!(read_capped(&big, 99), Err(ReadError::TooLarge)));
        assert_eq!(read_capped(&big, 100).unwrap().len(), 100);
    }
}
