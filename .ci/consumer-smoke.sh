#!/usr/bin/env bash
# Consumer smoke test: installs the packed packages the way an application team would (npm, outside the
# workspace, with the peer dependencies), then type-checks and runs consumers of every entry point.
#
#   bash .ci/consumer-smoke.sh        # KEEP_SCRATCH=1 keeps the scratch project even when everything passed
#
# Steps: pnpm build; pnpm pack each package under packages/; npm install the tarballs + peers in a
# mktemp -d project; tsc with module nodenext (ESM .mts and CommonJS .cts consumers) and with
# moduleResolution bundler; node: import() and require() of every entry point. The entry points come
# from the packages' exports maps; the expected names from .ci/consumer-smoke/expected-exports.json.
# Then docs/getting-started.md as a reader follows it: its project files and install commands (pnpm,
# overrides pointing at the tarballs, its pinned versions) in a folder next to the tarballs, `pnpm
# build` of its code, and its application run with `pnpm start` on a fresh PostgreSQL database
# (beside TEST_DATABASE_URL's, dropped after) through the requests of its step 8.
# Prints a summary and exits non-zero when any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

# What an application team installs beside the packages (the peers), pinned.
peers=(
  koa@3.3.0 @types/koa@3.0.3 @koa/router@15.7.0
  @mikro-orm/core@7.2.1 @mikro-orm/postgresql@7.2.1 @mikro-orm/pglite@7.2.1 @mikro-orm/migrations@7.2.1
  @mikro-orm/sql@7.2.1
  ioredis@6.0.0
  typescript@5.9.3 @types/node@24.19.2
)

source .ci/node.sh

started=$SECONDS
work="$(mktemp -d "${TMPDIR:-/tmp}/tenant-auth-consumer-smoke.XXXXXX")"
tarballs="$work/tarballs"
app="$work/app"
# The guide's layout: the application's folder next to the tarballs (its overrides say ../tarballs/…).
guide="$work/my-app"
mkdir -p "$tarballs" "$app" "$guide"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
summary=()
failed=0

finish() {
  local status=$?
  printf '\n::: consumer smoke summary (%ss)\n' "$((SECONDS - started))" >&2
  for line in "${summary[@]}"; do printf '%s\n' "$line" >&2; done
  if [ "$failed" -ne 0 ] || [ "$status" -ne 0 ]; then
    echo "consumer smoke: FAILED (scratch project kept at $app)" >&2
    [ "$status" -ne 0 ] || exit 1
  else
    echo "consumer smoke: all passed" >&2
    if [ -z "${KEEP_SCRATCH:-}" ]; then rm -rf "$work"; else echo "scratch project: $app" >&2; fi
  fi
}
trap finish EXIT

# A step that must pass for the later ones to mean anything: stop on failure.
must() {
  local name="$1"
  shift
  printf '\n::: %s\n' "$name" >&2
  if "$@"; then
    summary+=("PASS  $name")
  else
    summary+=("FAIL  $name")
    failed=1
    exit 1
  fi
}

# An independent check: record the result and go on.
check() {
  local name="$1"
  shift
  printf '\n::: %s\n' "$name" >&2
  if "$@"; then
    summary+=("PASS  $name")
  else
    summary+=("FAIL  $name")
    failed=1
  fi
}

pack_all() {
  local dir names=()
  for dir in packages/*/; do
    [ -f "$dir/package.json" ] || continue
    (cd "$dir" && pnpm pack --pack-destination "$tarballs" >/dev/null) || return 1
    names+=("$(node -p 'require(process.argv[1]).name' "$root/$dir/package.json")")
  done
  ls -1 "$tarballs"
  node -e 'console.log(JSON.stringify(process.argv.slice(1)))' "${names[@]}" > "$app/packages.json"
}

install_app() {
  cp "$root"/.ci/consumer-smoke/* "$app/"
  # Plain CommonJS package: the .mjs / .mts files are the ESM consumers, the .cjs / .cts ones CommonJS.
  printf '{ "name": "tenant-auth-consumer-smoke", "version": "0.0.0", "private": true }\n' > "$app/package.json"
  (cd "$app" && npm install --no-audit --no-fund --save-exact "$tarballs"/*.tgz "${peers[@]}") \
    && (cd "$app" && node check-install.cjs)
}

must "build (pnpm build)" pnpm build
must "pack every package under packages/" pack_all
must "npm install the tarballs and the peers into $app" install_app
must "generate the type-checked consumers from the exports maps" node "$app/generate-types.cjs"
check "typecheck: module nodenext (ESM and CommonJS consumers)" "$app/node_modules/.bin/tsc" -p "$app/tsconfig.nodenext.json"
check "typecheck: module esnext, moduleResolution bundler" "$app/node_modules/.bin/tsc" -p "$app/tsconfig.bundler.json"
check "run: ESM consumer (import)" node "$app/run-esm.mjs"
check "run: CommonJS consumer (require)" node "$app/run-cjs.cjs"

# docs/getting-started.md, followed as written.
setup_guide() {
  node "$root/.ci/consumer-smoke/guide-project.mjs" "$root/docs/getting-started.md" "$guide" \
    && (cd "$guide" && bash consumer-smoke-run.sh) \
    && cp "$root/.ci/consumer-smoke/guide-step8.mjs" "$guide/"
}
must "the guide's project: its files and its install commands (pnpm, from the tarballs)" setup_guide
must "the guide's code compiles with its tsconfig (pnpm build)" bash -c 'cd "$1" && pnpm build' _ "$guide"
check "the guide's application on PostgreSQL, through step 8 (pnpm start)" \
  bash -c 'cd "$1" && node guide-step8.mjs "$2"' _ "$guide" "$TEST_DATABASE_URL"
