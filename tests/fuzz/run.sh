#!/bin/sh
# Run libFuzzer harnesses for a fixed time each.
#
#   sh tests/fuzz/run.sh FUZZ_TIME build/fuzz/fuzz_<fmt> ...
#
# For each harness: the corpus lives in build/fuzz/corpus_<fmt> (kept between
# runs, so coverage accumulates); when tests/fuzz/seeds_<fmt>.lua exists it
# is run first as `./vpscript tests/fuzz/seeds_<fmt>.lua CORPUS` to write
# valid (and deliberately broken) captures into the corpus. The fuzzer's own
# output goes to build/fuzz/<fmt>.log; on a crash, leak or timeout its tail
# is printed, the input is kept as build/fuzz/crash_<fmt>-*, and the script
# exits 1 after running the remaining harnesses.
set -u

if [ $# -lt 1 ]; then
    echo "usage: sh tests/fuzz/run.sh FUZZ_TIME fuzzer..." >&2
    exit 2
fi
time_s=$1
shift
case $time_s in
    ''|*[!0-9]*) echo "fuzz: FUZZ_TIME must be a whole number of seconds, got '$time_s'" >&2; exit 2 ;;
esac
if [ $# -eq 0 ]; then
    echo "fuzz: no harnesses to run"
    exit 0
fi

status=0
for fz in "$@"; do
    name=$(basename "$fz")
    fmt=${name#fuzz_}
    dir=$(dirname "$fz")
    corpus="$dir/corpus_$fmt"
    log="$dir/$fmt.log"
    if [ ! -x "$fz" ]; then
        echo "fuzz $fmt: FAILED, harness $fz is missing (build it with make)"
        status=1
        continue
    fi
    mkdir -p "$corpus"
    seeds="tests/fuzz/seeds_$fmt.lua"
    if [ -f "$seeds" ]; then
        if ! ./vpscript "$seeds" "$corpus"; then
            echo "fuzz $fmt: FAILED, seed script $seeds failed"
            status=1
            continue
        fi
    fi
    "$fz" -max_total_time="$time_s" -max_len=65536 -rss_limit_mb=1024 -timeout=10 \
        -artifact_prefix="$dir/crash_$fmt-" "$corpus" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$log" | tail -n 1)
    files=$(find "$corpus" -type f | wc -l | tr -d ' ')
    if [ $rc -ne 0 ]; then
        tail -n 40 "$log"
        crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        echo "fuzz $fmt: FAILED (exit $rc), input kept as ${crash:-?}, full log $log"
        status=1
    else
        echo "fuzz $fmt: ok, ${runs:-? runs}, corpus $files files"
    fi
done
exit $status
