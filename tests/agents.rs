//! Real agents in the test suite: Claude Code (its npm package, pinned,
//! installed once into `$HOOKSHOT_AGENTS_CACHE` or `~/.cache/hookshot-agents`)
//! runs against a local model server that plays a script, each scenario
//! natively and under this hookshot (`agents/test_claude.py`). One Rust test
//! per scenario, so they run side by side and fail one by one.
//!
//! Needs Node.js's `npm` and the npm registry. When either is missing the
//! tests fail and say why: an agent test that cannot run has not passed.

use std::process::Command;

fn scenario(name: &str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/agents");
    let out = Command::new("python3")
        .args(["-m", "unittest", &format!("test_claude.{name}")])
        .current_dir(dir)
        .env("HOOKSHOT_BIN", env!("CARGO_BIN_EXE_hookshot"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs the agent scenarios");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the real-agent scenario {name} failed (real Claude Code, natively and under hookshot):\n{stderr}"
    );
}

macro_rules! scenarios {
    ($($class:ident :: $test:ident),+ $(,)?) => {
        $(
            #[test]
            fn $test() {
                scenario(concat!(stringify!($class), ".", stringify!($test)));
            }
        )+
    };
}

scenarios! {
    ClaudeCode::test_a_block_by_exit_code_2,
    ClaudeCode::test_a_block_by_json,
    ClaudeCode::test_a_rewrite_of_the_tool_input,
    ClaudeCode::test_context_after_a_tool,
    ClaudeCode::test_context_at_session_start_and_on_the_prompt,
    ClaudeCode::test_a_stop_hook_makes_the_agent_go_on,
    ClaudeCode::test_a_hook_that_crashes_or_times_out_does_not_block,
    ClaudeCode::test_uninstall_gives_back_the_file_and_the_behaviour,
    ClaudeCode::test_a_hook_gets_what_claude_code_gives_it,
    UnderHookshotOnly::test_the_closed_policy_blocks_a_hook_that_crashes,
    UnderHookshotOnly::test_built_ins_refuse_a_force_push,
    UnderHookshotOnly::test_an_untrusted_project_hook_does_not_run_until_trusted,
    UnderHookshotOnly::test_hookshot_removed_after_install_is_a_warning_not_silence,
}
