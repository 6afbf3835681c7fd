#!/bin/sh
# fuzz.sh - build the libFuzzer targets (clang, ASan+UBSan) in build/fuzz and
# run each for a fixed budget, starting from its committed corpus.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   default: 10 s each, every target
#
# New inputs libFuzzer finds go to build/fuzz/corpus/<target>/ (merge the
# interesting ones into fuzz/corpus/<target>/ by hand, small); a crash
# leaves its input as build/fuzz/crash-* and the script exits 1. Add a
# crash's input to fuzz/corpus/<target>/ with the fix: the normal test
# suite runs every target over its corpus (ctest fuzz/...).
set -eu
cd "$(dirname "$0")/.."
budget=${1:-10}
[ $# -eq 0 ] || shift
command -v clang > /dev/null || {
    echo "fuzz.sh: clang not found (scripts/setup.sh installs it)" >&2
    exit 2
}
if [ ! -f build/fuzz/build.ninja ]; then
    cmake -S . -B build/fuzz -G Ninja -DCMAKE_C_COMPILER=clang \
        -DCMAKE_BUILD_TYPE=Debug -DAIRSPACE_FUZZ=ON -DAIRSPACE_SANITIZE=ON >&2
fi
targets=$*
[ -n "$targets" ] || targets=$(cd fuzz && ls fuzz_*.c | sed 's/\.c$//')
# shellcheck disable=SC2086
cmake --build build/fuzz --target $targets >&2
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
failed=0
for t in $targets; do
    name=${t#fuzz_}
    mkdir -p "build/fuzz/corpus/$name"
    echo "fuzz.sh: $t for $budget s" >&2
    if ! (cd build/fuzz && "./$t" -max_total_time="$budget" -timeout=10 \
        -rss_limit_mb=4096 -print_final_stats=1 \
        "corpus/$name" "../../fuzz/corpus/$name" 2> "$t.log"); then
        echo "fuzz.sh: $t FAILED (build/fuzz/$t.log):" >&2
        tail -30 "build/fuzz/$t.log" >&2
        failed=1
    else
        grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "build/fuzz/$t.log" | tail -2 >&2 || true
    fi
done
exit $failed
