#!/usr/bin/env bash
# Runs the plugin's tests in headless Neovim against the real taskline server
# ($TASKLINE_SERVER, default <repo>/.build/debug/taskline). Prints one line per
# test, then "N passed, N failed"; exits non-zero on any failure.
set -euo pipefail

test_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
plugin_dir="$(dirname "$test_dir")"
repo_dir="$(cd "$plugin_dir/../.." && pwd)"
export TASKLINE_SERVER="${TASKLINE_SERVER:-$repo_dir/.build/debug/taskline}"

exec timeout 300 nvim --headless -u NONE -i NONE -n \
  --cmd "set runtimepath^=$plugin_dir" \
  -c "luafile $test_dir/taskline_spec.lua"
