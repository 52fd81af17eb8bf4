-- tools/check_layers.sh, the include rules of docs/architecture.md that
-- `make lint` enforces: it passes on this tree, and on a small tree it names
-- the file, line and include of every kind of violation and exits 1.
local h = require "helpers"

local function check(root)
  local p = assert(io.popen("sh tools/check_layers.sh " .. h.quote(root) .. " 2>&1", "r"))
  local out = p:read("a")
  local _, _, code = p:close()
  return code, out
end

-- Write files = {path = text, ...} under root.
local function put(root, files)
  for path, text in pairs(files) do
    os.execute("mkdir -p " .. h.quote(root .. "/" .. path:match("^(.*)/")))
    h.write_file(root .. "/" .. path, text)
  end
end

-- A tree that keeps every rule.
local CLEAN_TREE = {
  ["host/core/a.h"] = "#include <stdint.h>\n",
  ["host/core/a.c"] = '#include "core/a.h"\n#include "a.h"\n',
  ["host/formats/f.h"] = '#include "core/a.h"\n',
  ["host/formats/f.c"] = '#include "formats/f.h"\n',
  ["host/export/e.c"] = '#include "core/a.h"\n#include "formats/f.h"\n#include "export/e.h"\n',
  ["host/export/e.h"] = "\n",
  ["bindings/l_formats.h"] = "#include <lua.h>\n",
  ["bindings/l_f.c"] = '#include <lauxlib.h>\n#include "formats/f.h"\n#include "export/e.h"\n'
    .. '#include "l_formats.h"\n',
  ["program/main.c"] = '#include <lua.h>\n#include <readline/readline.h>\n'
    .. '#include "../bindings/l_formats.h"\n#include "core/a.h"\n',
}

describe("check_layers.sh", function()
  local dir
  setup(function() dir = h.tmpdir() end)
  teardown(h.cleanup)

  -- The check prints nothing and exits 0.
  local function passes(root)
    local code, out = check(root)
    assert.are.equal("", out)
    assert.are.equal(0, code)
  end

  it("passes on this tree", function()
    passes(".")
  end)

  it("passes on a tree that keeps the rules", function()
    put(dir .. "/ok", CLEAN_TREE)
    passes(dir .. "/ok")
  end)

  it("names the file, line and include of each violation and exits 1", function()
    local root = dir .. "/bad"
    put(root, CLEAN_TREE)
    put(root, { -- over the clean files
      ["host/core/a.c"] = '#include "core/a.h"\n#include "formats/f.h"\n',
      ["host/formats/f.c"] = '#include "formats/f.h"\n  #  include <lua.h>\n#include "export/e.h"\n',
      ["host/export/e.c"] = '#include "../../bindings/l_formats.h"\n#include <readline/readline.h>\n',
      ["program/main.c"] = '#include "formats/f.h"\n#include "../bindings/l_f.c"\n',
      ["bindings/l_f.c"] = '#include "../program/main.c"\n',
      ["host/stray.c"] = "",
    })
    local code, out = check(root)
    assert.are.equal(1, code)
    for _, want in ipairs({
      'host/core/a.c:2: includes "formats/f.h": host/formats/f.h is in host/formats, which host/core',
      "host/formats/f.c:2: includes <lua.h>: host/formats never includes Lua",
      'host/formats/f.c:3: includes "export/e.h": host/export/e.h is in host/export',
      'host/export/e.c:1: includes "../../bindings/l_formats.h"',
      "host/export/e.c:2: includes <readline/readline.h>: only program/ uses readline",
      'program/main.c:1: includes "formats/f.h"',
      'program/main.c:2: includes "../bindings/l_f.c": bindings/l_f.c is in bindings',
      'bindings/l_f.c:1: includes "../program/main.c": program/main.c is in program',
      "host/stray.c: not in a layer folder",
    }) do
      assert.is_truthy(out:find(want, 1, true), "missing: " .. want .. "\nin:\n" .. out)
    end
    local n = select(2, out:gsub("\n", ""))
    assert.are.equal(9, n)
  end)
end)
