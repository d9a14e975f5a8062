#!/usr/bin/env bash
# Runs the package's ERT tests in batch Emacs against the real taskline server
# ($TASKLINE_SERVER, default <repo>/.build/debug/taskline). Prints ERT's report,
# then "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

test_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package_dir="$(dirname "$test_dir")"
repo_dir="$(cd "$package_dir/../.." && pwd)"
export TASKLINE_SERVER="${TASKLINE_SERVER:-$repo_dir/.build/debug/taskline}"
# Due dates are dates in UTC: the expected "in 3 days" must not depend on the time zone.
export TZ=UTC

output="$(mktemp)"
trap 'rm -f "$output"' EXIT
timeout 300 emacs -batch -Q -L "$package_dir" -l "$test_dir/taskline-test.el" \
    -f ert-run-tests-batch-and-exit 2>&1 | tee "$output"
status=${PIPESTATUS[0]}

# ERT ends with "Ran N tests, N results as expected, N unexpected".
summary="$(grep -Eo 'Ran [0-9]+ tests?, [0-9]+ results? as expected, [0-9]+ unexpected' "$output" | tail -n 1)"
if [[ -n "$summary" ]]; then
    read -r passed failed < <(echo "$summary" | sed -E 's/Ran [0-9]+ tests?, ([0-9]+) results? as expected, ([0-9]+) unexpected/\1 \2/')
else
    passed=0
    failed=1 # Emacs stopped before ERT's report
fi
echo "$passed passed, $failed failed"
((status == 0 && failed == 0))
