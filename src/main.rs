//! The `hookshot` command line (docs/CLI.md): parsing, logging, signals and
//! exit codes here; each command in its own module under `cmd/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod answer;
mod audit_file;
mod case;
mod cmd;
mod fail;
mod install;
mod load;
mod telemetry;
mod warm;

use fail::Fail;

/// The first steps, under `hookshot --help` (and as the man page's EXAMPLES).
const GETTING_STARTED: &str = "\
Getting started:
  hookshot install --agent claude --guards --dry-run   what would change, nothing written
  hookshot install --agent claude --guards             register hookshot with the three built-in guards
  hookshot check 'git push --force'                    would this be blocked, and by which rule
  hookshot doctor                                      what the agent sees now
  hookshot log                                         the latest decisions
  hookshot uninstall --all                             take hookshot out of every agent (before removing it)
(--agent gemini and --agent codex work the same; Codex runs the hooks once approved in its /hooks screen.)";

#[derive(Parser, Debug)]
#[command(
    name = "hookshot",
    version,
    about = "A hook engine for AI agents: runs Claude Code, gemini-cli, Codex, jcli and picoclaw hooks",
    after_help = GETTING_STARTED
)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

/// The options every command takes.
#[derive(clap::Args, Debug)]
struct Global {
    /// Log format on stderr (filter with RUST_LOG, e.g. RUST_LOG=hookshot=debug).
    #[arg(long, value_enum, default_value_t = LogFormat::Text, global = true)]
    log_format: LogFormat,
}

/// The command line. The `fire` lines agents run are read without clap
/// ([`cmd::fire::FireArgs::plain`]): building its parser was a tenth of a
/// one-shot fire. Whatever that reader refuses (help, a typo, an option
/// only clap knows) goes to the full parser, so every message is the same.
fn parse() -> Result<Cli, clap::Error> {
    let args: Option<Vec<String>> = std::env::args_os().skip(1).map(|a| a.into_string().ok()).collect();
    if let Some(args) = args
        && args.first().is_some_and(|a| a == "fire")
        && let Some(fire) = cmd::fire::FireArgs::plain(&args[1..])
    {
        return Ok(Cli {
            global: Global {
                log_format: LogFormat::Text,
            },
            command: Command::Fire(fire),
        });
    }
    Cli::try_parse()
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the hooks of one event; print the merged answer in the event's dialect.
    Fire(cmd::fire::FireArgs),
    /// Replay a recorded model session through the reference agent loop.
    Replay(cmd::replay::ReplayArgs),
    /// Check settings files; exit 1 at the first bad one.
    Validate(cmd::validate::ValidateArgs),
    /// Show the effective hooks with their source, precedence and trust.
    List(cmd::list::ListArgs),
    /// Serve JSON-RPC 2.0 on stdin/stdout (and a Unix socket): fire, list, stats, shutdown.
    Serve(cmd::serve::ServeArgs),
    /// Print the JSON Schema of the settings format (for editor completion).
    Schema,
    /// Per-hook runs, failures, timeouts, blocks and latency from an audit
    /// log (a live sidecar answers the `stats` method).
    Stats(cmd::stats::StatsArgs),
    /// The latest decisions from the audit log, one line each: event, tool,
    /// decision, reason, and each hook that decided or failed.
    Log(cmd::log::LogArgs),
    /// Trust the project's hook settings as they are now, after showing
    /// every hook they would run; --list and --revoke manage approvals.
    Trust(cmd::trust::TrustArgs),
    /// Fire an event repeatedly and report latency.
    Bench(cmd::bench::BenchArgs),
    /// Register hookshot as an agent's hook for every event it has (with a
    /// backup); --import moves the agent's own hooks under hookshot.
    Install(install::InstallArgs),
    /// Take hookshot out of an agent's settings: the file as it was, and
    /// imported hooks back where they came from.
    Uninstall(install::UninstallArgs),
    /// What an agent would see now: where hookshot is registered, which
    /// sources load, which are untrusted or broken, the failure policy.
    Doctor(cmd::doctor::DoctorArgs),
    /// For every hook of every source: would it run for this input, and
    /// if not, exactly why; then the plan. No hook runs.
    Explain(cmd::explain::ExplainArgs),
    /// Print a completion script: `hookshot completions bash > ~/.local/share/bash-completion/completions/hookshot`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `hookshot man | man -l -`.
    Man,
    /// Would this be blocked? Runs the hooks an agent would for a shell
    /// command (`hookshot check 'git push -f'`) or a tool result
    /// (`--output FILE`) and tells the decision and the hooks that made it;
    /// exit 2 when blocked.
    Check(cmd::check::CheckArgs),
    /// Run declarative hook tests (`*.test.json` case files): one line per
    /// case, then `N passed, N failed`; exit 1 if any failed.
    Test(cmd::test::TestArgs),
    /// The warm servers `fire --warm` starts: `list` them, or `stop` them
    /// all so persistent hooks start over at the next event.
    Warm {
        #[command(subcommand)]
        action: warm::WarmAction,
    },
    /// The warm server `fire --warm` starts (not for direct use).
    #[command(hide = true)]
    WarmServer(warm::ServerArgs),
}

