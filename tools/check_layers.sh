#!/bin/sh
# check_layers.sh [ROOT]: the include rules of docs/architecture.md, checked
# on every .c and .h under ROOT/host, ROOT/bindings and ROOT/program (ROOT
# defaults to .).
#
#   host/core      core only; never Lua
#   host/formats   core, formats; never Lua
#   host/export    core, formats, export; never Lua
#   bindings       bindings, core, formats, export, Lua; never program
#   program        program, core, bindings/l_formats.h, Lua, readline;
#                  never formats, export
#
# Only program/ uses readline. A quoted include is resolved as the compiler
# does with -Ihost: next to the including file, then under host/; one that
# resolves to no file of the tree is not ours and is left to the compiler.
# Prints one line per violation, naming the file, the line and the include,
# and exits 1 when there is any.
set -u
cd "${1:-.}" || exit 2
files=$(find host bindings program -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort)
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
exec awk '
function layer(p) {
    if (p ~ /^host\/(core|formats|export)\//) { split(p, s, "/"); return s[2] }
    if (p ~ /^bindings\//) return "bindings"
    if (p ~ /^program\//) return "program"
    return "other"
}
function where(l) {
    return l == "bindings" || l == "program" ? l : l == "other" ? "no layer" : "host/" l
}
# May layer `from` include `to` (a layer, "lua" or "readline"; path the file)?
function allowed(from, to, path) {
    if (to == from && to != "other") return 1
    if (to == "core") return from != "other"
    if (to == "lua") return from == "program" || from == "bindings"
    if (to == "readline") return from == "program"
    if (from == "bindings") return to == "formats" || to == "export"
    if (from == "export") return to == "formats"
    if (from == "program") return path == "bindings/l_formats.h"
    return 0
}
# a/b/../c -> a/c
function normalize(p,    n, i, k, part, out) {
    n = split(p, part, "/")
    k = 0
    for (i = 1; i <= n; i++) {
        if (part[i] == "." || part[i] == "") continue
        if (part[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
        out[++k] = part[i]
    }
    p = ""
    for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
    return p
}
function exists(p,    line, r) {
    r = (getline line < p)
    close(p)
    return r >= 0
}
function violation(why) {
    printf "check_layers: %s:%d: includes %s: %s\n", FILENAME, FNR, shown, why > "/dev/stderr"
    bad = 1
}
BEGIN {
    for (i = 1; i < ARGC; i++)
        if (layer(ARGV[i]) == "other") {
            printf "check_layers: %s: not in a layer folder (host/core, host/formats, " \
                "host/export, bindings, program)\n", ARGV[i] > "/dev/stderr"
            bad = 1
        }
}
FNR == 1 {
    from = layer(FILENAME)
    dir = FILENAME
    sub(/\/[^\/]*$/, "", dir)
}
from != "other" && /^[ \t]*#[ \t]*include[ \t]*["<]/ {
    line = $0
    sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
    quoted = substr(line, 1, 1) == "\""
    name = substr(line, 2)
    sub(/[">].*/, "", name)
    shown = quoted ? "\"" name "\"" : "<" name ">"
    base = name
    sub(/.*\//, "", base)
    if (base ~ /^(lua|lauxlib|lualib|luaconf)\.h$/) {
        if (!allowed(from, "lua", "")) violation(where(from) " never includes Lua")
        next
    }
    if (name ~ /^readline\//) {
        if (!allowed(from, "readline", "")) violation("only program/ uses readline")
        next
    }
    if (!quoted) next
    target = normalize(dir "/" name)
    if (!exists(target)) {
        target = normalize("host/" name)
        if (!exists(target)) next
    }
    to = layer(target)
    if (!allowed(from, to, target))
        violation(target " is in " where(to) ", which " where(from) " may not include")
}
END { exit bad }
' $files
