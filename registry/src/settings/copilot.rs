//! GitHub Copilot CLI's own hook files (`.github/hooks/*.json`,
//! `~/.copilot/hooks/*.json`; 1.0.102): `{"version": 1, "hooks": {...}}`
//! where a camelCase event's hooks get Copilot CLI's payload and answer
//! in its words, and a Claude Code event name's get Claude Code's; an
//! entry is one hook (`{"bash": ..., "matcher": ...}`) or Claude Code's
//! group (`{"matcher": ..., "hooks": [...]}`).

use super::*;
use hookshot_core::agent::COPILOT_TOOLS;

/// The keys of one of its hooks (1.0.102: `timeout` is an alias of
/// `timeoutSec`; `type` may be left out).
const HOOK_KEYS: &[&str] = &[
    "type",
    "bash",
    "command",
    "powershell",
    "cwd",
    "env",
    "timeoutSec",
    "timeout",
    "matcher",
];

/// What it waits for a hook that sets no timeout.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

impl Parser<'_> {
    pub(super) fn copilot_hooks(&mut self, hooks: &Map<String, Value>) {
        for (name, defs) in hooks {
            let ptr = format!("/hooks/{}", escape_token(name));
            let (event, dialect) = match EventKind::named_in(name, Dialect::Copilot) {
                Some(e) => (e, Dialect::Copilot),
                None => match EventKind::named_in(name, Dialect::Claude) {
                    Some(e) => (e, Dialect::Claude),
                    None => {
                        let hint = did_you_mean(
                            name,
                            EventKind::ALL
                                .iter()
                                .filter_map(|e| e.name_in(Dialect::Copilot).or(e.name_in(Dialect::Claude))),
                        )
                        .map(|s| format!("; did you mean \"{s}\"?"))
                        .unwrap_or_default();
                        // Copilot CLI's events hookshot does not fire
                        // (`errorOccurred`, `notification`) still run there.
                        self.key_warn(
                            &ptr,
                            format!("event \"{name}\" is not one hookshot fires: its hooks run under GitHub Copilot CLI only{hint}"),
                        );
                        continue;
                    }
                },
            };
            for (p, entry) in self.hook_list(&ptr, defs, "{\"bash\": ...}") {
                match entry.get("hooks") {
                    // Claude Code's group: its matcher applies to each hook.
                    Some(inner) => {
                        self.unknown_keys(entry, &p, &["matcher", "hooks"], "a matcher group", true);
                        let matcher = self.copilot_matcher(entry, &p, event, dialect);
                        for (hp, h) in self.hook_list(&format!("{p}/hooks"), inner, "{\"command\": ...}") {
                            self.copilot_hook(&hp, h, event, dialect, matcher.clone());
                        }
                    }
                    None => {
                        let matcher = self.copilot_matcher(entry, &p, event, dialect);
                        self.copilot_hook(&p, entry, event, dialect, matcher);
                    }
                }
            }
        }
    }

    /// A matcher as Copilot CLI reads it: a regex the whole tool name must
    /// match, case-sensitive. Under its own event names the name is its
    /// own (`bash`); hookshot plans by Claude Code's names, so the Claude
    /// Code names of its tools the regex matches are added.
    fn copilot_matcher(
        &mut self,
        entry: &Map<String, Value>,
        ptr: &str,
        event: EventKind,
        dialect: Dialect,
    ) -> MatcherSpec {
        let mp = format!("{ptr}/matcher");
        let m = match entry.get("matcher") {
            None => return MatcherSpec::Any,
            Some(Value::String(m)) => m.trim(),
            Some(other) => {
                self.error(&mp, format!("expected a string, found {}", kind_of(other)));
                return MatcherSpec::Any;
            }
        };
        if m.is_empty() {
            return MatcherSpec::Any;
        }
        if event.match_target() == MatchTarget::None {
            self.warn(&mp, format!("{event} ignores matchers; \"{m}\" has no effect"));
            return MatcherSpec::Any;
        }
        let whole = match regex::Regex::new(&format!("^(?:{m})$")) {
            Ok(r) => r,
            Err(e) => {
                // The error of the pattern as written, where it has one.
                let e = regex::Regex::new(m).err().unwrap_or(e);
                self.error(&mp, format!("invalid regular expression \"{m}\": {e}"));
                return MatcherSpec::Any;
            }
        };
        let mut pattern = m.to_string();
        if dialect == Dialect::Copilot {
            for (own, claude) in COPILOT_TOOLS {
                if whole.is_match(own) && !whole.is_match(claude) {
                    pattern.push('|');
                    pattern.push_str(claude);
                }
            }
        }
        match compile_matcher(&pattern, Dialect::Copilot, event, RegexFlavour::Rust) {
            Ok(spec) => spec,
            Err(e) => {
                self.error(&mp, e);
                MatcherSpec::Any
            }
        }
    }

    /// One hook: on Linux and macOS Copilot CLI runs `bash`, else
    /// `command`, under `/bin/bash -c`, in `cwd` (from the project), with
    /// `env` on top of its environment, for `timeoutSec` (30 s).
    fn copilot_hook(
        &mut self,
        ptr: &str,
        h: &Map<String, Value>,
        event: EventKind,
        dialect: Dialect,
        matcher: MatcherSpec,
    ) {
        self.unknown_keys(h, ptr, HOOK_KEYS, "a hook", true);
        let Some(kind) = self.own_hook_kind(h, ptr, "\"command\"") else {
            return;
        };
        let line = |key: &str| h.get(key).and_then(Value::as_str).filter(|s| !s.trim().is_empty());
        let action = match (kind, line("bash").or_else(|| line("command"))) {
            ("command", Some(command)) => HookAction::Command {
                command: command.to_string(),
            },
            ("command", None) if line("powershell").is_some() => HookAction::Unsupported {
                kind: "powershell".into(),
                why: "it has only a \"powershell\" command, which Copilot CLI runs on Windows; on this system it runs nothing there either, and here it fails each time it would run".into(),
            },
            ("command", None) => {
                for key in ["bash", "command"] {
                    if let Some(v) = h.get(key).filter(|v| !v.is_string()) {
                        self.error(&format!("{ptr}/{key}"), format!("expected a command line, found {}", kind_of(v)));
                        return;
                    }
                }
                self.error(ptr, "missing \"bash\": a command hook needs the command line to run");
                return;
            }
            (other, _) => not_run_kind("Copilot CLI", other),
        };
        let timeout = self.copilot_timeout(h, ptr);
        let mut options = hookshot_core::HookOptions::default();
        if let Some(dir) = self.path.parent() {
            options.env.push(("COPILOT_HOOK_DIR".into(), dir.display().to_string()));
        }
        match h.get("env") {
            None => {}
            Some(Value::Object(vars)) => {
                for (k, v) in vars {
                    // A value that is not a string still reaches the hook,
                    // as its JSON text, and validate says so.
                    let text = match v.as_str() {
                        Some(v) => v.to_string(),
                        None => {
                            self.warn(
                                &format!("{ptr}/env/{}", escape_token(k)),
                                format!(
                                    "expected a string, found {}; the hook gets its JSON text {v}",
                                    kind_of(v)
                                ),
                            );
                            v.to_string()
                        }
                    };
                    options.env.push((k.clone(), text));
                }
            }
            Some(other) => self.error(
                &format!("{ptr}/env"),
                format!("expected an object of variables, found {}", kind_of(other)),
            ),
        }
        options.cwd = self.opt_string(h, ptr, "cwd").map(std::path::PathBuf::from);
        self.push_own_hook(
            ptr,
            h,
            (event, dialect),
            matcher,
            action,
            timeout,
            FailPolicy::Open,
            options,
        );
    }

    /// `timeoutSec`, else its alias `timeout`: seconds.
    fn copilot_timeout(&mut self, h: &Map<String, Value>, ptr: &str) -> Duration {
        let Some((key, v)) = ["timeoutSec", "timeout"]
            .iter()
            .find_map(|k| h.get(*k).map(|v| (*k, v)))
        else {
            return DEFAULT_TIMEOUT;
        };
        self.agent_seconds(&format!("{ptr}/{key}"), v, DEFAULT_TIMEOUT, "Copilot CLI's default")
    }
}
