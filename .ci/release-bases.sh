#!/usr/bin/env bash
# The last release of each published package (every packages/*/package.json that is not private), one
# line each, tab-separated:
#
#   <package dir> <package name> <commit> <kind> <label>
#
#   bash .ci/release-bases.sh      # in the repository to look at (any directory of it)
#
# A package's base is the newer of
#   - its last release tag <name>@<version> reachable from HEAD (made by `changeset publish`): kind `tag`, and
#   - the last commit that changed its package.json "version" (`pnpm version-packages`, which consumes
#     the changesets: this also covers the time between versioning and publishing, and clones without
#     tags): kind `bump`,
# or the repository's first commit when there is neither: kind `none` (no release yet).
# Used by .ci/changeset-check.sh and scripts/semver-gate.ts. Needs the full history: on a shallow clone
# it prints why on stderr and exits 2.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

if [ "$(git rev-parse --is-shallow-repository)" = "true" ]; then
  echo "release-bases: this is a shallow clone; finding the last release needs the history since then (clone with full depth, or git fetch --unshallow)" >&2
  exit 2
fi

first_commit="$(git rev-list --max-parents=0 HEAD | tail -n1)"

for dir in packages/*/; do
  dir="${dir%/}"
  [ -f "$dir/package.json" ] || continue
  if [ "$(node -p 'require(process.argv[1]).private === true' "$PWD/$dir/package.json")" = "true" ]; then continue; fi
  name="$(node -p 'require(process.argv[1]).name' "$PWD/$dir/package.json")"
  tag="$(git describe --tags --abbrev=0 --match "$name@*" HEAD 2>/dev/null || true)"
  bump="$(git log -1 --format=%H --diff-filter=M -G'^[[:space:]]*"version"[[:space:]]*:' HEAD -- "$dir/package.json")"
  base="$first_commit"
  kind="none"
  label="the first commit, no release yet"
  if [ -n "$tag" ]; then
    base="$(git rev-parse "$tag^{commit}")"
    kind="tag"
    label="release tag $tag"
  fi
  if [ -n "$bump" ] && [ "$bump" != "$base" ] && git merge-base --is-ancestor "$base" "$bump"; then
    base="$bump"
    kind="bump"
    label="the version bump in $(git log -1 --format='%h (%s)' "$bump")"
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$dir" "$name" "$base" "$kind" "$label"
done
