-- Fits the engine's screen (lines of `{ text, style }` spans) to the float: the rules a
-- bordered float does not need, the part of a tall screen that fits, the countdown to a
-- deadline, and the message shown when the float is too narrow.

local M = {}

--- The narrowest screen the engine renders (narrower widths render as this one).
M.MIN_WIDTH = 20

--- The marker of the active row or review action.
local POINTER = "❯"

local function width_of(text)
  return vim.fn.strdisplaywidth(text)
end

--- The text of a line of spans.
function M.text(spans)
  local parts = {}
  for i, s in ipairs(spans or {}) do
    parts[i] = tostring(s.text or "")
  end
  return table.concat(parts)
end

--- Whether a line is one of the engine's rules: nothing but `─` in the `border` style.
function M.is_rule(spans)
  if type(spans) ~= "table" or #spans == 0 then
    return false
  end
  for _, s in ipairs(spans) do
    if s.style ~= "border" or type(s.text) ~= "string" or not s.text:match("^[─]+$") then
      return false
    end
  end
  return true
end

local function is_blank(spans)
  return M.text(spans):match("^%s*$") ~= nil
end

local function slice(list, first, last)
  local out = {}
  for i = first, last do
    table.insert(out, list[i])
  end
  return out
end

--- The screen without its top and bottom rules, for a float whose border frames it already.
function M.trim_rules(lines)
  local first, last = 1, #lines
  if first <= last and M.is_rule(lines[first]) then
    first = first + 1
  end
  if first <= last and M.is_rule(lines[last]) then
    last = last - 1
  end
  return slice(lines, first, last)
end

--- The first line of the footer (the key hints and the closing rule): the line after the
--- last blank one; `#lines + 1` when the screen has no blank line.
function M.footer_start(lines)
  for i = #lines, 1, -1 do
    if is_blank(lines[i]) then
      return i + 1
    end
  end
  return #lines + 1
end

--- The line to keep in sight: the one holding the editor's cursor (the `cursor` span), else
--- the active row or action (an `accent` span with the `❯` pointer); nil when none.
function M.focus_line(lines)
  for i, spans in ipairs(lines) do
    for _, s in ipairs(spans) do
      if s.style == "cursor" then
        return i
      end
    end
  end
  for i, spans in ipairs(lines) do
    for _, s in ipairs(spans) do
      if s.style == "accent" and type(s.text) == "string" and s.text:find(POINTER, 1, true) then
        return i
      end
    end
  end
  return nil
end

--- The last line of the block the focus line belongs to: the bottom edge (`╰`) of the
--- editor box holding the cursor, else the focus line itself.
function M.focus_end(lines, focus)
  local has_cursor = false
  for _, s in ipairs(lines[focus] or {}) do
    if s.style == "cursor" then
      has_cursor = true
    end
  end
  if not has_cursor then
    return focus
  end
  for i = focus + 1, #lines do
    local text = M.text(lines[i])
    if is_blank(lines[i]) then
      return focus
    end
    if text:find("╰", 1, true) then
      return i
    end
  end
  return focus
end

