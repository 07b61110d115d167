//! `hookshot validate`: check settings files the way loading reads them.

use std::path::PathBuf;

use crate::fail::Fail;
use crate::load::parse_dialect;

#[derive(clap::Args, Debug)]
pub(crate) struct ValidateArgs {
    /// The files.
    files: Vec<PathBuf>,
    /// Read them in this dialect instead of telling it from their place and content.
    #[arg(long, value_name = "DIALECT", value_parser = parse_dialect)]
    dialect: Option<hookshot::Dialect>,
    /// Warnings fail too (unknown keys the agent would ignore, doubts
    /// about the dialect, hooks that never run).
    #[arg(long)]
    strict: bool,
}

pub(crate) fn run(args: ValidateArgs) -> Result<u8, Fail> {
    validate(&args.files, args.dialect, args.strict)
}

fn validate(files: &[PathBuf], dialect: Option<hookshot::Dialect>, strict: bool) -> Result<u8, Fail> {
    if files.is_empty() {
        return Err(Fail::Usage("validate: name at least one settings file".into()));
    }
    for f in files {
        let source = hookshot::Source {
            dialect,
            ..hookshot::Source::new(f, hookshot::SourceKind::Cli)
        };
        let bytes = source.read().map_err(|e| Fail::Usage(e.to_string()))?;
        match source.parse(bytes) {
            Ok(parsed) => {
                for w in &parsed.warnings {
                    eprintln!("warning: {}", hookshot_core::display::escaped(&w.to_string()));
                }
                if strict && !parsed.warnings.is_empty() {
                    eprintln!("{}: {} warnings (--strict)", f.display(), parsed.warnings.len());
                    return Ok(1);
                }
                let n = parsed.hooks.len();
                let mut said = vec![format!("{n} hook{}", if n == 1 { "" } else { "s" })];
                if let Some(d) = parsed.dialect {
                    said.insert(0, d.as_str().to_string());
                }
                for b in &parsed.builtins {
                    said.push(format!("built-in {} {}", b.name, if b.on { "on" } else { "off" }));
                }
                println!("{}: ok ({})", f.display(), said.join(", "));
            }
            Err(e) => {
                // Diagnostics quote the file's text: nothing in it may
                // hide from the terminal.
                for line in e.to_string().lines() {
                    eprintln!("{}", hookshot_core::display::escaped(line));
                }
                return Ok(1);
            }
        }
    }
    Ok(0)
}
