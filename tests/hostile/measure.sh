#!/bin/sh
# The resource table of issue 15: every script that reads a format, run on
# every crafted input of that format (tests/hostile/cases.lua), under GNU
# time. Prints one row per run: case, file MB, script and options, exit
# status, wall s, peak RSS MB, the budget (64 MB + 10 x the file) and
# whether the run kept to it.
#
#   sh tests/hostile/measure.sh [DIR] [CASE...]
#
# DIR (default build/hostile) receives the generated files; they are reused
# while present (delete them to regenerate). Each run is capped at
# $MEASURE_TIMEOUT seconds (300) and $MEASURE_VMEM_MB of address space
# (8192), so a run that would blow up shows as a failure instead of taking
# the machine down. Exits 1 when any row is over budget or failed.
set -u
dir=${1:-build/hostile}
[ $# -gt 0 ] && shift
bin=${VPSCRIPT_BIN:-./vpscript}
timeout_s=${MEASURE_TIMEOUT:-300}
vmem_mb=${MEASURE_VMEM_MB:-8192}
mkdir -p "$dir"

if [ $# -eq 0 ]; then
    set -- $("$bin" tests/hostile/gen.lua --list | awk '{print $1}')
fi

# The scripts that read each format (the rule files are the shipped examples).
runs_for() {
    case $1 in
    dlag) echo "info.lua|lag.lua|lag.lua --json|check.lua examples/rules/dlag.lua|compare.lua --json SELF" ;;
    devt) echo "info.lua|events.lua|events.lua --json|check.lua examples/rules/devt.lua|compare.lua --json SELF" ;;
    dm) echo "info.lua|movement.lua|movement.lua --json|check.lua examples/rules/dm.lua|compare.lua --json SELF" ;;
    dw) echo "info.lua|hitdiff.lua|hitdiff.lua --json|check.lua examples/rules/dw.lua|compare.lua --json SELF" ;;
    vprof) echo "info.lua|top.lua|hitches.lua|budget.lua --fold-hidden|check.lua RULES_NODE|compare.lua --json SELF" ;;
    txt|json) echo "info.lua|laige.lua" ;;
    esac
}

rules_node="$dir/rules_node.lua"
printf 'return { { metric = "node.d1.mean_ms", max = 1000, optional = true } }\n' >"$rules_node"

status=0
printf '%-24s %7s  %-34s %4s %8s %8s %8s %8s  %s\n' case "MB" script exit "wall s" "cpu s" "RSS MB" "budget" ok
for name in "$@"; do
    file=$(ls "$dir/$name".* 2>/dev/null | head -n 1)
    if [ -z "$file" ]; then
        "$bin" tests/hostile/gen.lua "$dir" "$name" >/dev/null || { status=1; continue; }
        file=$(ls "$dir/$name".* | head -n 1)
    fi
    ext=${file##*.}
    size=$(wc -c <"$file" | tr -d ' ')
    mb=$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }')
    budget=$(awk -v s="$size" 'BEGIN { printf "%.0f", 64 + 10 * s / 1048576 }')
    runs_for "$ext" | tr '|' '\n' | while IFS= read -r run; do
        [ -n "$run" ] || continue
        cmd=$(printf '%s' "$run" | sed "s#RULES_NODE#$rules_node#")
        script=${cmd%% *}
        rest=${cmd#"$script"}
        case $rest in
        *SELF*) args=$(printf '%s' "$rest" | sed "s#SELF#$file $file#") ;;
        *check.lua*|*examples/rules*|*rules_node*) args="$rest $file" ;;
        *) args="$rest $file" ;;
        esac
        # check.lua takes RULES before the capture: "check.lua RULES" + file.
        tfile=$(mktemp)
        ( ulimit -v $((vmem_mb * 1024)); timeout "$timeout_s" /usr/bin/time -f '%e %U %S %M' -o "$tfile" \
            "$bin" "scripts/$script" $args >/dev/null 2>"$tfile.err" )
        rc=$?
        wall=$(awk 'END { print $1 }' "$tfile")
        rss=$(awk 'END { printf "%.0f", $4 / 1024 }' "$tfile")
        cpu=$(awk 'END { printf "%.2f", $2 + $3 }' "$tfile")
        ok=yes
        # 0 success, 3 a failed gate: both are answers; anything else is not.
        if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then ok="NO (exit $rc: $(head -c 120 "$tfile.err" | tr '\n' ' '))"; fi
        if [ "${rss:-0}" -gt "$budget" ]; then ok="NO (over budget)"; fi
        printf '%-24s %7s  %-34s %4s %8s %8s %8s %8s  %s\n' "$name" "$mb" "$run" "$rc" "$wall" "$cpu" "$rss" "$budget" "$ok"
        rm -f "$tfile" "$tfile.err"
        case $ok in NO*) echo fail >>"$dir/.failed" ;; esac
    done
done
if [ -f "$dir/.failed" ]; then
    rm -f "$dir/.failed"
    status=1
fi
exit $status
