-- vp.hitches.render: the windows of hitches.analyze's `per` (the figures
-- of each consecutive stretch of frame time) as one table, for the text of
-- hitches.lua and for the page of report.lua: one list of columns, read by
-- vp.report (fmt.table's {key, title, format, align}) and by vp.html.table
-- ({key, title, format, num}). Presentation only: every figure comes from
-- vp.hitches.
--
--   local rows, columns = require("vp.hitches.render").windows(doc.windows)
local fmt = require "vp.fmt"

local render = {}

local function one_decimal(v) return fmt.fixed(v, 1) end

local WINDOW_COLUMNS = {
  { key = "index", title = "#", format = fmt.int, num = true },
  { key = "start_s", title = "from s", format = one_decimal, num = true },
  { key = "frames", title = "frames", align = "right", num = true },
  { key = "mean_ms", title = "mean ms", format = fmt.ms, num = true },
  { key = "p99_ms", title = "p99 ms", format = fmt.ms, num = true },
  { key = "max_ms", title = "max ms", format = fmt.ms, num = true },
  { key = "low_1pct_fps", title = "1 % low fps", format = one_decimal, num = true },
  { key = "hitches", title = "hitches", format = fmt.int, num = true },
}

--- render.windows(windows) -> rows, columns: one row a window (hitches.analyze's
-- `windows`: {first, last, frames, start_ms, mean_ms, p99_ms, max_ms,
-- low_1pct_fps, hitches}), numbered from 1, its frames as text
-- (fmt.frames) and its start in seconds; the columns to show them.
function render.windows(windows)
  local rows = {}
  for i, w in ipairs(windows or {}) do
    rows[i] = { index = i, start_s = w.start_ms / 1000, frames = fmt.frames(w.frames, w.first, w.last),
      mean_ms = w.mean_ms, p99_ms = w.p99_ms, max_ms = w.max_ms, low_1pct_fps = w.low_1pct_fps,
      hitches = w.hitches }
  end
  return rows, WINDOW_COLUMNS
end

return render
