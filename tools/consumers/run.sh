#!/bin/sh
# make consumers: our exports and reports read back by tools nobody here
# wrote (tests/consumers/*.test.mjs under node's test runner): speedscope's
# app and file-format schema, DevTools' trace engine, csv-parse, headless
# Chromium. make deps installs them.
set -eu
cd "$(dirname "$0")/../.."
if [ ! -d tools/consumers/node_modules ]; then
    echo "consumers: tools/consumers/node_modules is missing: run make deps" >&2
    exit 2
fi
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
    echo "consumers: SKIPPING the browser tests (speedscope's app, the report in Chromium):" \
        "no Chromium at $chromium" >&2
fi
exec node --test tests/consumers/*.test.mjs
