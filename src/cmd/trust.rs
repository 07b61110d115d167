//! `hookshot trust`: show what a project's hook settings would run, then
//! record the user's approval (bound to the files' content).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use hookshot::TrustStore;
use serde_json::Value;

use crate::fail::Fail;
use crate::load::{config_home, trust_store_path};

#[derive(clap::Args, Debug)]
pub(crate) struct TrustArgs {
    /// The project (default: the current directory).
    #[arg(long, visible_alias = "project", value_name = "DIR")]
    workdir: Option<PathBuf>,
    /// Approve without asking (needed when stdin is not a terminal).
    #[arg(long)]
    yes: bool,
    /// List every approval in the trust store.
    #[arg(long, conflicts_with_all = ["revoke", "yes"])]
    list: bool,
    /// Withdraw every approval given for this project.
    #[arg(long)]
    revoke: bool,
    /// Approve hooks that run code no approval can bind (`npm run`,
    /// `make`, `npx`, `python -m`, ...), knowing that a change to that
    /// code will not withdraw the approval.
    #[arg(long, conflicts_with_all = ["list", "revoke"])]
    accept_unbound: bool,
}

pub(crate) fn run(args: TrustArgs) -> Result<u8, Fail> {
    let TrustArgs {
        workdir,
        yes,
        list,
        revoke,
        accept_unbound,
    } = args;
    let project = workdir.as_deref().unwrap_or(Path::new("."));
    match (list, revoke) {
        (true, _) => trust_list(),
        (false, true) => trust_revoke(project),
        (false, false) => trust(project, yes, accept_unbound),
    }
}

fn open_store() -> Result<TrustStore, Fail> {
    let path = trust_store_path()
        .ok_or_else(|| Fail::Usage("cannot locate the user config directory (set HOME or XDG_CONFIG_HOME)".into()))?;
    TrustStore::open(path).map_err(|e| Fail::Usage(e.to_string()))
}

fn trust_list() -> Result<u8, Fail> {
    let store = open_store()?;
    let mut n = 0;
    for e in store.entries() {
        n += 1;
        println!(
            "{}/{} (sha256 {})",
            visible(&e.project),
            visible(&e.file),
            &e.sha256[..12]
        );
        for (script, digest) in &e.covers {
            println!("  covers {} ({})", visible(script), digest.get(..12).unwrap_or(digest));
        }
    }
    if n == 0 {
        println!("no approvals in {}", store.path().display());
    }
    Ok(0)
}

fn trust_revoke(project: &Path) -> Result<u8, Fail> {
    let project = std::fs::canonicalize(project).map_err(|e| Fail::Usage(format!("{}: {e}", project.display())))?;
    let mut store = open_store()?;
    let n = store.revoke(&project);
    store.save().map_err(|e| Fail::Usage(e.to_string()))?;
    println!("revoked {n} approval(s) for {}", project.display());
    Ok(0)
}

/// One hook as `hookshot trust` shows it: everything it would run.
fn describe_for_trust(h: &hookshot::HookDef) -> String {
    use hookshot_core::HookAction;
    let what = match &h.action {
        HookAction::Command { command } => format!("runs: {command}"),
        HookAction::Exec { program, args } => format!("runs: {program} with arguments {args:?} (no shell)"),
        HookAction::Unsupported { why, .. } => format!("cannot run: {why}"),
        HookAction::McpTool { server, tool, .. } => format!("calls the tool {tool} of the MCP server \"{server}\""),
        HookAction::Http {
            url,
            headers,
            allowed_env,
        } => {
            let names: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
            format!(
                "POSTs each event to {url} (headers: {}; variables it may send: {})",
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                },
                if allowed_env.is_empty() {
                    "none".into()
                } else {
                    allowed_env.join(", ")
                }
            )
        }
        HookAction::Persistent { process, observe } => {
            let mut s = format!(
                "starts process \"{}\" ({}): {}",
                process.name,
                if observe.is_some() { "observer" } else { "interceptor" },
                process.argv.join(" ")
            );
            if let Some(d) = &process.dir {
                s.push_str(&format!(" in {}", d.display()));
            }
            for (k, v) in &process.env {
                s.push_str(&format!("\n      env {k}={v}"));
            }
            s
        }
        HookAction::Llm { prompt, model } => format!(
            "asks {} with the prompt:\n      {}",
            model.as_deref().unwrap_or("the model"),
            prompt.replace('\n', "\n      ")
        ),
        HookAction::Judge {
            prompt, model, agent, ..
        } => format!(
            "asks {}{} to judge with the prompt:\n      {}",
            model.as_deref().unwrap_or("the model"),
            if *agent {
                " (an agent that may Read, Grep and Glob the project)"
            } else {
                ""
            },
            prompt.replace('\n', "\n      ")
        ),
        HookAction::InProcess { name } => format!("in-process hook {name}"),
    };
    let matcher = serde_json::to_value(&h.matcher).unwrap_or_default();
    let matcher = match &matcher["value"] {
        Value::Null => "*".to_string(),
        v => v.to_string(),
    };
    format!(
        "  {} [{}] matcher {}, timeout {}s, on failure {:?} ({})\n    {}",
        h.event.display_in(h.dialect),
        h.dialect,
        visible(&matcher),
        h.timeout.as_secs_f64(),
        h.fail,
        visible(&h.provenance.to_string()),
        visible(&what)
    )
}

