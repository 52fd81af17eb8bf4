-- vp.export.presentmon: frame times as a PresentMon CSV (the columns of
-- PresentMon 1.x that CapFrameX and other PresentMon readers load), from
-- any capture with per-frame times (a VProf capture, a laige budget report).
--
-- Each frame is one present: msBetweenPresents (and msBetweenDisplayChange)
-- is the frame time; TimeInSeconds is when the frame ended (frames laid end
-- to end from 0, as the other exports lay them). What a capture does not
-- record is filled with fixed values (presentmon.FILL): Application is the
-- capture's file name, ProcessID 0, SwapChainAddress 0x0000000000000000,
-- Runtime "Other", SyncInterval 0, PresentFlags 0, AllowsTearing 0,
-- PresentMode "Unknown", WasBatched 0, DwmNotified 0, Dropped 0,
-- msInPresentAPI, msUntilRenderComplete and msUntilDisplayed 0.000.
local presentmon = {}

presentmon.COLUMNS = { "Application", "ProcessID", "SwapChainAddress", "Runtime", "SyncInterval",
  "PresentFlags", "AllowsTearing", "PresentMode", "WasBatched", "DwmNotified", "Dropped", "TimeInSeconds",
  "msInPresentAPI", "msBetweenPresents", "msBetweenDisplayChange", "msUntilRenderComplete", "msUntilDisplayed" }

presentmon.FILL = { ProcessID = "0", SwapChainAddress = "0x0000000000000000", Runtime = "Other",
  SyncInterval = "0", PresentFlags = "0", AllowsTearing = "0", PresentMode = "Unknown", WasBatched = "0",
  DwmNotified = "0", Dropped = "0", msInPresentAPI = "0.000", msUntilRenderComplete = "0.000",
  msUntilDisplayed = "0.000" }

local csv_field = require("vp.report").csv_field

--- presentmon.write(cap, file, {application =}) -> frames: one row per frame
-- of cap:frame_times() (a frame without a time, NaN, is left out).
function presentmon.write(cap, f, params)
  local app = csv_field((params and params.application) or (cap.path or "capture"):match("[^/]*$"))
  local F = presentmon.FILL
  local head = app .. "," .. F.ProcessID .. "," .. F.SwapChainAddress .. "," .. F.Runtime .. ","
    .. F.SyncInterval .. "," .. F.PresentFlags .. "," .. F.AllowsTearing .. "," .. F.PresentMode .. ","
    .. F.WasBatched .. "," .. F.DwmNotified .. "," .. F.Dropped .. ","
  local tail = "," .. F.msUntilRenderComplete .. "," .. F.msUntilDisplayed .. "\r\n"
  f:write(table.concat(presentmon.COLUMNS, ","), "\r\n")
  local ft = cap:frame_times()
  local put, flush = require("vp.export").buffer(f)
  local t_us, rows = 0, 0
  for i = 1, #ft do
    local ms = ft[i]
    if ms == ms then
      -- whole microseconds (VProf times are; a laige report's are rounded)
      local us = math.floor(ms * 1000 + 0.5)
      t_us = t_us + us
      local ms_text = string.format("%d.%03d", us // 1000, us % 1000)
      put(string.format("%s%d.%06d,%s,%s,%s%s", head, t_us // 1000000, t_us % 1000000, F.msInPresentAPI,
        ms_text, ms_text, tail))
      rows = rows + 1
    end
  end
  flush()
  return rows
end

return presentmon
