#!/usr/bin/env bash
# Checks that the pending changesets (.changeset/*.md) cover what changed in the published packages since
# their last release. Works on a clean clone of main with no remote: needs the full history (no shallow
# clone), and the release tags (<name>@<version>, made by `changeset publish`) when there are any.
#
#   bash .ci/changeset-check.sh
#
# Why not plain `changeset status`: without --since it diffs against the merge base with baseBranch
# (main), which on main itself is HEAD, so it passes whatever changed. What changesets must cover is what
# changed since the last release, so each package's base is its last release as .ci/release-bases.sh
# finds it (the newer of its release tag and its last version bump; the first commit before any). Then:
#  1. `pnpm changeset status --since=<newest base>` validates the changeset files and changesets' own rule
#     (every package changed since then is released). That rule counts a package as covered when it is only
#     bumped as a dependent of another (updateInternalDependencies), so also:
#  2. every package under packages/ whose src/ changed since its base must be named in a .changeset/*.md.
# Exits non-zero when either check fails. Locally, commit a new changeset first: with --since, changesets
# only counts changeset files committed since the base.
set -euo pipefail
cd "$(dirname "$0")/.."

source .ci/node.sh

# Each published package and its last release (.ci/release-bases.sh; it fails on a shallow clone).
bases="$(bash .ci/release-bases.sh)"
first_commit="$(git rev-list --max-parents=0 HEAD | tail -n1)"
failed=0

pkg_dirs=()
pkg_names=()
pkg_bases=()
while IFS=$'\t' read -r dir name commit _kind label; do
  pkg_dirs+=("$dir")
  pkg_names+=("$name")
  pkg_bases+=("$commit $label")
done <<<"$bases"

# 1. changeset status since the newest base.
base="$first_commit"
base_label="the first commit, no release yet"
for entry in "${pkg_bases[@]}"; do
  commit="${entry%% *}"
  if [ "$commit" != "$base" ] && git merge-base --is-ancestor "$base" "$commit"; then
    base="$commit"
    base_label="${entry#* }"
  fi
done
printf '::: pnpm changeset status --since=%s (%s)\n' "$base" "$base_label" >&2
if pnpm --silent changeset status --since="$base"; then
  status_result="ok   changeset status since $base_label"
else
  status_result="FAIL changeset status since $base_label"
  failed=1
fi

# Package names in the front matter of every pending changeset, one per line with the file: "name file".
named="$(
  for file in .changeset/*.md; do
    [ -f "$file" ] || continue
    [ "$(basename "$file")" = "README.md" ] && continue
    awk -v f="$file" '
      /^---[[:space:]]*$/ { dashes++; next }
      dashes == 1 && NF > 0 {
        line = $0
        sub(/:[^:]*$/, "", line)
        gsub(/^[[:space:]"\047]+|[[:space:]"\047]+$/, "", line)
        print line, f
      }
    ' "$file"
  done
)"

# 2. src/ changes since each package's last release, each named by a changeset.
printf '\n::: every package whose src/ changed since its last release is named in a changeset\n' >&2
results=()
for i in "${!pkg_dirs[@]}"; do
  dir="${pkg_dirs[$i]}"
  name="${pkg_names[$i]}"
  pkg_base="${pkg_bases[$i]%% *}"
  label="${pkg_bases[$i]#* }"
  # Committed and uncommitted changes (tracked), plus new untracked files.
  changed="$( { git diff --name-only "$pkg_base" -- "$dir/src"; git ls-files --others --exclude-standard -- "$dir/src"; } | sort -u)"
  if [ -z "$changed" ]; then
    results+=("ok   $name: src unchanged since $label")
    continue
  fi
  count="$(printf '%s\n' "$changed" | wc -l | tr -d ' ')"
  files="$(printf '%s\n' "$named" | awk -v n="$name" '$1 == n { print $2 }' | sort -u | tr '\n' ' ')"
  if [ -n "$files" ]; then
    results+=("ok   $name: $count src file(s) changed since $label; named in ${files% }")
  else
    results+=("FAIL $name: $count src file(s) changed since $label but no .changeset/*.md names it (run pnpm changeset)")
    failed=1
  fi
done

printf '\n::: changeset check summary\n' >&2
printf '%s\n' "$status_result" "${results[@]}"
exit "$failed"
