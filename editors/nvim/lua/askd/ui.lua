-- The floating window: highlight groups, placement, drawing.

local layout = require("askd.layout")
local render = require("askd.render")

local uv = vim.uv or vim.loop

local M = {}

--- Namespace of the flow window's highlights.
M.ns = vim.api.nvim_create_namespace("askd")

--- Span styles and the standard groups their highlight groups link to by default.
M.styles = {
  accent = "Special",
  success = "String",
  muted = "Comment",
  dim = "NonText",
  warning = "WarningMsg",
  selected = "Statement",
  cursor = "TermCursor",
  border = "FloatBorder",
  title = "Title",
  text = "NormalFloat",
}

--- What the float shows until the engine's first screen arrives.
M.PLACEHOLDER = { { { text = " …", style = "dim" } } }

--- Seconds left below which the countdown is drawn as a warning.
local COUNTDOWN_WARNING_S = 10

--- The highlight group of a span style (`accent` → `AskdAccent`); nil for unknown styles,
--- which show as the window's normal text.
function M.group(style)
  if type(style) ~= "string" or not M.styles[style] then
    return nil
  end
  return "Askd" .. style:sub(1, 1):upper() .. style:sub(2)
end

--- The colours `AskdBorder` had when the plugin last set them, to tell them from the user's.
local border_set = nil

--- The foreground a group shows (its background when it is drawn reversed), as
--- `{ gui, cterm }` colour numbers (either may be nil).
local function foreground(group)
  local ok_gui, gui = pcall(vim.api.nvim_get_hl_by_name, group, true)
  local ok_cterm, cterm = pcall(vim.api.nvim_get_hl_by_name, group, false)
  gui = ok_gui and gui or {}
  cterm = ok_cterm and cterm or {}
  return {
    gui = gui.reverse and gui.background or gui.foreground,
    cterm = cterm.reverse and cterm.background or cterm.foreground,
  }
end

--- `AskdBorder`: the engine's rules are drawn as text, so they take the foreground of the
--- float's border (`FloatBorder`) on the float's own background. A colour scheme that gives
--- `FloatBorder` (or the `WinSeparator` / `VertSplit` it links to) a background of its own,
--- or draws it reversed, as habamax and Neovim 0.7's default do, would otherwise draw each
--- rule as a solid bar. Kept when the user (or a colour scheme) defines `AskdBorder`.
local function define_border()
  local group = M.group("border")
  local known, current = pcall(vim.fn.execute, "highlight " .. group)
  if known and not current:find("cleared", 1, true) and current ~= border_set then
    return
  end
  local fg = foreground(M.styles.border)
  local parts = { "highlight", group }
  table.insert(parts, "guifg=" .. (fg.gui and string.format("#%06x", fg.gui) or "NONE"))
  table.insert(parts, "ctermfg=" .. (fg.cterm and tostring(fg.cterm) or "NONE"))
  table.insert(parts, "guibg=NONE ctermbg=NONE gui=NONE cterm=NONE")
  vim.cmd("highlight clear " .. group)
  if fg.gui or fg.cterm then
    vim.cmd(table.concat(parts, " "))
  else
    vim.cmd(string.format("highlight default link %s %s", group, "NonText"))
  end
  border_set = vim.fn.execute("highlight " .. group)
end

--- Defines the default links (kept when a colour scheme or the user defines the groups),
--- and `AskdBorder` (see `define_border`). Run again on every `ColorScheme`.
function M.define_highlights()
  for style, link in pairs(M.styles) do
    if style ~= "border" then
      vim.cmd(string.format("highlight default link %s %s", M.group(style), link))
    end
  end
  define_border()
end

--- Whether a float with this border draws a frame of its own.
function M.has_border(border)
  return border ~= nil and border ~= "none" and border ~= ""
end

local function border_pad(border)
  return M.has_border(border) and 2 or 0
end

--- The float's inner width for a maximum width, fitted to the editor (at least 1; below
--- the engine's minimum the float shows a message instead of the screen).
function M.width(max_width, border)
  local room = vim.o.columns - border_pad(border) - 2
  return math.max(1, math.min(max_width, room))
end

--- The tallest the float gets inside its border.
function M.max_height(border)
  return math.max(1, vim.o.lines - vim.o.cmdheight - border_pad(border) - 2)
end

--- Milliseconds since the Unix epoch.
function M.now_ms()
  local seconds, micros = uv.gettimeofday()
  return seconds * 1000 + math.floor(micros / 1000)
end

--- Screen rows that `texts` take in a wrapping window `width` columns wide.
local function display_rows(texts, width)
  local rows = 0
  for _, text in ipairs(texts) do
    rows = rows + math.max(1, math.ceil(vim.fn.strdisplaywidth(text) / width))
  end
  return rows
