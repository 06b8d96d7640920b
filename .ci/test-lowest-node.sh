#!/usr/bin/env bash
# Runs the tests of every project but the browser one under the lowest Node that the root package.json's
# "engines" promises (">=22.17" means 22.17.0), so the lower bound is tested, not just stated.
#
#   bash .ci/test-lowest-node.sh                           # Node from engines, e.g. 22.17.0
#   TENANT_AUTH_LOWEST_NODE=22.18.0 bash .ci/test-lowest-node.sh
#
# TEST_DATABASE_URL / TEST_REDIS_URL are passed through as for `pnpm test`. The JSON report goes to
# .vitest-report-node22.json (not .vitest-report.json, which .ci/run counts). Exits non-zero when a test
# fails, when no test ran, or when the report is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n::: %s\n' "$*" >&2; }

engines="$(sed -n 's/^[[:space:]]*"node":[[:space:]]*">=\([0-9.]*\)".*/\1/p' package.json | head -n1)"
lowest="${TENANT_AUTH_LOWEST_NODE:-$engines}"
case "$lowest" in
  *.*.*) ;;
  *.*) lowest="$lowest.0" ;;
  '') echo "test-lowest-node: no \"node\": \">=X.Y\" in package.json engines; set TENANT_AUTH_LOWEST_NODE" >&2; exit 2 ;;
  *) lowest="$lowest.0.0" ;;
esac
report=.vitest-report-node22.json

step "provision Node $lowest and pnpm"
orig_path="$PATH"
TENANT_AUTH_NODE_VERSION="$lowest" source .ci/node.sh
if [ "$(node -p process.versions.node)" != "$lowest" ]; then
  echo "test-lowest-node: expected Node $lowest on PATH, got $(node -v)" >&2
  exit 2
fi

step "install (frozen lockfile) under Node $lowest"
pnpm install --frozen-lockfile

# bcrypt 6 ships N-API prebuilds, which load on every Node with that N-API version, so this normally
# passes without a rebuild. Should it ever be compiled for one Node's ABI instead, rebuild it for this
# Node now and for the default Node (.ci/node.sh without the variable) when the script ends.
step "check that bcrypt's native addon loads under Node $lowest"
bcrypt_loads() { node -e 'require(require.resolve("bcrypt", { paths: ["packages/tenant-auth-core"] })).hashSync("x", 4)'; }
if ! bcrypt_loads 2>/dev/null; then
  echo "test-lowest-node: bcrypt does not load under Node $lowest; rebuilding it" >&2
  restore_bcrypt() {
    echo "test-lowest-node: rebuilding bcrypt for the default Node again" >&2
    PATH="$orig_path" bash -c 'source .ci/node.sh && pnpm rebuild bcrypt' || echo "test-lowest-node: rebuilding bcrypt back failed: run pnpm rebuild bcrypt" >&2
  }
  trap restore_bcrypt EXIT
  pnpm rebuild bcrypt
  bcrypt_loads
fi

step "test under Node $lowest (every project but browser)"
rm -f "$report"
set +e
pnpm test --project core --project koa --project mikro-orm --project redis --project client --project server \
  --outputFile.json="$report"
test_status=$?
set -e

if [ ! -s "$report" ]; then
  echo "test-lowest-node: no vitest report was written to $report" >&2
  exit 1
fi
summary_status=0
REPORT="$report" NODE_LABEL="$lowest" node -e '
  const r = require(require("node:path").resolve(process.env.REPORT));
  console.log(`Node ${process.env.NODE_LABEL}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
  if (r.numTotalTests === 0 || r.numPassedTests === 0) process.exitCode = 3;
' || summary_status=$?
if [ "$test_status" -ne 0 ]; then exit "$test_status"; fi
exit "$summary_status"
