#!/bin/sh
# Install what vpscript needs from Debian's packages, and nothing when all of
# it is present. Says what it does; uses sudo when not root.
set -eu
# python3 drives the REPL tests through a pseudo-terminal; GNU time is what
# make bench measures with; lua-expat parses the JUnit XML in the tests.
pkgs="gcc make liblua5.4-dev lua5.4 lua-filesystem lua-cjson lua-busted lua-check lua-expat libreadline-dev clang libclang-rt-dev pkg-config python3 time"
# history.lua's store (running): LuaDBI's SQLite and PostgreSQL drivers.
pkgs="$pkgs lua-dbi-sqlite3 lua-dbi-postgresql"
# history.lua's specs only (testing): a PostgreSQL server the spec starts
# and stops itself, and GNU parallel with rsync for the many-hosts recipe.
pkgs="$pkgs postgresql parallel rsync"
# make consumers: node runs the independent readers of our exports (npm
# packages, tools/consumers); Debian's chromium renders the report and runs
# speedscope's app. A node that came from elsewhere is kept.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
pkgs="$pkgs chromium"
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