end

local function win_config(width, height, border)
  local pad = border_pad(border)
  return {
    relative = "editor",
    width = width,
    height = height,
    row = math.max(0, math.floor((vim.o.lines - vim.o.cmdheight - height - pad) / 2)),
    col = math.max(0, math.floor((vim.o.columns - width - pad) / 2)),
  }
end

-- The last configuration given to each float, so that an unchanged one is not set again.
local configs = setmetatable({}, { __mode = "k" })

--- Places the float unless it is placed so already.
local function place(win, config)
  local last = configs[win]
  if
    last
    and last.width == config.width
    and last.height == config.height
    and last.row == config.row
    and last.col == config.col
  then
    return
  end
  vim.api.nvim_win_set_config(win, config)
  configs[win] = config
end

-- What each float's buffer shows, row by row (`{ text, marks }`), so that a new screen
-- rewrites only the lines that changed.
local shown = setmetatable({}, { __mode = "k" })

--- The flattened screen's rows, each with its highlight ranges.
local function rows_of(flat)
  local rows = {}
  for i, text in ipairs(flat.texts) do
    rows[i] = { text = text, marks = {} }
  end
  for _, mark in ipairs(flat.marks) do
    table.insert(rows[mark[1] + 1].marks, mark)
  end
  return rows
end

local function same_marks(a, b)
  if #a ~= #b then
    return false
  end
  for i, mark in ipairs(a) do
    local other = b[i]
    if mark[2] ~= other[2] or mark[3] ~= other[3] or mark[4] ~= other[4] then
      return false
    end
  end
  return true
end

local function set_marks(buf, marks)
  for _, mark in ipairs(marks) do
    local group = M.group(mark[4])
    if group then
      vim.api.nvim_buf_set_extmark(buf, M.ns, mark[1], mark[2], {
        end_row = mark[1],
        end_col = mark[3],
        hl_group = group,
      })
    end
  end
end

--- Puts a flattened screen into the buffer: every line when the number of lines changed,
--- else only the lines whose text or highlights differ from what the buffer shows.
local function write(buf, flat)
  local rows = rows_of(flat)
  local before = shown[buf]
  vim.bo[buf].modifiable = true
  if not before or #before ~= #rows then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, flat.texts)
    vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
    set_marks(buf, flat.marks)
  else
    for i, row in ipairs(rows) do
      local old = before[i]
      if old.text ~= row.text then
        vim.api.nvim_buf_set_lines(buf, i - 1, i, false, { row.text })
      end
      if old.text ~= row.text or not same_marks(old.marks, row.marks) then
        vim.api.nvim_buf_clear_namespace(buf, M.ns, i - 1, i)
        set_marks(buf, row.marks)
      end
    end
  end
  vim.bo[buf].modifiable = false
  shown[buf] = rows
end

--- Writes lines of spans into the float, fits its height and places Neovim's cursor on the
--- engine's cursor, else on the focus line. `fits`: no line is wider than the float (the
--- engine's screens), so that each takes one row.
local function paint(buf, win, lines, width, border, fits)
  local flat = render.flatten(lines)
  write(buf, flat)
  local rows = fits and #flat.texts or display_rows(flat.texts, width)
  place(win, win_config(width, math.min(rows, M.max_height(border)), border))
  local cursor = { 1, 0 }
  if flat.cursor then
    cursor = { flat.cursor[1] + 1, flat.cursor[2] }
  else
    local focus = layout.focus_line(lines)
    if focus then
      cursor = { focus, 0 }
    end
  end
  pcall(vim.api.nvim_win_set_cursor, win, cursor)
  M.reset_view(win)
end

--- Shows the float's buffer from its first line and first column: the screen is never
--- taller than the float, so that nothing is left to scroll to.
function M.reset_view(win)
  local info = vim.fn.getwininfo(win)[1]
  if info and info.topline == 1 then
    local leftcol = vim.api.nvim_win_call(win, function()
      return vim.fn.winsaveview().leftcol
    end)
    if leftcol == 0 then
      return
    end
  end
  vim.api.nvim_win_call(win, function()
    vim.fn.winrestview({ topline = 1, leftcol = 0 })
  end)
end

--- Leaves Insert and Replace mode: keys go to the float's Normal-mode mappings.
function M.leave_insert()
  local mode = vim.api.nvim_get_mode().mode
  if mode:sub(1, 1) == "i" or mode:sub(1, 1) == "R" then
    vim.cmd("stopinsert")
  end
end

