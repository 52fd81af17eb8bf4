#!/bin/sh
# Install what vpscript needs from Debian's packages, and nothing when all of
# it is present. Says what it does; uses sudo when not root.
#
#   sh tools/deps.sh run     what building and running need (make deps, make run)
#   sh tools/deps.sh test    that, and what the tests need (make test-deps, make test)
#   sh tools/deps.sh TIER --list   the packages of TIER, one a line, installing nothing
set -eu
tier=${1:-}
case $tier in
    run | test) ;;
    *) echo "usage: sh tools/deps.sh run|test [--list]" >&2; exit 2 ;;
esac
# Running: a C compiler and make, Lua 5.4's library and headers (found with
# pkg-config), readline (the REPL) and lua-filesystem (vp.multi walks
# directories with it).
pkgs="gcc make pkg-config liblua5.4-dev libreadline-dev lua-filesystem"
# history.lua's store: LuaDBI's SQLite driver (the default, embedded) and
# its PostgreSQL driver (--store postgresql://..., a team's server).
pkgs="$pkgs lua-dbi-sqlite3 lua-dbi-postgresql"
if [ "$tier" = test ]; then
    # lua5.4: the stock interpreter the installed modules serve; lua-cjson
    # reads our JSON back as a reader nobody here wrote, lua-expat the JUnit
    # XML; busted and luacheck; clang for make lint and the fuzzers; python3
    # drives the REPL tests through a pseudo-terminal; GNU time is what the
    # resource specs and make bench measure with.
    pkgs="$pkgs lua5.4 lua-cjson lua-busted lua-check lua-expat clang libclang-rt-dev python3 time"
    # make consumers: node runs the independent readers of our exports (npm
    # packages, tools/consumers); Debian's chromium renders the report and
    # runs speedscope's app. A node that came from elsewhere is kept.
    command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
    pkgs="$pkgs chromium"
    # history.lua's specs: a PostgreSQL server the spec starts and stops
    # itself, and GNU parallel with rsync for the many-hosts recipe.
    pkgs="$pkgs postgresql parallel rsync"
fi
if [ "${2:-}" = --list ]; then
    echo "$pkgs" | tr ' ' '\n'
    exit 0
fi
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ -n "$missing" ]; then
    echo "deps: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    # chromium is the one optional package: without it the browser tests of
    # make consumers say they are skipped
    required=$(echo "$missing" | tr ' ' '\n' | grep -vx chromium || true)
    # shellcheck disable=SC2086
    [ -z "$required" ] || $SUDO apt-get install -y -qq --no-install-recommends $required >&2
    case " $missing " in *" chromium "*)
        $SUDO apt-get install -y -qq --no-install-recommends chromium >&2 ||
            echo "deps: chromium is not available: make consumers will skip its browser tests" >&2 ;;
    esac
fi
[ "$tier" = test ] || exit 0
# The consumers' npm packages, exactly as locked, into
# tools/consumers/node_modules (never committed), again only when the lock
# file changed.
lock=tools/consumers/package-lock.json
stamp=tools/consumers/node_modules/.vpscript-lock
if ! cmp -s "$lock" "$stamp" 2>/dev/null; then
    echo "deps: npm ci in tools/consumers" >&2
    (cd tools/consumers && npm ci --no-audit --no-fund --loglevel=error) >&2
    cp "$lock" "$stamp"
fi
