//! The same tool under each agent's name: a hook written for Claude Code
//! (`"matcher": "Bash"`) must fire on gemini-cli's `run_shell_command`, and
//! see the name it was written for, as it would under its own agent.

use std::borrow::Cow;

use crate::Dialect;
use crate::agent::{Agent, ToolName};

/// Argument renames, the agent's name to Claude's.
type Renames = &'static [(&'static str, &'static str)];

/// Every agent's own tool names ([`Agent::tool_names`]).
fn names() -> impl Iterator<Item = &'static ToolName> {
    Agent::ALL.into_iter().flat_map(Agent::tool_names)
}

/// Every name a matcher may give the tool `name`, other than `name` itself.
pub fn aliases(name: &str) -> impl Iterator<Item = &'static str> + '_ {
    let across = names().filter_map(move |(own, claude, _)| {
        if *own == name && *claude != name {
            Some(*claude)
        } else if *claude == name && *own != name {
            Some(*own)
        } else {
            None
        }
    });
    let one_way = Agent::ALL
        .into_iter()
        .flat_map(Agent::matcher_aliases)
        .filter(move |(tool, _)| *tool == name)
        .flat_map(|(_, names)| names.iter().copied());
    across.chain(one_way)
}

/// Whether `a` and `b` name the same tool.
pub fn same_tool(a: &str, b: &str) -> bool {
    a == b || aliases(a).any(|x| x == b)
}

/// `name` as `dialect` calls the tool (unchanged when unknown, or when the
/// dialect has no names of its own).
pub fn name_in(dialect: Dialect, name: &str) -> Cow<'_, str> {
    let found = Agent::Gemini
        .tool_names()
        .iter()
        .find(|(g, c, _)| *g == name || *c == name);
    match (dialect, found) {
        (Dialect::Claude, Some((_, claude, _))) => Cow::Borrowed(claude),
        (Dialect::Gemini, Some((gemini, claude, _))) if *claude == name => {
            // Claude's Read and Grep stand for more than one gemini tool;
            // the first is the one gemini hooks match on.
            Cow::Borrowed(gemini)
        }
        _ => Cow::Borrowed(name),
    }
}

/// gemini's argument names renamed to Claude's for the tool `gemini_name`
/// (a Claude hook reads `file_path`, not `absolute_path`).
fn claude_arguments(gemini_name: &str) -> Renames {
    // gemini-cli's alone: Cursor's `Read` and `Write` are Claude Code's
    // names, and Claude Code's arguments must stay its own.
    Agent::Gemini
        .tool_names()
        .iter()
        .find(|(g, _, _)| *g == gemini_name)
        .map_or(&[], |(_, _, renames)| renames)
}

/// The arguments of gemini's tool `gemini_name`, as a Claude hook reads
/// them.
pub fn arguments_to_claude(gemini_name: &str, args: &mut serde_json::Map<String, serde_json::Value>) {
    for (gemini, claude) in claude_arguments(gemini_name) {
        if let Some(v) = args.remove(*gemini) {
            args.entry(*claude).or_insert(v);
        }
    }
}

/// A Claude hook's rewrite of gemini's tool `gemini_name`, in the
/// argument names the tool reads.
pub fn arguments_from_claude(gemini_name: &str, args: &mut serde_json::Map<String, serde_json::Value>) {
    for (gemini, claude) in claude_arguments(gemini_name) {
        if let Some(v) = args.remove(*claude) {
            args.insert((*gemini).to_string(), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_translate_both_ways() {
        assert_eq!(name_in(Dialect::Claude, "run_shell_command"), "Bash");
        assert_eq!(name_in(Dialect::Gemini, "Bash"), "run_shell_command");
        assert_eq!(name_in(Dialect::Claude, "Bash"), "Bash");
        assert_eq!(name_in(Dialect::Gemini, "mcp__db__query"), "mcp__db__query");
        assert_eq!(name_in(Dialect::Gemini, "Read"), "read_file");
        assert!(same_tool("Edit", "replace"));
        assert!(!same_tool("Edit", "write_file"));
        // Codex's apply_patch answers to Write and Edit matchers; Claude
        // Code's Write is not an apply_patch.
        assert_eq!(aliases("apply_patch").collect::<Vec<_>>(), ["Write", "Edit"]);
        assert!(same_tool("apply_patch", "Edit"));
        assert!(!aliases("Write").any(|a| a == "apply_patch"));
        let grep: Vec<_> = aliases("Grep").collect();
        assert!(grep.contains(&"search_file_content") && grep.contains(&"grep_search"));
        // Qwen Code's ids, which its matchers and Claude Code's names reach.
        assert!(same_tool("Edit", "edit") && same_tool("edit", "Edit"));
        assert!(same_tool("Bash", "run_shell_command"));
        // Cursor's shell tool; its file tools' renames are its own, never
        // applied to Claude Code's tools of the same name.
        assert!(same_tool("Bash", "Shell") && same_tool("Edit", "StrReplace"));
        let mut args = serde_json::Map::from_iter([("file_path".to_string(), serde_json::json!("/a"))]);
        arguments_from_claude("Write", &mut args);
        arguments_from_claude("Read", &mut args);
        assert_eq!(args.keys().collect::<Vec<_>>(), ["file_path"]);
    }
}