--- Opens a centred float showing the placeholder, and enters it when `focus` is true (else
--- the current window keeps the focus); returns its buffer and window. The window keeps its
--- buffer ('winfixbuf' where Neovim has it).
function M.open(width, border, focus)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  local config = win_config(width, 1, border)
  config.style = "minimal"
  config.border = border
  config.zindex = 60
  local win = vim.api.nvim_open_win(buf, focus ~= false, config)
  vim.wo[win].wrap = true
  vim.wo[win].cursorline = false
  if vim.fn.exists("+winfixbuf") == 1 then
    vim.wo[win].winfixbuf = true
  end
  vim.bo[buf].filetype = "askd"
  if focus ~= false then
    -- Keys go to the float's Normal-mode mappings: leave Insert mode (a flow opened from an
    -- Insert-mode mapping or while a chat buffer is being typed in).
    M.leave_insert()
  end
  configs[win] = config
  paint(buf, win, M.PLACEHOLDER, width, border, false)
  return buf, win
end

--- The lines the float shows for a view. `frame` is `{ width, border, top?, now? }`: the
--- inner width, the border, the first scrolled line shown last time (updated), and the time
--- in ms for the countdown (default: now). The engine's `lines` when the view has them, else
--- the fallback screen; without their rules in a bordered float; cut to the float's height;
--- with the countdown to the view's `deadline`.
function M.screen(view, frame)
  local width, border = frame.width, frame.border
  local lines
  -- The engine's index of each of its lines, to tell which the buffer shows where.
  local index = {}
  if width < layout.MIN_WIDTH then
    lines = layout.too_narrow(width)
  else
    lines = render.lines(view, width)
    if lines == view.lines then
      for i, line in ipairs(lines) do
        index[line] = i - 1
      end
    end
    if M.has_border(border) then
      lines = layout.trim_rules(lines)
    end
  end
  local height = M.max_height(border)
  local visible, top = layout.fit(lines, height, frame.top)
  local label = M.label(view, frame)
  local labelled = label and layout.with_label(visible, width, label)
  if labelled and #labelled > height and height > 1 then
    visible, top = layout.fit(lines, height - 1, frame.top)
    labelled = layout.with_label(visible, width, label)
  end
  -- `sources[n]`: the engine's line on the buffer's line n (false for a line of the float's
  -- own, such as a label on a line of its own).
  local sources = {}
  if labelled and #labelled > #visible then
    table.insert(sources, false)
  end
  for _, line in ipairs(visible) do
    table.insert(sources, index[line] or false)
  end
  frame.sources = sources
  frame.top = top
  return labelled or visible
end

--- What the float adds at the right end of the screen's first line, as spans: how to enter
--- a float shown without the focus (`:Askd to answer`), how many flows wait behind this one
--- (`+2 waiting`), and the countdown to the view's deadline; nil when none applies.
function M.label(view, frame)
  local parts = {}
  if frame.enter_hint then
    table.insert(parts, { text = ":Askd to answer", style = "warning" })
  end
  local count = frame.waiting or 0
  if count > 0 then
    if #parts > 0 then
      table.insert(parts, { text = " · ", style = "dim" })
    end
    table.insert(parts, { text = "+" .. count .. " waiting", style = "accent" })
  end
  if type(view.deadline) == "number" then
    local now = frame.now or M.now_ms()
    local style = (view.deadline - now) <= COUNTDOWN_WARNING_S * 1000 and "warning" or "muted"
    if #parts > 0 then
      table.insert(parts, { text = " · ", style = "dim" })
    end
    table.insert(parts, { text = layout.countdown(view.deadline, now), style = style })
  end
  return #parts > 0 and parts or nil
end

--- Draws a view into the float (see `screen`) and fits the float to it.
function M.draw(buf, win, view, frame)
  if not vim.api.nvim_buf_is_valid(buf) or not vim.api.nvim_win_is_valid(win) then
    return
  end
  local fits = type(view.lines) == "table" and frame.width >= layout.MIN_WIDTH
  paint(buf, win, M.screen(view, frame), frame.width, frame.border, fits)
end

--- The `activate` target of a click on the buffer's line `line` (1-based) at display column
--- `column` (0-based), through the view's `lineTargets`; nil where nothing is.
function M.target_at(view, frame, line, column)
  local source = frame.sources and frame.sources[line]
  if type(source) ~= "number" or type(view.lineTargets) ~= "table" then
    return nil
  end
  for _, target in ipairs(view.lineTargets) do
    if target.line == source and column >= target.start and column < target["end"] then
      return target.target
    end
  end
  return nil
end

--- Closes the float and deletes its buffer, whichever of them is still there.
function M.close(win, buf)
  if win and vim.api.nvim_win_is_valid(win) then
    pcall(vim.api.nvim_win_close, win, true)
  end
  if buf and vim.api.nvim_buf_is_valid(buf) then
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
  end
end

return M
