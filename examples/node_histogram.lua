-- node_histogram.lua: a text histogram of one node's time per frame.
--
--   vpscript examples/node_histogram.lua CAPTURE NODE [--metric time_ms]
--            [--bins 20] [--min MS] [--max MS] [--frames I:J] [--json | --csv]
--
-- An example user script. NODE is a path such as
-- "Root/CEngine::Frame/_Host_RunFrame_Server/Physics_Step" (as info.lua,
-- top.lua and hitches.lua print them) or a numeric node id. The column comes
-- from cap:series(node, metric), computed in C; Lua only bins it.
--
-- Bins are equal-width between --min (default: the smallest value) and
-- --max (default: the 99th percentile, so one hitch does not squash every
-- other frame into the first bin); values outside go to the "below" and
-- "above" rows.
--
-- JSON: {file, node, path, metric, frames = {first, last, count},
--        min, p50, p99, max, mean,
--        bins = [{lo, hi, count}], below, above}
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"

local opts, args = cli.parse(arg, {
    name = "examples/node_histogram.lua",
    summary = "text histogram of one node's time (or self time, or calls) per frame",
    description = [[
time_ms is the node's inclusive time in a frame; self_ms its inclusive
time minus its children's, clamped at 0; calls its call count. Percentiles
are nearest-rank. Frames are numbered from 1.]],
    options = {
        {"--metric", type = "string", default = "time_ms", choices = {"time_ms", "self_ms", "calls"},
         help = "what to count"},
        {"--bins", type = "integer", default = 20, min = 1, max = 200, metavar = "N",
         help = "number of bins"},
        {"--min", type = "number", metavar = "X", help = "lower edge of the first bin"},
        {"--max", type = "number", metavar = "X", help = "upper edge of the last bin"},
        {"--frames", type = "range", help = "only frames I..J (1-based, inclusive)"},
        {"--width", type = "integer", default = 50, min = 10, max = 200, metavar = "N",
         help = "length of the longest bar"},
    },
    positional = {{"CAPTURE", help = "a .vprof capture"},
                  {"NODE", help = "node path (Root/...) or numeric node id"}},
})

local cap = cli.open(args[1], opts, { frames = opts.frames })
if cap.format ~= "vprof" then
    cli.fail(2, "%s: a VProf capture is needed, this is %s", args[1], tostring(cap.format))
end
local node = cap:node(math.tointeger(tonumber(args[2])) or args[2])
if not node then
    cli.fail(2, "%s: no node '%s' (paths look like Root/CEngine::Frame/...; "
        .. "vpscript top.lua %s lists them)", args[1], args[2], args[1])
end

local series = cap:series(node, opts.metric) -- over the --frames the capture holds
local first, last = cap.first_frame or 1, cap.last_frame or 0
local n = #series

local lo = opts.min or (n > 0 and series:min() or 0)
local hi = opts.max or (n > 0 and series:percentile(99) or 0)
if hi <= lo then hi = lo + (opts.metric == "calls" and 1 or 0.001) end
local bins, below, above = {}, 0, 0
local step = (hi - lo) / opts.bins
for b = 1, opts.bins do
    bins[b] = {lo = lo + (b - 1) * step, hi = lo + b * step, count = 0}
end
for _, v in ipairs(series:totable()) do
    if v < lo then
        below = below + 1
    elseif v > hi then
        above = above + 1
    else
        local b = math.min(opts.bins, math.floor((v - lo) / step) + 1)
        bins[b].count = bins[b].count + 1
    end
end

local peak = math.max(below, above)
for _, b in ipairs(bins) do peak = math.max(peak, b.count) end
local unit = opts.metric == "calls" and "" or " ms"
local edge = opts.metric == "calls" and fmt.number or fmt.ms
local function bar(count)
    if count == 0 or peak == 0 then return "" end
    return string.rep("#", math.max(1, math.floor(opts.width * count / peak + 0.5)))
end

local rows = {}
if below > 0 then
    rows[#rows + 1] = {range = "< " .. edge(lo) .. unit, count = below, bar = bar(below)}
end
for _, b in ipairs(bins) do
    rows[#rows + 1] = {range = edge(b.lo) .. " - " .. edge(b.hi) .. unit, count = b.count,
                       bar = bar(b.count), lo = b.lo, hi = b.hi}
end
if above > 0 then
    rows[#rows + 1] = {range = "> " .. edge(hi) .. unit, count = above, bar = bar(above)}
end

local stats = n > 0 and {min = series:min(), p50 = series:percentile(50),
                         p99 = series:percentile(99), max = series:max(),
                         mean = series:mean()} or {}
report.emit(opts, {
    json = {file = args[1], node = node.id, path = node.path, metric = opts.metric,
            frames = {first = first, last = last, count = n},
            min = stats.min, p50 = stats.p50, p99 = stats.p99, max = stats.max,
            mean = stats.mean, bins = cli.array(bins), below = below, above = above},
    title = string.format("%s: %s of %s", args[1], opts.metric, node.path),
    header = {
        {"frames", string.format("%s (%s..%s)", fmt.int(n), fmt.int(first), fmt.int(last))},
        {"min / p50 / p99 / max", n > 0 and string.format("%s / %s / %s / %s%s",
            edge(stats.min), edge(stats.p50), edge(stats.p99), edge(stats.max), unit) or "-"},
        {"mean", n > 0 and (edge(stats.mean) .. unit) or "-"},
    },
    sections = {{
        columns = {
            {key = "range", title = opts.metric, align = "right"},
            {key = "count", title = "frames", format = fmt.int},
            {key = "bar", title = "", align = "left"},
        },
        rows = rows,
        empty = "no frames",
    }},
    csv = {columns = {{key = "lo"}, {key = "hi"}, {key = "count"}}, rows = bins},
})
cap:close()