/// `text` escaped as a terminal cannot disguise it
/// ([`hookshot_core::display::escaped`]); line breaks hookshot itself put
/// in the description stay.
fn visible(text: &str) -> String {
    text.split("\n      ")
        .map(hookshot_core::display::escaped)
        .collect::<Vec<_>>()
        .join("\n      ")
}

fn trust(project: &Path, yes: bool, accept_unbound: bool) -> Result<u8, Fail> {
    let project = std::fs::canonicalize(project).map_err(|e| Fail::Usage(format!("{}: {e}", project.display())))?;
    let mut store = open_store()?;
    let home = hookshot_core::paths::home();
    // With the agents' user files: a Claude Code plugin the project enables
    // is the project's to trust.
    let sources: Vec<_> = hookshot_registry::discover(&project, home.as_deref(), config_home().as_deref(), true)
        .into_iter()
        .filter(|s| s.kind.needs_trust())
        .collect();
    if sources.is_empty() {
        println!("{}: no project hook settings found", project.display());
        return Ok(0);
    }
    let mut approvals = Vec::new();
    let mut unbound = 0;
    for s in &sources {
        let fail = |e: String| Fail::Settings(format!("{e}\nnothing was trusted"));
        let bytes = s.read().map_err(|e| fail(e.to_string()))?;
        let parsed = s.parse(bytes.clone()).map_err(|e| fail(e.to_string()))?;
        let (scope, rel) = s.trust_key();
        // A plugin's or an extension's scripts and shared code live in its
        // folder.
        let folders: Vec<PathBuf> = s.own_folders();
        let covers = hookshot::covered_files(&scope, &project, &parsed, &folders)
            .map_err(|why| Fail::Usage(format!("{}: not trusted: {why}", s.path.display())))?;
        println!(
            "{} ({} settings, {} hook(s)):",
            visible(&s.path.display().to_string()),
            s.kind,
            parsed.hooks.len()
        );
        for h in &parsed.hooks {
            println!("{}", describe_for_trust(h));
        }
        for d in &parsed.mcp_servers {
            match &d.how {
                Ok(s) => println!(
                    "  MCP server \"{}\" runs: {} with arguments {} (started when a hook calls one of its tools)",
                    visible(&d.name),
                    visible(&s.command),
                    visible(&format!("{:?}", s.args))
                ),
                Err(why) => println!(
                    "  MCP server \"{}\" cannot be used: it {}",
                    visible(&d.name),
                    visible(why)
                ),
            }
        }
        for b in &parsed.builtins {
            let state = if b.on { "on" } else { "off" };
            println!(
                "  built-in {} {state} {}",
                visible(&b.name),
                visible(&Value::Object(b.options.clone()).to_string())
            );
        }
        if let Some(p) = parsed.on_failure {
            println!("  failure policy: {p:?}");
        }
        if parsed.enabled == Some(false) {
            println!("  disables all hooks of lower sources (hooksConfig.enabled: false)");
        }
        if !parsed.disabled.is_empty() {
            println!("  disables: {}", visible(&parsed.disabled.join(", ")));
        }
        for (script, digest) in &covers.files {
            let script = visible(script);
            if digest == hookshot_registry::ABSENT {
                println!("  names {script}, which does not exist (its appearance withdraws this approval)");
            } else if script.ends_with('/') {
                println!("  covers the folder {script} (a file added or removed withdraws this approval)");
            } else {
                println!("  covers {script} (a change to it withdraws this approval)");
            }
        }
        for why in &covers.unbound {
            println!("  runs code no approval can bind: {}", visible(why));
        }
        unbound += covers.unbound.len();
        approvals.push((scope, rel, bytes, covers.files));
    }
    if unbound > 0 && !accept_unbound {
        return Err(Fail::Usage(format!(
            "trust: not approved: {unbound} hook(s) above run code no approval can bind (a change to it would run \
             without asking you again). Review that code, then run `hookshot trust --accept-unbound` to approve knowingly"
        )));
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(Fail::Usage(
                "trust: stdin is not a terminal; review the hooks above and pass --yes to approve them".into(),
            ));
        }
        eprint!(
            "Trust these {} file(s) for {}? [y/N] ",
            approvals.len(),
            project.display()
        );
        let mut answer = String::new();
        let _ = std::io::stdin().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            println!("nothing was trusted");
            return Ok(1);
        }
    }
    let n = approvals.len();
    for (scope, rel, bytes, covers) in approvals {
        store.trust(&scope, &rel, &bytes, covers);
    }
    store.save().map_err(|e| Fail::Usage(e.to_string()))?;
    println!("trusted {n} file(s); a change to any of them, or to a script they run, makes it untrusted again");
    Ok(0)
}
