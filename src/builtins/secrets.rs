//! `security_scan`: finds secrets in tool inputs (BeforeTool), tool results
//! (AfterTool) and model requests (BeforeModel) and redacts them as
//! `***REDACTED:kind***` through each event's modify path, or blocks.
//!
//! Detectors: AWS access key ids, GitHub and GitLab tokens, Slack tokens,
//! Google API keys, `sk-` API keys, private key blocks, JWTs, and
//! assignments to secret-sounding names (`password=`, `api_key:`, ...)
//! whose value looks random (at least 12 characters, 3.5 bits of entropy per
//! character, not a `$VARIABLE` reference).

use hookshot_core::{Decision, EventKind, HookOutput};
use hookshot_runner::Hook;
use regex::Regex;
use serde_json::{Map, Value, json};

/// Block instead of redacting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Replace each secret with `***REDACTED:kind***`.
    Redact,
    /// Refuse the action.
    Block,
}

/// The hook.
#[derive(Debug)]
pub struct SecurityScan {
    mode: Mode,
    detectors: Vec<(&'static str, Regex)>,
    assignment: Regex,
}

fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = s.chars().count() as f64;
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

impl SecurityScan {
    /// The scanner with its default detectors.
    pub fn new(mode: Mode) -> SecurityScan {
        let d = |kind, re: &str| (kind, Regex::new(re).expect("built-in detector compiles"));
        SecurityScan {
            mode,
            detectors: vec![
                d(
                    "private_key",
                    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----",
                ),
                d("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
                d("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b"),
                d("gitlab_token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
                d("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
                d("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
                d("api_key", r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}"),
                d("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
            ],
            assignment: Regex::new(
                r#"(?i)\b([a-z0-9_\-]*(?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|auth)[a-z0-9_\-]*)(["']?\s*[:=]\s*["']?)([^\s"'`,;]{12,})"#,
            )
            .expect("assignment detector compiles"),
        }
    }

    /// Redacts every secret in `text`; returns the kinds found.
    pub fn redact(&self, text: &str) -> (String, Vec<&'static str>) {
        let mut out = text.to_string();
        let mut kinds = Vec::new();
        for (kind, re) in &self.detectors {
            if re.is_match(&out) {
                kinds.push(*kind);
                out = re
                    .replace_all(&out, format!("***REDACTED:{kind}***").as_str())
                    .into_owned();
            }
        }
        let mut found_assignment = false;
        out = self
            .assignment
            .replace_all(&out, |c: &regex::Captures<'_>| {
                let value = &c[3];
                if value.starts_with('$') || value.contains("REDACTED") || entropy(value) < 3.5 {
                    return c[0].to_string();
                }
                found_assignment = true;
                format!("{}{}***REDACTED:secret_assignment***", &c[1], &c[2])
            })
            .into_owned();
        if found_assignment {
            kinds.push("secret_assignment");
        }
        (out, kinds)
    }

    /// Redacts every string inside a JSON value.
    fn redact_value(&self, v: &Value, kinds: &mut Vec<&'static str>) -> Value {
        match v {
            Value::String(s) => {
                let (r, k) = self.redact(s);
                for kind in k {
                    if !kinds.contains(&kind) {
                        kinds.push(kind);
                    }
                }
                Value::String(r)
            }
            Value::Array(items) => Value::Array(items.iter().map(|i| self.redact_value(i, kinds)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), self.redact_value(v, kinds)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn answer(&self, kinds: &[&str], place: &str, apply: impl FnOnce(&mut HookOutput)) -> HookOutput {
        let list = kinds.join(", ");
        let mut out = HookOutput::default();
        match self.mode {
            Mode::Block => {
                out.decision = Decision::Block;
                out.reason = Some(format!("security_scan: secrets ({list}) in {place}"));
            }
            Mode::Redact => {
                out.system_message = Some(format!("security_scan redacted secrets ({list}) in {place}"));
                apply(&mut out);
            }
        }
        out
    }
}

impl Hook for SecurityScan {
    fn call(&self, event: EventKind, input: &Map<String, Value>) -> HookOutput {
        let mut kinds = Vec::new();
        match event {
            EventKind::BeforeTool => {
                let Some(args) = input.get("tool_input") else {
                    return HookOutput::default();
                };
                let redacted = self.redact_value(args, &mut kinds);
                if kinds.is_empty() {
                    return HookOutput::default();
                }
                self.answer(&kinds, "the tool input", |o| {
                    o.tool_input = redacted.as_object().cloned()
                })
            }
            EventKind::AfterTool => {
                let Some(resp) = input.get("tool_response") else {
                    return HookOutput::default();
                };
                let text = resp
                    .get("llmContent")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| match resp {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    });
                let (redacted, k) = self.redact(&text);
                if k.is_empty() {
                    return HookOutput::default();
                }
                self.answer(&k, "the tool result", |o| o.tool_result = Some(Value::String(redacted)))
            }
            EventKind::BeforeModel => {
                let Some(messages) = input.get("llm_request").and_then(|r| r.get("messages")) else {
                    return HookOutput::default();
                };
                let redacted = self.redact_value(messages, &mut kinds);
                if kinds.is_empty() {
                    return HookOutput::default();
                }
                self.answer(&kinds, "the model request", |o| {
                    o.llm_request = Some(json!({"messages": redacted}))
                })
            }
            _ => HookOutput::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_realistic_secrets() {
        let s = SecurityScan::new(Mode::Redact);
        let cases = [
            ("key AKIAIOSFODNN7EXAMPLE here", "aws_access_key"),
            ("token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "github_token"),
            ("glpat-xxxxxxxxxxxxxxxxxxxx1", "gitlab_token"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
                "private_key",
            ),
            (
                "Authorization: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt",
            ),
            ("OPENAI=sk-proj-abcdefghijklmnopqrstuvwx", "api_key"),
            ("db_password = \"q8Zr!x2Lw9@vKp3T\"", "secret_assignment"),
        ];
        for (text, kind) in cases {
            let (out, kinds) = s.redact(text);
            assert!(kinds.contains(&kind), "{kind} not found in {text:?}: {kinds:?}");
            assert!(out.contains(&format!("***REDACTED:{kind}***")), "{out}");
        }
    }

    #[test]
    fn near_misses_are_left_alone() {
        let s = SecurityScan::new(Mode::Redact);
        for text in [
            "password = changeme",
            "token: ${GITHUB_TOKEN}",
            "the api_key field is documented below",
            "AKIA is the prefix of AWS key ids",
            "ghp_short",
            "sk-learn is a library",
            "passwordless = aaaaaaaaaaaaaaaa",
        ] {
            let (out, kinds) = s.redact(text);
            assert!(kinds.is_empty(), "false alarm {kinds:?} in {text:?}");
            assert_eq!(out, text);
        }
    }

    #[test]
    fn redacts_tool_input_and_blocks_by_policy() {
        let input = json!({"tool_name": "write_file", "tool_input": {"file_path": ".env",
            "content": "GITHUB=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n"}});
        let input = input.as_object().unwrap();
        let out = SecurityScan::new(Mode::Redact).call(EventKind::BeforeTool, input);
        assert_eq!(
            out.tool_input.unwrap()["content"],
            "GITHUB=***REDACTED:github_token***\n"
        );
        let out = SecurityScan::new(Mode::Block).call(EventKind::BeforeTool, input);
        assert_eq!(out.decision, Decision::Block);
    }
}
