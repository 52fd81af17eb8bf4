-- physics_over.lua: the frames where one budget group's self time went over
-- a limit (by default: Physics above 4 ms).
--
--   vpscript examples/physics_over.lua CAPTURE [--ms 4] [--group Physics]
--                                      [--limit N] [--json | --csv]
--
-- An example user script: a few lines on top of the VProf API.
-- cap:group_self_ms() computes every group's self time per frame in one
-- pass in C and returns {[group] = vp.Series}; Lua only picks the frames
-- over the limit and looks up their tick and frame time.
--
-- JSON: {file, group, limit_ms, frames, over, over_pct, worst_frame,
--        rows = [{frame, tick, self_ms, frame_ms, share_pct}]}
-- (rows in frame order, at most --limit of them; `over` counts them all).
local cli = require "vp.cli"
local fmt = require "vp.fmt"
local report = require "vp.report"

local opts, args = cli.parse(arg, {
    name = "examples/physics_over.lua",
    summary = "frames where a budget group's self time exceeded a limit",
    description = [[
A group's self time in a frame is the sum of the self times of its nodes
(a node's inclusive time minus its children's, clamped at 0), as the
engine's budget panel draws it. Frames are numbered from 1.]],
    options = {
        {"--ms", type = "number", default = 4, min = 0, metavar = "MS",
         help = "report frames whose group self time is above MS milliseconds"},
        {"--group", type = "string", default = "Physics", metavar = "NAME",
         help = "budget group name (or numeric id)"},
        {"--limit", type = "integer", default = 50, min = 0, metavar = "N",
         help = "list at most N frames in the table (0 = all)"},
    },
    positional = {{"CAPTURE", help = "a .vprof capture"}},
})

local cap = cli.open(args[1], opts)
if cap.format ~= "vprof" then
    cli.fail(2, "%s: a VProf capture is needed, this is %s", args[1], tostring(cap.format))
end

local group = cap:group(math.tointeger(tonumber(opts.group)) or opts.group)
if not group then
    local names = {}
    for g in cap:groups() do names[#names + 1] = g.name end
    cli.fail(2, "%s: no budget group '%s' (groups: %s)", args[1], opts.group,
        table.concat(names, ", "))
end

local self_ms = cap:group_self_ms()[group]
local frame_ms = cap:frame_times()
local rows, over, worst = {}, 0, nil
for i = 1, #self_ms do
    local ms = self_ms[i]
    if ms > opts.ms then
        over = over + 1
        if not worst or ms > self_ms[worst] then worst = i end
        if opts.limit == 0 or #rows < opts.limit then
            local f = cap:frame(i)
            local total = frame_ms[i]
            rows[#rows + 1] = {frame = i, tick = f.tick, self_ms = ms, frame_ms = total,
                               share_pct = total > 0 and 100 * ms / total or nil}
        end
    end
end

local n = cap.frame_count
local over_pct = n > 0 and 100 * over / n or nil
local columns = {
    {key = "frame", title = "frame", format = fmt.int},
    {key = "tick", title = "tick", format = fmt.int},
    {key = "self_ms", title = group.name .. " ms", format = fmt.ms},
    {key = "frame_ms", title = "frame ms", format = fmt.ms},
    {key = "share_pct", title = "share", format = function(v) return fmt.pct(v) end},
}
report.emit(opts, {
    json = {file = args[1], group = group.name, limit_ms = opts.ms, frames = n, over = over,
            over_pct = over_pct, worst_frame = worst, rows = cli.array(rows)},
    title = string.format("%s: frames where %s self time > %s ms", args[1], group.name,
        fmt.ms(opts.ms)),
    header = {
        {"frames", fmt.int(n)},
        {"over the limit", string.format("%s (%s)", fmt.int(over), fmt.pct(over_pct))},
        {"worst frame", worst and string.format("%s: %s ms", fmt.int(worst),
            fmt.ms(self_ms[worst])) or "-"},
    },
    sections = {{
        title = (over > #rows) and string.format("first %d of %d frames", #rows, over) or nil,
        columns = columns, rows = rows,
        empty = "no frame over the limit",
    }},
})
cap:close()
