//! The `builtins` key: hookshot's own built-in hooks and their options.

use super::*;

/// The built-in hooks a settings file may enable.
pub const BUILTINS: &[&str] = &["audit_log", "dangerous_confirmation", "security_scan"];

/// What an option's value is, and so how it is checked and described in
/// the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionKind {
    /// On or off.
    Enabled,
    /// One of these words, least strict first.
    Mode(&'static [&'static str]),
    /// The audit log's file.
    Path,
    /// A whole number in this range, counting this unit.
    Bounded(std::ops::RangeInclusive<u64>, &'static str),
    /// Regular expressions.
    Patterns,
    /// A gitleaks rules file, relative to the settings file's folder.
    RulesFile,
}

/// How a later file's value of an option meets the first file's (uv's
/// `Combine`): a guard's options only ever get stricter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// The stricter of the two modes.
    Stricter,
    /// Both lists.
    Union,
    /// The first file's value stays; a different later one is a warning.
    First,
}

/// One option of a built-in: its key, its kind, and its merge rule. The
/// parser, the schema and [`crate::Registry`]'s merge all read this table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltinOption {
    /// Its key in the built-in's options object.
    pub key: &'static str,
    /// What its value is.
    pub kind: OptionKind,
    /// How later files change it.
    pub merge: Merge,
}

const fn opt(key: &'static str, kind: OptionKind, merge: Merge) -> BuiltinOption {
    BuiltinOption { key, kind, merge }
}

/// The options each built-in accepts.
pub const BUILTIN_OPTIONS: &[(&str, &[BuiltinOption])] = &[
    (
        "audit_log",
        &[
            opt("path", OptionKind::Path, Merge::First),
            opt("max_bytes", OptionKind::Bounded(AUDIT_MAX_BYTES, "bytes"), Merge::First),
            opt("keep", OptionKind::Bounded(AUDIT_KEEP, "rotated files"), Merge::First),
            opt("enabled", OptionKind::Enabled, Merge::First),
        ],
    ),
    (
        "dangerous_confirmation",
        &[
            opt("mode", OptionKind::Mode(&["ask", "deny"]), Merge::Stricter),
            opt("patterns", OptionKind::Patterns, Merge::Union),
            opt("enabled", OptionKind::Enabled, Merge::First),
        ],
    ),
    (
        "security_scan",
        &[
            opt("mode", OptionKind::Mode(&["redact", "block"]), Merge::Stricter),
            opt("rules_file", OptionKind::RulesFile, Merge::Union),
            opt("enabled", OptionKind::Enabled, Merge::First),
        ],
    ),
];

/// The options of the built-in `name`, if it is one.
pub fn builtin_options(name: &str) -> Option<&'static [BuiltinOption]> {
    BUILTIN_OPTIONS.iter().find(|(n, _)| *n == name).map(|(_, o)| *o)
}

/// The option `key` of the built-in `name`.
pub fn builtin_option(name: &str, key: &str) -> Option<&'static BuiltinOption> {
    builtin_options(name)?.iter().find(|o| o.key == key)
}

