//! `hookshot doctor`: what an agent would see right now. Where hookshot is
//! registered, which sources load and which do not (untrusted, broken),
//! the failure policy, the trust store, the version.

use std::path::Path;

use hookshot::FailPolicy;

use crate::fail::Fail;
use crate::install::{
    Agent, Guarded, agents, codex_approval, codex_approval::Approval, codex_approval::By, registration,
};
use crate::load::{Sources, build, trust_store_path};

#[derive(clap::Args, Debug)]
pub(crate) struct DoctorArgs {
    #[command(flatten)]
    sources: Sources,
}

pub(crate) fn run(args: DoctorArgs) -> Result<u8, Fail> {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    println!("hookshot {} ({exe})", env!("CARGO_PKG_VERSION"));
    let project = std::fs::canonicalize(args.sources.workdir.as_deref().unwrap_or(Path::new(".")))
        .map_err(|e| Fail::Usage(format!("--workdir: {e}")))?;
    println!("project: {}", project.display());
    println!("registered as the agents' hook:");
    let hooks = build(&args.sources)?;
    let reg = hooks.registry();
    let policy = reg.failure_policy();
    let mut bad = 0;
    for agent in agents() {
        for (scope, dir) in [("user", None), ("project", Some(project.as_path()))] {
            let Some(r) = registration(agent, dir) else {
                println!("  {agent} ({scope}): not registered");
                continue;
            };
            let partial = if r.events < r.all {
                " (partly: run `hookshot install` again)"
            } else {
                ""
            };
            let when = match r.guarded {
                Guarded::Blocks => "blocks",
                Guarded::Warns => "warns",
                // Cline shows no hook's message: the open policy's only
                // answer there is to let the event go on.
                Guarded::Silently if agent.hooks_are_files() && policy == FailPolicy::Open => {
                    "goes on unseen (Cline shows no hook's message; under the closed policy it cancels)"
                }
                Guarded::Silently => "fails SILENTLY",
            };
            println!(
                "  {agent} ({scope}): {} for {} of {} events{partial}; if hookshot cannot run, it {when}",
                r.file.display(),
                r.events,
                r.all
            );
            // A registration weaker than the policy, or one whose program
            // is gone, is a guard the agent no longer runs.
            let weaker = match policy {
                FailPolicy::Closed => r.guarded < Guarded::Blocks,
                FailPolicy::Open => r.guarded < Guarded::Warns && !agent.hooks_are_files(),
            };
            if weaker {
                bad += 1;
                println!(
                    "  PROBLEM: {agent} ({scope}) was registered by an older hookshot or under another failure policy: run `hookshot install --agent {agent}{}` again",
                    if dir.is_some() { " --project" } else { "" }
                );
            }
            if agent.approves_hooks()
                && let Some(a) = codex_approval(&r.file, &project)
            {
                bad += codex_pending(agent, scope, &a);
            }
            for m in &r.missing {
                bad += 1;
                println!("  PROBLEM: {agent} ({scope}) runs {m}, which is not there or not executable");
            }
            // Copilot CLI runs Claude Code's project files too, so it calls
            // this registration: answered as Copilot CLI (it sets
            // COPILOT_CLI), and the project's Claude Code hooks are left
            // to it. A note, not a problem.
            if agent == Agent::Claude && dir.is_some() && copilot_present() {
                println!(
                    "  note: GitHub Copilot CLI is installed and runs {} too: hookshot tells it by COPILOT_CLI and answers it in its own shapes; `hookshot install --agent copilot` registers for it in its own hooks folder",
                    r.file.display()
                );
            }
        }
    }
    println!("sources:");
    for s in reg.loaded() {
        let n = reg
            .hooks()
            .iter()
            .chain(reg.skipped().iter().map(|(h, _)| h))
            .filter(|h| h.provenance.file.as_deref() == Some(s.source.path.as_path()))
            .count();
        let what = match s.dialect {
            Some(d) => format!("{d}, {n} hook(s)"),
            None => "no hooks".into(),
        };
        let state = if s.trusted { "loaded" } else { "NOT TRUSTED" };
        println!(
            "  {state}: {} ({} settings, {what})",
            hookshot_core::display::escaped_lines(&s.source.path.display().to_string()),
            s.source.kind
        );
    }
    for p in reg.problems() {
        // An agent's own file (`.claude/settings.json`) is run by that
        // agent itself; hookshot leaves it to it when that agent calls, and
        // runs it for other agents' events only once trusted. Untrusted,
        // it is a note, not a problem of this setup.
        let owner = hookshot::Agent::ALL.into_iter().find(|a| a.owns_file(&p.source.path));
        if let (hookshot::ProblemKind::Untrusted, Some(agent)) = (p.kind, owner) {
            println!(
                "  not trusted by hookshot: {} ({agent} runs it itself; for other agents' events hookshot runs it once you approve it with `hookshot trust`)",
                p.source.path.display()
            );
            continue;
        }
        bad += 1;
        println!("  NOT LOADED: {}", hookshot_core::display::escaped_lines(&p.message));
    }
    if reg.loaded().is_empty() && bad == 0 {
        println!("  none found (see `hookshot install --import` or docs/CLI.md for where settings go)");
    }
    match policy {
        FailPolicy::Closed => {
            let by: Vec<String> = reg.closed_by().iter().map(|p| p.display().to_string()).collect();
            println!(
                "failure policy: closed (a hook or settings file that cannot be used blocks the event), set by hooksConfig.onFailure in {}",
                by.join(", ")
            )
        }
        FailPolicy::Open => println!(
            "failure policy: open (a hook or settings file that cannot be used is a warning in the agent; the event goes on)"
        ),
    }
    for b in reg.builtins().iter().filter(|b| b.on) {
        let mode = b
            .options
            .get("mode")
            .and_then(|m| m.as_str())
            .map(|m| format!(", mode {m}"))
            .unwrap_or_default();
        println!("built-in on: {}{mode} (turned on at {})", b.name, b.at);
        for (option, at) in &b.set_later {
            println!("  its {option} set at {at}");
        }
    }
    if let Some(path) = hooks.audit_log_path() {
        println!(
            "audit log: {} (read it with `hookshot stats --audit {}`)",
            hookshot_core::display::escaped(&path.display().to_string()),
            hookshot_core::display::escaped(&path.display().to_string())
        );
    }
    match trust_store_path() {
        Some(path) => match hookshot::TrustStore::open(path.clone()) {
            Ok(store) => println!(
                "trust store: {} ({} approval(s))",
                path.display(),
                store.entries().count()
            ),
            Err(e) => println!("trust store: UNREADABLE: {e} (no project settings are trusted)"),
        },
        None => println!("trust store: none (set HOME or XDG_CONFIG_HOME)"),
    }
    for w in reg.warnings() {
        println!("warning: {}", hookshot_core::display::escaped_lines(&w.to_string()));
    }
    // A doctor that found sources it could not use says so in its status.
    Ok(u8::from(bad > 0))
}

