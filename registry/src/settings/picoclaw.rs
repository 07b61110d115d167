//! picoclaw's JSON-RPC process hooks (`hooks.processes`).

use super::*;

/// The keys of a picoclaw process hook (the schema lists the same).
pub(crate) const PICOCLAW_PROCESS_KEYS: &[&str] = &[
    "enabled",
    "priority",
    "transport",
    "command",
    "dir",
    "env",
    "observe",
    "intercept",
];
impl Parser<'_> {
    /// picoclaw: `hooks.processes.<name>` are JSON-RPC processes; each
    /// `intercept` point becomes a hook, each `observe` kind a notification.
    /// Ordered by `priority` (lower first), then name, as picoclaw does.
    pub(super) fn picoclaw(&mut self, hooks: &Map<String, Value>) {
        if let Some(Value::Bool(b)) = hooks.get("enabled") {
            self.out.enabled = Some(*b);
        }
        let mut timeouts = [
            ("observer_timeout_ms", 500u64),
            ("interceptor_timeout_ms", 5000),
            ("approval_timeout_ms", 60_000),
        ];
        if let Some(d) = hooks.get("defaults") {
            match d.as_object() {
                Some(d) => {
                    for (key, value) in timeouts.iter_mut() {
                        match d.get(*key) {
                            None => {}
                            Some(v) if v.as_u64().is_some_and(|n| n > 0 && n <= MAX_TIMEOUT_SECS * 1000) => {
                                *value = v.as_u64().unwrap_or(*value)
                            }
                            Some(v) => self.error(
                                &format!("/hooks/defaults/{key}"),
                                format!(
                                    "expected a positive number of milliseconds up to {}, found {}",
                                    MAX_TIMEOUT_SECS * 1000,
                                    describe(v)
                                ),
                            ),
                        }
                    }
                }
                None => self.error(
                    "/hooks/defaults",
                    format!("expected an object of timeouts, found {}", kind_of(d)),
                ),
            }
        }
        if hooks.contains_key("builtins") {
            self.warn("/hooks/builtins", "picoclaw built-in hooks are compiled into picoclaw; hookshot skips them (see hookshot's own \"builtins\")");
        }
        let Some(processes) = hooks.get("processes") else {
            return;
        };
        let Some(processes) = processes.as_object() else {
            self.error(
                "/hooks/processes",
                format!("expected an object of named processes, found {}", kind_of(processes)),
            );
            return;
        };
        let mut order: Vec<(i64, &String, &Value)> = processes
            .iter()
            .map(|(n, v)| (v.get("priority").and_then(Value::as_i64).unwrap_or(0), n, v))
            .collect();
        order.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        for (_, name, spec) in order {
            let ptr = format!("/hooks/processes/{}", escape_token(name));
            let Some(spec) = spec.as_object() else {
                self.error(
                    &ptr,
                    format!(
                        "expected a process {{\"command\": [...], \"intercept\": [...]}}, found {}",
                        kind_of(spec)
                    ),
                );
                continue;
            };
            self.unknown_keys(spec, &ptr, PICOCLAW_PROCESS_KEYS, "a process hook", false);
            if let Some(t) = spec.get("transport")
                && t.as_str() != Some("stdio")
            {
                self.error(
                    &format!("{ptr}/transport"),
                    format!("only \"stdio\" is supported, found {}", describe(t)),
                );
            }
            let argv: Vec<String> = match spec.get("command") {
                Some(Value::Array(items)) if !items.is_empty() && items.iter().all(Value::is_string) => {
                    items.iter().filter_map(Value::as_str).map(str::to_string).collect()
                }
                Some(Value::String(s)) if !s.trim().is_empty() => s.split_whitespace().map(str::to_string).collect(),
                Some(other) => {
                    self.error(
                        &format!("{ptr}/command"),
                        format!(
                            "expected the program and its arguments as a list of strings, found {}",
                            describe(other)
                        ),
                    );
                    continue;
                }
                None => {
                    self.error(
                        &ptr,
                        "missing \"command\": the program to start, e.g. [\"python3\", \"hook.py\"]",
                    );
                    continue;
                }
            };
            let env: Vec<(String, String)> = match spec.get("env") {
                None => Vec::new(),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                    .collect(),
                Some(other) => {
                    self.error(
                        &format!("{ptr}/env"),
                        format!("expected an object of variables, found {}", kind_of(other)),
                    );
                    Vec::new()
                }
            };
            let dir = spec.get("dir").and_then(Value::as_str).map(std::path::PathBuf::from);
            let list = |me: &mut Self, key: &str| -> Vec<String> {
                match spec.get(key) {
                    None => Vec::new(),
                    Some(v) => me.strings(v, &format!("{ptr}/{key}"), "names"),
                }
            };
            let intercept = list(self, "intercept");
            let observe = list(self, "observe");
            let mut modes = Vec::new();
            if !observe.is_empty() {
                modes.push("observe".to_string());
            }
            if intercept.iter().any(|i| i != "approve_tool") {
                modes.push("tool".to_string());
            }
            if intercept.iter().any(|i| i == "approve_tool") {
                modes.push("approve".to_string());
            }
            let process = hookshot_core::ProcessSpec {
                name: name.clone(),
                argv,
                dir,
                env,
                modes,
            };
            let enabled = spec.get("enabled").and_then(Value::as_bool).unwrap_or(true);
            let add = |me: &mut Self,
                       event: EventKind,
                       observe: Option<&String>,
                       timeout_ms: u64,
                       fail: FailPolicy,
                       at: String| {
                if enabled {
                    me.out.hooks.push(HookDef {
                        identity: match observe {
                            Some(kind) => format!("process:{name}:{}:observe:{kind}", event.canonical_name()),
                            None => format!("process:{name}:{}:intercept", event.canonical_name()),
                        },
                        name: Some(name.clone()),
                        event,
                        dialect: Dialect::Picoclaw,
                        matcher: MatcherSpec::Any,
                        model_prefix: None,
                        action: HookAction::Persistent {
                            process: process.clone(),
                            observe: observe.cloned(),
                        },
                        timeout: Duration::from_millis(timeout_ms),
                        sequential: false,
                        fail,
                        retry: 0,
                        source: me.source,
                        provenance: me.at(&at, false),
                        options: Default::default(),
                    });
                }
            };
            for (i, point) in intercept.iter().enumerate() {
                let at = format!("{ptr}/intercept/{i}");
                match EventKind::parse(point) {
                    Some((event, _)) if event.name_in(Dialect::Picoclaw).is_some() => {
                        // Interceptors fail open, approvers closed (as picoclaw).
                        let approve = event == EventKind::PermissionRequest;
                        let (t, fail) = if approve {
                            (timeouts[2].1, FailPolicy::Closed)
                        } else {
                            (timeouts[1].1, FailPolicy::Open)
                        };
                        add(self, event, None, t, fail, at);
                    }
                    _ => {
                        let points = ["before_llm", "after_llm", "before_tool", "after_tool", "approve_tool"];
                        let hint = did_you_mean(point, points)
                            .map(|s| format!("did you mean \"{s}\"?"))
                            .unwrap_or_else(|| format!("known: {}", points.join(", ")));
                        self.error(&at, format!("unknown interception point \"{point}\"; {hint}"));
                    }
                }
            }
            for (i, kind) in observe.iter().enumerate() {
                let at = format!("{ptr}/observe/{i}");
                let short = kind.trim_start_matches("agent.").replace('.', "_");
                // A skipped tool is one a BeforeTool hook blocked: its
                // observers are told once the BeforeTool answer is known.
                let events: &[EventKind] = match short.as_str() {
                    "turn_start" => &[EventKind::BeforeAgent],
                    "turn_end" => &[EventKind::AfterAgent],
                    "llm_request" => &[EventKind::BeforeModel],
                    "llm_response" => &[EventKind::AfterModel],
                    "tool_exec_start" | "tool_exec_skipped" => &[EventKind::BeforeTool],
                    "tool_exec_end" => &[EventKind::AfterTool, EventKind::AfterToolFailure],
                    "session_start" => &[EventKind::SessionStart],
                    "session_end" => &[EventKind::SessionEnd],
                    _ => &[],
                };
                for e in events {
                    add(self, *e, Some(kind), timeouts[0].1, FailPolicy::Open, at.clone());
                }
                match events.first() {
                    Some(_) => {}
                    None => self.warn(
                        &at,
                        format!("hookshot has no event for \"{kind}\"; it will not be observed"),
                    ),
                }
            }
        }
    }
}