impl Parser<'_> {
    /// The `builtins` key: known names, the options each accepts, and
    /// their values, each checked with its place in the file.
    pub(super) fn builtins(&mut self, m: &Map<String, Value>) {
        for (name, cfg) in m {
            let ptr = format!("/builtins/{}", escape_token(name));
            let options = match builtin_options(name) {
                Some(options) => options,
                None => {
                    let hint = did_you_mean(name, BUILTINS.iter().copied())
                        .map(|s| format!("did you mean \"{s}\"?"))
                        .unwrap_or_else(|| format!("known: {}", BUILTINS.join(", ")));
                    self.key_error(&ptr, format!("unknown built-in hook \"{name}\"; {hint}"));
                    continue;
                }
            };
            let mut setting = BuiltinSetting {
                name: name.clone(),
                on: true,
                options: Map::new(),
                source: self.source,
                at: self.at(&ptr, true),
                rules: Vec::new(),
                set_later: Vec::new(),
            };
            let cfg = match cfg {
                Value::Bool(on) => {
                    setting.on = *on;
                    self.out.builtins.push(setting);
                    continue;
                }
                Value::Object(o) => o,
                other => {
                    self.error(
                        &ptr,
                        format!("expected an options object (or true/false), found {}", kind_of(other)),
                    );
                    continue;
                }
            };
            let before = self.errors.len();
            for (key, value) in cfg {
                let kp = format!("{ptr}/{}", escape_token(key));
                let Some(option) = options.iter().find(|o| o.key == key) else {
                    let keys = options.iter().map(|o| o.key);
                    let hint = did_you_mean(key, keys.clone())
                        .map(|s| format!("did you mean \"{s}\"?"))
                        .unwrap_or_else(|| format!("{name} accepts {}", keys.collect::<Vec<_>>().join(", ")));
                    self.key_error(&kp, format!("unknown option \"{key}\" of {name}; {hint}"));
                    continue;
                };
                match &option.kind {
                    OptionKind::Enabled => match value.as_bool() {
                        Some(on) => setting.on = on,
                        None => self.error(&kp, format!("expected true or false, found {}", describe(value))),
                    },
                    OptionKind::Mode(modes) => match value.as_str() {
                        Some(m) if modes.contains(&m) => {}
                        _ => {
                            self.error(
                                &kp,
                                format!(
                                    "{name} mode must be one of {}, found {}; until it is fixed it runs in its strictest mode",
                                    modes.join(", "),
                                    describe(value)
                                ),
                            );
                            // A guard whose mode cannot be read guards in
                            // its strictest (what a broken file keeps on).
                            if let Some(strictest) = modes.last() {
                                setting.options.insert(key.clone(), Value::String((*strictest).into()));
                            }
                            continue;
                        }
                    },
                    OptionKind::Path => self.audit_path(&kp, value),
                    OptionKind::Bounded(range, unit) => self.bounded(&kp, value, range.clone(), unit),
                    OptionKind::Patterns => self.patterns(&kp, value),
                    OptionKind::RulesFile => {
                        if let Some(file) = self.rules_file(&kp, value) {
                            // Kept as a list: later files add theirs.
                            let path = file.path.display().to_string();
                            setting
                                .options
                                .insert(key.clone(), Value::Array(vec![Value::String(path)]));
                            setting.rules.push(file);
                        }
                        continue;
                    }
                }
                if key != "enabled" {
                    setting.options.insert(key.clone(), value.clone());
                }
            }
            if name == "audit_log" && !cfg.contains_key("path") && setting.on {
                self.error(&ptr, "missing \"path\": where to write the audit log");
            }
            // With errors the file does not load, but a guard it turns on
            // stays on with what could be read ([`super::salvage_guards`]).
            if self.errors.len() == before || setting.on {
                self.out.builtins.push(setting);
            }
        }
    }

    /// An audit log path: a string; from a project or an extension, one
    /// that stays inside the project (relative, no `..`), since such files
    /// are written by others than the user.
    fn audit_path(&mut self, ptr: &str, value: &Value) {
        let Some(path) = value.as_str() else {
            self.error(ptr, format!("expected a file path, found {}", describe(value)));
            return;
        };
        let p = Path::new(path);
        if path.is_empty() || p.file_name().is_none() {
            self.error(ptr, format!("expected a file path, found \"{path}\""));
        } else if self.leaves_project(p) {
            self.error(
                ptr,
                format!(
                    "\"{path}\" leaves the project: an audit log named by {} settings must be a path inside the project",
                    self.source
                ),
            );
        }
    }

    /// Whether `p`, named by a project or extension file (which others
    /// than the user write), may lead out of the project: absolute, or
    /// through `..`.
    fn leaves_project(&self, p: &Path) -> bool {
        matches!(self.source, SourceKind::Project | SourceKind::Extension)
            && (p.is_absolute() || p.components().any(|c| matches!(c, std::path::Component::ParentDir)))
    }

    /// A gitleaks rules file: a path relative to the settings file's
    /// folder (or `~/...`), read now so `validate` names a bad rule by its
    /// line. A file that cannot be used is a warning, not an error: the
    /// scan still runs with its own rules. Returns the file as read.
    fn rules_file(&mut self, ptr: &str, value: &Value) -> Option<crate::gitleaks::RulesFile> {
        let Some(path) = value.as_str().filter(|p| !p.is_empty()) else {
            self.error(
                ptr,
                format!("expected a gitleaks rules file path, found {}", describe(value)),
            );
            return None;
        };
        // Others than the user write project and extension files: theirs
        // name rules inside the project, not any file of the user's.
        let p = Path::new(path);
        let others = matches!(self.source, SourceKind::Project | SourceKind::Extension);
        if self.leaves_project(p) || (others && path.starts_with('~')) {
            self.error(
                ptr,
                format!(
                    "\"{path}\" leaves the project: a rules file named by {} settings must be a path inside the project",
                    self.source
                ),
            );
            return None;
        }
        let full = match (path.strip_prefix("~/"), hookshot_core::paths::home()) {
            (Some(rest), Some(h)) => h.join(rest),
            _ => self.path.parent().unwrap_or(Path::new(".")).join(path),
        };
        let file = crate::gitleaks::RulesFile::read(&full);
        match &file.loaded {
            Ok(loaded) => {
                for why in &loaded.skipped {
                    self.warn(ptr, why.clone());
                }
            }
            Err(why) => self.warn(
                ptr,
                format!(
                    "security_scan cannot use these rules ({why}); it runs with its own rules until the file is fixed"
                ),
            ),
        }
        Some(file)
    }

    /// A whole number within `range`.
    pub(super) fn bounded(&mut self, ptr: &str, value: &Value, range: std::ops::RangeInclusive<u64>, what: &str) {
        match value.as_u64() {
            Some(n) if range.contains(&n) => {}
            _ => self.error(
                ptr,
                format!(
                    "expected a whole number of {what} from {} to {}, found {}",
                    range.start(),
                    range.end(),
                    describe(value)
                ),
            ),
        }
    }

    pub(super) fn patterns(&mut self, pp: &str, p: &Value) {
        let Some(items) = p.as_array() else {
            self.error(pp, format!("expected a list of regexes, found {}", kind_of(p)));
            return;
        };
        for (i, item) in items.iter().enumerate() {
            match item.as_str().map(regex::Regex::new) {
                Some(Ok(_)) => {}
                Some(Err(e)) => self.error(
                    &format!("{pp}/{i}"),
                    format!("invalid regex: {}", e.to_string().lines().last().unwrap_or("").trim()),
                ),
                None => self.error(
                    &format!("{pp}/{i}"),
                    format!("expected a regex, found {}", kind_of(item)),
                ),
            }
        }
    }
}
