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

--- Parameter defaults. max_measurements: measurements analysed and listed,
-- from index 1 (the overlay's table names 73; a hostile file may claim
-- millions); max_spikes: spikes listed (all are counted); max_hops: tail
-- records listed (a traceroute has a few dozen); max_samples: samples
-- lag.measurement_doc lists (all are counted). 0: no limit.
lag.DEFAULTS = { k = lag.DEFAULT_K, max_measurements = 1024, max_spikes = 10000, max_hops = 1024,
  max_samples = 100000 }

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
  .. ROW .. "], measurements: [" .. ROW .. "], unlisted: {measurements, samples, hops}, spike_count, spikes: "
  .. "[{index, name, sample, time, value, threshold}], hops: [{index, address, name, samples, mean, max}]}"

--- The shape of lag.measurement_doc's result (`lag.lua --measurement NAME --json`).
lag.measurement_schema = "{file, format, k, measurement: " .. ROW
  .. ", unlisted_samples, samples: [{index, time, value, unknown, spike}]}"

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
  limits        the first 1,024 measurements by index are analysed (the
                rest are counted as unlisted) and the first 10,000 spikes
                listed (all are counted), and the first 1,024 tail records:
                a file claiming millions of records stays a small report.
Ping and loss figures, shown first: ]] .. table.concat(lag.NETWORK, ", ") .. "."

local function check(cap, params)
  E.check_format(cap, "dlag", "vp.lag")
  E.check_number(params and params.k, "k", "vp.lag")
  for _, name in ipairs({ "max_measurements", "max_spikes", "max_hops", "max_samples" }) do
    E.check_count(params and params[name], name, "vp.lag")
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
    -- NaN values (a float field can hold one) are left out; with no other
    -- value there is no spike rule.
    row.mad = stats.mad(values)
    if row.mad and stats.defined(row.p50) then row.threshold = row.p50 + (k or lag.DEFAULT_K) * row.mad end
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
-- unlisted = {measurements, samples, hops}: what lies past max_measurements
-- and max_hops;
-- spike_count: every spike of the listed measurements (spikes lists the
-- first max_spikes).
-- params (all optional): k (5), max_measurements (1024), max_spikes (10000),
-- max_hops (1024)
-- (lag.DEFAULTS; 0 = no limit), file (the name used when cap.path is unset).
-- Raises a vp.error (EINPUT: a capture of another format; EUSAGE: a bad
-- parameter), and the reader's error on corrupt data.
function lag.analyze(cap, params)
  check(cap, params)
  params = params or {}
  local k = params.k or lag.DEFAULT_K
  local max_m = params.max_measurements or lag.DEFAULTS.max_measurements
  local max_s = params.max_spikes or lag.DEFAULTS.max_spikes
  local rows, by_name = {}, {}
  local spikes, spike_count = {}, 0
  local listed_samples = 0
  for m in cap:measurements() do
    if max_m > 0 and #rows >= max_m then break end
    local row, values, times = lag.measure(m, k)
    if row.threshold then
      for i = 1, #values do
        local v = values[i]
        if v > row.threshold then
          row.spikes = row.spikes + 1
          spike_count = spike_count + 1
          if max_s == 0 or #spikes < max_s then
            spikes[#spikes + 1] = { index = row.index, name = row.name, sample = i, time = times[i],
              value = v, threshold = row.threshold }
          end
        end
      end
    end
    listed_samples = listed_samples + row.samples
    rows[#rows + 1] = lag.row_doc(row)
    if not by_name[row.name] then by_name[row.name] = rows[#rows] end
  end
  local network = {}
  for _, name in ipairs(lag.NETWORK) do
    if by_name[name] then network[#network + 1] = by_name[name] end
  end

  local hops = {}
  local max_h = params.max_hops or lag.DEFAULTS.max_hops
  for hop in cap:hops() do
    if max_h > 0 and #hops >= max_h then break end
    local v = hop:values()
    hops[#hops + 1] = { index = hop.index, address = hop.address, name = hop.name, samples = #v,
      mean = #v > 0 and stats.defined(v:mean()) or nil, max = #v > 0 and stats.defined(v:max()) or nil }
  end

  return {
    file = cap.path or params.file, format = "dlag", time = cap.time, k = k,
    measurement_count = cap.measurement_count, samples = cap.sample_count,
    traceroute_host = cap.traceroute_host, hop_count = cap.hop_count,
    network = network, measurements = rows,
    unlisted = { measurements = cap.measurement_count - #rows, samples = cap.sample_count - listed_samples,
      hops = cap.hop_count - #hops },
    spike_count = spike_count, spikes = spikes, hops = hops,
  }
end

--- lag.measurement_doc(cap, m, params) -> result: measurement m of cap
-- sample by sample (plain data, shaped as lag.measurement_schema; what
-- `lag.lua --measurement NAME --json` prints): {file, format = "dlag", k,
-- measurement = row, unlisted_samples, samples = [ {index, time, value,
-- unknown, spike} ]}: the first max_samples samples (every one counts
-- towards the row's spikes), unlisted_samples the rest.
-- params as for lag.analyze, and max_samples (100000; 0 = all).
function lag.measurement_doc(cap, m, params)
  check(cap, params)
  params = params or {}
  local k = params.k or lag.DEFAULT_K
  local max = params.max_samples or lag.DEFAULTS.max_samples
  local row, values = lag.measure(m, k)
  local samples = {}
  for i = 1, #values do
    local spike = row.threshold ~= nil and values[i] > row.threshold
    if spike then row.spikes = row.spikes + 1 end
    if max == 0 or i <= max then
      local s = m:sample(i)
      samples[i] = { index = i, time = s.time, value = s.value, unknown = s.unknown, spike = spike }
    end
  end
  return { file = cap.path or params.file, format = "dlag", k = k, measurement = lag.row_doc(row),
    unlisted_samples = #values - #samples, samples = samples }
end

return lag
