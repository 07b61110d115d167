//! Running the planned hooks of one event: in parallel, or one after the
//! other with each seeing the changes of those before it, all within the
//! event's time budget.

use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

use hookshot_core::Agent;
use hookshot_core::input::for_hook;
use hookshot_core::{Dialect, EventKind, Failure, FailureKind, HookDef, HookOutput, HookRecord};
use serde_json::{Map, Value};
use tracing::Instrument;

use crate::{HookInput, RunEnv, Runner};

/// The hooks of one event and how to run them.
#[derive(Debug, Clone, Copy)]
pub struct PlanRun<'a> {
    /// The event.
    pub event: EventKind,
    /// The hooks, in run order.
    pub hooks: &'a [Arc<HookDef>],
    /// One after the other instead of all at once.
    pub sequential: bool,
    /// In sequence, stop at the first block (jcli chains always do).
    pub fail_fast: bool,
    /// Time for all of them together: no hook runs, retries or waits past
    /// it (a jcli chain has 30 s).
    pub budget: Option<Duration>,
    /// Where and with what environment they run.
    pub env: &'a RunEnv,
}

/// What decides the bytes a process hook reads: the agent it runs as, its
/// dialect, and its event's name in its own file.
type Shape<'h> = (Agent, Dialect, Option<&'h str>);

fn shape(hook: &HookDef, caller: Option<Agent>) -> Shape<'_> {
    (hook.runs_as(caller), hook.dialect, hook.options.own_event.as_deref())
}

/// The bytes a process hook of that shape reads on stdin for `event`.
fn input_bytes(event: EventKind, (agent, dialect, own): Shape<'_>, input: &Map<String, Value>) -> Vec<u8> {
    serde_json::to_vec(&for_hook(event, agent, (dialect, own), input)).unwrap_or_else(|_| b"{}".to_vec())
}

/// Whether a hook reads its input in its dialect's words: a process it
/// starts, an endpoint it POSTs to, an MCP tool's `${path}` arguments.
fn reads_bytes(hook: &HookDef) -> bool {
    hook.command().is_some()
        || matches!(
            hook.action,
            hookshot_core::HookAction::Http { .. }
                | hookshot_core::HookAction::McpTool { .. }
                | hookshot_core::HookAction::Judge { .. }
        )
}

