#!/bin/sh
# make bench / make bench-huge: vpscript against the floor and cat on large
# VProf captures, one table per capture shape.
#
#   sh bench/run.sh [SHAPE...]     shapes: wide long exports report (make bench), huge (make bench-huge)
#
#   wide   300,000 frames x 1,000 nodes (about 1 GB), a spike every 4,999 frames
#   long   732,000 frames x 117 nodes (about 290 MB), a spike every 500 frames:
#          a long session of short frames with 1,464 hitches
#   exports the wide capture exported to every target (output to /dev/null:
#          chrome alone is about 77 GB) and drawn by report.lua
#   report 100,000 frames x 1,000 nodes (about 330 MB), a spike every 4,999
#          frames: report.lua's page against its targets (at most 3 s to
#          write, 150 MB of peak RSS and 5 MB of page; interactive in
#          Chromium in under 2 s: tools/consumers/open_time.mjs)
#   huge   1,250,000 frames x 1,000 nodes (about 4.1 GB), generated, measured
#          (hitches.lua and budget.lua) and deleted
#
# The sizes can be changed: BENCH_WIDE="FRAMES NODES SPIKE_EVERY", likewise
# BENCH_LONG, BENCH_REPORT and BENCH_HUGE. Captures are written to bench/data/ by
# build/bench/gen_vprof (deterministic: reused while the generator and the
# parameters are unchanged; never committed). The page cache is warmed, so
# every contender reads from memory. Each contender runs BENCH_RUNS times
# (default 3) under GNU time (/usr/bin/time -f '%e %U %S %M'); the table
# shows the median wall and CPU (user + sys) time and the largest peak RSS:
#   cat       cat FILE >/dev/null: reading the bytes, nothing else
#   floor     build/bench/floor FILE: the minimal C decode loop (read() into
#             one buffer, every timing record decoded and summed, nothing kept)
#   floor+groups  build/bench/floor_groups FILE: the floor plus the
#             arithmetic of budget.lua's question done the plain way (the
#             tree kept, self times, each group's per-frame sum counted)
#   open      vpscript bench/open_only.lua FILE: vp.open alone (the one pass)
#   open+stats  vpscript bench/open_only.lua FILE --stats: the open pass with
#             every statistic compare.lua reads of a capture
#   hitches   vpscript scripts/hitches.lua FILE --json (with causes)
#   budget    vpscript scripts/budget.lua FILE --json
#   top       vpscript scripts/top.lua FILE --json
#   compare   vpscript scripts/compare.lua FILE FILE --json (the capture against itself)
#   check     vpscript scripts/check.lua examples/rules/vprof.lua FILE --json
#             (exit 3, a failed rule, counts as a run: it is the gate's answer)
#   check-baseline  vpscript scripts/check.lua examples/rules/vprof_regress.lua
#             --baseline FILE FILE --json (the regression rules, tested; the
#             capture against itself must pass: exit 3 is FAILED)
#   targets   after compare and check-baseline: that row against the
#             verdicts' targets (verdict_targets below)
#   export-T  vpscript scripts/export.lua FILE --to T -o /dev/null
#   report    vpscript scripts/report.lua FILE -o build/bench/wide-report.html
# "x floor" is wall time over the floor's, "cpu x" CPU time over the floor's;
# GB/s is file bytes / wall time. On a shared machine wall time is noisy:
# compare CPU time too, and state the load (printed with each table).
# A run that fails is reported as FAILED with its stderr in
# build/bench/<shape>-<what>.err; the run goes on.
set -u
cd "$(dirname "$0")/.." || exit 1

B=build/bench
data=bench/data
runs=${BENCH_RUNS:-3}
mkdir -p "$B" "$data"

if [ ! -x "$B/gen_vprof" ] || [ ! -x "$B/floor" ] || [ ! -x "$B/floor_groups" ] || [ ! -x ./vpscript ]; then
    make -s vpscript "$B/gen_vprof" "$B/floor" "$B/floor_groups" || exit 1
fi
if [ ! -x /usr/bin/time ]; then
    echo "bench: needs GNU time (/usr/bin/time; Debian package 'time')" >&2
    exit 1
fi

