//! Claude Code's limits on `http` hooks (`allowedHttpHookUrls`,
//! `httpHookAllowedEnvVars`): which URLs they may POST to and which
//! variables their headers may read.

use std::sync::Arc;

use hookshot_core::{HookAction, HookDef, SourceKind};

use crate::{SettingsFile, Source};

/// Claude Code's limits on http hooks: the URLs they may POST to and the
/// variables their headers may carry. Lists merge across files, as in
/// Claude Code; once a system or user file sets one, lists from project,
/// extension or `--settings` files cannot widen it.
#[derive(Debug, Default)]
pub(crate) struct HttpPolicy {
    urls: Option<(Vec<String>, Vec<UrlPattern>)>,
    env: Option<Vec<String>>,
}

/// The parts of a URL an allow-list entry is compared by: scheme, host,
/// port (the scheme's default when none is written) and the rest. Claude
/// Code matches `allowedHttpHookUrls` by these, so a `*` in the host stays
/// in the host: `https://*.example.com/*` never reaches another port, nor
/// `https://example.com@evil.test/`.
#[derive(Debug, PartialEq, Eq)]
struct UrlParts {
    scheme: String,
    host: String,
    port: Option<u16>,
    rest: String,
}

fn url_parts(url: &str) -> Option<UrlParts> {
    let (scheme, after) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    // The host is what follows the last `@` (user information before it).
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if hostport.starts_with('[') {
        match hostport.split_once("]:") {
            Some((h, p)) => (&hostport[..h.len() + 1], Some(p)),
            None => (hostport, None),
        }
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    let default = match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    };
    let port = match port {
        Some("*") => None,
        Some(p) => Some(p.parse().ok()?),
        None => default,
    };
    Some(UrlParts {
        scheme,
        host: host.to_ascii_lowercase(),
        port,
        rest: if rest.is_empty() { "/".into() } else { rest.into() },
    })
}

/// One `allowedHttpHookUrls` entry, compiled.
#[derive(Debug)]
struct UrlPattern {
    scheme: String,
    host: regex::Regex,
    /// `None`: `:*`, any port.
    port: Option<u16>,
    rest: regex::Regex,
}

impl UrlPattern {
    fn new(pattern: &str) -> Option<UrlPattern> {
        let p = url_parts(pattern)?;
        let glob =
            |s: &str, star: &str| regex::Regex::new(&format!("^{}$", regex::escape(s).replace(r"\*", star))).ok();
        Some(UrlPattern {
            scheme: p.scheme,
            // A host wildcard spans labels, never the port or the path.
            host: glob(&p.host, "[^/:@?#]*")?,
            port: p.port,
            rest: glob(&p.rest, ".*")?,
        })
    }

    fn allows(&self, url: &str) -> bool {
        url_parts(url).is_some_and(|u| {
            u.scheme == self.scheme
                && self.host.is_match(&u.host)
                && self.port.is_none_or(|p| u.port == Some(p))
                && self.rest.is_match(&u.rest)
        })
    }
}

impl HttpPolicy {
    pub(crate) fn of(files: &[(Source, SettingsFile, bool)]) -> HttpPolicy {
        let merged = |get: fn(&SettingsFile) -> Option<&Vec<String>>| -> Option<Vec<String>> {
            let trusted = || files.iter().filter(|(_, _, t)| *t);
            let privileged = |s: &Source| matches!(s.kind, SourceKind::System | SourceKind::User);
            let from_privileged = trusted().any(|(s, f, _)| privileged(s) && get(f).is_some());
            let lists: Vec<&Vec<String>> = trusted()
                .filter(|(s, _, _)| !from_privileged || privileged(s))
                .filter_map(|(_, f, _)| get(f))
                .collect();
            (!lists.is_empty()).then(|| lists.into_iter().flatten().cloned().collect())
        };
        // An entry that is not a URL allows nothing.
        let urls = merged(|f| f.http_urls.as_ref()).map(|list| {
            let patterns = list.iter().filter_map(|p| UrlPattern::new(p)).collect();
            (list, patterns)
        });
        HttpPolicy {
            urls,
            env: merged(|f| f.http_env.as_ref()),
        }
    }

    /// `hook` as the policy lets it run: an http hook to a URL not allowed
    /// does not run (and says why each time), and its headers carry only
    /// the variables both it and the policy allow.
    pub(crate) fn apply(&self, hook: Arc<HookDef>) -> Arc<HookDef> {
        let HookAction::Http {
            url,
            headers,
            allowed_env,
        } = &hook.action
        else {
            return hook;
        };
        let action = if let Some((list, patterns)) = &self.urls
            && !patterns.iter().any(|p| p.allows(url))
        {
            HookAction::Unsupported {
                kind: "http".into(),
                why: format!(
                    "POSTs to {url}, which allowedHttpHookUrls ({}) does not allow; it did not run",
                    if list.is_empty() {
                        "empty".to_string()
                    } else {
                        list.join(", ")
                    }
                ),
            }
        } else if let Some(env) = &self.env {
            HookAction::Http {
                url: url.clone(),
                headers: headers.clone(),
                allowed_env: allowed_env.iter().filter(|v| env.contains(v)).cloned().collect(),
            }
        } else {
            return hook;
        };
        Arc::new(HookDef {
            action,
            ..(*hook).clone()
        })
    }
}

#[cfg(test)]
mod url_tests {
    use super::UrlPattern;

    #[test]
    fn a_host_wildcard_stays_in_the_host() {
        let p = UrlPattern::new("https://*.example.com/*").unwrap();
        assert!(p.allows("https://hooks.example.com/x"));
        assert!(p.allows("https://a.b.example.com:443/x?y=1"));
        assert!(p.allows("https://hooks.example.com"));
        for denied in [
            "https://evil.test:8443/.example.com/",
            "https://hooks.example.com:8443/x",
            "http://hooks.example.com/x",
            "https://example.com@evil.test/x",
            "https://evil.test/hooks.example.com/x",
        ] {
            assert!(!p.allows(denied), "{denied}");
        }
        let any_port = UrlPattern::new("http://localhost:*/hook").unwrap();
        assert!(any_port.allows("http://localhost:8080/hook"));
        assert!(!any_port.allows("http://localhost:8080/hook/other"));
        let v6 = UrlPattern::new("http://[::1]:9000/*").unwrap();
        assert!(v6.allows("http://[::1]:9000/a") && !v6.allows("http://[::1]:9001/a"));
    }
}
