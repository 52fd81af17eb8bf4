-- vp.junit: JUnit XML for check.lua (one testsuite per capture, one
-- testcase per rule), the dialect CI systems read (Jenkins, GitLab, GitHub
-- test reporters):
--
--   <?xml version="1.0" encoding="UTF-8"?>
--   <testsuites name="vpscript check" tests="2" failures="1" errors="0" skipped="0">
--     <testsuite name="cap.vprof" tests="2" failures="1" errors="0" skipped="0" time="0">
--       <properties><property name="rules" value="gate.lua"/>...</properties>
--       <testcase classname="cap.vprof" name="rule 1: frame_ms.p99" time="0">
--         <failure type="max" message="frame_ms.p99 = 24.10 ms, above the maximum 20 ms">...</failure>
--       </testcase>
--     </testsuite>
--   </testsuites>
--
-- Everything written is escaped (& < > " '), control characters other than
-- tab and line ends become "?", and bytes that are not UTF-8 become U+FFFD,
-- so a node or group name with odd bytes cannot make the file unreadable.
local fmt = require "vp.fmt"

local junit = {}

--- junit.clean(s) -> s as valid UTF-8 without XML-forbidden control characters.
function junit.clean(s)
  return (require("vp.json").utf8(tostring(s)):gsub("[%z\1-\8\11\12\14-\31\127]", "?"))
end

local ESC = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;" }

--- junit.escape(s) -> text safe in XML content and in quoted attributes.
function junit.escape(s)
  return (junit.clean(s):gsub("[&<>\"']", ESC))
end

local function attr(s)
  -- line ends would be normalised to spaces by a parser: keep them
  return (junit.escape(s):gsub("\r", "&#13;"):gsub("\n", "&#10;"):gsub("\t", "&#9;"))
end

local function value_text(v, unit)
  if type(v) ~= "number" then return "-" end
  local s = string.format("%.6g", v)
  if unit and unit ~= "count" and unit ~= "value" then s = s .. " " .. unit end
  return s
end

local function allowed_text(l, unit)
  local t = {}
  if type(l.max) == "number" then t[#t + 1] = "at most " .. value_text(l.max, unit) end
  if type(l.min) == "number" then t[#t + 1] = "at least " .. value_text(l.min, unit) end
  if type(l.max_regress_pct) == "number" then
    local s = "regression at most " .. string.format("%.6g", l.max_regress_pct) .. " %"
    if type(l.min_effect) == "number" then
      s = s .. " when the change is at least " .. value_text(l.min_effect, unit)
    end
    if l.significant == true then s = s .. " and significant at alpha " .. string.format("%.6g", l.alpha) end
    t[#t + 1] = s
  end
  if type(l.ci_above) == "number" then
    t[#t + 1] = "95 % interval of the regression not wholly above " .. string.format("%.6g", l.ci_above) .. " %"
  end
  return table.concat(t, "; ")
end

local function failure_type(r)
  local l = r.limits
  if r.value == nil or type(r.value) ~= "number" then return "not_measured" end
  if type(l.max) == "number" and r.value > l.max then return "max" end
  if type(l.min) == "number" and r.value < l.min then return "min" end
  if type(l.max_regress_pct) == "number" or type(l.ci_above) == "number" then return "regression" end
  return "failure"
end

--- junit.suite(doc) -> {xml =, tests =, failures =, errors =, skipped =}:
-- one <testsuite> for a check.lua JSON document.
function junit.suite(doc)
  local lines = {}
  local results = doc.results or {}
  local failures, skipped = 0, 0
  for _, r in ipairs(results) do
    if r.status == "fail" then failures = failures + 1 end
    if r.status == "skip" then skipped = skipped + 1 end
  end
  local file = tostring(doc.file)
  lines[#lines + 1] = string.format(
    '  <testsuite name="%s" tests="%d" failures="%d" errors="0" skipped="%d" time="0">',
    attr(file), #results, failures, skipped)
  lines[#lines + 1] = "    <properties>"
  for _, p in ipairs({ { "capture", doc.file }, { "format", doc.format }, { "rules", doc.rules },
    { "baseline", doc.baseline } }) do
    if type(p[2]) == "string" then
      lines[#lines + 1] = string.format('      <property name="%s" value="%s"/>', p[1], attr(p[2]))
    end
  end
  lines[#lines + 1] = "    </properties>"
  for _, r in ipairs(results) do
    local name = string.format("rule %d: %s", r.index, tostring(r.name or r.metric))
    local head = string.format('    <testcase classname="%s" name="%s" time="0"', attr(file), attr(name))
    if r.status == "pass" then
      lines[#lines + 1] = head .. ">"
      lines[#lines + 1] = "      <system-out>" .. junit.escape(r.message or "") .. "</system-out>"
      lines[#lines + 1] = "    </testcase>"
    elseif r.status == "skip" then
      lines[#lines + 1] = head .. ">"
      lines[#lines + 1] = string.format('      <skipped message="%s"/>', attr(r.message or "skipped"))
      lines[#lines + 1] = "    </testcase>"
    else
      local detail = {
        "metric: " .. tostring(r.metric),
        "measured: " .. value_text(r.value, r.unit),
        "allowed: " .. allowed_text(r.limits or {}, r.unit),
      }
      if type(r.baseline) == "number" then detail[#detail + 1] = "baseline: " .. value_text(r.baseline, r.unit) end
      if type(r.regress_pct) == "number" then
        detail[#detail + 1] = string.format("worse than the baseline by: %.6g %%", r.regress_pct)
      end
      local ci = type(r.ci) == "table" and r.ci or nil
      if ci and type(ci.pct_lo) == "number" then
        detail[#detail + 1] = string.format("change: %.6g %%, 95 %% interval %.6g .. %.6g %%", r.change_pct,
          ci.pct_lo, ci.pct_hi)
      end
      if type(r.p_value) == "number" then detail[#detail + 1] = "p-value: " .. fmt.p_value(r.p_value) end
      lines[#lines + 1] = head .. ">"
      lines[#lines + 1] = string.format('      <failure type="%s" message="%s">%s</failure>', failure_type(r),
        attr(r.message or "failed"), junit.escape(table.concat(detail, "\n")))
      lines[#lines + 1] = "    </testcase>"
    end
  end
  lines[#lines + 1] = "  </testsuite>"
  return { xml = table.concat(lines, "\n"), tests = #results, failures = failures, errors = 0, skipped = skipped }
end

--- junit.error_suite(file, message) -> a suite with one errored testcase,
-- for a capture that could not be checked at all.
function junit.error_suite(file, message)
  local xml = table.concat({
    string.format('  <testsuite name="%s" tests="1" failures="0" errors="1" skipped="0" time="0">', attr(file)),
    string.format('    <testcase classname="%s" name="open and check" time="0">', attr(file)),
    string.format('      <error type="error" message="%s"/>', attr(message)),
    "    </testcase>",
    "  </testsuite>",
  }, "\n")
  return { xml = xml, tests = 1, failures = 0, errors = 1, skipped = 0 }
end

--- junit.document(suites [, name]) -> the whole XML document for a list of
-- suites; name: the <testsuites> name ("vpscript check").
function junit.document(suites, name)
  local t = { tests = 0, failures = 0, errors = 0, skipped = 0 }
  local body = {}
  for i, s in ipairs(suites) do
    for k in pairs(t) do t[k] = t[k] + s[k] end
    body[i] = s.xml
  end
  return string.format('<?xml version="1.0" encoding="UTF-8"?>\n'
    .. '<testsuites name="%s" tests="%d" failures="%d" errors="%d" skipped="%d">\n%s%s</testsuites>\n',
    attr(name or "vpscript check"), t.tests, t.failures, t.errors, t.skipped, table.concat(body, "\n"),
    #body > 0 and "\n" or "")
end

--- junit.write(path, suite_or_suites [, name]): write the document (one
-- suite or a list) through vp.output: checked and renamed into place, or
-- exit 2 naming the file ("--junit x.xml: No space left on device").
function junit.write(path, suites, name)
  if suites.xml then suites = { suites } end
  require("vp.output").write(path, junit.document(suites, name), "--junit")
end

-- The <testsuite> elements of a document written by junit.write, with their counts.
local function suites_of(text)
  local out = {}
  for block in text:gmatch("(  <testsuite .-</testsuite>)") do
    local head = block:match("^  <testsuite [^>]*>")
    local function count(k) return tonumber(head:match(" " .. k .. '="(%d+)"')) or 0 end
    out[#out + 1] = { xml = block, tests = count("tests"), failures = count("failures"),
      errors = count("errors"), skipped = count("skipped") }
  end
  return out
end

--- junit.merge(parts, dest): combine the documents of several runs (vp.multi
-- parts {file, path, exit, error}) into one, in order; a run that wrote
-- nothing becomes an errored suite naming its message.
function junit.merge(parts, dest)
  local suites = {}
  for _, p in ipairs(parts) do
    local f = io.open(p.path, "rb")
    local text = f and f:read("a") or nil
    if f then f:close() end
    local got = text and suites_of(text) or {}
    if #got == 0 then
      got = { junit.error_suite(p.file, p.error or string.format("exited with status %s", tostring(p.exit))) }
    end
    for _, s in ipairs(got) do suites[#suites + 1] = s end
  end
  junit.write(dest, suites)
end

return junit