impl Runner {
    /// Runs the hooks of `plan`. In sequence, `between` is called with each
    /// answer so the next hook sees its changes (the aggregator's chaining
    /// rule); the run ends at `continue: false`, and at a block for jcli
    /// chains or `fail_fast`. A hook the budget leaves no time for is not
    /// started and is recorded as skipped.
    pub async fn run_plan(
        &self,
        plan: PlanRun<'_>,
        input: &mut Map<String, Value>,
        mut between: impl FnMut(&mut Map<String, Value>, &HookOutput),
    ) -> Vec<HookRecord> {
        let start = Instant::now();
        // Far enough to mean "no budget" without overflowing an Instant.
        let deadline = start + plan.budget.unwrap_or(Duration::from_secs(100 * 365 * 24 * 3600));
        if !plan.sequential {
            // Serialize once per agent (and shape) that has a process hook
            // in the plan.
            let caller = plan.env.caller;
            let mut by_agent: Vec<(Shape<'_>, Vec<u8>)> = Vec::new();
            for h in plan.hooks.iter().filter(|h| reads_bytes(h)) {
                let agent = shape(h, caller);
                if !by_agent.iter().any(|(a, _)| *a == agent) {
                    by_agent.push((agent, input_bytes(plan.event, agent, input)));
                }
            }
            let canonical: &Map<String, Value> = input;
            let runs = plan.hooks.iter().map(|h| {
                let agent = shape(h, caller);
                let bytes = by_agent
                    .iter()
                    .find(|(a, _)| *a == agent)
                    .map_or(&[][..], |(_, b)| b.as_slice());
                let hi = HookInput {
                    event: plan.event,
                    canonical,
                    bytes,
                };
                self.traced(h, hi, plan.env, deadline)
            });
            return futures::future::join_all(runs).await;
        }
        let mut records = Vec::with_capacity(plan.hooks.len());
        for hook in plan.hooks {
            if Instant::now() >= deadline {
                let why = format!(
                    "was skipped: the event's time budget of {}s was spent",
                    crate::secs(deadline - start)
                );
                records.push(HookRecord::from_answer(
                    Arc::clone(hook),
                    Duration::ZERO,
                    Err(Failure::new(FailureKind::Skipped, why)),
                ));
                continue;
            }
            let bytes = if reads_bytes(hook) {
                input_bytes(plan.event, shape(hook, plan.env.caller), input)
            } else {
                Vec::new()
            };
            let hi = HookInput {
                event: plan.event,
                canonical: input,
                bytes: &bytes,
            };
            let record = self.traced(hook, hi, plan.env, deadline).await;
            between(input, &record.output);
            let blocked = record.output.decision.is_block();
            // continue:false ends everything where the hook's agent says so
            // (gemini-cli runs its whole chain and stops after it); a
            // block ends it for jcli's stop/skip and under fail-fast.
            let agent = hook.agent();
            let ends = (record.output.stop && agent.stop_ends_chain())
                || (blocked && (agent.block_ends_chain() || plan.fail_fast));
            records.push(record);
            if ends {
                break;
            }
        }
        records
    }

    /// Runs one hook inside a `hook` span that records how it went.
    async fn traced(&self, hook: &Arc<HookDef>, input: HookInput<'_>, env: &RunEnv, deadline: Instant) -> HookRecord {
        // The outcome is recorded on the span too: an OpenTelemetry
        // collector sees a hook's result as the span's attributes.
        let span = tracing::debug_span!(
            "hook",
            hook = %hook.identity,
            source = %hook.source,
            exit_code = tracing::field::Empty,
            decision = tracing::field::Empty,
            failure = tracing::field::Empty,
            "otel.status_code" = tracing::field::Empty,
        );
        let (canonical, event) = (input.canonical, input.event);
        let mut record = self
            .run_until(hook, input, env, deadline)
            .instrument(span.clone())
            .await;
        // Where the hook's agent denies a tool whose hook failed (Copilot
        // CLI before a tool), so does hookshot: never less strict.
        if let Some(f) = &record.failure
            && !record.output.decision.is_block()
            && let agent = hook.runs_as(env.caller)
            && agent.denies_on_failure(event, f.kind)
        {
            record.output.decision = hookshot_core::Decision::Block;
            record.output.reason = Some(format!(
                "hook {} failed ({f}), and {} denies the tool when a hook before it fails",
                hook.label(),
                agent.display_name()
            ));
        }
        // A Claude hook rewrote the call in Claude's argument names: the
        // tool reads gemini's (Read's file_path is read_file's absolute_path).
        if hook.dialect == Dialect::Claude
            && let Some(args) = record.output.tool_input.as_mut()
            && let Some(tool) = canonical.get("tool_name").and_then(Value::as_str)
        {
            hookshot_core::tools::arguments_from_claude(tool, args);
        }
        if !span.is_disabled() {
            span.record("exit_code", record.captured.exit.code);
            span.record("decision", tracing::field::debug(record.output.decision));
            if let Some(f) = &record.failure {
                span.record("failure", f.kind.as_str());
                span.record("otel.status_code", "ERROR");
            }
        }
        let _entered = span.enter();
        tracing::debug!(
            duration_ms = record.captured.duration.as_secs_f64() * 1000.0,
            exit_code = record.captured.exit.code,
            decision = ?record.output.decision,
            failure = record.failure.as_ref().map(|f| f.kind.as_str()),
            "hook finished"
        );
        record
    }
}
