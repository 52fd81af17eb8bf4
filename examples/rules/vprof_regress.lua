-- Regression rules for VProf captures against a baseline from the last good
-- build: `vpscript check.lua examples/rules/vprof_regress.lua NEW.vprof
-- --baseline GOOD.vprof`. A rule fails only when the metric got worse by
-- more than max_regress_pct AND by at least min_effect (in the metric's
-- unit) AND, with significant = true, the change is not noise: p < alpha
-- (default 0.01). Two runs of one benchmark line up, so they are compared
-- stretch by stretch (the phases and the hitches that recur cancel); runs
-- that do not line up are compared as independent samples, and several
-- runs a side by their run values (docs/compare.md).
return {
  -- the typical frame (stretch medians: hitches do not move it) and the mean (they do)
  { metric = "frame_ms.p50", max_regress_pct = 2, min_effect = 0.2, significant = true },
  { metric = "frame_ms.mean", max_regress_pct = 2, min_effect = 0.2, significant = true },
  { metric = "frame_ms.p99", max_regress_pct = 10, min_effect = 1, significant = true },
  { metric = "low_1pct_fps", max_regress_pct = 10, min_effect = 2 },
  { metric = "group.Physics.mean_ms", max_regress_pct = 10, min_effect = 0.2, significant = true },
  { metric = "group.World Rendering.mean_ms", max_regress_pct = 10, min_effect = 0.3, significant = true,
    optional = true },
  -- a count: divided by the frames when the two captures differ in length
  { metric = "hitches", max_regress_pct = 50, min_effect = 0.001 },
}
