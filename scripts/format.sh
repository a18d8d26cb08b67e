#!/usr/bin/env bash
# clang-format every C/C++ source of the project (generated code excluded).
# Usage: scripts/format.sh [--check]   (--check: list unformatted files, exit 1)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.c' ':!:tests/fixtures/**')
if [[ "${1:-}" == "--check" ]]; then
  bad=()
  for f in "${files[@]}"; do
    [[ -f "$f" ]] || continue
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [[ ${#bad[@]} -gt 0 ]]; then
    printf 'not clang-formatted (run `make format`):\n'; printf '  %s\n' "${bad[@]}"
    exit 1
  fi
  echo "format-check: ${#files[@]} files clean"
else
  clang-format -i "${files[@]}"
fi
