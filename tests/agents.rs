//! Real agents in the test suite: Claude Code, Codex and gemini-cli (their npm packages,
//! pinned, installed once into `$HOOKSHOT_AGENTS_CACHE` or
//! `~/.cache/hookshot-agents`) run against local model servers that play a
//! script (gemini-cli replays a recorded session of its own format), each
//! scenario natively and under this hookshot (`agents/test_claude.py`,
//! `agents/test_codex.py`, `agents/test_gemini.py`). One Rust test per
//! scenario, so they run side by side and fail one by one.
//!
//! Needs Node.js's `npm` and the npm registry. When either is missing the
//! tests fail and say why: an agent test that cannot run has not passed.
//!
//! They take minutes, so `cargo test` leaves them out (ignored, with the
//! reason) and `.ci/run` runs them as a step of their own:
//! `cargo test --test agents -- --ignored`.

use std::process::Command;

fn scenario(module: &str, name: &str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");
    let out = Command::new("python3")
        .args(["-m", "unittest", &format!("{module}.{name}")])
        .current_dir(dir)
        .env("HOOKSHOT_BIN", env!("CARGO_BIN_EXE_hookshot"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs the agent scenarios");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the real-agent scenario {module}.{name} failed (the real agent, natively and under hookshot):\n{stderr}"
    );
}

macro_rules! scenarios {
    ($module:ident: $($class:ident :: $test:ident),+ $(,)?) => {
        mod $module {
            $(
                #[test]
                #[ignore = "end-to-end: the real agents (npm, Python), minutes; .ci/run's end-to-end step runs them (cargo test -- --ignored)"]
                fn $test() {
                    super::scenario(stringify!($module), concat!(stringify!($class), ".", stringify!($test)));
                }
            )+
        }
    };
}

scenarios! {
    test_claude:
    ClaudeCode::test_a_block_by_exit_code_2,
    ClaudeCode::test_a_block_by_json,
    ClaudeCode::test_a_rewrite_of_the_tool_input,
    ClaudeCode::test_context_before_and_after_a_tool,
    ClaudeCode::test_context_at_session_start_and_on_the_prompt,
    ClaudeCode::test_a_stop_hook_makes_the_agent_go_on,
    ClaudeCode::test_a_hook_that_crashes_or_times_out_does_not_block,
    ClaudeCode::test_matchers_are_javascript_regular_expressions,
    ClaudeCode::test_uninstall_gives_back_the_file_and_the_behaviour,
    ClaudeCode::test_a_hook_gets_what_claude_code_gives_it,
    ClaudeCode::test_a_guard_that_logs_to_a_file_keeps_guarding,
    ClaudeCode::test_hooks_run_through_the_shell_prefix,
    UnderHookshotOnly::test_the_closed_policy_does_not_make_claude_loop_at_stop,
    UnderHookshotOnly::test_cursors_own_guard_file_guards_claude_code,
    UnderHookshotOnly::test_a_cursor_stop_hook_stops_at_its_loop_limit,
    UnderHookshotOnly::test_the_closed_policy_blocks_a_hook_that_crashes_or_times_out,
    UnderHookshotOnly::test_built_ins_refuse_a_force_push,
    UnderHookshotOnly::test_a_secret_typed_into_the_prompt_never_reaches_the_model,
    UnderHookshotOnly::test_an_untrusted_project_hook_does_not_run_until_trusted,
    UnderHookshotOnly::test_hookshot_removed_after_install_is_a_warning_not_silence,
}

scenarios! {
    test_codex:
    Codex::test_a_block_by_exit_code_2,
    Codex::test_a_block_by_json,
    Codex::test_a_hook_that_crashes_or_times_out_does_not_block,
    Codex::test_a_hook_gets_what_codex_gives_it,
    Codex::test_model_request_hooks_run_with_codexs_input_and_block_nothing,
    Codex::test_uninstall_gives_back_the_file_and_the_behaviour,
    Codex::test_context_before_and_after_a_tool,
    Codex::test_context_at_session_start_and_on_the_prompt,
    Codex::test_a_stop_hook_makes_the_agent_go_on,
    Codex::test_each_hooks_context_is_cut_to_its_own_limit,
    Codex::test_a_rewrite_of_the_tool_input,
    Codex::test_apply_patch_is_matched_as_write_and_edit,
    UnderHookshotOnly::test_the_closed_policy_blocks_a_hook_that_crashes_or_times_out,
    UnderHookshotOnly::test_built_ins_refuse_a_force_push,
    UnderHookshotOnly::test_doctor_says_what_codex_has_not_approved_and_codex_runs_only_what_it_approved,
    UnderHookshotOnly::test_import_moves_approved_hooks_under_hookshot_with_no_guard_off,
    UnderHookshotOnly::test_a_secret_typed_into_the_prompt_never_reaches_the_model,
    UnderHookshotOnly::test_an_untrusted_project_hook_does_not_run_until_trusted,
    UnderHookshotOnly::test_hookshot_removed_after_install_warns_or_under_the_closed_policy_blocks,
    UnderHookshotOnly::test_built_ins_redact_secrets_in_answers_codex_applies,
    UnderHookshotOnly::test_a_session_end_hook_ends_with_its_processes_before_codex_kills_hookshot,
}

scenarios! {
    test_gemini:
    GeminiCli::test_a_block_by_exit_code_2,
    GeminiCli::test_a_block_by_json,
    GeminiCli::test_a_rewrite_of_the_tool_input,
    GeminiCli::test_context_after_a_tool,
    GeminiCli::test_context_at_session_start_and_on_the_prompt,
    GeminiCli::test_an_after_agent_hook_makes_the_agent_go_on,
    GeminiCli::test_a_hook_that_crashes_or_times_out_does_not_block,
    GeminiCli::test_an_allowed_write_happens,
    GeminiCli::test_a_hook_gets_what_gemini_cli_gives_it,
    GeminiCli::test_matchers_are_javascript_regular_expressions,
    GeminiCli::test_a_hooks_env_and_the_variables_in_its_command,
    GeminiCli::test_the_plans_folder_is_the_one_gemini_cli_names,
    GeminiCli::test_uninstall_gives_back_the_file_and_the_behaviour,
    UnderHookshotOnly::test_the_closed_policy_blocks_a_hook_that_crashes_or_times_out,
    UnderHookshotOnly::test_built_ins_refuse_a_force_push,
    UnderHookshotOnly::test_an_untrusted_project_hook_does_not_run_until_trusted,
    UnderHookshotOnly::test_hookshot_removed_after_install_is_a_warning_not_silence,
}

// Qwen Code: natively and under `hookshot install --agent qwen`.
scenarios! {
    test_qwen:
    QwenCode::test_a_block_by_exit_code_2_with_claude_codes_tool_name,
    QwenCode::test_a_block_by_json,
    QwenCode::test_a_matcher_of_part_of_a_name_fires,
    QwenCode::test_a_rewrite_is_not_applied_by_qwen_code,
    QwenCode::test_a_hook_that_crashes_or_times_out_does_not_block,
    QwenCode::test_a_hook_gets_the_input_and_variables_qwen_code_gives_it,
    QwenCode::test_the_guards_of_install_guards_protect_qwen_code,
    QwenCode::test_an_untrusted_project_hook_does_not_run_until_trusted,
    QwenCode::test_uninstall_puts_qwen_codes_file_back,
    QwenCode::test_a_hand_written_registration_is_told_qwen_code_by_its_variable,
}

// GitHub Copilot CLI: natively (its hooks folder, Claude Code's event
// names) and under `hookshot install --agent copilot`.
scenarios! {
    test_copilot:
    CopilotCli::test_a_block_by_exit_code_2,
    CopilotCli::test_a_block_by_json,
    CopilotCli::test_a_rewrite_of_the_tool_input,
    CopilotCli::test_context_after_a_tool_and_at_session_start,
    CopilotCli::test_a_stop_hook_makes_the_agent_go_on,
    CopilotCli::test_a_hook_that_crashes_denies_and_one_that_times_out_does_not,
    CopilotCli::test_a_hook_gets_the_input_and_variables_copilot_gives_it,
    CopilotCli::test_the_guards_of_install_guards_protect_copilot,
    CopilotCli::test_uninstall_puts_the_hooks_folder_back,
    CopilotCli::test_copilot_running_the_claude_code_registration_is_answered_as_itself,
    CopilotCli::test_its_own_camelcase_events_run_hookshot_and_are_answered_in_their_shape,
    CopilotCli::test_its_own_guard_file_guards_claude_code_under_hookshot,
}

// Cline: its hook files natively and running `hookshot fire --agent cline`.
scenarios! {
    test_cline:
    Cline::test_a_pre_tool_hook_cancels_the_command_and_the_task,
    Cline::test_an_allowed_command_runs,
    Cline::test_a_rewrite_of_the_command,
    Cline::test_context_after_a_tool_reaches_the_model,
    Cline::test_a_stop_hook_runs_when_the_task_completes,
    UnderHookshotOnly::test_built_ins_refuse_a_force_push,
    UnderHookshotOnly::test_install_leaves_the_users_own_hook_and_uninstall_takes_out_only_its_own,
    UnderHookshotOnly::test_a_hand_written_hook_file_running_hookshot,
    UnderHookshotOnly::test_its_own_hook_file_guards_claude_code_under_hookshot,
}

// Drift: each agent's own description of its hooks (Codex's embedded
// schemas, Claude Code's and gemini-cli's bundles) against agents/known.json.
scenarios! {
    test_drift:
    Drift::test_codex,
    Drift::test_claude,
    Drift::test_gemini,
    Drift::test_qwen,
    Drift::test_cline,
    Drift::test_copilot,
    Drift::test_the_readers_still_find_what_they_read,
}

/// Every scenario the Python files define is one of the tests above: one
/// written and not listed would never run.
#[test]
fn every_scenario_is_listed() {
    let this = include_str!("agents.rs");
    for module in [
        "test_claude",
        "test_codex",
        "test_gemini",
        "test_qwen",
        "test_copilot",
        "test_cline",
        "test_drift",
    ] {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/agents/").to_string() + module + ".py";
        let text = std::fs::read_to_string(&path).expect("the scenario file");
        let mut class = "";
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("class ") {
                class = rest.split(['(', ':']).next().unwrap_or("");
            } else if let Some(rest) = line.trim_start().strip_prefix("def test_") {
                let name = format!("{class}::test_{}", rest.split('(').next().unwrap_or(""));
                assert!(
                    this.contains(&format!("{name},")),
                    "{module}.py defines {name}, which tests/agents.rs does not list"
                );
            }
        }
    }
}
