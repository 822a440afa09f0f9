#!/usr/bin/env bash
# CI's mutation run of the safety glue (README, "Mutation run"; .ci/run calls it after npm test):
# StrykerJS on the glue files under mutation (stryker.config.json "mutate") that changed since the
# mutation baseline, test/mutation/glue-incremental.json, was last committed. Incremental mode
# reuses the baseline's result for every mutant whose code and covering tests are unchanged, so
# only what a change touched is run again. The whole set takes hours on two cores (README), far
# over CI's time; a run of the files a change touched takes minutes.
#
# Needs git history back to the baseline's commit. A clone without it (shallow, or no baseline
# committed yet) has nothing to compare with: the run is skipped with a message, never guessed.
# Expects dist/ built (npm test builds it). `npm run mutate:glue` mutates every file and rewrites the baseline.
set -euo pipefail
cd "$(dirname "$0")/../.."
baseline=test/mutation/glue-incremental.json
# A run that goes past this is stopped and reported as not judged (CI's whole run must stay under 90 minutes).
limit_s="${MUTATE_GLUE_LIMIT_S:-2400}"

mapfile -t targets < <(node -e 'for (const m of require("./stryker.config.json").mutate) console.log(m)')
base=""
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then base="$(git log -1 --format=%H -- "$baseline" 2>/dev/null || true)"; fi
if [ -z "$base" ]; then
  echo "mutate:glue: no commit of $baseline in this clone's history (a shallow clone, or no baseline yet): skipped"
  exit 0
fi
mapfile -t changed < <(git diff --name-only --diff-filter=d "$base" HEAD -- "${targets[@]/#/:(glob)}")
if [ "${#changed[@]}" -eq 0 ]; then
  echo "mutate:glue: no file under mutation changed since the baseline ($(git log -1 --format=%h "$base")): skipped"
  exit 0
fi
echo "mutate:glue: ${#changed[@]} file(s) changed since the baseline ($(git log -1 --format=%h "$base")): ${changed[*]}"

# A copy of the baseline: a run of some files writes only their results, and must not shrink the committed file.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$baseline" "$work/incremental.json"
mutate="$(IFS=,; echo "${changed[*]}")"
set +e
timeout -k 30 "$limit_s" node_modules/.bin/stryker run --mutate "$mutate" --incrementalFile "$work/incremental.json"
rc=$?
set -e
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "mutate:glue: stopped after ${limit_s}s, not judged (run it by hand: bash test/mutation/mutate-changed.sh)"
  exit 0
fi
exit "$rc"