--- The last line of the header: the rule, the title and the tab bar, which end at the
--- first blank line; 0 when the screen has no blank line before `limit`.
function M.header_end(lines, limit)
  for i = 1, math.min(#lines, limit) do
    if is_blank(lines[i]) then
      return i - 1
    end
  end
  return 0
end

--- The lines a float `height` rows tall shows: all of them when they fit; otherwise the
--- footer (key hints, closing rule) stays at the bottom, the header (rule, title, tabs)
--- at the top whenever it fits with the focus line, and the rest scrolls, from line `top`
--- (the first line shown last time), just enough to keep the focus line in sight with the
--- rest of its editor box (from the first line whenever they fit with it). Without room
--- for the header, the body scrolls alone; a footer taller than the float leaves room for
--- the focus line only. Returns the lines and the new `top`.
function M.fit(lines, height, top)
  local count = #lines
  if count <= height then
    return lines, 1
  end
  height = math.max(1, height)
  local footer = M.footer_start(lines)
  local body = footer - 1
  local room = height - (count - body)
  if room < 1 then
    body, room = count, height
  end
  top = math.max(1, top or 1)
  local focus = M.focus_line(lines)
  local last = focus and focus <= body and math.min(M.focus_end(lines, focus), body) or nil
  -- The header is pinned when it fits with the focus block (or there is no focus).
  local header = M.header_end(lines, body)
  local need = focus and last and (math.min(last - focus + 1, room)) or 1
  if header > 0 and header + need > room then
    header = 0
  end
  local first_body = header + 1
  local body_room = room - header
  if focus and focus <= body then
    last = math.min(last, focus + body_room - 1)
    if last - first_body + 1 <= body_room then
      -- The whole screen from its first line shows whenever the focus fits with it.
      top = first_body
    elseif focus < top then
      top = focus
    elseif last > top + body_room - 1 then
      top = last - body_room + 1
    end
  end
  top = math.max(first_body, math.min(top, math.max(first_body, body - body_room + 1)))
  local shown = slice(lines, 1, header)
  vim.list_extend(shown, slice(lines, top, math.min(body, top + body_room - 1)))
  for i = body + 1, count do
    table.insert(shown, lines[i])
  end
  return shown, top
end

--- A countdown as `m:ss` (`h:mm:ss` from an hour) for the whole seconds left until
--- `deadline_ms` at `now_ms`, rounded up; `0:00` once it has passed.
function M.countdown(deadline_ms, now_ms)
  local seconds = math.max(0, math.ceil((deadline_ms - now_ms) / 1000))
  local hours = math.floor(seconds / 3600)
  local minutes = math.floor(seconds % 3600 / 60)
  local rest = seconds % 60
  if hours > 0 then
    return string.format("%d:%02d:%02d", hours, minutes, rest)
  end
  return string.format("%d:%02d", minutes, rest)
end

--- Puts a label at the right end of the first line of a screen `width` columns wide: into
--- the top rule (`───── 1:05 ─`), after the first line's text when it leaves room, else on a
--- line of its own above it. `label` is a list of spans (`{ text, style }`).
function M.with_label(lines, width, label)
  local out = vim.deepcopy(lines)
  local label_width = width_of(M.text(label))
  local first = out[1]
  if first and M.is_rule(first) and width - label_width - 3 >= 1 then
    local rule = { { text = string.rep("─", width - label_width - 3), style = "border" } }
    table.insert(rule, { text = " ", style = "border" })
    vim.list_extend(rule, vim.deepcopy(label))
    table.insert(rule, { text = " ─", style = "border" })
    out[1] = rule
    return out
  end
  local used = first and width_of(M.text(first)) or 0
  local pad = width - used - label_width - 1
  if first and pad >= 1 then
    table.insert(first, { text = string.rep(" ", pad), style = "text" })
    vim.list_extend(first, vim.deepcopy(label))
    return out
  end
  local line = { { text = string.rep(" ", math.max(0, width - label_width - 1)), style = "text" } }
  vim.list_extend(line, vim.deepcopy(label))
  table.insert(out, 1, line)
  return out
end

--- Splits `text` into lines at most `width` columns wide, at spaces where it can.
local function wrap(text, width)
  local out, line = {}, ""
  for word in text:gmatch("%S+") do
    while width_of(word) > width do
      if line ~= "" then
        table.insert(out, line)
        line = ""
      end
      local head = vim.fn.strcharpart(word, 0, width)
      table.insert(out, head)
      word = word:sub(#head + 1)
    end
    if line == "" then
      line = word
    elseif width_of(line) + 1 + width_of(word) <= width then
      line = line .. " " .. word
    else
      table.insert(out, line)
      line = word
    end
  end
  if line ~= "" then
    table.insert(out, line)
  end
  return out
end

--- The screen of a float narrower than the engine renders: what it needs, in `warning`
--- lines that fit `width`.
function M.too_narrow(width)
  local message = string.format(
    "askd needs %d columns; this window has %d. Widen the editor.",
    M.MIN_WIDTH,
    width
  )
  local out = {}
  for _, line in ipairs(wrap(message, math.max(1, width))) do
    table.insert(out, { { text = line, style = "warning" } })
  end
  return out
end

return M
