#!/bin/sh
# A jcli pre_tool_execution hook: a HookResult with action "skip" refuses
# the call and tells the model why.
cat >/dev/null
echo '{"action": "skip", "retry_feedback": "writing is paused during the release"}'
