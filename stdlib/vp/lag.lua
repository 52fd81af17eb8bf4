-- vp.lag: per-measurement statistics and spikes of a .dlag lag profiler
-- export: the analysis behind scripts/lag.lua, and the statistics of a
-- measurement the metric catalogue's lag.NAME.* read (one definition for
-- both).
--
--   local lag = require "vp.lag"
--   local doc = lag.analyze(cap, {k = 5})                 -- plain data (lag.schema)
--   local m = cap:measurement("Socket RTT")
--   local one = lag.measurement_doc(cap, m, {k = 5})      -- lag.measurement_schema
--   print(lag.summary(m:values()).p95)
--
-- The definitions (page, min .. max, time span, MAD, spike) are
-- lag.DEFINITIONS (lag.lua's --help) and docs/dlag.md.
local E = require "vp.error"
local stats = require "vp.stats"

local lag = {}

lag.DEFAULT_K = 5

-- The ping and loss figures, shown first.
lag.NETWORK = {
  "Socket RTT", "Client Application Ping", "Server Application Ping", "Packet Downloss",
  "Packet Upploss", "Local Gateway", "Local Gateway dropped", "The Internets",
  "The Internets dropped",
}

local ROW_KEYS = { "index", "name", "page", "samples", "total", "min", "mean", "p50", "p95",
  "max", "first_time", "last_time", "time_span", "mad", "threshold", "spikes" }
lag.ROW_KEYS = ROW_KEYS

local ROW = "{" .. table.concat(ROW_KEYS, ", ") .. "}"

--- The shape of lag.analyze's result (and of `lag.lua --json`).
lag.schema = "{file, format, time, k, measurement_count, samples, traceroute_host, hop_count, network: ["
  .. ROW .. "], measurements: [" .. ROW .. "], spikes: [{index, name, sample, time, value, threshold}], "
  .. "hops: [{index, address, name, samples, mean, max}]}"

--- The shape of lag.measurement_doc's result (`lag.lua --measurement NAME --json`).
lag.measurement_schema = "{file, format, k, measurement: " .. ROW
  .. ", samples: [{index, time, value, unknown, spike}]}"

--- Every definition the analysis uses, as lag.lua's --help prints it.
lag.DEFINITIONS = [[
Definitions:
  measurement   the file holds one block of samples per measurement, in
                index order from 1. Names come from the overlay's table by
                index (1 Client Frame .. 73 RPM; 59 repeats Total Objects);
                beyond it a measurement is "measurement_N". The names are
                positional: a build with fewer measurements shifts them.
  page          the overlay page showing it: (index - 1) // 8.
  min .. max    over the sample values; p50 and p95 are nearest rank (the
                value at rank ceil(p/100 * n) of the ascending order).
  time span     last sample time - first sample time, in the file's time
                unit (assumed milliseconds; the spec does not say).
  MAD           median absolute deviation: the median of |value - median|.
  spike         a sample whose value is above p50 + k x MAD (--k, default
                5). With MAD = 0 every sample above p50 is a spike.
Ping and loss figures, shown first: ]] .. table.concat(lag.NETWORK, ", ") .. "."

local function check(cap, params)
  if cap.format ~= "dlag" then
    E.raise("EINPUT", "vp.lag: a dlag capture is needed, not %s", tostring(cap.format))
  end
  local k = params and params.k
  if k ~= nil and (type(k) ~= "number" or k ~= k or k < 0) then
    E.raise("EUSAGE", "vp.lag: params.k must be a number of at least 0, not %s", tostring(k))
  end
end

--- lag.summary(values) -> {samples, min, mean, p50, p95, p99, max}: the
-- statistics of a measurement's sample values (a Series); all but samples
-- are nil when it has none. Percentiles are nearest rank.
function lag.summary(values)
  local s = { samples = #values }
  if #values > 0 then
    s.min, s.max, s.mean = values:min(), values:max(), values:mean()
    s.p50, s.p95, s.p99 = values:percentile(50), values:percentile(95), values:percentile(99)
  end
  return s
end

--- lag.measure(m, k) -> row, values, times: one measurement's statistics
-- (row: index, name, page, samples, total, min, mean, p50, p95, p99, max,
-- first_time, last_time, time_span, mad, threshold = p50 + k x MAD; spikes =
-- 0, for the caller to count) with its values and times (Series).
function lag.measure(m, k)
  local values, times = m:values(), m:times()
  local row = lag.summary(values)
  row.index, row.name, row.page, row.total, row.spikes = m.index, m.name, m.page, m.total, 0
  if #values > 0 then
    row.first_time, row.last_time = times:min(), times:max()
    row.time_span = row.last_time - row.first_time
    row.mad = stats.mad(values)
    row.threshold = row.p50 + (k or lag.DEFAULT_K) * row.mad
  end
  return row, values, times
end

--- lag.row_doc(row) -> the row as the result shows it: the ROW_KEYS only,
-- nil where absent or undefined (NaN).
function lag.row_doc(r)
  local d = {}
  for _, key in ipairs(ROW_KEYS) do
    local v = r[key]
    if type(v) == "number" then v = stats.defined(v) end
    d[key] = v
  end
  return d
end

--- lag.analyze(cap, params) -> result
-- result (plain data, shaped as lag.schema): {file, format = "dlag", time,
-- k, measurement_count, samples, traceroute_host, hop_count, network =
-- [row], measurements = [row], spikes = [ {index, name, sample, time, value,
-- threshold} ], hops = [ {index, address, name, samples, mean, max} ]}.
-- params (all optional): k (5), file (the name used when cap.path is unset).
-- Raises a vp.error (EINPUT: a capture of another format; EUSAGE: a bad k),
-- and the reader's error on corrupt data.
function lag.analyze(cap, params)
  check(cap, params)
  params = params or {}
  local k = params.k or lag.DEFAULT_K
  local rows, by_name = {}, {}
  local spikes = {}
  for m in cap:measurements() do
    local row, values, times = lag.measure(m, k)
    if row.threshold then
      for i = 1, #values do
        local v = values[i]
        if v > row.threshold then
          row.spikes = row.spikes + 1
          spikes[#spikes + 1] = { index = row.index, name = row.name, sample = i, time = times[i],
            value = v, threshold = row.threshold }
        end
      end
    end
    rows[#rows + 1] = lag.row_doc(row)
    if not by_name[row.name] then by_name[row.name] = rows[#rows] end
  end
  local network = {}
  for _, name in ipairs(lag.NETWORK) do
    if by_name[name] then network[#network + 1] = by_name[name] end
  end

  local hops = {}
  for hop in cap:hops() do
    local v = hop:values()
    hops[#hops + 1] = { index = hop.index, address = hop.address, name = hop.name, samples = #v,
      mean = #v > 0 and stats.defined(v:mean()) or nil, max = #v > 0 and stats.defined(v:max()) or nil }
  end

  return {
    file = cap.path or params.file, format = "dlag", time = cap.time, k = k,
    measurement_count = cap.measurement_count, samples = cap.sample_count,
    traceroute_host = cap.traceroute_host, hop_count = cap.hop_count,
    network = network, measurements = rows, spikes = spikes, hops = hops,
  }
end

--- lag.measurement_doc(cap, m, params) -> result: measurement m of cap
-- sample by sample (plain data, shaped as lag.measurement_schema; what
-- `lag.lua --measurement NAME --json` prints): {file, format = "dlag", k,
-- measurement = row, samples = [ {index, time, value, unknown, spike} ]}.
-- params as for lag.analyze.
function lag.measurement_doc(cap, m, params)
  check(cap, params)
  params = params or {}
  local k = params.k or lag.DEFAULT_K
  local row = lag.measure(m, k)
  local samples = {}
  for s in m:samples() do
    local spike = row.threshold ~= nil and s.value > row.threshold
    if spike then row.spikes = row.spikes + 1 end
    samples[#samples + 1] = { index = s.index, time = s.time, value = s.value, unknown = s.unknown,
      spike = spike }
  end
  return { file = cap.path or params.file, format = "dlag", k = k, measurement = lag.row_doc(row),
    samples = samples }
end

return lag
