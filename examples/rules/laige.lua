-- Gate rules for laige engine reports: one file for both kinds, each rule
-- restricted to the report it reads (`format =`). A budget report fails
-- when the engine said so (overall) or a system went over its budget.
--   vpscript check.lua examples/rules/laige.lua examples/laige/   (every report in the folder)
return {
  { metric = "overall", min = 1, format = "laige-budget" },
  { metric = "systems.over_budget", max = 0 },
  { metric = "frames.failed", max = 0, format = "laige-budget" },
  { metric = "tick_ms.p99", max = 8, format = "laige-profile" },
  { metric = "frame_ms.p99", max = 16.7 },
  { metric = "world.sim_allocs", max = 0, format = "laige-profile" },
}