/// Makes a write to a closed standard output end the process with 0 and
/// no message (the reader has what it wanted); other panics are reported
/// as before.
fn quiet_on_closed_stdout() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if text.starts_with("failed printing to stdout") && text.contains("Broken pipe") {
            std::process::exit(0);
        }
        report(info);
    }));
}

fn main() -> ExitCode {
    // Usage errors exit 1, never clap's 2: an agent reads 2 from a hook as
    // "block", with the usage text as the reason.
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    // `hookshot doctor | head -1`: a reader that stopped reading ends the
    // listing quietly, as ripgrep and uv do, instead of a panic (exit 101).
    // A fire keeps its exit code instead (its answer's writes ignore the
    // error), since that code carries a block.
    if !matches!(
        cli.command,
        Command::Fire(_) | Command::Serve(_) | Command::WarmServer(_)
    ) {
        quiet_on_closed_stdout();
    }
    let telemetry = init_logging(cli.global.log_format);
    // A fire reads its input and loads its hooks before the runtime exists:
    // one that starts nothing (no hook matches, the usual tool call) needs
    // neither the reactor nor signal handling, a tenth of its time.
    let job = match cli.command {
        Command::Fire(args) => match cmd::fire::load(args) {
            Ok(fire) => Job::Fire(fire),
            Err(fail) => return failed(&fail, telemetry),
        },
        command => Job::Command(command),
    };
    let quiet = matches!(&job, Job::Fire(f) if f.starts_nothing());
    // Hook work is waiting on child processes and pipes: one thread drives it
    // all, without waking worker threads for every pipe read. The sidecar
    // is the exception: it answers many events at once, and in-process
    // guards (shell parsing, secret scanning) are CPU work every core can
    // share.
    let runtime = if matches!(job, Job::Command(Command::Serve(_) | Command::WarmServer(_))) {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    } else if quiet {
        // Timers only: shutting down waits with a timeout.
        tokio::runtime::Builder::new_current_thread().enable_time().build()
    } else {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            eprintln!("hookshot: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(async {
        let run = job.run();
        if quiet {
            // Nothing is started that a signal would have to stop.
            return run.await;
        }
        tokio::pin!(run);
        tokio::select! {
            r = &mut run => r,
            sig = stop_signal() => {
                // The agent gave up on us (its own timeout, Ctrl-C, a closed
                // terminal): every hook and persistent process we started
                // goes with us (TERM, grace, KILL), none is left orphaned.
                hookshot_runner::terminate_all(std::time::Duration::from_millis(500));
                Ok(128 + sig as u8)
            }
        }
    });
    // A read of stdin may still be parked on a blocking thread (serve after
    // shutdown); do not wait for it.
    runtime.shutdown_background();
    match result {
        Ok(code) => {
            if let Some(t) = telemetry {
                t.shutdown();
            }
            ExitCode::from(code)
        }
        Err(fail) => failed(&fail, telemetry),
    }
}

/// What `main` runs in the runtime: a fire loaded already, or any command.
enum Job {
    Fire(cmd::fire::Fire),
    Command(Command),
}

impl Job {
    async fn run(self) -> Result<u8, Fail> {
        match self {
            Job::Fire(fire) => fire.run().await,
            Job::Command(command) => run(command).await,
        }
    }
}

fn failed(fail: &Fail, telemetry: Option<telemetry::Telemetry>) -> ExitCode {
    if let Some(t) = telemetry {
        t.shutdown();
    }
    eprintln!("{}", fail.message());
    ExitCode::from(1)
}

