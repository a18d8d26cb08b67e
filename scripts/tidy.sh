#!/usr/bin/env bash
# clang-tidy over the project's C++ sources with the committed .clang-tidy,
# against build/compile_commands.json (run `make build` first). Slow on two
# cores (minutes), so it is `make tidy`, not part of `make test`.
# Usage: scripts/tidy.sh [FILE...]   (default: every libtier/cli/daemon source)
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f build/compile_commands.json ]] || { echo "tidy: run 'make build' first" >&2; exit 2; }
if [[ $# -eq 0 ]]; then
  mapfile -t files < <(git ls-files -- 'libtier/*.cpp' 'cli/*.cpp' 'daemon/*.cpp' 'policies/*.cpp')
else
  files=("$@")
fi
clang-tidy -p build --quiet "${files[@]}"
