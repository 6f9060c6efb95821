-- The floating window: highlight groups, placement, drawing.

local render = require("askd.render")

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

--- The highlight group of a span style (`accent` → `AskdAccent`); nil for unknown styles,
--- which show as the window's normal text.
function M.group(style)
  if type(style) ~= "string" or not M.styles[style] then
    return nil
  end
  return "Askd" .. style:sub(1, 1):upper() .. style:sub(2)
end

--- Defines the default links (kept when a colour scheme or the user defines the groups).
function M.define_highlights()
  for style, link in pairs(M.styles) do
    vim.cmd(string.format("highlight default link %s %s", M.group(style), link))
  end
end

local function border_pad(border)
  return (border == nil or border == "none") and 0 or 2
end

--- The float's inner width for a maximum width, fitted to the editor.
function M.width(max_width, border)
  local room = vim.o.columns - border_pad(border) - 2
  return math.max(1, math.min(max_width, room))
end

local function max_height(border)
  return math.max(1, vim.o.lines - vim.o.cmdheight - border_pad(border) - 2)
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

--- Opens an empty centred float and enters it; returns its buffer and window.
function M.open(width, border)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_option(buf, "bufhidden", "wipe")
  vim.api.nvim_buf_set_option(buf, "swapfile", false)
  vim.api.nvim_buf_set_option(buf, "modifiable", false)
  local config = win_config(width, 1, border)
  config.style = "minimal"
  config.border = border
  config.zindex = 60
  local win = vim.api.nvim_open_win(buf, true, config)
  vim.api.nvim_win_set_option(win, "wrap", true)
  vim.api.nvim_win_set_option(win, "cursorline", false)
  vim.api.nvim_buf_set_option(buf, "filetype", "askd")
  return buf, win
end

--- Draws a view into the float and fits the float to it: the engine's `lines` when the view
--- has them, else the fallback screen.
function M.draw(buf, win, view, width, border)
  if not vim.api.nvim_buf_is_valid(buf) or not vim.api.nvim_win_is_valid(win) then
    return
  end
  local lines, keep = render.lines(view, width)
  local flat = render.flatten(lines)
  vim.api.nvim_buf_set_option(buf, "modifiable", true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, flat.texts)
  vim.api.nvim_buf_set_option(buf, "modifiable", false)
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  for _, mark in ipairs(flat.marks) do
    local group = M.group(mark[4])
    if group then
      vim.api.nvim_buf_add_highlight(buf, M.ns, group, mark[1], mark[2], mark[3])
    end
  end
  local height = math.min(display_rows(flat.texts, width), max_height(border))
  vim.api.nvim_win_set_config(win, win_config(width, height, border))
  local cursor = { 1, 0 }
  if flat.cursor then
    cursor = { flat.cursor[1] + 1, flat.cursor[2] }
  elseif keep then
    cursor = { keep, 0 }
  end
  pcall(vim.api.nvim_win_set_cursor, win, cursor)
end

--- Closes the float if it is still open.
function M.close(win)
  if win and vim.api.nvim_win_is_valid(win) then
    pcall(vim.api.nvim_win_close, win, true)
  end
end

return M
