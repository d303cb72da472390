#!/usr/bin/env bash
# The stacks of docker-compose.yml on this machine (docs/containers.md):
#   scripts/compose.sh up            start the Docker engine if needed, build what is missing, start the stack, wait until healthy
#   scripts/compose.sh up --galera   the same with docker-compose.galera.yml: a Galera cluster in place of the primary and replica
#   scripts/compose.sh down          remove either stack's containers, networks and volumes
# An image the files name that cannot be pulled is built from deploy/stand-ins/ under the same name and tag.
set -euo pipefail
cd "$(dirname "$0")/.."

STAND_IN_BASE=animal-store/stand-in-base:bookworm
GALERA_FILES=(-f docker-compose.yml -f docker-compose.galera.yml)
HEALTHY_WITHIN_SECONDS=${COMPOSE_HEALTHY_WITHIN_SECONDS:-300}
DOCKERD_LOG=${DOCKERD_LOG:-/var/log/dockerd.log}

say() { printf '[compose] %s\n' "$*" >&2; }
fail() {
  say "$*"
  exit 1
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=
install_packages() {
  if [ -z "$apt_updated" ]; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  say "Installing Debian's $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

ensure_engine() {
  command -v dockerd >/dev/null 2>&1 && command -v docker >/dev/null 2>&1 || install_packages docker.io
  docker info >/dev/null 2>&1 && return
  say "Starting dockerd (log: $DOCKERD_LOG)"
  as_root sh -c 'setsid dockerd >>"$1" 2>&1 </dev/null &' sh "$DOCKERD_LOG"
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && return
    sleep 1
  done
  tail -20 "$DOCKERD_LOG" >&2 || true
  fail "dockerd did not answer within 60 s"
}

# `docker compose` where the plugin exists, else docker-compose 1.x, with the stack's files.
compose=()
choose_compose() {
  if docker compose version >/dev/null 2>&1; then
    compose=(docker compose "$@")
  else
    command -v docker-compose >/dev/null 2>&1 || install_packages docker-compose
    compose=(docker-compose "$@")
  fi
}

# Every image the stack runs or builds from: those of the compose files' services that it neither
# builds nor keeps in a profile (docker-compose 1.x lists those too), then the bases of the Dockerfiles it builds.
stack_images() {
  local config context
  config=$("${compose[@]}" config)
  awk '
    function flush() { if (image != "" && !built && !profiled) print image; image = ""; built = profiled = 0 }
    /^services:/ { inside = 1; next }
    /^[^ ]/ { flush(); inside = 0 }
    inside && /^  [^ ]/ { flush() }
    inside && $1 == "image:" { image = $2 }
    inside && $1 == "build:" { built = 1 }
    inside && $1 == "profiles:" { profiled = 1 }
    END { flush() }' <<<"$config" | tr -d "'\""
  awk '$1 == "context:" { sub(/^ *context: */, ""); print }' <<<"$config" | tr -d "'\"" | sort -u | while read -r context; do
    awk 'toupper($1) == "FROM" { stages[tolower($4)] = 1; if (!(tolower($2) in stages)) print $2 }' "$context/Dockerfile"
  done
}

ensure_base() {
  docker image inspect "$STAND_IN_BASE" >/dev/null 2>&1 && return
  command -v debootstrap >/dev/null 2>&1 || install_packages debootstrap
  as_root deploy/stand-ins/base/build.sh "$STAND_IN_BASE"
}

# Builds IMAGE from deploy/stand-ins/<repository>/, which names the tags it can stand in for.
build_stand_in() {
  local image=$1 repository=${1%%:*} tag=${1#*:} recipe context
  recipe=deploy/stand-ins/${repository##*/}
  [ -f "$recipe/Dockerfile" ] || fail "$image cannot be pulled and deploy/stand-ins/ has no recipe for it"
  grep -qxF "$tag" "$recipe/tags" || fail "$image cannot be pulled and $recipe stands in only for tags: $(tr '\n' ' ' <"$recipe/tags")"
  ensure_base
  say "Building a stand-in for $image from $recipe"
  context=$(mktemp -d)
  cp -r "$recipe/." "$context/"
  if [ -x "$context/prepare.sh" ]; then "$context/prepare.sh" "$context"; fi
  if ! docker build --label org.animal-store.stand-in="$recipe" -t "$image" "$context" >"$context.log" 2>&1; then
    tail -40 "$context.log" >&2
    rm -rf "$context" "$context.log"
    fail "The stand-in for $image did not build"
  fi
  rm -rf "$context" "$context.log"
}

ensure_image() {
  local image=$1
  docker image inspect "$image" >/dev/null 2>&1 && return
  if docker pull --quiet "$image" >/dev/null 2>&1; then return; fi
  build_stand_in "$image"
}

report() {
  "${compose[@]}" ps >&2
  "${compose[@]}" logs --no-color --tail=30 >&2
}

# Waits until every container of the stack is healthy (or running, when it has no health check).
wait_healthy() {
  local deadline=$((SECONDS + HEALTHY_WITHIN_SECONDS)) ids states pending
  while :; do
    ids=$("${compose[@]}" ps -q)
    [ -n "$ids" ] || fail "The stack has no containers"
    # shellcheck disable=SC2086
    states=$(docker inspect --format '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' $ids)
    pending=$(awk '!($2 == "running" && ($3 == "healthy" || $3 == "none"))' <<<"$states")
    if [ -z "$pending" ]; then
      say "Healthy: $(awk '{ sub(/^\//, "", $1); printf "%s ", $1 }' <<<"$states")"
      return
    fi
    if [ "$SECONDS" -ge "$deadline" ] || grep -qE ' (exited|dead) ' <<<"$pending"; then
      report
      fail "Not healthy: $(tr '\n' ';' <<<"$pending")"
    fi
    sleep 2
  done
}

up() {
  local files=(-f docker-compose.yml)
  case "${1:-}" in
    '') ;;
    --galera) files=("${GALERA_FILES[@]}") ;;
    *) fail "usage: scripts/compose.sh up [--galera]" ;;
  esac
  ensure_engine
  choose_compose "${files[@]}"
  local image
  for image in $(stack_images | sort -u); do ensure_image "$image"; done
  say "Starting the stack with ${compose[*]}"
  "${compose[@]}" up --detach --build --remove-orphans || {
    report
    fail "The stack did not start"
  }
  wait_healthy
}

# Every file, so that the volumes of either stack are removed with it.
down() {
  ensure_engine
  choose_compose "${GALERA_FILES[@]}"
  "${compose[@]}" down --volumes --remove-orphans
}

case "${1:-}" in
  up) up "${@:2}" ;;
  down) down ;;
  *) fail "usage: scripts/compose.sh up [--galera] | down" ;;
esac
