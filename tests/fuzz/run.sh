#!/bin/sh
# Run libFuzzer harnesses for a fixed time each.
#
#   sh tests/fuzz/run.sh FUZZ_TIME build/fuzz/fuzz_<fmt> ...
#   FUZZ_MODE=long sh tests/fuzz/run.sh FUZZ_TIME ...     (make fuzz-long)
#
# Input sizes: the short runs (make test, make fuzz) cap inputs at 64 KiB.
# A long run lets each harness grow inputs to the size its quadratic cases
# need (issue 15): VProf and the bindings up to 2 MiB (a 100,000-deep node
# chain is 1.8 MB), the laige readers 2 MiB (lines of 100 KB and more), the
# binary traces 1 MiB (records with 255-element blocks), detection 64 KiB
# (it reads a head); a run is a failure when one input takes more than
# -timeout (10 s short, 30 s long) or 2 GiB. FUZZ_MAX_LEN overrides the
# size for every harness.
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
mode=${FUZZ_MODE:-short}
case $mode in
    short) timeout_s=10; rss_mb=1024 ;;
    long) timeout_s=30; rss_mb=2048 ;;
    *) echo "fuzz: FUZZ_MODE must be short or long, got '$mode'" >&2; exit 2 ;;
esac

# The largest input a harness may build in this mode.
max_len_for() {
    if [ -n "${FUZZ_MAX_LEN:-}" ]; then echo "$FUZZ_MAX_LEN"; return; fi
    if [ "$mode" = short ]; then echo 65536; return; fi
    case $1 in
        vprof|bindings|laige) echo 2097152 ;;
        detect) echo 65536 ;;
        *) echo 1048576 ;;
    esac
}
case $time_s in
    ''|*[!0-9]*) echo "fuzz: FUZZ_TIME must be a whole number of seconds, got '$time_s'" >&2; exit 2 ;;
esac
if [ $# -eq 0 ]; then
    echo "fuzz: no harnesses to run"
    exit 0
fi

# Harnesses run FUZZ_JOBS at a time (default: the processors online), each
# for FUZZ_TIME seconds on a processor of its own; their lines come as each
# ends, and the status is that of all of them.
jobs=${FUZZ_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case $jobs in
    ''|*[!0-9]*|0) echo "fuzz: FUZZ_JOBS must be a positive whole number, got '$jobs'" >&2; exit 2 ;;
esac

# One harness: seeds, the run, its line; exits 1 on a failure.
run_one() {
    fz=$1
    name=$(basename "$fz")
    fmt=${name#fuzz_}
    dir=$(dirname "$fz")
    corpus="$dir/corpus_$fmt"
    log="$dir/$fmt.log"
    if [ ! -x "$fz" ]; then
        echo "fuzz $fmt: FAILED, harness $fz is missing (build it with make)"
        return 1
    fi
    mkdir -p "$corpus"
    seeds="tests/fuzz/seeds_$fmt.lua"
    if [ -f "$seeds" ]; then
        if ! ./vpscript "$seeds" "$corpus"; then
            echo "fuzz $fmt: FAILED, seed script $seeds failed"
            return 1
        fi
    fi
    "$fz" -max_total_time="$time_s" -max_len="$(max_len_for "$fmt")" -rss_limit_mb="$rss_mb" \
        -timeout="$timeout_s" -print_final_stats=1 -artifact_prefix="$dir/crash_$fmt-" "$corpus" \
        >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$log" | tail -n 1)
    cov=$(sed -n 's/.*DONE *cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1, ft \2/p' "$log" | tail -n 1)
    files=$(find "$corpus" -type f | wc -l | tr -d ' ')
    if [ $rc -ne 0 ]; then
        crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        { tail -n 40 "$log"; echo "fuzz $fmt: FAILED (exit $rc), input kept as ${crash:-?}, full log $log"; }
        return 1
    fi
    echo "fuzz $fmt: ok, ${runs:-? runs}, ${cov:-cov ?}, corpus $files files"
}

status=0
pids=""
running=0
for fz in "$@"; do
    run_one "$fz" &
    pids="$pids $!"
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
        for p in $pids; do wait "$p" || status=1; done
        pids=""
        running=0
    fi
done
for p in $pids; do wait "$p" || status=1; done
exit $status
