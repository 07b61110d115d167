//! jcli's `hooks.yaml`: event names at the top level, chains of hooks.

use super::*;

impl Parser<'_> {
    /// jcli `hooks.yaml`: event -> list of hooks with `type`, `command`,
    /// `prompt`, `timeout` (seconds), `on_error`, `retry`, `filter`.
    pub(super) fn jcli(&mut self, top: &Map<String, Value>) {
        for (name, list) in top {
            if name == "builtins" {
                continue;
            }
            let ptr = format!("/{}", escape_token(name));
            let Some((event, _)) = EventKind::parse(name) else {
                let hint = did_you_mean(name, EventKind::all_names())
                    .map(|s| format!("; did you mean \"{s}\"?"))
                    .unwrap_or_else(|| format!("; known events: {}", known_events(Dialect::Jcli)));
                self.key_error(&ptr, format!("unknown event \"{name}\"{hint}"));
                continue;
            };
            let Some(list) = list.as_array() else {
                self.error(&ptr, format!("expected a list of hooks, found {}", kind_of(list)));
                continue;
            };
            for (i, h) in list.iter().enumerate() {
                let hp = format!("{ptr}/{i}");
                if let Some(def) = self.jcli_hook(&hp, h, event) {
                    self.out.hooks.push(def);
                }
            }
        }
    }

    fn jcli_hook(&mut self, ptr: &str, h: &Value, event: EventKind) -> Option<HookDef> {
        let Some(h) = h.as_object() else {
            self.error(ptr, format!("expected a hook with a \"command\", found {}", kind_of(h)));
            return None;
        };
        const KEYS: &[&str] = &[
            "type", "command", "prompt", "model", "timeout", "on_error", "retry", "filter", "name", "enabled",
        ];
        self.unknown_keys(h, ptr, KEYS, "a jcli hook", false);
        let action = match h.get("type").and_then(Value::as_str).unwrap_or("bash") {
            "bash" => HookAction::Command {
                command: self.required_string(h, ptr, "command", "a bash hook needs the command line to run")?,
            },
            "llm" => HookAction::Llm {
                prompt: self.required_string(h, ptr, "prompt", "an llm hook needs the prompt to send")?,
                model: self.opt_string(h, ptr, "model"),
            },
            other => {
                self.error(
                    &format!("{ptr}/type"),
                    format!("unknown hook type \"{other}\"; use \"bash\" or \"llm\""),
                );
                return None;
            }
        };
        // jcli's defaults: bash 10 s and no retry, llm 30 s and one retry.
        let (default_secs, default_retry) = match action {
            HookAction::Llm { .. } => (30.0, 1),
            _ => (10.0, 0),
        };
        let timeout = match h.get("timeout") {
            None => Duration::from_secs_f64(default_secs),
            Some(Value::Number(n)) if n.as_f64().is_some_and(|t| t > 0.0 && t <= MAX_TIMEOUT_SECS as f64) => {
                super::nonzero_secs(n.as_f64().unwrap_or(default_secs))
            }
            Some(other) => {
                self.error(
                    &format!("{ptr}/timeout"),
                    format!(
                        "expected a positive number of seconds up to {MAX_TIMEOUT_SECS}, found {}",
                        describe(other)
                    ),
                );
                Duration::from_secs(10)
            }
        };
        let fail = self.fail_policy(h, ptr);
        let retry = if h.contains_key("retry") {
            self.retry(h, ptr)
        } else {
            default_retry
        };
        let name = self.opt_string(h, ptr, "name");
        let mut matcher = MatcherSpec::Any;
        let mut model_prefix = None;
        if let Some(f) = h.get("filter") {
            let fp = format!("{ptr}/filter");
            match f.as_object() {
                Some(f) => {
                    for k in f.keys() {
                        if !matches!(k.as_str(), "tool_name" | "tool_matcher" | "model_prefix") {
                            self.key_error(
                                &format!("{fp}/{}", escape_token(k)),
                                format!("unknown filter \"{k}\"; filters are tool_name, tool_matcher and model_prefix"),
                            );
                        }
                    }
                    // tool_name takes precedence over tool_matcher, as in jcli.
                    if let Some(n) = f.get("tool_name") {
                        match n.as_str() {
                            Some(n) => matcher = MatcherSpec::Exact(vec![n.to_string()]),
                            None => self.error(
                                &format!("{fp}/tool_name"),
                                format!("expected a tool name, found {}", kind_of(n)),
                            ),
                        }
                    } else if let Some(m) = f.get("tool_matcher") {
                        match m.as_str() {
                            Some(m) => match compile_matcher(m, Dialect::Jcli, event, RegexFlavour::Rust) {
                                Ok(spec) => matcher = spec,
                                Err(e) => self.error(&format!("{fp}/tool_matcher"), e),
                            },
                            None => self.error(
                                &format!("{fp}/tool_matcher"),
                                format!("expected a pattern string, found {}", kind_of(m)),
                            ),
                        }
                    }
                    if let Some(p) = f.get("model_prefix") {
                        match p.as_str() {
                            Some(p) => model_prefix = Some(p.to_string()),
                            None => self.error(
                                &format!("{fp}/model_prefix"),
                                format!("expected a string, found {}", kind_of(p)),
                            ),
                        }
                    }
                }
                None => self.error(
                    &fp,
                    format!(
                        "expected an object with tool_name, tool_matcher or model_prefix, found {}",
                        kind_of(f)
                    ),
                ),
            }
        }
        if h.get("enabled") == Some(&Value::Bool(false)) {
            return None;
        }
        Some(HookDef {
            identity: name.clone().unwrap_or_else(|| match &action {
                HookAction::Command { command } => command.clone(),
                HookAction::Llm { prompt, .. } => prompt.clone(),
                _ => String::new(),
            }),
            name,
            event,
            dialect: Dialect::Jcli,
            matcher,
            model_prefix,
            action,
            timeout,
            // jcli chains are ordered: each hook sees the previous one's output.
            sequential: true,
            fail,
            retry,
            source: self.source,
            provenance: self.at(ptr, false),
            options: Default::default(),
        })
    }
}
