#!/bin/sh
# A gemini-cli BeforeTool hook: a JSON answer on stdout with exit 0.
input=$(cat)
case "$input" in
  *'push --force'*|*'push -f'*)
    echo '{"decision": "deny", "reason": "force pushes rewrite shared history"}' ;;
  *) echo '{}' ;;
esac
