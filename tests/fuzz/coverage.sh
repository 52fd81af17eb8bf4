#!/bin/sh
# The coverage each harness reaches: as seeded (-runs=0 over a fresh seed
# corpus) and after a fixed number of runs from it (deterministic: -seed=1),
# the figures issue 15 asks for before and after a change.
#
#   sh tests/fuzz/coverage.sh [RUNS] build/fuzz/fuzz_<name> ...
#
# RUNS (default 100000) is the fixed run count; 0 skips that column. Prints
# one line per harness: seeds, cov and ft as seeded, cov and ft after RUNS.
# cov counts edges of the instrumented C; ft (features) also counts the Lua
# lines the Lua harnesses reach (lua_driver.c). A harness that crashes
# during the fixed runs shows "?" there: run it on the seeds to see why.
set -u
runs=${1:-100000}
case $runs in ''|*[!0-9]*) runs=100000 ;; *) shift ;; esac
printf '%-10s %6s  %14s  %14s\n' harness seeds "seeded cov/ft" "after $runs"
for fz in "$@"; do
    name=$(basename "$fz")
    fmt=${name#fuzz_}
    dir=$(mktemp -d)
    ./vpscript "tests/fuzz/seeds_$fmt.lua" "$dir" >/dev/null || { echo "$fmt: seed script failed"; continue; }
    n=$(ls "$dir" | wc -l | tr -d ' ')
    seeded=$("$fz" -runs=0 -print_final_stats=1 "$dir" 2>&1 | sed -n 's/.*DONE *cov: \([0-9]*\) ft: \([0-9]*\).*/\1\/\2/p' | tail -n 1)
    after=-
    if [ "$runs" -gt 0 ]; then
        after=$("$fz" -runs="$runs" -seed=1 -max_len=65536 -timeout=30 -print_final_stats=1 \
            -artifact_prefix="$dir/" "$dir" 2>&1 |
            sed -n 's/.*DONE *cov: \([0-9]*\) ft: \([0-9]*\).*/\1\/\2/p' | tail -n 1)
    fi
    printf '%-10s %6s  %14s  %14s\n' "$fmt" "$n" "${seeded:-?}" "${after:-?}"
    rm -rf "$dir"
done
