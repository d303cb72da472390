#!/bin/sh
# Entrypoint of the nginx stand-in, as the nginx image's: before nginx starts, the executable
# scripts of /docker-entrypoint.d run in order (the stand-in ships none of the image's own).
set -e
if [ "$1" = nginx ] || [ "$1" = nginx-debug ]; then
  for script in /docker-entrypoint.d/*.sh; do
    [ -x "$script" ] || continue
    echo "$0: running $script"
    "$script"
  done
fi
exec "$@"
