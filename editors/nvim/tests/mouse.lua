-- Headless tests of the askd Neovim plugin: clicks in the float with 'mouse' on, driven as
-- real mouse input (`nvim_input_mouse`), through the view's `lineTargets` to `activate`.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local case = h.case
local eq = h.eq
local floats = h.floats
local screen = h.screen
local wait_screen = h.wait_screen
local start = h.start
local wait_done = h.wait_done
local on_cleanup = h.on_cleanup
local sleep = h.sleep
local payload = h.payload

local SIZE = h.SIZE
local LANGS = h.LANGS

--- Clicks (presses and releases the left button) on the first cell of the first buffer line
--- of the float that shows `text`, at the screen cell where the float shows it.
local function click(text)
  local win = floats()[1]
  local buf = vim.api.nvim_win_get_buf(win)
  -- Where windows stand on the screen is known once the screen is drawn.
  vim.cmd("redraw")
  for n, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local at = line:find(text, 1, true)
    if at then
      local pos = vim.fn.screenpos(win, n, at)
      assert(pos.row > 0, "the float shows line " .. n)
      vim.api.nvim_input_mouse("left", "press", "", 0, pos.row - 1, pos.col - 1)
      vim.api.nvim_input_mouse("left", "release", "", 0, pos.row - 1, pos.col - 1)
      return
    end
  end
  error("no line of the float shows " .. text .. ":\n" .. tostring(screen()))
end

local function mouse_on()
  vim.o.mouse = "a"
  on_cleanup(function()
    vim.o.mouse = ""
  end)
end

case("mouse: a tab, multi rows, the custom row, a single row and Submit by clicks", function()
  mouse_on()
  local run = start(payload(SIZE, LANGS))
  wait_screen("Pick a size")
  -- A tab.
  click("Langs")
  wait_screen("Which languages?")
  -- Multi rows toggle. (Two clicks in a row on one place are a double click, which does
  -- nothing: each click here is on another row than the one before.)
  click("Rust")
  wait_screen("[x] Rust")
  click("Lua")
  wait_screen("[x] Lua")
  click("Python")
  wait_screen("[x] Python")
  click("Lua")
  wait_screen("[ ] Lua")
  eq(
    vim.tbl_filter(function(line)
      return line:find("%[x%]") ~= nil
    end, vim.split(screen(), "\n")),
    { "   2. [x] Rust", "   3. [x] Python" },
    "the rows checked"
  )
  -- Back on the first tab, the custom row opens its editor.
  click("Size")
  wait_screen("Pick a size")
  click("Type your own")
  wait_screen("Your answer")
  -- A single-choice row confirms as Enter does: the flow moves on to the next tab.
  click("Medium")
  wait_screen(" ■ Size  [■ Langs]  ✓ Submit")
  -- The review tab.
  click("✓ Submit")
  wait_screen("Review your answers")
  -- Where nothing is, nothing happens.
  local before = screen()
  click("Review your answers")
  sleep(100)
  eq(screen(), before, "the review after a click on its title")
  click("1. Submit")
  wait_done(run)
  eq(run.err, nil, "error")
  eq(run.result.details.answers, {
    size = { values = { "medium" }, labels = { "Medium" }, indices = { 2 } },
    langs = {
      values = { "rust", "python" },
      labels = { "Rust", "Python" },
      indices = { 2, 3 },
    },
  }, "answers")
  eq(run.result.details.mode, "submit", "mode")
end)

case("mouse: a click outside the float keeps Neovim's own behaviour", function()
  mouse_on()
  local first = vim.api.nvim_get_current_win()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  local win = floats()[1]
  eq(vim.api.nvim_get_current_win(), win, "the float has the focus")
  -- The last line of the editor window under the float, far from it: Neovim moves there.
  vim.api.nvim_input_mouse("left", "press", "", 0, vim.o.lines - 3, 0)
  vim.api.nvim_input_mouse("left", "release", "", 0, vim.o.lines - 3, 0)
  h.wait_for("the focus to leave the float", function()
    return vim.api.nvim_get_current_win() == first
  end)
  eq(screen():find("Pick a size", 1, true) ~= nil, true, "the float still shows the question")
  vim.api.nvim_set_current_win(win)
  h.feed("<C-c>")
  wait_done(run)
end)