/// Prints what Codex says of hookshot's entries (it runs none until its
/// user approves each in `/hooks`); the number of problems.
fn codex_pending(agent: Agent, scope: &str, a: &Approval) -> usize {
    let asked = match &a.by {
        By::Codex(program) => format!("as `{} app-server` lists them", program.display()),
        By::Config(config) => format!(
            "as {} records them (no `codex` to ask: an approval there may be of an older entry)",
            config.display()
        ),
    };
    if a.pending.is_empty() {
        println!(
            "  {agent} ({scope}): all {} of hookshot's hooks approved in Codex ({asked})",
            a.ours
        );
        if a.theirs > 0 {
            println!(
                "  note: {} hook group(s) of yours there still run in Codex, not under hookshot; `hookshot install --agent codex{} --import` moves them, keeping their approvals",
                a.theirs,
                if scope == "project" { " --project" } else { "" }
            );
        }
        return 0;
    }
    println!(
        "  PROBLEM: Codex does not run {} of hookshot's {} hooks until you approve them: start `codex`, type /hooks and approve each hookshot entry ({asked}):",
        a.pending.len(),
        a.ours
    );
    let mut whys: Vec<&str> = a.pending.iter().map(|(_, why)| *why).collect();
    whys.dedup();
    for why in whys {
        let events: Vec<&str> = a
            .pending
            .iter()
            .filter(|(_, w)| *w == why)
            .map(|(e, _)| e.as_str())
            .collect();
        println!("    {why}: {}", events.join(", "));
    }
    a.pending.len()
}

/// Whether GitHub Copilot CLI is on this machine: `copilot` on `PATH`, or
/// its folder in the home.
fn copilot_present() -> bool {
    crate::install::on_path("copilot") || hookshot_core::paths::home().is_some_and(|h| h.join(".copilot").is_dir())
}
