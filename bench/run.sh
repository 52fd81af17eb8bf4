#!/bin/sh
# make bench: vpscript against the floor on one large VProf capture.
#
#   sh bench/run.sh [FRAMES [NODES]]       (defaults 300000 1000, about 1 GB)
#
# Generates bench/data/big.vprof with build/bench/gen_vprof (skipped when the
# file exists and was made by the same generator with the same FRAMES and
# NODES), warms the page cache, then runs each contender once and prints
# wall time, CPU time (user + sys) and peak RSS (GNU time: %e %U %S %M) side
# by side:
#   cat         cat FILE >/dev/null: reading the bytes, nothing else
#   floor       build/bench/floor: the minimal C decode loop (every timing
#               record decoded and summed, no tree, no index)
#   open        vp.open alone (bench/open_only.lua): the frame index build
#   hitches     ./vpscript scripts/hitches.lua FILE --json
#   budget      ./vpscript scripts/budget.lua FILE --json
# "x floor" is wall time over the floor's, "cpu x" CPU time over the floor's;
# GB/s is file bytes / wall time.
# On a shared machine wall time is noisy: compare CPU time too.
# A script that does not exist yet is reported as "missing", one that fails
# as "FAILED" with its stderr in build/bench/<name>.err; the run goes on.
set -u

frames=${1:-300000}
nodes=${2:-1000}
cd "$(dirname "$0")/.." || exit 1

B=build/bench
data=bench/data
file=$data/big.vprof
stamp=$data/big.params
mkdir -p "$B" "$data"

if [ ! -x "$B/gen_vprof" ] || [ ! -x "$B/floor" ] || [ ! -x ./vpscript ]; then
    make -s vpscript "$B/gen_vprof" "$B/floor" || exit 1
fi
if [ ! -x /usr/bin/time ]; then
    echo "bench: needs GNU time (/usr/bin/time; Debian package 'time')" >&2
    exit 1
fi

want="frames=$frames nodes=$nodes"
if [ -f "$file" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
   [ -n "$(find "$file" -newer "$B/gen_vprof")" ]; then
    echo "bench: reusing $file ($want)"
else
    echo "bench: generating $file ($want)"
    rm -f "$stamp"
    "$B/gen_vprof" "$file" "$frames" "$nodes" || exit 1
    echo "$want" >"$stamp"
fi
bytes=$(wc -c <"$file" | tr -d ' ')

# Warm the page cache so every contender reads from memory.
cat "$file" >/dev/null
cat "$file" >/dev/null

floor_s=""
floor_cpu=""
echo
printf 'bench: %s, %s bytes (%s frames x %s nodes), %s\n' "$file" "$bytes" "$frames" "$nodes" \
    "$(uname -m) $(nproc 2>/dev/null || echo '?') cpu"
printf '%-10s %8s %8s %12s %7s %8s %8s  %s\n' "what" "wall s" "cpu s" "peak RSS MB" "GB/s" "x floor" "cpu x" "command"

# run NAME DESCRIPTION CMD...: time CMD, print one row.
run() {
    name=$1
    desc=$2
    shift 2
    out="$B/$name.time"
    err="$B/$name.err"
    if /usr/bin/time -o "$out" -f '%e %U %S %M' "$@" >"$B/$name.out" 2>"$err"; then
        read -r wall user sys rss_kb <"$out"
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
        rss_mb=$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')
        gbs=$(awk -v b="$bytes" -v s="$wall" 'BEGIN { if (s > 0) printf "%.2f", b / s / 1e9; else print "inf" }')
        if [ "$name" = floor ]; then floor_s=$wall; floor_cpu=$cpu; fi
        ratio=$(awk -v s="$wall" -v f="${floor_s:-0}" 'BEGIN { if (f > 0) printf "%.2f", s / f; else print "-" }')
        cratio=$(awk -v s="$cpu" -v f="${floor_cpu:-0}" 'BEGIN { if (f > 0) printf "%.2f", s / f; else print "-" }')
        printf '%-10s %8s %8s %12s %7s %8s %8s  %s\n' "$name" "$wall" "$cpu" "$rss_mb" "$gbs" "$ratio" "$cratio" "$desc"
    else
        rc=$?
        printf '%-10s %8s %8s %12s %7s %8s %8s  %s (exit %s, see %s)\n' "$name" FAILED - - - - - "$desc" "$rc" "$err"
    fi
}

# run_script NAME: a shipped script, or "missing" when it is not there yet.
run_script() {
    if [ -f "scripts/$1.lua" ]; then
        run "$1" "vpscript scripts/$1.lua FILE --json" ./vpscript "scripts/$1.lua" "$file" --json
    else
        printf '%-10s %8s %8s %12s %7s %8s %8s  %s\n' "$1" missing - - - - - "scripts/$1.lua does not exist yet"
    fi
}

run cat "cat FILE >/dev/null" cat "$file"
run floor "build/bench/floor FILE (minimal C decode loop)" "$B/floor" "$file"
run open "vpscript bench/open_only.lua FILE (vp.open: index build)" ./vpscript bench/open_only.lua "$file"
run_script hitches
run_script budget
echo
echo "bench: outputs and stderr in $B/<what>.out and .err"
