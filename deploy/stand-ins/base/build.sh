#!/usr/bin/env bash
# Builds the Debian bookworm image that every stand-in starts from, with debootstrap
# and `docker import`, from the Debian mirror this machine's apt already uses.
#   deploy/stand-ins/base/build.sh IMAGE
set -euo pipefail

image=${1:?usage: build.sh IMAGE}
suite=bookworm

# "URI suite/main" for each Debian source apt reads here, so the image fetches from the same mirror.
debian_sources() {
  apt-cache policy 2>/dev/null | awk -v suite="$suite" '
    $1 ~ /^[0-9]+$/ && $3 ~ ("^" suite "(-updates|-security)?/main$") { split($3, parts, "/"); print $2, parts[1] }' | sort -u
}

sources=$(debian_sources)
if [ -z "$sources" ]; then
  apt-get update -qq
  sources=$(debian_sources)
fi
mirror=$(awk -v suite="$suite" '$2 == suite { print $1; exit }' <<<"$sources")
if [ -z "$mirror" ]; then
  echo "No Debian $suite mirror in this machine's apt sources: the stand-in base cannot be built." >&2
  exit 1
fi

root=$(mktemp -d /var/tmp/stand-in-base.XXXXXX)
trap 'rm -rf "$root"' EXIT

echo "Building $image: debootstrap $suite from $mirror"
debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -20 "$root.log" >&2
  rm -f "$root.log"
  exit 1
}
rm -f "$root.log"

# The same suites as the host (security fixes included), one line each.
rm -f "$root/etc/apt/sources.list"
while read -r uri dist; do
  echo "deb $uri $dist main"
done <<<"$sources" >"$root/etc/apt/sources.list.d/debian.list"

# The host's apt date checks hold for the same mirror.
apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' >"$root/etc/apt/apt.conf.d/50host-date-checks" || rm -f "$root/etc/apt/apt.conf.d/50host-date-checks"

# Slim like Debian's own container images: no documentation, manuals or translations from later installs either.
cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
cat >"$root/etc/apt/apt.conf.d/50slim" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
EOF
find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
rm -rf "$root/usr/share/man"/* "$root/usr/share/info"/* "$root/var/lib/apt/lists"/* "$root/var/cache/apt"/*.bin "$root/var/cache/apt/archives"/*.deb
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
# Packages install in a container without starting their services, as in Debian's own images.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
: >"$root/etc/hostname"
rm -f "$root/etc/resolv.conf"

# Trust the certificate authorities this machine trusts, so HTTPS to the registries works as it does here.
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
fi
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi

tar --numeric-owner -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["bash"]' \
  --message "Debian $suite (debootstrap minbase), base of the stand-in images" \
  - "$image" >/dev/null
echo "Built $image"