/// The manual page: one page with every command in it (there is no
/// `hookshot-fire(1)` to point at), and the exit codes agents rely on.
fn man_page() -> std::io::Result<Vec<u8>> {
    use clap::CommandFactory;
    let cli = Cli::command();
    let mut out = Vec::new();
    let top = clap_mangen::Man::new(cli.clone());
    top.render_title(&mut out)?;
    top.render_name_section(&mut out)?;
    top.render_synopsis_section(&mut out)?;
    top.render_description_section(&mut out)?;
    top.render_options_section(&mut out)?;
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("hookshot {}", sub.get_name());
        out.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        let page = clap_mangen::Man::new(sub.clone().bin_name(name.clone()).display_name(name.clone()));
        for (render, header) in [
            (
                clap_mangen::Man::render_synopsis_section
                    as fn(&clap_mangen::Man, &mut dyn std::io::Write) -> std::io::Result<()>,
                ".SH SYNOPSIS\n",
            ),
            (clap_mangen::Man::render_description_section, ".SH DESCRIPTION\n"),
            (clap_mangen::Man::render_options_section, ".SH OPTIONS\n"),
            (clap_mangen::Man::render_subcommands_section, ".SH SUBCOMMANDS\n"),
        ] {
            if header == ".SH SUBCOMMANDS\n" && !sub.has_subcommands() {
                continue;
            }
            let mut part = Vec::new();
            render(&page, &mut part)?;
            // Each part repeats the page's quote definition; once is enough.
            let mut text = String::from_utf8_lossy(&part)
                .replacen(header, "", 1)
                .replace(".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n", "");
            // One page: a command's subcommands are named, not pointed to
            // as pages of their own (`hookshot warm\-stop(1)`).
            let page_name = name.replace('-', "\\-");
            for inner in sub.get_subcommands() {
                text = text.replace(
                    &format!("{page_name}\\-{}(1)", inner.get_name().replace('-', "\\-")),
                    &format!("{page_name} {}", inner.get_name().replace('-', "\\-")),
                );
            }
            text = text.replace(&format!("{page_name}\\-help(1)"), &format!("{page_name} help"));
            if text.trim().is_empty() {
                continue;
            }
            out.extend_from_slice(b".PP\n");
            match header {
                ".SH OPTIONS\n" => out.extend_from_slice(b"\\fBOptions:\\fR\n"),
                ".SH SUBCOMMANDS\n" => out.extend_from_slice(b"\\fBCommands:\\fR\n"),
                _ => {}
            }
            out.extend_from_slice(text.as_bytes());
        }
    }
    out.extend_from_slice(
        concat!(
            ".SH \"EXIT STATUS\"\n",
            ".TP\n0\nDone; for \\fBfire\\fR, the event is allowed (warnings may be in the answer).\n",
            ".TP\n1\nUsage error (unknown flag, missing argument, unknown event), unreadable or invalid input, ",
            "or \\fBvalidate\\fR found a bad file.\n",
            ".TP\n2\n\\fBfire\\fR only: the event is blocked or denied; the reason is on stderr. ",
            "Usage errors never exit 2, so an agent never mistakes a typo for a block.\n",
            ".TP\n3\n\\fBreplay\\fR only: the fixture ran out or does not parse.\n",
            ".TP\n128+N\nStopped by signal N (TERM, INT, HUP); every hook it started was stopped first.\n",
        )
        .as_bytes(),
    );
    out.extend_from_slice(man_files_environment_examples().as_bytes());
    top.render_version_section(&mut out)?;
    Ok(out)
}

