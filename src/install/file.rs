//! The agent's settings file as its user keeps it: read as the agent reads
//! it (gemini-cli allows `//` and `/* */` comments), changed only where
//! hookshot's entries are, and written back so that nothing else of it
//! moves: not a comment, a key's place, a number's spelling, the file's
//! mode or owner, nor a symlink into the user's dotfiles.
//!
//! Writes never go through a name a repository could have planted: the
//! temporary file is created beside the target with a random name and
//! `O_CREAT|O_EXCL` (no existing file or link is ever opened for writing),
//! synced, then renamed over the target. Inside a project, a file or folder
//! that leads out of it is refused.

use std::fs::Metadata;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use serde_json::{Map, Value};

use crate::fail::Fail;

/// A JSON settings file as read: its text (kept to be edited in place),
/// the object it holds, and what it was on disk.
pub(crate) struct JsonFile {
    pub(crate) path: PathBuf,
    /// `None` when there was no file.
    pub(crate) text: Option<String>,
    pub(crate) doc: Map<String, Value>,
    pub(crate) meta: Option<Metadata>,
}

/// JSON as the agents read it: strict, but for comments, which gemini-cli
/// strips before parsing (and which hookshot must keep when it edits).
fn options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_extended_string_escapes: false,
        allow_non_finite_numbers: false,
    }
}

fn usage(path: &Path, what: impl std::fmt::Display) -> Fail {
    Fail::Usage(format!("{}: {what}", path.display()))
}

impl JsonFile {
    /// Reads `path` (through a symlink; `confine` as for [`write`]).
    pub(crate) fn read(path: &Path, confine: Option<&Path>) -> Result<JsonFile, Fail> {
        let target = resolve(path, confine, true)?;
        let meta = match std::fs::metadata(&target) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(JsonFile {
                    path: path.to_path_buf(),
                    text: None,
                    doc: Map::new(),
                    meta: None,
                });
            }
            Err(e) => return Err(usage(path, format!("cannot read: {e}"))),
        };
        let bytes = hookshot_registry::read_settings(&target).map_err(|e| usage(path, e))?;
        let text = String::from_utf8(bytes).map_err(|_| usage(path, "not UTF-8 text; nothing was changed"))?;
        let doc = parse(path, &text)?.unwrap_or_default();
        Ok(JsonFile {
            path: path.to_path_buf(),
            text: Some(text),
            doc,
            meta: Some(meta),
        })
    }

    /// The file's text with its object made `doc`: only what differs is
    /// touched; a new file is written pretty.
    pub(crate) fn render(&self, doc: &Map<String, Value>) -> Result<String, Fail> {
        let text = match &self.text {
            Some(t) if !t.trim().is_empty() => t,
            _ => return Ok(pretty(doc)),
        };
        let root = CstRootNode::parse(text, &options()).map_err(|e| usage(&self.path, e.kind()))?;
        let obj = root.object_value_or_set();
        sync_object(&obj, doc);
        Ok(root.to_string())
    }
}

/// The object in `text`; `None` for a file of whitespace and comments.
pub(crate) fn parse(path: &Path, text: &str) -> Result<Option<Map<String, Value>>, Fail> {
    let root = CstRootNode::parse(text, &options()).map_err(|e| {
        Fail::Usage(format!(
            "{}:{}:{}: {}; nothing was changed (the agent could not read this file either)",
            path.display(),
            e.line_display(),
            e.column_display(),
            e.kind()
        ))
    })?;
    match root.value().and_then(|v| v.to_serde_value()) {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(usage(path, "not a JSON object; nothing was changed")),
    }
}

pub(crate) fn pretty(doc: &Map<String, Value>) -> String {
    let mut s = serde_json::to_string_pretty(doc).unwrap_or_default();
    s.push('\n');
    s
}

fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect()),
    }
}

/// Makes the object node hold `want`, keeping every property that is
/// already right exactly as written.
fn sync_object(obj: &CstObject, want: &Map<String, Value>) {
    for prop in obj.properties() {
        let Some(name) = prop.name().and_then(|n| n.decoded_value().ok()) else {
            continue;
        };
        match want.get(&name) {
            None => prop.remove(),
            Some(w) => {
                if let Some(node) = prop.value() {
                    sync_value(node, w, |v| prop.set_value(v));
                }
            }
        }
    }
    let have: Vec<String> = obj
        .properties()
        .iter()
        .filter_map(|p| p.name().and_then(|n| n.decoded_value().ok()))
        .collect();
    for (k, v) in want {
        if !have.contains(k) {
            obj.append(k, input(v));
        }
    }
}

