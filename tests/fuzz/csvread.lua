-- csvread.lua: an RFC 4180 reader for the tests (the renderers harness,
-- lua_render.lua, requires "csvread"; specs require "fuzz.csvread"):
-- text -> a list of records, each a list of fields, quotes undone; a
-- record ends at LF or CRLF; an unterminated quoted field raises.
return function(text)
  local records, fields, field, i, n = {}, {}, {}, 1, #text
  while i <= n do
    local c = text:sub(i, i)
    if c == '"' and #field == 0 then
      local j = i + 1
      while true do
        local q = text:find('"', j, true)
        if not q then error("an unterminated quoted CSV field", 0) end
        field[#field + 1] = text:sub(j, q - 1)
        if text:sub(q + 1, q + 1) == '"' then
          field[#field + 1], j = '"', q + 2
        else
          i = q + 1
          break
        end
      end
    elseif c == "," then
      fields[#fields + 1], field, i = table.concat(field), {}, i + 1
    elseif c == "\n" or (c == "\r" and text:sub(i + 1, i + 1) == "\n") then
      fields[#fields + 1] = table.concat(field)
      records[#records + 1], fields, field = fields, {}, {}
      i = i + (c == "\r" and 2 or 1)
    else
      field[#field + 1], i = c, i + 1
    end
  end
  if #field > 0 or #fields > 0 then
    fields[#fields + 1] = table.concat(field)
    records[#records + 1] = fields
  end
  return records
end