/// The man page's FILES, ENVIRONMENT and EXAMPLES: where hookshot reads
/// and writes, what changes its behaviour, and the first steps.
fn man_files_environment_examples() -> String {
    let mut out = String::from(".SH FILES\n");
    for (file, what) in [
        (
            "~/.config/hookshot/settings.json",
            "your settings (any dialect), built-ins and the failure policy; read first",
        ),
        (
            ".hookshot/settings.json",
            "a project's settings; run only once approved with \\fBhookshot trust\\fR",
        ),
        (
            "~/.config/hookshot/trusted.json",
            "the trust store: each approved project file, by content",
        ),
        (
            "~/.config/hookshot/imported/, .hookshot/imported/",
            "the hooks \\fBinstall --import\\fR moved out of an agent's file",
        ),
        (
            "~/.claude/settings.json, .claude/settings.local.json",
            "Claude Code's files, where \\fBinstall\\fR registers hookshot",
        ),
        ("~/.gemini/settings.json, .gemini/settings.json", "gemini-cli's files"),
        (
            "~/.codex/hooks.json, .codex/hooks.json",
            "Codex's files (its approvals: ~/.codex/config.toml)",
        ),
        (
            "FILE.hookshot-backup, FILE.hookshot-absent",
            "an agent's file as it was before the first install",
        ),
        (
            "~/.local/state/hookshot/",
            "the audit log of a user file's \\fBaudit_log\\fR, background job spool",
        ),
        (
            "~/.local/share/hookshot/",
            "the lasting copy for package runners, the projects \\fBinstall --project\\fR registered in",
        ),
        ("/etc/hookshot/settings.json", "system settings (lowest precedence)"),
    ] {
        out.push_str(&format!(".TP\n\\fI{file}\\fR\n{what}\n"));
    }
    out.push_str(".SH ENVIRONMENT\n");
    for (var, what) in [
        (
            "XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR",
            "move the folders above (default under HOME)",
        ),
        ("RUST_LOG", "what hookshot logs on stderr, e.g. hookshot=debug"),
        (
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "send traces and metrics of each event to an OTLP receiver (OTEL_* variables as usual)",
        ),
        (
            "HOOKSHOT_CODEX",
            "the codex program \\fBdoctor\\fR asks which hooks Codex approved (default: codex on PATH)",
        ),
        (
            "HOOKSHOT_SYSTEM_DIR",
            "one more folder of system settings (for tests and packagers)",
        ),
        (
            "CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR",
            "set by the agents: the project hooks run in",
        ),
    ] {
        out.push_str(&format!(".TP\n\\fB{var}\\fR\n{what}\n"));
    }
    out.push_str(".SH EXAMPLES\n.nf\n");
    for line in GETTING_STARTED.lines().skip(1) {
        out.push_str(&line.replace('\\', "\\\\").replace('-', "\\-"));
        out.push('\n');
    }
    out.push_str(".fi\n");
    out
}

/// Waits for SIGTERM, SIGINT or SIGHUP; returns its number. If a handler
/// cannot be installed, waits forever (the default disposition stays).
async fn stop_signal() -> i32 {
    use tokio::signal::unix::{SignalKind, signal};
    let mut streams = Vec::new();
    for (kind, no) in [
        (SignalKind::terminate(), 15),
        (SignalKind::interrupt(), 2),
        (SignalKind::hangup(), 1),
    ] {
        if let Ok(s) = signal(kind) {
            streams.push((s, no));
        }
    }
    if streams.is_empty() {
        return std::future::pending().await;
    }
    let waits = streams.iter_mut().map(|(s, no)| {
        let no = *no;
        Box::pin(async move {
            s.recv().await;
            no
        })
    });
    futures::future::select_all(waits).await.0
}

/// Logs on stderr as `RUST_LOG` says; spans to an OTLP collector when the
/// `OTEL_*` variables name one (returned, to flush at exit).
fn init_logging(format: LogFormat) -> Option<telemetry::Telemetry> {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let telemetry = telemetry::init();
    if telemetry.is_none() && matches!(format, LogFormat::Text) && std::env::var_os("RUST_LOG").is_none() {
        let _ = tracing::subscriber::set_global_default(Warnings);
        return None;
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let stderr = match format {
        LogFormat::Text => stderr.boxed(),
        LogFormat::Json => stderr.json().boxed(),
    };
    let otel = telemetry.as_ref().and_then(telemetry::Telemetry::layer);
    tracing_subscriber::registry()
        .with(stderr.with_filter(filter))
        .with(otel)
        .init();
    telemetry
}

/// The log nobody asked for (no `RUST_LOG`, text, no OpenTelemetry):
/// warnings and errors, printed as hookshot's other warnings are. The
/// whole tracing-subscriber stack (a span registry, a filter parser) cost
/// a twentieth of a one-shot fire that logs nothing; `RUST_LOG` brings it
/// back, with spans and levels.
struct Warnings;

impl tracing::Subscriber for Warnings {
    fn enabled(&self, meta: &tracing::Metadata<'_>) -> bool {
        *meta.level() <= tracing::Level::WARN
    }

    fn register_callsite(&self, meta: &'static tracing::Metadata<'static>) -> tracing::subscriber::Interest {
        if self.enabled(meta) {
            tracing::subscriber::Interest::always()
        } else {
            tracing::subscriber::Interest::never()
        }
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::WARN)
    }

    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }

    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        #[derive(Default)]
        struct Text(String, Vec<String>);
        impl tracing::field::Visit for Text {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    self.0 = format!("{value:?}");
                } else {
                    self.1.push(format!("{}={value:?}", field.name()));
                }
            }
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                if field.name() == "message" {
                    self.0 = value.to_string();
                } else {
                    self.1.push(format!("{}={value}", field.name()));
                }
            }
        }
        let mut text = Text::default();
        event.record(&mut text);
        let level = if *event.metadata().level() == tracing::Level::ERROR {
            "error"
        } else {
            "warning"
        };
        let fields = if text.1.is_empty() {
            String::new()
        } else {
            format!(" ({})", text.1.join(", "))
        };
        let shown = hookshot_core::display::escaped_lines(&format!("{}{fields}", text.0));
        eprintln!("hookshot: {level}: {shown}");
    }

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}

