#!/bin/sh
cat >/dev/null
echo '{"systemMessage": "hookshot example session: hooks are watching tool calls", "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "Never force-push."}}'
