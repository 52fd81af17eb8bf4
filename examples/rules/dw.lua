-- Gate rules for weapon traces (.dw): client/server hit disagreement as
-- hitdiff.lua counts it. `vpscript check.lua examples/rules/dw.lua CAPTURE.dw`.
-- (The shipped examples/sample.dw has disagreements planted on purpose and
-- fails this gate.)
return {
  { metric = "hitdiff.rate_pct", max = 1 },
  { metric = "hitdiff.client_only_hit", max = 0, name = "shots the client saw hit and the server did not" },
  { metric = "hitdiff.entity_mismatch", max = 0 },
  { metric = "hitdiff.no_server_data", max = 5 },
}