# gen SHAPE FRAMES NODES SPIKE: make bench/data/SHAPE.vprof unless it is current.
gen() {
    file=$data/$1.vprof
    stamp=$data/$1.params
    want="frames=$2 nodes=$3 spike=$4"
    if [ -f "$file" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
       [ -n "$(find "$file" -newer "$B/gen_vprof")" ]; then
        echo "bench: reusing $file ($want)"
    else
        echo "bench: generating $file ($want)"
        rm -f "$stamp"
        "$B/gen_vprof" "$file" "$2" "$3" "$4" || exit 1
        echo "$want" >"$stamp"
    fi
}

# run SHAPE NAME EXTRA_OK DESCRIPTION CMD...: time CMD $runs times, print one row.
run() {
    shape=$1
    name=$2
    okcode=$3
    desc=$4
    shift 4
    out="$B/$shape-$name.time"
    err="$B/$shape-$name.err"
    : >"$out"
    i=0
    while [ "$i" -lt "$runs" ]; do
        /usr/bin/time -a -o "$out" -f '%e %U %S %M %x' "$@" >"$B/$shape-$name.out" 2>"$err"
        i=$((i + 1))
    done
    # The exit status is the last field; a line "Command exited with ..." may precede it.
    if ! awk -v ok="$okcode" '$1 ~ /^[0-9.]+$/ && ($5 == 0 || $5 == ok) { n++ } END { exit n == 0 }' "$out"; then
        printf '%-17s %8s %8s %12s %7s %8s %8s  %s (see %s)\n' "$name" FAILED - - - - - "$desc" "$err"
        wall=""
        rss=""
        return
    fi
    set -- $(awk 'BEGIN { n = 0; m = 0 } $1 ~ /^[0-9.]+$/ { w[n] = $1; c[n] = $2 + $3; if ($4 > m) m = $4; n++ }
        END {
            for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) {
                if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t }
                if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t }
            }
            printf "%.2f %.2f %.1f\n", w[int(n / 2)], c[int(n / 2)], m / 1024
        }' "$out")
    wall=$1
    cpu=$2
    rss=$3
    gbs=$(awk -v b="$bytes" -v s="$wall" 'BEGIN { if (s > 0) printf "%.2f", b / s / 1e9; else print "inf" }')
    if [ "$name" = floor ]; then floor_s=$wall; floor_cpu=$cpu; fi
    if [ "$name" = open+stats ]; then read_s=$wall; fi
    ratio=$(awk -v s="$wall" -v f="${floor_s:-0}" 'BEGIN { if (f > 0) printf "%.2f", s / f; else print "-" }')
    cratio=$(awk -v s="$cpu" -v f="${floor_cpu:-0}" 'BEGIN { if (f > 0) printf "%.2f", s / f; else print "-" }')
    printf '%-17s %8s %8s %12s %7s %8s %8s  %s\n' "$name" "$wall" "$cpu" "$rss" "$gbs" "$ratio" "$cratio" "$desc"
}

# report_targets SHAPE: the page report.lua wrote (the row before) against
# the targets, and the time Chromium takes to make it interactive.
report_targets() {
    page="$B/$1-report.html"
    pbytes=$(wc -c <"$page" | tr -d ' ')
    awk -v w="$wall" -v r="$rss" -v b="$pbytes" 'BEGIN {
        printf "%-17s write %s s (<= 3 s: %s), peak RSS %s MB (<= 150 MB: %s), page %.2f MB (<= 5 MB: %s)\n",
            "report targets", w, (w <= 3 ? "ok" : "OVER"), r, (r <= 150 ? "ok" : "OVER"), b / 1e6,
            (b <= 5e6 ? "ok" : "OVER") }'
    if [ -x "${CHROMIUM:-/usr/bin/chromium}" ] && [ -d tools/consumers/node_modules ]; then
        printf '%-17s %s\n' "report in chromium" "$(node tools/consumers/open_time.mjs "$page" "$runs" 2>&1)"
    else
        printf '%-17s %s\n' "report in chromium" "skipped: no Chromium or no tools/consumers/node_modules (make deps)"
    fi
}

# verdict_targets: the row before (compare.lua or check --baseline, a
# capture against itself) against the verdicts' targets: peak RSS under
# 100 MB, and at most 3 x the open+stats row, the read of one capture with
# every statistic a comparison takes. The ratio to the floor is printed for
# the record: the budget arithmetic alone (floor+groups) costs 2.1 to 3.2 x
# the floor and that read 4.3 to 6.2 x, so 3 x the floor cannot be held
# (BENCHMARKS.md, "What a comparison cannot do without").
verdict_targets() {
    if [ -z "$wall" ]; then
        printf '%-17s %s\n' targets "not measured: the run failed"
        return
    fi
    awk -v w="$wall" -v r="$rss" -v f="${floor_s:-0}" -v o="${read_s:-0}" 'BEGIN {
        xr = o > 0 ? w / o : -1
        printf "%-17s %.2f x its read (open+stats; <= 3: %s), peak RSS %s MB (< 100 MB: %s), %.1f x the floor\n",
            "targets", xr, (xr >= 0 && xr <= 3 ? "ok" : "OVER"), r, (r < 100 ? "ok" : "OVER"),
            (f > 0 ? w / f : 0) }'
}

