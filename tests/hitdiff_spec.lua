-- hitdiff.lua and vp.hitdiff: DESIGN's eight kinds each built and checked,
-- the rules' order, --tolerance, the weapon/ammo breakdown, terminal-hit
-- timing, the JSON, the text and CSV output, bad input, and the example's
-- planted disagreements.
local vp = require "vp"
local h = require "helpers"
local hitdiff = require "vp.hitdiff"
local cjson = require "cjson"

local dir

local function at(x, y, z) return { x = x, y = y, z = z } end
local function ent(id) return { entity_id = id, controller = 1, rotation = { w = 1 } } end

-- trace_id -> {client, server, movement?, expected kind}
local CASES = {
  { id = 1, kind = nil, client = {}, server = {} },
  { id = 2, kind = "no_server_data",
    client = { { type = 1, time = 90 }, { type = 6, time = 100, position = at(1, 2, 3) } }, server = {} },
  { id = 3, kind = "no_client_data", client = {},
    server = { { type = 1 }, { type = 6, time = 100, position = at(1, 2, 3) } } },
  { id = 4, kind = "client_only_hit", dt = 10,
    client = { { type = 1 }, { type = 3, time = 100, position = at(0, 0, 0), entity = ent(10) } },
    server = { { type = 1 }, { type = 6, time = 110, position = at(0, 0, 4) } } },
  { id = 5, kind = "server_only_hit", dt = 20,
    client = { { type = 6, time = 100, position = at(0, 0, 3) } },
    server = { { type = 4, time = 120, position = at(0, 0, 0), entity = ent(10) },
      { type = 10, time = 121, position = at(0, 0, 0), entity = ent(10) } } },
  { id = 6, kind = "entity_mismatch", dt = 30,
    client = { { type = 3, time = 100, position = at(5, 0, 0), entity = ent(10) } },
    server = { { type = 3, time = 130, position = at(5, 0, 0), entity = ent(11) },
      { type = 10, time = 131, position = at(5, 0, 0), entity = ent(11) } } },
  { id = 7, kind = "outcome_mismatch", dt = 40,
    client = { { type = 6, time = 100, position = at(1, 1, 1) } },
    server = { { type = 9, time = 140, position = at(1, 1, 1) } } },
  { id = 8, kind = "position_mismatch", dt = 50,
    client = { { type = 6, time = 100, position = at(0, 0, 0) } },
    server = { { type = 6, time = 150, position = at(0, 0.75, 0) } } },
  { id = 9, kind = "agree", dt = 60,
    client = { { type = 1 }, { type = 6, time = 100, position = at(5, 5, 5) } },
    server = { { type = 1 }, { type = 6, time = 160, position = at(5, 5, 5.375) } } },
  -- rule order: S empty decides before the client's character hit
  { id = 10, kind = "no_server_data", client = { { type = 3, time = 100, entity = ent(10) } }, server = {} },
  -- rule 5 before rule 6: different guids and different terminal types
  { id = 11, kind = "entity_mismatch", dt = 70,
    client = { { type = 3, time = 100, position = at(0, 0, 0), entity = ent(10) } },
    server = { { type = 4, time = 170, position = at(9, 9, 9), entity = ent(12) } } },
  -- a character hit without an entity block names no guid: rule 5 is skipped
  { id = 12, kind = "agree", dt = -80,
    client = { { type = 3, time = 100, position = at(2, 2, 2), entity = ent(10) } },
    server = { { type = 3, time = 20, position = at(2, 2, 2) } } },
  -- Validated is a character hit but not terminal: both sides "none"
  { id = 13, kind = "agree",
    client = { { type = 10, time = 100, entity = ent(10) } },
    server = { { type = 10, time = 130, entity = ent(10) } } },
  -- no terminal hit on one side only: outcome_mismatch
  { id = 14, kind = "outcome_mismatch",
    client = { { type = 1, time = 90 }, { type = 7, time = 100 } },
    server = { { type = 6, time = 130, position = at(0, 0, 0) } } },
}

local function build(path)
  local w = vp.writer("dw", path, { max_size = 16 })
  for _, c in ipairs(CASES) do
    local tr = { trace_id = c.id, client = c.client, server = c.server }
    if c.id >= 2 and c.id <= 9 then
      tr.ammo_type_id = c.id % 2 == 0 and 50 or 60
      tr.movement = { weapon_template_id = c.id % 2 == 0 and 500 or 600 }
    end
    w:trace(tr)
  end
  w:empty_slot()
  w:close()
  return path
end

