-- docs_run.lua: run every shell command of README.md and docs/*.md as typed,
-- in a temporary copy of the tree, and check the output shown with it.
--
--   ./vpscript tools/docs_run.lua [--list] [FILE...]
--
-- Without FILE: README.md and every docs/*.md (tests/docs_run_spec.lua runs
-- this). --list prints the commands instead of running them. Run it from the
-- top of the tree after `make run` (it copies the tree as it is, the build
-- and the generated examples included). Exit status 1 when a command fails
-- or a page breaks the convention below, which docs/index.md states for doc
-- writers:
--
--   ```sh        every line is a command (a trailing "\" continues it; "#"
--                starts a comment). It must exit 0, unless its comment says
--                "exit N". The output is not checked.
--   ```console   "$ command" lines, each followed by its output as the
--                terminal shows it (stdout and stderr together). The output
--                must match: line by line, trailing blanks ignored; a line
--                "..." stands for any number of lines; a last line
--                "[exit status N]" is the exit status expected (else 0).
--   <!-- docs-run: file PATH -->
--                just before a fenced block: the block is written to PATH
--                (in the copy) before the commands after it run.
--   any other fenced block names its language (text, lua, json, c, ...)
--                and is not run; a "$ " line in one is refused (use
--                console), and so is a line starting with "./vpscript" or
--                "make" that has no placeholder (an upper-case word such as
--                CAPTURE, or a "[" of a synopsis): copyable commands run.
--
-- Blocks inside <!-- BEGIN GENERATED --> sections are tools/gen_docs.lua's:
-- it ran them and doc_spec checks them, so they are not run twice; their
-- first line must show the command as it ran ("$ ./vpscript ...").
-- Commands run with bash, one after the other in the same copy (a file one
-- writes, the next can read), with COLUMNS unset and standard input empty;
-- `make test` is not run (it runs this tool, and takes ten minutes).
local SKIP = { ["make test"] = "it runs this tool itself" }
local TIMEOUT_S = 300

local pages = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "docs_pages.lua")
local quote, read, write = pages.quote, pages.read, pages.write

local M = {}

local function rtrim(s) return (s:gsub("%s+$", "")) end

-- Output quoted in a failure: indented, the first 40 lines.
local function shown(out)
  local lines, n = {}, 0
  for l in (out .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    if n <= 40 then lines[#lines + 1] = "    " .. l end
  end
  if n > 40 then lines[#lines + 1] = ("    ... (%d more lines)"):format(n - 40) end
  return table.concat(lines, "\n")
end

--- M.parse(text) -> items: the page's fenced blocks in order, each
-- {line =, lang =, lines = {...}, generated = bool, file = PATH | nil}.
function M.parse(text)
  local items, block, generated, file_next = {}, nil, false, nil
  local n = 0
  for line in (text:gsub("\r\n", "\n") .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    if block then
      if line:match("^```%s*$") then
        items[#items + 1] = block
        block = nil
      else
        block.lines[#block.lines + 1] = line
      end
    elseif line:match("^```") then
      block = { line = n, lang = line:match("^```%s*([%w_%-]*)"), lines = {}, generated = generated,
        file = file_next }
      file_next = nil
    elseif line:match("^<!%-%- BEGIN GENERATED") then
      generated = true
    elseif line:match("^<!%-%- END GENERATED") then
      generated = false
    else
      local path = line:match("^<!%-%- docs%-run: file (%S+) %-%->%s*$")
      if path then
        file_next = path
      elseif line:match("%S") then
        file_next = nil
      end
    end
  end
  if block then items[#items + 1] = block end
  return items
end

-- A line that looks like a command someone would copy: "./vpscript ..." or
-- "make ..." with no placeholder (CAPTURE, [--json], A|B).
local function looks_runnable(line)
  local cmd = line:match("^%s*(%.%/vpscript%s.*)$") or line:match("^%s*(%.%/vpscript)$")
    or line:match("^%s*(make%s.*)$") or line:match("^%s*(make)$")
  if not cmd then return false end
  cmd = cmd:gsub("%s#.*$", "")
  if cmd:find("[%[|<]") or cmd:find("%f[%w]%u%u%u+%f[^%w]") or cmd:find("%.%.%.") then return false end
  return true
end

--- M.commands(items) -> list of steps, problems: what a page runs, in
-- order: {kind = "file", path, data} | {kind = "run", cmd, status, expect =
-- {lines} | nil, line}; problems: the convention broken, "line N: why".
function M.commands(items)
  local steps, problems = {}, {}
  local function bad(line, fmt, ...) problems[#problems + 1] = ("line %d: " .. fmt):format(line, ...) end
  for _, b in ipairs(items) do
    if b.file then
      steps[#steps + 1] = { kind = "file", path = b.file, data = table.concat(b.lines, "\n") .. "\n", line = b.line }
    end
    if b.generated then
      if b.lang == "" and not (b.lines[1] or ""):match("^%$ %./vpscript") then
        bad(b.line, "a generated block shows no command")
      end
    elseif b.lang == "sh" then
      local cmd, first
      for k, l in ipairs(b.lines) do
        local at = b.line + k
        if not cmd and (l:match("^%s*#") or not l:match("%S")) then goto continue end
        first = first or at
        cmd = (cmd and (cmd .. "\n") or "") .. l
        if not l:match("\\$") then
          local comment = cmd:match("%s#%s*([^\n]*)$") or ""
          local status = tonumber(comment:match("%f[%w]exit (%d+)")) or 0
          steps[#steps + 1] = { kind = "run", cmd = cmd, status = status, line = first }
          cmd, first = nil, nil
        end
        ::continue::
      end
      if cmd then bad(first, "a command ends with a \\ and nothing follows") end
    elseif b.lang == "console" then
      local mine = {}
      for k, l in ipairs(b.lines) do
        local c = l:match("^%$ (.*)$")
        if c then
          mine[#mine + 1] = { kind = "run", cmd = c, status = 0, expect = {}, line = b.line + k }
          steps[#steps + 1] = mine[#mine]
        elseif #mine == 0 then
          bad(b.line + k, "a console block starts with output, not a \"$ \" command")
        else
          table.insert(mine[#mine].expect, l)
        end
      end
      for _, s in ipairs(mine) do
        while #s.expect > 0 and not s.expect[#s.expect]:match("%S") do s.expect[#s.expect] = nil end
        local st = s.expect[#s.expect] and s.expect[#s.expect]:match("^%[exit status (%d+)%]$")
        if st then
          s.status = tonumber(st)
          s.expect[#s.expect] = nil
        end
      end
    elseif b.lang == "" then
      bad(b.line, "a fenced block names no language: sh or console to run it, text (or lua, json, ...) not to")
    else
      for k, l in ipairs(b.lines) do
        if l:match("^%$ ") then
          bad(b.line + k, "a \"$ \" command in a %s block: make the block console so it runs", b.lang)
        elseif looks_runnable(l) then
          bad(b.line + k, "a command in a %s block: make the block sh so it runs: %s", b.lang, l)
        end
      end
    end
  end
  return steps, problems
end

-- Whether the lines got match the lines shown: "..." (and tools/gen_docs'
-- "... (N more lines)") stands for any number of lines.
function M.matches(want, got)
  local memo = {}
  local function wild(l)
    local t = rtrim(l):match("^%s*(.-)$")
    return t == "..." or t:match("^%.%.%. %(%d+ more lines?%)$") ~= nil
  end
  local function go(i, j)
    local key = i * 65536 + j
    if memo[key] ~= nil then return memo[key] end
    local r
    if i > #want then
      r = j > #got
    elseif wild(want[i]) then
      r = go(i + 1, j) or (j <= #got and go(i, j + 1))
    else
      r = j <= #got and rtrim(want[i]) == rtrim(got[j]) and go(i + 1, j + 1)
    end
    memo[key] = r
    return r
  end
  return go(1, 1)
end

local function lines_of(s)
  local out = {}
  for l in (s .. "\n"):gmatch("(.-)\n") do out[#out + 1] = l end
  while #out > 0 and not out[#out]:match("%S") do out[#out] = nil end
  return out
end

--- M.copy_tree(src) -> dir: a copy of the tree at src (without .git) in a
-- new temporary directory.
function M.copy_tree(src)
  local p = assert(io.popen("mktemp -d /tmp/vpscript-docs.XXXXXX"))
  local dir = p:read("l")
  p:close()
  local ok = os.execute(("tar -C %s --exclude=./.git --exclude=./build/asan --exclude=./build/fuzz -cf - . | "
    .. "tar -C %s -xf -"):format(quote(src), quote(dir)))
  assert(ok, "could not copy the tree to " .. dir)
  return dir
end

--- M.run(cmd, dir) -> output, status: cmd run by bash in dir.
function M.run(cmd, dir)
  local script, out = os.tmpname(), os.tmpname()
  write(script, cmd .. "\n")
  local ok, how, code = os.execute(("cd %s && env -u COLUMNS timeout %d bash %s >%s 2>&1 </dev/null"):format(
    quote(dir), TIMEOUT_S, quote(script), quote(out)))
  local text = read(out)
  os.remove(script)
  os.remove(out)
  if how == "signal" then code = 128 + code end
  if ok then code = 0 end
  -- where the copy lives is not part of what a reader sees
  text = text:gsub(dir:gsub("%p", "%%%0") .. "/", ""):gsub(dir:gsub("%p", "%%%0"), ".")
  return text, code
end

--- M.check(path [, tree]) -> failures, ran: run one page's commands in a
-- copy of the tree (default "."); failures: "path:line: why" strings.
function M.check(path, tree)
  local steps, problems = M.commands(M.parse(read(path)))
  local failures = {}
  for _, p in ipairs(problems) do failures[#failures + 1] = path .. ": " .. p end
  local ran = 0
  local runs = 0
  for _, s in ipairs(steps) do
    if s.kind == "run" and not SKIP[rtrim(s.cmd:gsub("%s#.*$", ""))] then runs = runs + 1 end
  end
  if runs == 0 then return failures, 0 end
  local dir = M.copy_tree(tree or ".")
  for _, s in ipairs(steps) do
    if s.kind == "file" then
      os.execute("mkdir -p " .. quote((dir .. "/" .. s.path):match("^(.*)/[^/]*$")))
      write(dir .. "/" .. s.path, s.data)
    elseif not SKIP[rtrim(s.cmd:gsub("%s#.*$", ""))] then
      ran = ran + 1
      local out, code = M.run(s.cmd, dir)
      local where = ("%s:%d: %s"):format(path, s.line, s.cmd:gsub("\n.*", " ..."))
      if code ~= s.status then
        failures[#failures + 1] = ("%s\n  exit status %d, expected %d; output:\n%s"):format(where, code, s.status,
          shown(out))
      elseif s.expect and not M.matches(s.expect, lines_of(out)) then
        failures[#failures + 1] = ("%s\n  output differs from the one shown; it was:\n%s"):format(where,
          shown(out))
      end
    end
  end
  os.execute("rm -rf " .. quote(dir))
  return failures, ran
end

--- M.pages() -> README.md and every docs/*.md, sorted.
M.pages = pages.pages

if ... == "docs_run" then return M end -- required as a module (the spec)

local list, paths = pages.command_line(arg, "--list", "usage: vpscript tools/docs_run.lua [--list] [FILE...]")
local failed = 0
for _, path in ipairs(paths) do
  if list then
    local steps, problems = M.commands(M.parse(read(path)))
    for _, s in ipairs(steps) do
      if s.kind == "run" then print(("%s:%d: %s"):format(path, s.line, s.cmd)) end
    end
    for _, p in ipairs(problems) do print(path .. ": " .. p) end
  else
    local failures, ran = M.check(path)
    for _, f in ipairs(failures) do io.stderr:write(f, "\n") end
    failed = failed + #failures
    print(("%s: %d commands, %d failed"):format(path, ran, #failures))
  end
end
if failed > 0 then os.exit(1) end
