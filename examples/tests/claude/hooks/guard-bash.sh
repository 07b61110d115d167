#!/bin/sh
# A Claude Code PreToolUse hook: exit 2 refuses the call, stderr says why.
input=$(cat)
case "$input" in
  *'rm -rf'*) echo "rm -rf is not allowed in this project" >&2; exit 2 ;;
esac
exit 0