local function by_id(details)
  local m = {}
  for _, d in ipairs(details) do m[d.trace_id] = d end
  return m
end

describe("hitdiff", function()
  local path
  setup(function()
    dir = h.tmpdir()
    path = build(dir .. "/cases.dw")
  end)
  teardown(h.cleanup)

  describe("vp.hitdiff.classify", function()
    it("decides each case by the first matching rule", function()
      local cap = assert(vp.open(path))
      for t in cap:traces() do
        local c = CASES[t.trace_id]
        local kind = hitdiff.classify(t:hit_list("client"), t:hit_list("server"), 0.5)
        assert.are.equal(c.kind, kind, "trace " .. t.trace_id)
      end
      cap:close()
    end)

    it("works on plain tables and applies the tolerance strictly", function()
      local C = { { type = 6, time = 1, position = at(0, 0, 0) } }
      local S = { { type = 6, time = 2, position = at(0.5, 0, 0) } }
      assert.are.equal("agree", (hitdiff.classify(C, S, 0.5)))       -- exactly the tolerance
      assert.are.equal("position_mismatch", (hitdiff.classify(C, S, 0.49)))
      local kind, info = hitdiff.classify(C, S)
      assert.are.equal("agree", kind)
      assert.are.equal(0.5, info.distance)
      assert.are.equal(C[1], info.client)
      assert.is_nil(hitdiff.classify({}, {}))
      assert.are.equal(8, #hitdiff.KINDS)
    end)

    it("finds the terminal hit: the last of types 3, 4, 5, 6, 8, 9", function()
      local function types(list)
        local hits = {}
        for i, ty in ipairs(list) do hits[i] = { type = ty, i = i } end
        local t = hitdiff.terminal(hits)
        return t and t.i
      end
      assert.are.equal(3, types { 1, 6, 5, 10, 7 })
      assert.are.equal(2, types { 1, 9, 2 })
      assert.are.equal(4, types { 3, 4, 8, 9 })
      assert.is_nil(types { 0, 1, 2, 7, 10 })
    end)
  end)

  describe("JSON", function()
    local doc
    setup(function() doc = h.run_json("scripts/hitdiff.lua", path, "--json") end)

    it("counts traces, compared, agree, disagree and the rate", function()
      h.has_fields(doc, { file = path, format = "dw", traces = 14, compared = 13, not_compared = 1, agree = 3,
        disagree = 10, tolerance = 0.5 })
      assert.is_true(h.near(100 * 10 / 13, doc.rate_pct))
    end)

    it("counts every one of the eight kinds", function()
      assert.are.same({
        no_server_data = 2, no_client_data = 1, client_only_hit = 1, server_only_hit = 1,
        entity_mismatch = 2, outcome_mismatch = 2, position_mismatch = 1, agree = 3,
      }, doc.by_kind)
    end)

    it("details every disagreeing trace with both terminal hits", function()
      assert.are.equal(10, #doc.details)
      local d = by_id(doc.details)
      for _, c in ipairs(CASES) do
        if c.kind and c.kind ~= "agree" then
          assert.is_table(d[c.id], "trace " .. c.id)
          assert.are.equal(c.kind, d[c.id].kind)
        else
          assert.is_nil(d[c.id], "trace " .. c.id)
        end
      end
      local pm = d[8]
      assert.are.equal(6, pm.client.type)
      assert.are.equal("Impact", pm.client.type_name)
      assert.are.same({ x = 0, y = 0, z = 0 }, pm.client.position)
      assert.are.same({ x = 0, y = 0.75, z = 0 }, pm.server.position)
      assert.are.equal(0.75, pm.distance)
      assert.are.equal(cjson.null, pm.client.entity_id)
      assert.are.equal(500, pm.weapon_template_id)
      assert.are.equal(50, pm.ammo_type_id)
      assert.are.equal(8, pm.index)
      local em = d[6]
      assert.are.equal(10, em.client.entity_id)
      assert.are.equal(11, em.server.entity_id)
      assert.are.equal(1, em.server.controller)
      assert.are.equal((11 << 8) | 1, em.server.guid)
      assert.are.equal(0, em.distance)
      local ns = d[2]
      assert.are.equal(cjson.null, ns.server)
      assert.are.equal(cjson.null, ns.distance)
      assert.are.equal(2, ns.client_hits)
      assert.are.equal(0, ns.server_hits)
      local om = d[14]
      assert.are.equal(cjson.null, om.client) -- Spawn and Shot only: no terminal hit
      assert.are.equal("Impact", om.server.type_name)
      assert.are.equal(cjson.null, om.weapon_template_id)
    end)

    it("breaks down by weapon template and ammo type where the movement block is", function()
      assert.are.equal(2, #doc.by_weapon)
      local w500, w600 = doc.by_weapon[1], doc.by_weapon[2]
      assert.are.equal(500, w500.weapon_template_id)
      -- even ids 2, 4, 6, 8: no_server_data, client_only_hit, entity_mismatch, position_mismatch
      assert.are.equal(4, w500.traces)
      assert.are.equal(4, w500.compared)
      assert.are.equal(4, w500.disagree)
      assert.are.equal(100, w500.rate_pct)
      assert.are.equal(1, w500.by_kind.client_only_hit)
      assert.are.equal(600, w600.weapon_template_id)
      -- odd ids 3, 5, 7, 9: no_client_data, server_only_hit, outcome_mismatch, agree
      assert.are.equal(4, w600.traces)
      assert.are.equal(1, w600.agree)
      assert.are.equal(75, w600.rate_pct)
      assert.are.same({ 50, 60 }, { doc.by_ammo[1].ammo_type_id, doc.by_ammo[2].ammo_type_id })
      assert.are.equal(w500.disagree, doc.by_ammo[1].disagree)
    end)

    it("times the server's terminal hit against the client's", function()
      local dt = doc.terminal_dt
      assert.are.equal(8, dt.pairs)
      assert.are.equal(25, dt.mean)          -- (10+20+30+40+50+60+70-80) / 8
      assert.are.equal(70, dt.p95)           -- nearest rank 8 of 8
      assert.are.equal(-80, dt.min)
      assert.are.equal(70, dt.max)
      assert.are.equal(45, dt.mean_abs)
      assert.are.equal(80, dt.p95_abs)
    end)

    it("moves traces between agree and position_mismatch with --tolerance", function()
      local tight = h.run_json("scripts/hitdiff.lua", path, "--json", "--tolerance", "0.3")
      assert.are.equal(0.3, tight.tolerance)
      assert.are.equal(2, tight.by_kind.position_mismatch) -- 0.375 apart now counts
      assert.are.equal(2, tight.by_kind.agree)
      local loose = h.run_json("scripts/hitdiff.lua", path, "--json", "--tolerance", "1")
      assert.are.equal(0, loose.by_kind.position_mismatch)
      assert.are.equal(4, loose.by_kind.agree)
    end)

    it("gives a null rate and empty lists when nothing is compared", function()
      local w = vp.writer("dw", dir .. "/none.dw")
      w:trace { trace_id = 1 }
      w:empty_slot()
      w:close()
      local r = h.run("scripts/hitdiff.lua", dir .. "/none.dw", "--json")
      assert.are.equal(0, r.code, r.stderr)
      assert.matches('"details":%[%]', r.stdout)
      assert.matches('"by_weapon":%[%]', r.stdout)
      local d = cjson.decode(r.stdout)
      assert.are.equal(1, d.traces)
      assert.are.equal(0, d.compared)
      assert.are.equal(cjson.null, d.rate_pct)
      assert.are.equal(0, d.terminal_dt.pairs)
      assert.are.equal(cjson.null, d.terminal_dt.mean)
    end)
  end)

  describe("text", function()
    it("prints the counts and, with --details, every disagreeing trace", function()
      local r = h.run("scripts/hitdiff.lua", path)
      assert.are.equal(0, r.code, r.stderr)
      assert.matches("traces%s+14", r.stdout)
      assert.matches("disagree%s+10 %(76%.9 %%%)", r.stdout)
      assert.matches("entity_mismatch%s+2", r.stdout)
      assert.matches("%-%-details lists the 10 disagreeing traces", r.stdout)
      assert.is_nil(r.stdout:find("0000000b", 1, true))
      r = h.run("scripts/hitdiff.lua", path, "--details")
      assert.are.equal(0, r.code, r.stderr)
      assert.matches("0000000b%s+entity_mismatch%s+Posefile_Hit %(0, 0, 0%) entity 10:1%s+Ragdoll_Hit "
        .. "%(9, 9, 9%) entity 12:1", r.stdout)
      assert.matches("00000008%s+position_mismatch", r.stdout)
      assert.matches("by weapon template", r.stdout)
    end)

    it("prints the details as CSV", function()
      local r = h.run("scripts/hitdiff.lua", path, "--csv")
      assert.are.equal(0, r.code, r.stderr)
      local lines = {}
      for l in r.stdout:gmatch("[^\n]+") do lines[#lines + 1] = l end
      assert.are.equal("index,trace_id,kind,distance,dt,client_type,client_x,client_y,client_z,"
        .. "client_entity,server_type,server_x,server_y,server_z,server_entity", lines[1])
      assert.are.equal(11, #lines)
      assert.are.equal("8,8,position_mismatch,0.75,50,6,0,0,0,,6,0,0.75,0,", lines[8])
    end)

    it("states every definition in --help", function()
      local r = h.run("scripts/hitdiff.lua", "--help")
      assert.are.equal(0, r.code)
      for _, s in ipairs { "no_server_data", "client_only_hit", "entity_mismatch", "outcome_mismatch",
        "position_mismatch", "character hit", "terminal hit", "3, 4, 5,", "%-%-tolerance" } do
        assert.matches(s, r.stdout)
      end
    end)
  end)

  describe("bad input", function()
    it("exits 2 on a missing file, another format and a corrupt trace", function()
      local r = h.run("scripts/hitdiff.lua", dir .. "/missing.dw")
      assert.are.equal(2, r.code)
      assert.matches("^vpscript: .*missing%.dw", r.stderr)
      local w = vp.writer("dm", dir .. "/x.dm")
      w:close()
      r = h.run("scripts/hitdiff.lua", dir .. "/x.dm")
      assert.are.equal(2, r.code)
      assert.matches("x%.dm: a dm capture: hitdiff%.lua reads dw", r.stderr)
      h.write_file(dir .. "/bad.dw", "\0\0\0\0\1\7" .. string.pack("<I4", 0))
      r = h.run("scripts/hitdiff.lua", dir .. "/bad.dw")
      assert.are.equal(2, r.code)
      assert.matches("at byte 5: slot 1: expected the used byte 0 %(empty%) or 1 %(trace%), found 7",
        r.stderr)
      r = h.run("scripts/hitdiff.lua", path, "--tolerance", "-1")
      assert.are.equal(2, r.code)
    end)

    it("keeps the complete traces of a truncated file and warns", function()
      local bytes = h.read_file(path)
      h.write_file(dir .. "/cut.dw", bytes:sub(1, #bytes - 40))
      local r = h.run("scripts/hitdiff.lua", dir .. "/cut.dw", "--json")
      assert.are.equal(0, r.code, r.stderr)
      assert.matches("vpscript: warning: .*the file is truncated or its footer is missing", r.stderr)
      local d = cjson.decode(r.stdout)
      assert.are.equal(13, d.traces)
    end)
  end)

  describe("the example", function()
    it("finds exactly the planted disagreements of sample.dw", function()
      local sample = h.example_sample("dw")
      local doc = h.run_json("scripts/hitdiff.lua", sample, "--json")
      assert.are.equal(160, doc.traces)
      assert.are.equal(158, doc.compared)
      local planted = {
        no_server_data = { 12, 31, 77, 140 },
        no_client_data = { 58, 99 },
        client_only_hit = { 7, 23, 45, 66, 88, 111, 133, 150 },
        server_only_hit = { 19, 92, 121 },
        entity_mismatch = { 36, 104, 157 },
        outcome_mismatch = { 27, 73, 118, 145 },
        position_mismatch = { 15, 51, 84, 126, 159 },
      }
      local found = {}
      for _, d in ipairs(doc.details) do
        found[d.kind] = found[d.kind] or {}
        table.insert(found[d.kind], d.index)
      end
      assert.are.same(planted, found)
      assert.are.equal(129, doc.by_kind.agree)
      assert.are.equal(3, #doc.by_weapon)
      local cap = assert(vp.open(sample))
      assert.are.equal(40, cap.empty_slots)
      assert.are.equal(160, cap.last_trace_counter)
      cap:close()
      -- deterministic
      assert.are.equal(h.read_file(sample), h.read_file(h.example_sample("dw")))
    end)

    it("joins the example traces with the movement trace", function()
      local doc = h.run_json("examples/hits_vs_movement.lua", h.example_sample("dw"), h.example_sample("dm"),
        "--json")
      assert.are.equal(158, doc.bullets)
      local total, compared, disagree = 0, 0, 0
      for _, s in ipairs(doc.states) do
        total = total + s.bullets
        compared = compared + s.compared
        disagree = disagree + s.disagree
      end
      assert.are.equal(158, total)
      assert.are.equal(158, compared)
      assert.are.equal(29, disagree)
      local nomove
      for _, s in ipairs(doc.states) do if s.state == "no movement data" then nomove = s end end
      assert.are.equal(0, nomove.bullets)
    end)
  end)
end)
