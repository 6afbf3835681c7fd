#!/bin/sh
# test.sh - set up, build under ASan+UBSan, check formatting, layering and
# that no library symbol is exported for nobody (check-exports.sh),
# run every libFuzzer target for a fixed budget (FUZZ_SECONDS each, default
# 3; 0 skips), then the whole test suite. The last line is ctest's summary.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh --asan --clients
scripts/check-format.sh
scripts/check-layers.sh
scripts/check-exports.sh build/asan
fuzz_s=${FUZZ_SECONDS:-3}
[ "$fuzz_s" = 0 ] || scripts/fuzz.sh "$fuzz_s" > /dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd build/asan
ctest --output-on-failure -j2 "$@"
