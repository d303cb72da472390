#!/bin/sh
# As the node image does: options, or a script that is no command, go to node.
set -e
if [ "${1#-}" != "$1" ] || ! command -v "$1" >/dev/null 2>&1 || { [ -f "$1" ] && [ ! -x "$1" ]; }; then
  set -- node "$@"
fi
exec "$@"