# bench SHAPE FRAMES NODES SPIKE SCRIPTS...: one table.
bench() {
    shape=$1
    gen "$shape" "$2" "$3" "$4"
    shift 4
    file=$data/$shape.vprof
    bytes=$(wc -c <"$file" | tr -d ' ')
    cat "$file" >/dev/null
    cat "$file" >/dev/null
    floor_s=""
    floor_cpu=""
    read_s=""
    echo
    printf 'bench %s: %s, %s bytes, %s; load %s; median of %s runs\n' "$shape" "$file" "$bytes" \
        "$(uname -m) $(nproc 2>/dev/null || echo '?') cpu" \
        "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" "$runs"
    printf '%-17s %8s %8s %12s %7s %8s %8s  %s\n' "what" "wall s" "cpu s" "peak RSS MB" "GB/s" \
        "x floor" "cpu x" "command"
    run "$shape" cat 0 "cat FILE >/dev/null" cat "$file"
    run "$shape" floor 0 "build/bench/floor FILE (minimal C decode loop)" "$B/floor" "$file"
    for s in "$@"; do
        case $s in
        floor-groups) run "$shape" floor+groups 0 "build/bench/floor_groups FILE (the floor and budget's arithmetic)" \
            "$B/floor_groups" "$file" ;;
        open) run "$shape" open 0 "vpscript bench/open_only.lua FILE (vp.open alone)" \
            ./vpscript bench/open_only.lua "$file" ;;
        open-stats) run "$shape" open+stats 0 "vpscript bench/open_only.lua FILE --stats (compare's read)" \
            ./vpscript bench/open_only.lua "$file" --stats ;;
        compare) run "$shape" compare 0 "vpscript scripts/compare.lua FILE FILE --json" \
            ./vpscript scripts/compare.lua "$file" "$file" --json
            verdict_targets ;;
        export-*) run "$shape" "$s" 0 "vpscript scripts/export.lua FILE --to ${s#export-} -o /dev/null" \
            ./vpscript scripts/export.lua "$file" --to "${s#export-}" -o /dev/null ;;
        report) run "$shape" report 0 "vpscript scripts/report.lua FILE -o $B/$shape-report.html" \
            ./vpscript scripts/report.lua "$file" -o "$B/$shape-report.html" ;;
        report-targets) report_targets "$shape" ;;
        check) run "$shape" check 3 "vpscript scripts/check.lua examples/rules/vprof.lua FILE --json" \
            ./vpscript scripts/check.lua examples/rules/vprof.lua "$file" --json ;;
        check-baseline) run "$shape" check-baseline 0 \
            "vpscript scripts/check.lua examples/rules/vprof_regress.lua --baseline FILE FILE --json" \
            ./vpscript scripts/check.lua examples/rules/vprof_regress.lua --baseline "$file" "$file" --json
            verdict_targets ;;
        *) run "$shape" "$s" 0 "vpscript scripts/$s.lua FILE --json" ./vpscript "scripts/$s.lua" "$file" --json ;;
        esac
    done
}

[ $# -gt 0 ] || set -- wide long exports report
for shape in "$@"; do
    case $shape in
    wide)
        # shellcheck disable=SC2086
        bench wide ${BENCH_WIDE:-300000 1000 4999} floor-groups open open-stats hitches budget top compare check check-baseline ;;
    long)
        # shellcheck disable=SC2086
        bench long ${BENCH_LONG:-732000 117 500} floor-groups open open-stats hitches budget top compare check check-baseline ;;
    exports)
        # shellcheck disable=SC2086
        bench wide ${BENCH_WIDE:-300000 1000 4999} export-folded export-csv export-presentmon report \
            export-speedscope export-chrome ;;
    report)
        # shellcheck disable=SC2086
        bench report ${BENCH_REPORT:-100000 1000 4999} report report-targets ;;
    huge)
        # shellcheck disable=SC2086
        bench huge ${BENCH_HUGE:-1250000 1000 4999} floor-groups open hitches budget
        rm -f "$data/huge.vprof" "$data/huge.params" ;;
    *)
        echo "bench: unknown shape '$shape' (wide, long, exports, report, huge)" >&2
        exit 2 ;;
    esac
done
echo
echo "bench: outputs and stderr in $B/<shape>-<what>.out and .err"
