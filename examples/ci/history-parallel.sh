#!/bin/sh
# examples/ci/history-parallel.sh: the nightly job's per-capture step spread
# over build hosts with GNU parallel, then every capture's points added to
# the history in one step (docs/history.md).
#
#   HOSTS=4/build1,4/build2 COMMIT=$GITHUB_SHA DB=history.db sh history-parallel.sh CAPTURE_DIR
#
# Each job sends one capture to a host (--transferfile), measures it there
# (history.lua points), and brings back its NDJSON shard (--return), written
# under another name and renamed only when complete, so a job cut short
# returns nothing (and leaves nothing on the host). A failed job is tried again on another host (--retries);
# running the script again after a failure redoes only the failed jobs
# (--joblog with --resume-failed). Adding is idempotent (each capture is
# its SHA-256), so a shard added twice adds nothing the second time.
#   HOSTS    parallel's --sshlogin list ("N/host,..."; ":" is this machine)
#   DB       the history store (an SQLite file or postgresql://...)
#   COMMIT, BRANCH, PLATFORM, SCENARIO   the points' metadata (history.lua add --help)
#   POINTS_OPTS  more options for history.lua points (--match PATTERN, ...)
#   VPSCRIPT the vpscript on the hosts (default: vpscript); SSH the ssh command
# Exit status: parallel's (the number of jobs that failed every try) when
# not 0, else add's; what came back is added either way.
set -eu
dir=${1:?usage: history-parallel.sh CAPTURE_DIR}
: "${HOSTS:?HOSTS: the hosts, as parallel --sshlogin takes them}" "${DB:?DB: the history store}"
VPSCRIPT=${VPSCRIPT:-vpscript}
meta=""
for v in COMMIT BRANCH PLATFORM SCENARIO; do
    eval "val=\${$v:-}"
    # shellcheck disable=SC2154
    [ -z "$val" ] || meta="$meta --$(echo "$v" | tr 'A-Z' 'a-z') '$val'"
done
cd "$dir"
# parallel hands each job to the shell that $SHELL names here unless
# PARALLEL_SHELL names one; a CI runner often has no $SHELL, and then every
# job exits 0 having run nothing. The job is POSIX sh.
status=0
ls -- *.vprof | PARALLEL_SHELL=/bin/sh parallel --ssh "${SSH:-ssh}" --sshlogin "$HOSTS" \
    --transferfile {} --return {.}.ndjson --cleanup \
    --joblog jobs.log --resume-failed --retries 3 \
    "$VPSCRIPT history.lua points $meta ${POINTS_OPTS:-} {} >{.}.ndjson.part && mv {.}.ndjson.part {.}.ndjson ||
    { rm -f {.}.ndjson.part; exit 1; }" ||
    status=$?
"$VPSCRIPT" history.lua add --db "$DB" --from-json .
exit "$status"