fn sync_value(node: CstNode, want: &Value, replace: impl FnOnce(CstInputValue)) {
    if node.to_serde_value().as_ref() == Some(want) {
        return;
    }
    match (node.as_object(), node.as_array(), want) {
        (Some(o), _, Value::Object(w)) => sync_object(&o, w),
        (_, Some(a), Value::Array(w)) => sync_array(&a, w),
        _ => replace(input(want)),
    }
}

/// Makes the array node hold `want`: elements equal to the next wanted one
/// stay as written, others are edited in place when nothing later matches
/// better, or removed; the rest is appended.
fn sync_array(arr: &CstArray, want: &[Value]) {
    let elems = arr.elements();
    let values: Vec<Option<Value>> = elems.iter().map(CstNode::to_serde_value).collect();
    let mut i = 0;
    for (n, el) in elems.into_iter().enumerate() {
        let v = &values[n];
        if let Some(w) = want.get(i) {
            if v.as_ref() == Some(w) {
                i += 1;
                continue;
            }
            let later = values[n + 1..].iter().any(|l| l.as_ref() == Some(w));
            let same_kind = matches!(
                (v, w),
                (Some(Value::Object(_)), Value::Object(_)) | (Some(Value::Array(_)), Value::Array(_))
            );
            if !later && same_kind {
                sync_value(el, w, |_| {});
                i += 1;
                continue;
            }
        }
        el.remove();
    }
    for w in &want[i.min(want.len())..] {
        arr.append(input(w));
    }
}

/// Where a write to `path` lands, checked: with `follow`, through a
/// symlink (a user's settings file linked into a dotfiles repository stays
/// a link, and its target is written); without, the link itself would be
/// replaced. With `confine` (a project's root), the file and its folder
/// must stay inside it, so a repository cannot point hookshot's writes at
/// the user's own files.
pub(crate) fn resolve(path: &Path, confine: Option<&Path>, follow: bool) -> Result<PathBuf, Fail> {
    let root = confine
        .map(|r| std::fs::canonicalize(r).map_err(|e| usage(r, e)))
        .transpose()?;
    let inside = |p: &Path, what: &str| -> Result<(), Fail> {
        match &root {
            Some(r) if !p.starts_with(r) => Err(usage(
                path,
                format!(
                    "{what} leads out of the project (to {}); hookshot writes only inside {}, nothing was changed",
                    p.display(),
                    r.display()
                ),
            )),
            _ => Ok(()),
        }
    };
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if link && (follow || root.is_some()) {
        let target = std::fs::canonicalize(path).map_err(|e| {
            usage(
                path,
                format!("is a symlink hookshot cannot follow ({e}); nothing was changed"),
            )
        })?;
        inside(&target, "this symlink")?;
        if follow {
            return Ok(target);
        }
    }
    // The nearest folder that exists, as the kernel resolves it.
    let mut existing = path.parent().unwrap_or(Path::new("."));
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(existing).is_err() {
        rest.push(existing.file_name().unwrap_or_default().to_owned());
        existing = existing.parent().unwrap_or(Path::new("/"));
    }
    let real = std::fs::canonicalize(existing).map_err(|e| usage(existing, e))?;
    inside(&real, "its folder")?;
    let mut out = real;
    out.extend(rest.iter().rev());
    out.push(path.file_name().ok_or_else(|| usage(path, "not a file name"))?);
    Ok(out)
}

/// Where a write to `path` would land and what stands there now, or why
/// [`write`] would refuse it (a folder, a read-only file, a place out of
/// the project): asked before anything else is written, so a refused file
/// leaves no backup or import behind.
pub(crate) fn writable(path: &Path, confine: Option<&Path>, follow: bool) -> Result<(PathBuf, Option<Metadata>), Fail> {
    let target = resolve(path, confine, follow)?;
    let now = std::fs::symlink_metadata(&target).ok();
    if let Some(m) = &now {
        if m.is_dir() {
            return Err(usage(path, "is a folder; nothing was changed"));
        }
        if follow && m.is_file() && m.permissions().mode() & 0o222 == 0 {
            return Err(usage(
                path,
                format!(
                    "is read-only (mode {:o}); make it writable to let hookshot change it, nothing was changed",
                    m.permissions().mode() & 0o7777
                ),
            ));
        }
    }
    Ok((target, now))
}

