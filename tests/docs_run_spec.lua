-- tools/docs_run.lua: every shell command of README.md and docs/*.md runs as
-- typed (in a copy of the tree) and prints what the page shows; and the
-- checker itself fails when a documented command fails or its output differs.
local h = require "helpers"

package.path = "tools/?.lua;" .. package.path
local D = require "docs_run"

-- A page of these lines in a fresh directory, and a small tree to run it in: the program
-- and the shipped examples, linked (the program finds its stdlib from where
-- it really is).
local function page(lines)
  local dir = h.tmpdir()
  h.write_file(dir .. "/page.md", table.concat(lines, "\n") .. "\n")
  local tree, here = dir .. "/tree", require("lfs").currentdir()
  os.execute(("mkdir -p %s && ln -s %s %s/vpscript && ln -s %s %s/examples"):format(h.quote(tree),
    h.quote(here .. "/vpscript"), h.quote(tree), h.quote(here .. "/examples"), h.quote(tree)))
  return dir .. "/page.md", tree
end

describe("tools/docs_run.lua", function()
  after_each(h.cleanup)

  it("takes sh lines as commands (exit status from an 'exit N' comment) and console blocks as command and output",
    function()
      local steps, problems = D.commands(D.parse(table.concat({
        "```sh",
        "# a comment",
        "./vpscript hitches examples/sample.vprof   # a shipped analysis",
        "./vpscript check.lua a b \\",
        "    c                  # exit 3: a rule fails",
        "```",
        "```console",
        "$ ./vpscript -e 'print(1)'",
        "1",
        "$ ./vpscript -e 'os.exit(2)'",
        "[exit status 2]",
        "```",
      }, "\n")))
      assert.are.same({}, problems)
      assert.are.equal(4, #steps)
      assert.are.equal(0, steps[1].status)
      assert.are.equal(3, steps[2].status)
      assert.matches("\n    c", steps[2].cmd)
      assert.are.same({ "1" }, steps[3].expect)
      assert.are.equal(2, steps[4].status)
      assert.are.same({}, steps[4].expect)
    end)

  it("refuses a block that names no language, and a copyable command in a block that does not run", function()
    local _, problems = D.commands(D.parse(table.concat({
      "```", "anything", "```",
      "```text", "./vpscript hitches examples/sample.vprof", "```",
      "```text", "$ ./vpscript --list", "```",
      "```text", "./vpscript hitches.lua [--json] CAPTURE", "```", -- a synopsis: fine
    }, "\n")))
    assert.are.equal(3, #problems)
    assert.matches("line 1: a fenced block names no language", problems[1])
    assert.matches("line 5: a command in a text block", problems[2])
    assert.matches("line 8: a \"%$ \" command in a text block", problems[3])
  end)

  it("leaves generated sections to gen_docs, and writes a file block before the commands after it", function()
    local steps, problems = D.commands(D.parse(table.concat({
      "<!-- BEGIN GENERATED: run --list -->", "```", "$ ./vpscript --list", "x", "```", "<!-- END GENERATED -->",
      "<!-- docs-run: file q.lua -->", "```lua", "print(42)", "```",
      "```console", "$ ./vpscript q.lua", "42", "```",
    }, "\n")))
    assert.are.same({}, problems)
    assert.are.equal(2, #steps)
    assert.are.same({ kind = "file", path = "q.lua", data = "print(42)\n", line = 8 }, steps[1])
    assert.are.equal("./vpscript q.lua", steps[2].cmd)
  end)

  it("matches output line by line, '...' standing for any number of lines", function()
    assert.is_true(D.matches({ "a", "...", "d" }, { "a", "b", "c", "d" }))
    assert.is_true(D.matches({ "a", "...", "d" }, { "a", "d" }))
    assert.is_true(D.matches({ "a  " }, { "a" }))
    assert.is_true(D.matches({ "a", "... (3 more lines)" }, { "a", "b" }))
    assert.is_false(D.matches({ "a", "d" }, { "a", "b", "d" }))
    assert.is_false(D.matches({ "a", "...", "e" }, { "a", "b", "d" }))
    assert.is_false(D.matches({ "4000 frames" }, { "4,000 frames" }))
  end)

  it("fails a page whose command fails, whose exit status is not the one stated, or whose output differs", function()
    local path, tree = page({
      "```sh",
      "./vpscript hitches examples/sample.vprof",
      "./vpscript hitches examples/nothing_here.vprof",
      "./vpscript check.lua examples/rules/vprof.lua examples/sample.vprof   # exit 3",
      "```",
      "```console",
      "$ ./vpscript -e 'print(#vp.open(\"examples/sample.vprof\"))'",
      "4000",
      "$ ./vpscript -e 'print(vp.open(\"examples/sample.vprof\").frame_count .. \" frames\")'",
      "4,000 frames",
      "```",
    })
    local failures, ran = D.check(path, tree)
    assert.are.equal(5, ran)
    assert.are.equal(3, #failures, table.concat(failures, "\n"))
    assert.matches("page.md:3: %./vpscript hitches examples/nothing_here.vprof\n  exit status 2, expected 0",
      failures[1])
    assert.matches("page.md:4: .*\n  exit status 0, expected 3", failures[2])
    assert.matches("page.md:9: .*\n  output differs from the one shown; it was:\n    4000 frames", failures[3])
  end)

  it("passes a page whose commands all run as shown", function()
    local path, tree = page({
      "<!-- docs-run: file q.lua -->",
      "```lua",
      "local cap = assert(vp.open(arg[1]))",
      "print(#cap, cap:frame_times():where(40)[1])",
      "```",
      "```console",
      "$ ./vpscript q.lua examples/sample.vprof",
      "4000\t1200",
      "$ ./vpscript q.lua",
      "...",
      "[exit status 1]",
      "```",
    })
    local failures, ran = D.check(path, tree)
    assert.are.same({}, failures)
    assert.are.equal(2, ran)
  end)

  it("runs every command of README.md and docs/*.md as typed, with the output shown #slow", function()
    local failures, total = {}, 0
    for _, p in ipairs(D.pages()) do
      local f, ran = D.check(p)
      total = total + ran
      for _, x in ipairs(f) do failures[#failures + 1] = x end
    end
    assert.are.same({}, failures)
    assert.is_true(total >= 30, "only " .. total .. " documented commands ran")
  end)
end)
