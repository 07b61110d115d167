//! The trust store: which project and extension settings the user has
//! approved, by SHA-256 of the file's content. Changing a trusted file makes
//! it untrusted again, so a pulled commit cannot slip a new hook in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Approved settings files and the digest of what was approved.
#[derive(Debug, Clone, Default)]
pub struct TrustStore {
    path: PathBuf,
    entries: BTreeMap<String, String>,
}

fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn key(file: &Path) -> String {
    std::fs::canonicalize(file)
        .unwrap_or_else(|_| file.to_path_buf())
        .display()
        .to_string()
}

impl TrustStore {
    /// Opens the store at `path` (a missing or unreadable store trusts nothing).
    pub fn open(path: PathBuf) -> TrustStore {
        let entries = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        TrustStore { path, entries }
    }

    /// Whether `file` with this exact content was trusted.
    pub fn is_trusted(&self, file: &Path, text: &str) -> bool {
        self.entries.get(&key(file)).is_some_and(|d| *d == digest(text))
    }

    /// Trusts `file` as it is now.
    pub fn trust(&mut self, file: &Path, text: &str) {
        self.entries.insert(key(file), digest(text));
    }

    /// Writes the store back.
    pub fn save(&self) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_string_pretty(&self.entries).map_err(std::io::Error::other)?;
        std::fs::write(&self.path, text + "\n")
    }
}
