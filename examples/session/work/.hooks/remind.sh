#!/bin/sh
cat >/dev/null
echo '{"systemMessage": "AfterTool: file written", "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "Remember to update CHANGELOG.md too."}}'
