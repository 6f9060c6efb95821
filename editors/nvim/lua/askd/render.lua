-- Turns a view into buffer lines and highlight ranges.
--
-- The engine renders the screen itself (`view.lines`, arrays of `{ text, style }` spans); this
-- module only flattens those spans. When a view carries no `lines` (an engine without the
-- renderer), `fallback` draws a plain screen from the structured view instead.

local M = {}

--- Iterates the code points of UTF-8 text (LuaJIT has no `utf8` library).
local function utf8_codes(text)
  local pos = 1
  return function()
    if pos > #text then
      return nil
    end
    local start = pos
    local c = text:byte(pos)
    local len = c >= 0xF0 and 4 or c >= 0xE0 and 3 or c >= 0xC0 and 2 or 1
    pos = pos + len
    local cp = c
    if len > 1 then
      cp = c % (2 ^ (7 - len))
      for k = start + 1, start + len - 1 do
        cp = cp * 64 + (text:byte(k) or 0x80) % 64
      end
    end
    return start, cp
  end
end

local function span(text, style)
  return { text = text, style = style }
end

--- Splits text on newlines (an empty string gives one empty line).
local function split_lines(text)
  return vim.split(text or "", "\n", { plain = true })
end

--- The editor's text as lines of spans, the first line starting with `prefix`; the character
--- under the engine's cursor (a space at a line end) carries the `cursor` style.
local function editor_lines(editor, prefix, prefix_style)
  local indent = string.rep(" ", vim.fn.strdisplaywidth(prefix))
  local out = {}
  local text = editor.text or ""
  local cursor_byte = (editor.cursor and editor.cursor.byte) or #text
  if text == "" then
    return {
      {
        span(prefix, prefix_style),
        span(" ", "cursor"),
        span(editor.placeholder or "", "dim"),
      },
    }
  end
  local start = 0
  for i, line in ipairs(split_lines(text)) do
    local spans = { span(i == 1 and prefix or indent, prefix_style) }
    local stop = start + #line
    if cursor_byte >= start and cursor_byte <= stop then
      local col = cursor_byte - start
      local before = line:sub(1, col)
      local rest = line:sub(col + 1)
      local under = " "
      if rest ~= "" then
        under = vim.fn.strcharpart(rest, 0, 1)
        rest = rest:sub(#under + 1)
      end
      table.insert(spans, span(before, "text"))
      table.insert(spans, span(under, "cursor"))
      table.insert(spans, span(rest, "text"))
      -- A cursor at the end of one line is not also at the start of the next.
      cursor_byte = -1
    else
      table.insert(spans, span(line, "text"))
    end
    table.insert(out, spans)
    start = stop + 1
  end
  return out
end

local function editor_on(view, kind, option_value)
  local editor = view.editor
  if not editor or not editor.target or editor.target.kind ~= kind then
    return nil
  end
  if kind == "optionNote" and editor.target.optionValue ~= option_value then
    return nil
  end
  return editor
end

local function tab_line(view)
  local spans = {}
  for i, tab in ipairs(view.tabs or {}) do
    if i > 1 then
      table.insert(spans, span(" ", nil))
    end
    local mark = ""
    if tab.kind == "question" then
      mark = tab.answered and "✓ " or "□ "
    end
    local style = tab.active and "accent" or (tab.answered and "success" or "muted")
    local open, close = " ", " "
    if tab.active then
      open, close = "[", "]"
    end
    table.insert(spans, span(open .. mark .. tab.label .. close, style))
  end
  return spans
end

local function question_lines(view, out)
  local q = view.question
  local active
  table.insert(out, { span(q.prompt, "text") })
  if q.detail then
    for _, line in ipairs(split_lines(q.detail)) do
      table.insert(out, { span(line, "muted") })
    end
  end
  local note_editor = editor_on(view, "questionNote")
  if note_editor then
    vim.list_extend(out, editor_lines(note_editor, "Note: ", "warning"))
  elseif q.note then
    table.insert(out, { span("Note: " .. q.note, "warning") })
  end
  table.insert(out, {})
  -- A long list comes as the window the screen shows; say what lies outside it.
  if (q.rowsAbove or 0) > 0 then
    table.insert(out, { span("  ↑ " .. q.rowsAbove .. " more", "dim") })
  end
  for _, row in ipairs(q.rows or {}) do
    local label_style = row.active and "accent" or (row.selected and "selected" or "text")
    local spans = {
      span(row.active and "❯ " or "  ", "accent"),
      span(row.selected and "[x] " or "[ ] ", row.selected and "success" or "muted"),
      span(row.index .. ". " .. row.label, label_style),
    }
    if row.recommended then
      table.insert(spans, span(" (recommended)", "muted"))
    end
    local custom_editor = row.custom and editor_on(view, "custom")
    if row.custom and q.customText and not custom_editor then
      table.insert(spans, span(": " .. q.customText, "text"))
    end
    table.insert(out, spans)
    if row.active then
      active = #out
    end
    if row.description then
      for _, line in ipairs(split_lines(row.description)) do
        table.insert(out, { span("      " .. line, "muted") })
      end
    end
    if custom_editor then
      vim.list_extend(out, editor_lines(custom_editor, "      > ", "accent"))
    end
    local option_editor = not row.custom and editor_on(view, "optionNote", row.value)
    if option_editor then
      vim.list_extend(out, editor_lines(option_editor, "      note: ", "warning"))
    elseif row.note then
      table.insert(out, { span("      note: " .. row.note, "warning") })
    end
  end
  if (q.rowsBelow or 0) > 0 then
    table.insert(out, { span("  ↓ " .. q.rowsBelow .. " more", "dim") })
  end
  if q.preview then
    table.insert(out, {})
    for _, line in ipairs(split_lines(q.preview)) do
      table.insert(out, { span(line, "dim") })
    end
  end
  return active
end

local function review_lines(view, out)
  local review = view.review
  for _, q in ipairs(review.questions or {}) do
    table.insert(out, { span(q.label, "accent") })
    if #(q.answers or {}) == 0 then
      table.insert(out, { span("  → unanswered", "muted") })
    end
    for _, answer in ipairs(q.answers or {}) do
      table.insert(out, { span("  → " .. answer.label, "success") })
      if answer.note then
        table.insert(out, { span("    note: " .. answer.note, "warning") })
      end
    end
    if q.note then
      table.insert(out, { span("  note: " .. q.note, "warning") })
    end
    for _, other in ipairs(q.otherNotes or {}) do
      table.insert(out, { span("  " .. other.label .. " note: " .. other.note, "warning") })
    end
  end
  table.insert(out, {})
  local active
  for _, action in ipairs(review.actions or {}) do
    table.insert(out, {
      span(action.active and "❯ " or "  ", "accent"),
      span(action.key .. ". " .. action.label, action.active and "accent" or "text"),
    })
    if action.active then
      active = #out
    end
  end
  return active
end

local function hint_line(view)
  local parts = {}
  for _, hint in ipairs(view.hints or {}) do
    table.insert(parts, table.concat(hint.keys or {}, "/") .. " " .. hint.label)
  end
  return { span(table.concat(parts, " · "), "dim") }
end

--- A plain screen drawn from the structured view, for views without `lines`: the lines of
--- spans, and the 1-based line of the active row or action (nil when none). With a width,
--- rules close the screen at the top and the bottom.
function M.fallback(view, width)
  local out = {}
  local rule = width and { span(string.rep("─", width), "border") } or nil
  if rule then
    table.insert(out, rule)
  end
  if view.title then
    table.insert(out, { span(view.title, "title") })
  end
  table.insert(out, tab_line(view))
  table.insert(out, {})
  local active
  if view.question then
    active = question_lines(view, out)
  elseif view.review then
    active = review_lines(view, out)
  end
  if view.hints and #view.hints > 0 then
    table.insert(out, {})
    table.insert(out, hint_line(view))
  end
  if rule then
    table.insert(out, rule)
  end
  return out, active
end

--- Whether this Neovim draws an emoji sequence (a ZWJ sequence, a skin tone, a flag) as one
--- character two columns wide, as the engine lays it out (Neovim 0.10 and later); 0.9 and
--- earlier draw each code point, the joiner as `<200d>`.
M.joins_emoji = vim.fn.strdisplaywidth("\u{1F469}\u{200D}\u{1F4BB}") == 2

local ZWJ = 0x200D
local VS16 = 0xFE0F

--- Code points that only modify the one before them in an emoji sequence.
local function modifier(cp)
  return cp == VS16
    or cp == 0xFE0E
    or cp == 0x20E3 -- combining enclosing keycap
    or (cp >= 0x1F3FB and cp <= 0x1F3FF) -- skin tones
    or (cp >= 0xE0020 and cp <= 0xE007F) -- tags (subdivision flags)
end

local function regional(cp)
  return cp >= 0x1F1E6 and cp <= 0x1F1FF
end

--- Text as a Neovim that draws every code point of an emoji sequence can show it in the
--- columns the engine gave it: each sequence becomes its first emoji, followed by a space
--- when that one is narrower than the two columns of the sequence. Other text is unchanged.
function M.compat_emoji(text)
  if M.joins_emoji or not text:find("[\226-\244]") then
    return text
  end
  local cps = {}
  for _, cp in utf8_codes(text) do
    table.insert(cps, cp)
  end
  local out, i = {}, 1
  while i <= #cps do
    local cp = cps[i]
    local j = i + 1
    local sequence = false
    if regional(cp) and cps[j] and regional(cps[j]) then
      j = j + 1
      sequence = true
    end
    while cps[j] and (modifier(cps[j]) or (cps[j] == ZWJ and cps[j + 1])) do
      if cps[j] == ZWJ then
        j = j + 2
      else
        j = j + 1
      end
      sequence = true
    end
    local base = vim.fn.nr2char(cp)
    if sequence then
      local pad = 2 - vim.fn.strdisplaywidth(base)
      table.insert(out, base .. string.rep(" ", math.max(0, pad)))
    elseif cp == ZWJ then
      -- A joiner with nothing after it: nothing to draw.
      table.insert(out, "")
    else
      table.insert(out, base)
    end
    i = j
  end
  return table.concat(out)
end

--- Flattens lines of spans into `{ texts, marks, cursor }`: one string per line, highlight
--- ranges `{ row, start_col, end_col, style }` (0-based rows, byte columns), and the 0-based
--- `{ row, col }` of the first `cursor` span (nil when none).
function M.flatten(lines)
  local texts, marks, cursor = {}, {}, nil
  for row, spans in ipairs(lines or {}) do
    local acc = {}
    local col = 0
    for _, s in ipairs(spans) do
      local text = M.compat_emoji(tostring(s.text or ""):gsub("[\r\n]", " "))
      if s.style and s.style ~= "" and #text > 0 then
        table.insert(marks, { row - 1, col, col + #text, s.style })
      end
      if s.style == "cursor" and not cursor then
        cursor = { row - 1, col }
      end
      table.insert(acc, text)
      col = col + #text
    end
    texts[row] = table.concat(acc)
  end
  return { texts = texts, marks = marks, cursor = cursor }
end

--- The lines to draw for a view at a width: the engine's `lines` when present, else the
--- fallback screen.
function M.lines(view, width)
  if type(view.lines) == "table" then
    return view.lines
  end
  return (M.fallback(view, width))
end

return M
