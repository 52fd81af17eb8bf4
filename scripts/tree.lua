-- tree.lua: a VProf capture's call tree (inclusive, self, calls per frame, % of frame), or its nodes totalled by name
--
-- The engine's vprof_generate_report as a tree: each node under its parent
-- with its time per frame, self time, calls and share of the frame; nodes
-- below --min-pct of the frame, and those deeper than --depth, are folded
-- into their parent's lines, each said as such. With
-- --by-name, the nodes that share a name are totalled wherever they are
-- (the engine's summary by name).
--
-- usage: vpscript tree.lua [options] CAPTURE...   (several files: one run each, see vp.multi)
--   --frames I:J     only frames I..J (1-based, inclusive; "I:" and ":J" too)
--   --min-pct X      fold nodes (names) below X % of the frame time (default 0.5; 0 = all)
--   --depth N        list N levels below the root at most (default 0 = all)
--   --sort time|engine   siblings largest first (default) or in the engine's order
--   --by-name        total the nodes by name instead of the tree
--   --json, --csv, --help
--
-- Definitions: tree.DEFINITIONS (printed by --help) and docs/metrics.md.
-- JSON: tree.schema, or tree.names_schema with --by-name (stdlib/vp/tree.lua).
-- The analysis is stdlib/vp/tree.lua (tree.analyze); this script parses the
-- options and renders.
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"
local tree = require "vp.tree"

local SPEC = {
  name = "tree.lua",
  schema = tree.schema, -- printed by --help
  summary = "The call tree of a VProf capture, or its nodes totalled by name.",
  description = tree.DEFINITIONS,
  options = {
    cli.FRAMES,
    { "--min-pct", type = "number", default = tree.DEFAULTS.min_pct, min = 0, metavar = "X",
      help = "fold nodes (or names) below X % of the frame time; 0 lists all" },
    { "--depth", type = "integer", default = tree.DEFAULTS.depth, min = 0, metavar = "N",
      help = "deepest level listed (1 = the root's children); 0 = all" },
    { "--sort", choices = tree.SORT_NAMES, default = tree.DEFAULTS.sort, help = "order of siblings" },
    { "--by-name", type = "flag", help = "total the nodes that share a name, wherever they are" },
  },
  positional = { { "CAPTURE", help = "a .vprof capture" } },
}

local opts, args = require("vp.multi").parse(arg, SPEC) -- several files: one run each, see vp.multi
local path = args[1]
local cap = cli.open_as(path, opts, "vprof", { frames = opts.frames })

local doc = cli.run(tree.analyze, cap, { min_pct = opts.min_pct, depth = opts.depth,
  sort = opts.sort, by_name = opts.by_name, file = path })

local function fixed(d) return function(v) return fmt.fixed(v, d) end end
-- A folded line shows its time per frame and nothing else.
local function blank_if_folded(f) return function(v, row) if row.fold then return "" end return f(v) end end

local header = {
  { "frames", fmt.frames(doc.frames, doc.first_frame, doc.last_frame) },
  { "frame time", doc.frames > 0 and string.format("%s ms mean", fmt.ms(doc.ms_per_frame)) or "-" },
  { "folded", string.format("below %s %% of the frame%s", fmt.number(doc.min_pct),
    (doc.depth or 0) > 0 and string.format("; deeper than level %d (--depth)", doc.depth) or "") },
}

local NUMBERS = {
  { key = "ms_per_frame", title = "ms/frame", format = fmt.ms, align = "right" },
  { key = "self_ms_per_frame", title = "self/fr", format = blank_if_folded(fmt.ms), align = "right" },
  { key = "calls_per_frame", title = "calls/fr", format = blank_if_folded(fixed(2)), align = "right" },
  { key = "pct_of_frame", title = "% frame", format = blank_if_folded(fixed(1)), align = "right" },
}

local function with(list, extra)
  local out = {}
  for i, c in ipairs(list) do out[i] = c end
  for _, c in ipairs(extra) do out[#out + 1] = c end
  return out
end

local function folded(count, ms, indent, what)
  if count == 1 then what = what:gsub("s$", "") end
  return { fold = true, ms_per_frame = ms, label = string.format("%s(+%d %s below %s %%)", indent, count, what,
    fmt.number(doc.min_pct)) }
end

-- What --depth left out under a node, whatever its share, and the largest of it.
local function deeper(r, indent)
  local big = r.deeper_largest
  return { fold = true, ms_per_frame = r.deeper_ms_per_frame, label = string.format(
    "%s(+%d node%s deeper than --depth %d, largest %s %s %%)", indent, r.deeper, r.deeper == 1 and "" or "s",
    doc.depth, big.path:match("[^/]*$"), fmt.fixed(big.pct_of_frame or 0, 1)) }
end

if opts.by_name then
  local rows = {}
  for i, r in ipairs(doc.names) do rows[i] = r end
  if doc.collapsed > 0 then
    local f = folded(doc.collapsed, doc.collapsed_ms_per_frame, "", "names")
    f.name = f.label
    rows[#rows + 1] = f
  end
  report.emit(opts, {
    json = doc, schema = tree.names_schema,
    title = string.format("tree by name: %s", cap.path or path),
    header = header,
    sections = { { rows = rows, empty = "no nodes", columns = with(NUMBERS, {
      { key = "nodes", title = "nodes", format = blank_if_folded(tostring), align = "right" },
      { key = "peak_ms", title = "peak ms", format = blank_if_folded(fmt.ms), align = "right" },
      { key = "name", title = "name", align = "left" },
    }) } },
    csv = { rows = doc.names, columns = {
      "name", "nodes", "calls_per_frame", "ms_per_frame", "self_ms_per_frame", "pct_of_frame",
      "self_pct_of_frame", "peak_ms",
    } },
  })
else
  -- Each node's line, then its subtree, then what was folded out of it.
  local rows, pending = {}, {}
  local function flush(depth)
    while #pending > 0 and pending[#pending].depth >= depth do
      local p = table.remove(pending)
      local indent = string.rep("  ", p.depth)
      if p.deeper > 0 then rows[#rows + 1] = deeper(p, indent) end
      if p.collapsed > 0 then rows[#rows + 1] = folded(p.collapsed, p.collapsed_ms_per_frame, indent, "nodes") end
    end
  end
  for _, r in ipairs(doc.nodes) do
    flush(r.depth)
    local row = {}
    for k, v in pairs(r) do row[k] = v end
    row.label = string.rep("  ", r.depth - 1) .. fmt.path_last(r.path)
    rows[#rows + 1] = row
    if r.collapsed > 0 or r.deeper > 0 then pending[#pending + 1] = r end
  end
  flush(1)
  if doc.collapsed > 0 then rows[#rows + 1] = folded(doc.collapsed, doc.collapsed_ms_per_frame, "", "nodes") end
  report.emit(opts, {
    json = doc, schema = tree.schema,
    title = string.format("tree: %s", cap.path or path),
    header = header,
    sections = { { rows = rows, empty = "no nodes", columns = with(NUMBERS, {
      { key = "label", title = "node", align = "left" },
      { key = "group", title = "group", format = blank_if_folded(tostring), align = "left" },
    }) } },
    csv = { rows = doc.nodes, columns = {
      "path", "name", "depth", "group", "frames", "calls_per_frame", "ms_per_frame", "self_ms_per_frame",
      "pct_of_frame", "self_pct_of_frame", "peak_ms", "peak_frame", "collapsed", "collapsed_ms_per_frame",
      "deeper", "deeper_ms_per_frame",
    } },
  })
end
cap:close()