async fn run(command: Command) -> Result<u8, Fail> {
    match command {
        Command::Fire(args) => cmd::fire::load(args)?.run().await,
        Command::Replay(args) => cmd::replay::run(args).await,
        Command::Validate(args) => cmd::validate::run(args),
        Command::List(args) => cmd::list::run(args),
        Command::Serve(args) => cmd::serve::run(args).await,
        Command::Schema => {
            println!(
                "{}",
                serde_json::to_string_pretty(&hookshot_registry::schema()).unwrap_or_default()
            );
            Ok(0)
        }
        Command::Stats(args) => cmd::stats::run(args),
        Command::Log(args) => cmd::log::run(args),
        Command::Check(args) => cmd::check::run(args).await,
        Command::Trust(args) => cmd::trust::run(args),
        Command::Bench(args) => cmd::bench::run(args).await,
        Command::Install(args) => install::install(args),
        Command::Uninstall(args) => install::uninstall(args),
        Command::Doctor(args) => cmd::doctor::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "hookshot", &mut std::io::stdout());
            Ok(0)
        }
        Command::Man => {
            let out = man_page().map_err(|e| Fail::Usage(format!("man: {e}")))?;
            use std::io::Write;
            std::io::stdout()
                .write_all(&out)
                .map_err(|e| Fail::Usage(format!("man: {e}")))?;
            Ok(0)
        }
        Command::Test(args) => cmd::test::run(args).await,
        Command::WarmServer(args) => warm::serve(args).await,
        Command::Warm { action } => warm::manage(action),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One item of a `fire` line: an option with its value, a flag, the
    /// event, or something only clap reads.
    fn item() -> impl Strategy<Value = Vec<String>> {
        let value = prop::sample::select(vec!["x.json", "-", "", "-x", "claude", "PreToolUse", "a b", "--warm"]);
        let agent = prop::sample::select(vec!["claude", "gemini", "codex", "bogus", ""]);
        let with_value = prop::sample::select(vec!["--input", "--settings", "--workdir"]);
        let flag = prop::sample::select(vec!["--warm", "--trust-project", "--agent-user-files"]);
        let event = prop::sample::select(vec!["PreToolUse", "BeforeTool"]);
        let odd = prop::sample::select(vec![
            "--json",
            "--agent=claude",
            "--",
            "--help",
            "--log-format",
            "--warm-idle",
            "-x",
        ]);
        prop_oneof![
            3 => (with_value, value).prop_map(|(o, v)| vec![o.to_string(), v.to_string()]),
            2 => agent.prop_map(|a| vec!["--agent".to_string(), a.to_string()]),
            3 => flag.prop_map(|f| vec![f.to_string()]),
            2 => event.prop_map(|e| vec![e.to_string()]),
            1 => odd.prop_map(|o| vec![o.to_string()]),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Where the plain reader takes a `fire` line, clap takes it and
        /// reads the same.
        #[test]
        fn the_plain_fire_reader_agrees_with_clap(items in prop::collection::vec(item(), 0..6)) {
            let args: Vec<String> = items.concat();
            if let Some(plain) = cmd::fire::FireArgs::plain(&args) {
                let line = ["hookshot", "fire"].into_iter().map(String::from).chain(args.iter().cloned());
                let clap = Cli::try_parse_from(line);
                prop_assert!(clap.is_ok(), "clap refuses {args:?}: {}", clap.err().map(|e| e.to_string()).unwrap_or_default());
                let Command::Fire(read) = clap.unwrap().command else { panic!("not fire") };
                prop_assert_eq!(format!("{read:?}"), format!("{plain:?}"));
            }
        }
    }

    #[test]
    fn the_agents_registered_line_is_read_without_clap() {
        let args: Vec<String> = ["--agent", "claude", "PreToolUse"].map(String::from).to_vec();
        assert!(cmd::fire::FireArgs::plain(&args).is_some());
        let odd: Vec<String> = ["--agent=claude", "PreToolUse"].map(String::from).to_vec();
        assert!(cmd::fire::FireArgs::plain(&odd).is_none(), "left to clap");
    }
}
