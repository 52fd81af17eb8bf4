-- Gate rules for lag profiler exports (.dlag): measurements by name, in
-- their own units. `vpscript check.lua examples/rules/dlag.lua CAPTURE.dlag`.
return {
  { metric = "lag.Socket RTT.p95", max = 80 },
  { metric = "lag.Client Application Ping.p95", max = 100, optional = true },
  { metric = "lag.Packet Downloss.mean", max = 1 },
  { metric = "lag.Packet Upploss.mean", max = 1 },
  { metric = "lag.Client Frame.p95", max = 20 },
}
