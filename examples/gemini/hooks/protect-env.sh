#!/bin/sh
# BeforeTool: refuse writes to .env files (JSON decision on stdout).
input=$(cat)
if printf '%s' "$input" | grep -q '"file_path": *"[^"]*\.env"'; then
  echo '{"decision": "block", "reason": "writing .env files is not allowed; put secrets in the vault"}'
else
  echo '{"decision": "allow"}'
fi
