-- vp.output: the one way a script writes an output file (an output module).
--
--   local output = require "vp.output"
--   local ok, why = output.check(path, inputs)   -- before any work
--   output.write(path, text, "-o")               -- the whole text
--   local out = output.open(path, "--junit")     -- or a stream for a writer:
--   out.file:write(...)                          --   a Lua file; the C exporters take it too
--   out:commit()                                 --   checked, renamed into place
--
-- The bytes go to a new file beside the destination (same directory), every
-- write and the close are checked, and only then is it renamed over the
-- destination (core/outfile): a full disk or an I/O error leaves the
-- destination as it was, and the script ends with exit 2 and a message
-- naming the file and the problem ("-o out.svg: No space left on device").
-- A destination that exists and is not a regular file (/dev/null,
-- /dev/full, a FIFO, a terminal) is written in place, still checked. An
-- output that is one of the run's input files (the same device and inode,
-- whatever the name) is refused before anything is read or written.
local E = require "vp.error"

local output = {}

local core = require "vp" and require "vp.output.core"

--- output.check(path [, inputs]) -> true | nil, why: can the script write
-- this file? A directory, a directory that does not exist or cannot be
-- written, and a file that is one of `inputs` (paths; the same device and
-- inode) are refused; a device or a FIFO (a process substitution, >(...))
-- is taken as it is. Nothing is left created or changed.
function output.check(path, inputs)
  local kind, id = core.stat(path)
  if kind == "directory" then return nil, "is a directory" end
  if kind == "other" then return true end
  for _, input in ipairs(inputs or {}) do
    if id and select(2, core.stat(input)) == id then
      return nil, string.format("is an input of this run (%s): refusing to overwrite it", input)
    end
  end
  local out, why = core.open(path)
  if not out then return nil, why end
  out:abort()
  return true
end

local Output = {}
Output.__index = Output

--- output.open(path, what) -> out: out.file is a Lua file handle on the new
-- file (what: the option that named it, for messages: "-o", "--junit");
-- out:commit() checks, closes and renames it (exit 2 naming the file on
-- any failure), out:abort() removes it. Fails with exit 2 when the file
-- cannot be created.
function output.open(path, what)
  local o, why = core.open(path)
  if not o then E.raise("EIO", "%s %s: %s", what, path, why) end
  return setmetatable({ core = o, file = o:file(), path = path, what = what }, Output)
end

function Output:commit()
  local ok, why = self.core:commit()
  if not ok then E.raise("EIO", "%s %s: %s", self.what, self.path, why) end
end

function Output:abort()
  self.core:abort()
end

--- output.write(path, text, what): the whole text into path, as open and commit.
function output.write(path, text, what)
  local out = output.open(path, what)
  out.file:write(text)
  out:commit()
end

return output
