#!/bin/sh
# Install what vpscript needs from Debian's packages, and nothing when all of
# it is present. Says what it does; uses sudo when not root.
set -eu
# python3 drives the REPL tests through a pseudo-terminal; GNU time is what
# make bench measures with; lua-expat parses the JUnit XML in the tests.
pkgs="gcc make liblua5.4-dev lua5.4 lua-filesystem lua-cjson lua-busted lua-check lua-expat libreadline-dev clang libclang-rt-dev pkg-config python3 time"
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
