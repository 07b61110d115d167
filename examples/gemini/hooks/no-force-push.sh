#!/bin/sh
# BeforeTool: exit 2 blocks, the reason is read from stderr.
if grep -q 'push --force\|push -f'; then
  echo "force-pushing is not allowed from the agent" >&2
  exit 2
fi
exit 0