/// Writes `bytes` to `path` safely (see the module's note), keeping the
/// mode and owner of the file there, or else of `like` (the file a backup
/// or restore stands for). A read-only file is refused, not replaced.
pub(crate) fn write(
    path: &Path,
    bytes: &[u8],
    confine: Option<&Path>,
    follow: bool,
    like: Option<&Metadata>,
) -> Result<(), Fail> {
    let (target, now) = writable(path, confine, follow)?;
    let fail = |e: std::io::Error| usage(path, format!("cannot write: {e}"));
    let keep = now.as_ref().filter(|m| m.is_file()).or(like);
    let dir = target.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let how = hookshot_core::atomic::Replace {
        mode: 0o666,
        durable: true,
    };
    hookshot_core::atomic::replace(&target, how, |f| {
        f.write_all(bytes)?;
        if let Some(m) = keep {
            f.set_permissions(std::fs::Permissions::from_mode(m.permissions().mode() & 0o7777))?;
            // Only root may give a file away; for anyone else it is theirs already.
            let _ = std::os::unix::fs::fchown(&*f, Some(m.uid()), Some(m.gid()));
        }
        Ok(())
    })
    .map_err(fail)
}

/// The bytes of a file hookshot itself put beside the agent's (a backup),
/// unless something else stands there now: a symlink a repository planted
/// is never read.
pub(crate) fn read_own(path: &Path) -> Option<(Vec<u8>, Metadata)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let bytes = hookshot_registry::read_settings(path).ok()?;
    Some((bytes, meta))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(text: &str, f: impl FnOnce(&mut Map<String, Value>)) -> String {
        let mut doc = parse(Path::new("t.json"), text).unwrap().unwrap_or_default();
        f(&mut doc);
        let file = JsonFile {
            path: "t.json".into(),
            text: Some(text.into()),
            doc: Map::new(),
            meta: None,
        };
        file.render(&doc).unwrap()
    }

    #[test]
    fn only_what_changed_is_touched() {
        let text = "{\n  // the user's note\n  \"z\": 12345678901234567890123,\n  \"a\": {\"k\": 1.50},\n  \"hooks\": {\n    \"Stop\": [ {\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]} ] /* keep */\n  }\n}\n";
        let out = edit(text, |doc| {
            let stop = doc["hooks"]["Stop"].as_array_mut().unwrap();
            stop.push(json!({"hooks": [{"type": "command", "command": "y"}]}));
        });
        for kept in [
            "// the user's note",
            "12345678901234567890123",
            "1.50",
            "/* keep */",
            "\"z\"",
        ] {
            assert!(out.contains(kept), "{kept} lost:\n{out}");
        }
        assert!(out.find("\"z\"") < out.find("\"a\""), "{out}");
        let back = parse(Path::new("t"), &out).unwrap().unwrap();
        assert_eq!(back["hooks"]["Stop"].as_array().unwrap().len(), 2);
        assert_eq!(back["hooks"]["Stop"][1]["hooks"][0]["command"], "y");
        // And out again: the text as it was.
        let again = edit(&out, |doc| {
            doc["hooks"]["Stop"].as_array_mut().unwrap().pop();
        });
        assert_eq!(
            parse(Path::new("t"), &again).unwrap(),
            parse(Path::new("t"), text).unwrap()
        );
        assert!(again.contains("// the user's note") && again.contains("12345678901234567890123"));
    }

    #[test]
    fn removed_groups_and_keys_go_and_new_keys_come_last() {
        let text = r#"{"b": 1, "hooks": {"A": [1, 2, 3], "B": [4]}}"#;
        let out = edit(text, |doc| {
            doc["hooks"]["A"] = json!([1, 3]);
            doc["hooks"].as_object_mut().unwrap().remove("B");
            doc.insert("c".into(), json!(true));
        });
        let back = parse(Path::new("t"), &out).unwrap().unwrap();
        assert_eq!(Value::Object(back), json!({"b": 1, "hooks": {"A": [1, 3]}, "c": true}));
    }
}
