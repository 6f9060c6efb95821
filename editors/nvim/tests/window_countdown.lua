-- Headless tests of the askd Neovim plugin: long lists, small windows, the countdown.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ui = h.ui
local render = h.render
local layout = h.layout
local SCROLL_TOP = h.SCROLL_TOP
local SCROLL_DOWN = h.SCROLL_DOWN
local SCROLL_EDITOR = h.SCROLL_EDITOR
local SCROLL_EDITOR_TWO_LINES = h.SCROLL_EDITOR_TWO_LINES
local BORDERED = h.BORDERED
local case = h.case
local wait_for = h.wait_for
local eq = h.eq
local truthy = h.truthy
local feed = h.feed
local floats = h.floats
local screen = h.screen
local wait_screen = h.wait_screen
local start = h.start
local wait_done = h.wait_done
local log_requests = h.log_requests
local many_options = h.many_options
local SIZE = h.SIZE
local payload = h.payload

---------------------------------------------------------------------------------------------
-- Long lists and small windows

case("PageDown, PageUp, Home and End reach the engine", function()
  local requests = log_requests()
  local run = start({ questions = { { id = "a", prompt = "Pick", options = many_options(15) } } })
  wait_screen("Pick")
  feed("<PageDown><PageUp><End><Home>")
  local function sent()
    local list = {}
    for _, r in ipairs(requests()) do
      if r.method == "key" then
        table.insert(list, r.params.key)
      end
    end
    return list
  end
  wait_for(function()
    return "four keys; keys sent: " .. vim.inspect(sent())
  end, function()
    return #sent() == 4
  end)
  eq(sent(), { "pagedown", "pageup", "end", "home" }, "keys sent")
  feed("<Esc>")
  wait_done(run)
end)

case("a screen taller than the float scrolls: active row and footer stay in sight", function()
  vim.o.lines = 18
  local run = start({
    title = "Tall",
    questions = { { id = "a", prompt = "Pick one", options = many_options(9) } },
  }, { width = 44, confirm_dismiss = false })
  wait_screen("Pick one")
  eq(screen(), SCROLL_TOP, "first screen")
  feed("<Down><Down><Down><Down><Down><Down><Down>")
  wait_screen("❯ 8. ○ Option 8")
  eq(screen(), SCROLL_DOWN, "after moving down")
  feed("<Up><Up><Up><Up><Up><Up><Up>")
  wait_screen("❯ 1. ○ Option 1")
  eq(screen(), SCROLL_TOP, "back at the top row, the top of the screen shows again")
  eq(vim.api.nvim_win_get_height(floats()[1]), 15, "float height")
  -- The custom row opens its editor: the whole box stays in sight as it grows.
  feed("<Down><Down><Down><Down><Down><Down><Down><Down><Down>")
  wait_screen("Type answer...")
  eq(screen(), SCROLL_EDITOR, "the editor box")
  feed("ab<M-CR>cd")
  wait_screen("│ cd ")
  eq(screen(), SCROLL_EDITOR_TWO_LINES, "the editor box of two lines")
  feed("<C-c>")
  wait_done(run)
end)

case("a float narrower than the engine's minimum says so, and recovers", function()
  local requests = log_requests()
  vim.o.columns = 18
  local run = start(payload(SIZE))
  wait_screen("askd needs")
  eq(
    screen(),
    "askd needs 20\ncolumns; this\nwindow has 16.\nWiden the\neditor.",
    "message at 16 columns"
  )
  eq(requests()[1].params.width, 20, "the engine renders at its minimum")
  vim.o.columns = 80
  vim.cmd("doautocmd VimResized")
  wait_screen("Pick a size")
  feed("<Esc>")
  wait_done(run)
end)

case("a bordered float shows the engine's screen without its rules", function()
  local run = start(payload(SIZE), { border = "rounded", width = 40 })
  wait_screen("Pick a size")
  eq(screen(), BORDERED, "screen")
  local config = vim.api.nvim_win_get_config(floats()[1])
  eq({ config.width, config.height }, { 40, 17 }, "float size")
  feed("<Esc>")
  wait_done(run)
end)

---------------------------------------------------------------------------------------------
-- Countdown

case("a view's deadline is shown as a countdown", function()
  local now = 1700000000000
  local view = {
    deadline = now + 65000,
    lines = {
      { { text = string.rep("─", 24), style = "border" } },
      { { text = " ", style = "text" }, { text = "Title", style = "title" } },
      { { text = string.rep("─", 24), style = "border" } },
    },
  }
  local function texts(frame)
    return render.flatten(ui.screen(view, frame)).texts
  end
  eq(texts({ width = 24, border = "none", now = now }), {
    string.rep("─", 17) .. " 1:05 ─",
    " Title",
    "────────────────────────",
  }, "in the top rule")
  eq(texts({ width = 24, border = "rounded", now = now + 60500 }), {
    " Title" .. string.rep(" ", 13) .. "0:05",
  }, "beside the title of a bordered float")
  view.lines[2] = { { text = " " .. string.rep("x", 20), style = "title" } }
  eq(texts({ width = 24, border = "rounded", now = now + 70000 }), {
    string.rep(" ", 19) .. "0:00",
    " xxxxxxxxxxxxxxxxxxxx",
  }, "on a line of its own")
  eq(layout.countdown(now + 3723000, now), "1:02:03", "hours")
  local marks = render.flatten(ui.screen(view, { width = 24, border = "none", now = now })).marks
  eq(marks[3], { 0, 52, 56, "muted" }, "the countdown's style")
  marks = render.flatten(ui.screen(view, { width = 24, border = "none", now = now + 56000 })).marks
  eq(marks[3], { 0, 52, 56, "warning" }, "the last ten seconds")
end)

--- Records the luv timers made while `fn` runs.
local function timers_made(fn)
  local uv = vim.uv or vim.loop
  local new_timer = uv.new_timer
  local made = {}
  uv.new_timer = function()
    local timer = new_timer()
    if debug.getinfo(2, "S").source:find("askd/init.lua", 1, true) then
      table.insert(made, timer)
    end
    return timer
  end
  local ok, err = pcall(fn)
  uv.new_timer = new_timer
  assert(ok, err)
  return made
end

case("the countdown in the float is redrawn every second and stops with the flow", function()
  -- The deadline of the views the float draws, as the engine sent it (65 s ahead).
  local screen_of = ui.screen
  local deadline
  ui.screen = function(view, frame)
    deadline = view.deadline
    return screen_of(view, frame)
  end
  local ok, err = pcall(function()
    local run
    local timers = timers_made(function()
      run = start(payload(SIZE), { width = 40, timeout_ms = 65000 })
      wait_screen("Pick a size")
    end)
    eq(#timers, 1, "one countdown timer")
    local function top_line()
      return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(floats()[1]), 0, 1, false)[1]
    end
    local function expected()
      return string.rep("─", 33) .. " " .. layout.countdown(deadline, ui.now_ms()) .. " ─"
    end
    wait_for(function()
      return "the countdown " .. expected() .. "; the float shows " .. top_line()
    end, function()
      return top_line() == expected()
    end)
    truthy(
      vim.tbl_contains({ "1:05", "1:04", "1:03" }, top_line():match("%d:%d%d")),
      "a countdown of the 65 s asked: " .. top_line()
    )
    local shown = top_line()
    wait_for("the next second", function()
      return top_line() ~= shown
    end)
    eq(top_line(), expected(), "the countdown a second later")
    feed("<Esc>")
    wait_done(run)
    eq(timers[1]:is_closing(), true, "the timer is closed once the flow is done")
  end)
  ui.screen = screen_of
  assert(ok, err)
end)
