#!/bin/sh
# Entrypoint of the redis stand-in, as the redis image's: options go to redis-server, which runs as the redis user.
set -e
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi
if [ "$1" = redis-server ]; then
  # The image's redis-server is built with protected mode off (Docker publishes no port unasked); Debian's has it on.
  if [ "${2%.conf}" = "${2:-}" ]; then
    shift
    set -- redis-server --protected-mode no "$@"
  fi
  if [ "$(id -u)" = 0 ]; then
    find . \! -user redis -exec chown redis '{}' +
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
um=$(umask)
[ "$um" != 0022 ] || umask 0077
exec "$@"
