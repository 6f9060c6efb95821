-- Headless tests of the askd Neovim plugin: what the plugin guards.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ASKD = h.ASKD
local askd = h.askd
local neovims_notify = h.neovims_notify
local SCROLL_TOP = h.SCROLL_TOP
local SCROLL_DOWN = h.SCROLL_DOWN
local case = h.case
local sleep = h.sleep
local wait_for = h.wait_for
local fmt = h.fmt
local eq = h.eq
local truthy = h.truthy
local feed = h.feed
local floats = h.floats
local screen = h.screen
local wait_screen = h.wait_screen
local wait_no_screen = h.wait_no_screen
local start = h.start
local wait_done = h.wait_done
local log_requests = h.log_requests
local many_options = h.many_options
local SIZE = h.SIZE
local LANGS = h.LANGS
local payload = h.payload

-- What the plugin guards: the float's view, its buffer, session ids, pastes, Neovim's own
-- `vim.paste`, the caller of `ask`.

--- The first line the float shows, and how many lines its buffer holds.
local function float_view()
  local win = floats()[1]
  local info = vim.fn.getwininfo(win)[1]
  return {
    topline = info.topline,
    lines = vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(win)),
    height = vim.api.nvim_win_get_height(win),
  }
end

case("the float's view follows the screen as the editor shrinks; scroll keys do nothing", function()
  vim.o.lines = 30
  local run = start({
    title = "Tall",
    questions = { { id = "a", prompt = "Pick one", options = many_options(9) } },
  }, { width = 44, confirm_dismiss = false })
  wait_screen("Pick one")
  feed("<Down><Down><Down><Down><Down><Down><Down>")
  wait_screen("❯ 8. ○ Option 8")
  -- The editor shrinks to 18 lines: the header, the active row and the hints stay in sight.
  vim.o.lines = 18
  vim.cmd("doautocmd VimResized")
  wait_for(function()
    return "the screen at 18 lines; it shows " .. fmt(screen())
  end, function()
    return screen() == SCROLL_DOWN
  end)
  eq(float_view(), { topline = 1, lines = 15, height = 15 }, "the view after the resize")
  -- Neovim's scroll keys, Visual block and Insert mode change nothing.
  local buf = vim.api.nvim_win_get_buf(floats()[1])
  feed("<C-f><C-b><C-y><S-Down><S-Up><C-v><C-q><Insert>x")
  sleep(100)
  eq(vim.api.nvim_get_mode().mode, "n", "mode after <C-v>, <C-q> and <Insert>")
  eq(vim.api.nvim_get_current_buf(), buf, "the float keeps its buffer")
  eq(float_view().topline, 1, "the first line shown after the scroll keys")
  eq(screen(), SCROLL_DOWN, "the screen after the scroll keys")
  -- Whatever scrolls the window (a plugin, the mouse) is undone at once.
  vim.api.nvim_win_call(floats()[1], function()
    vim.cmd("normal! 3\5")
  end)
  wait_for(function()
    return "the view back at the first line: " .. vim.inspect(float_view())
  end, function()
    return float_view().topline == 1
  end)
  -- With the mouse on, a drag or a double click in the float selects nothing.
  vim.o.mouse = "a"
  -- On the float's first line (shown: the view stands at its top), the rule above the tabs,
  -- where a click activates nothing (on the screen as last drawn).
  vim.cmd("redraw")
  local first = vim.fn.screenpos(floats()[1], 1, 4)
  assert(first.row > 0, "the float's first line is on the screen")
  local row, col = first.row - 1, first.col - 1
  for _ = 1, 2 do
    vim.api.nvim_input_mouse("left", "press", "", 0, row, col)
    vim.api.nvim_input_mouse("left", "release", "", 0, row, col)
  end
  vim.api.nvim_input_mouse("left", "press", "", 0, row, col)
  vim.api.nvim_input_mouse("left", "drag", "", 0, row + 2, col + 6)
  vim.api.nvim_input_mouse("left", "release", "", 0, row + 2, col + 6)
  sleep(100)
  vim.o.mouse = ""
  eq(vim.api.nvim_get_mode().mode, "n", "mode after a double click and a drag")
  eq(vim.api.nvim_get_current_win(), floats()[1], "the float keeps the focus")
  eq(screen(), SCROLL_DOWN, "the screen after the mouse")
  -- Back at the top row, the whole screen shows from its first line.
  feed("<Home>")
  wait_screen("❯ 1. ○ Option 1")
  eq(screen(), SCROLL_TOP, "the top row")
  feed("<C-c>")
  wait_done(run)
end)

case("a second ask with a session id in use is refused and the first flow goes on", function()
  local requests = log_requests()
  local first = start(payload(SIZE), { session = "call-9" })
  wait_screen("Pick a size")
  feed("4draft")
  wait_screen("draft")
  local before = screen()
  local win = floats()[1]
  local second = start(payload(LANGS), { session = "call-9" })
  wait_for("the second ask's refusal", function()
    return second.done
  end)
  local message =
    'askd: session "call-9" is in use by an open flow; this ask is refused, and that flow goes on'
  eq({ second.result, second.err }, { nil, message }, "the second ask")
  eq(h.notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
  eq({ #floats(), floats()[1], screen() }, { 1, win, before }, "the first flow's float")
  eq(vim.api.nvim_get_current_win(), win, "the first flow keeps the focus")
  feed(" kept<CR>")
  wait_screen("Elaborate")
  feed("1")
  wait_done(first)
  eq(first.result.details.answers.size.customText, "draft kept", "the first flow's answer")
  local asks = vim.tbl_filter(function(r)
    return r.method == "ask"
  end, requests())
  eq(#asks, 1, "the refused ask never reached the engine")
end)

case("an ask the engine refuses closes no session of that id", function()
  local requests = log_requests()
  -- A session of that id held by the engine, opened by another client (a browser, another
  -- editor on the same hub): here by a request of the plugin's engine connection.
  local own = start(payload(SIZE))
  wait_screen("Pick a size")
  local engine = askd._internal.client()
  local opened
  engine:request("open", { session = "x", payload = payload(LANGS) }, function(err, step)
    opened = err or step
  end)
  wait_for("the other session", function()
    return opened ~= nil
  end)
  eq(opened.status, "open", "the other session")
  local refused = start(payload(SIZE), { session = "x" })
  wait_for("the engine's refusal", function()
    return refused.done
  end)
  truthy(refused.err:find("x", 1, true), "the refusal names the session: " .. refused.err)
  local listed
  engine:request("sessions", vim.empty_dict(), function(_, list)
    listed = list
  end)
  wait_for("the sessions", function()
    return listed ~= nil
  end)
  local other
  for _, entry in ipairs(listed) do
    if entry.session == "x" then
      other = entry.status
    end
  end
  eq(other, "open", "the other client's session is still open")
  local closes = vim.tbl_filter(function(r)
    return r.method == "close" and r.params.session == "x"
  end, requests())
  eq(#closes, 0, "close requests for the session")
  vim.api.nvim_set_current_win(floats()[1])
  feed("<Esc>")
  wait_done(own)
end)

case("the float's buffer cannot be replaced: :edit puts the file in the editing window", function()
  local file = vim.fn.tempname() .. ".txt"
  vim.fn.writefile({ "the user's file" }, file)
  local editing = vim.api.nvim_get_current_win()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  local win = floats()[1]
  local buf = vim.api.nvim_win_get_buf(win)
  -- `:edit` of a file not loaded yet, run in the float (as `--remote` and plugins do).
  pcall(vim.cmd, "edit " .. vim.fn.fnameescape(file))
  sleep(50)
  eq(vim.api.nvim_win_get_buf(win), buf, "the float's buffer")
  eq(vim.api.nvim_get_current_win(), win, "the float keeps the focus")
  feed("2")
  wait_screen("Elaborate")
  local shown = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(editing))
  if vim.fn.exists("+winfixbuf") == 0 then
    eq(vim.fn.resolve(shown), vim.fn.resolve(file), "the file shows in the editing window")
  end
  eq(vim.fn.readfile(file), { "the user's file" }, "the file is untouched")
  feed("1")
  wait_done(run)
  eq(run.result.content[1].text, "Size: Medium", "the flow's keys reached the flow")
  local other = vim.fn.bufnr(file)
  if other > 0 then
    vim.cmd("bwipeout! " .. other)
  end
end)

case("nvim --remote of a file keeps the float's buffer", function()
  local file = vim.fn.tempname() .. ".txt"
  vim.fn.writefile({ "remote file" }, file)
  local address = vim.fn.serverstart(vim.fn.tempname())
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  local win = floats()[1]
  local buf = vim.api.nvim_win_get_buf(win)
  local exited
  vim.fn.jobstart({ vim.v.progpath, "--server", address, "--remote", file }, {
    on_exit = function(_, code)
      exited = code
    end,
  })
  wait_for("nvim --remote", function()
    return exited ~= nil
  end)
  sleep(50)
  eq(vim.api.nvim_win_get_buf(win), buf, "the float's buffer")
  vim.api.nvim_set_current_win(win)
  feed("3")
  wait_screen("Elaborate")
  feed("1")
  wait_done(run)
  eq(run.result.content[1].text, "Size: Large", "the flow's keys reached the flow")
  eq(vim.fn.readfile(file), { "remote file" }, "the file is untouched")
  vim.fn.serverstop(address)
  local other = vim.fn.bufnr(file)
  if other > 0 then
    vim.cmd("bwipeout! " .. other)
  end
end)

--- Pastes `text` as a terminal does: in chunks of `size` bytes (phases 1, 2…, 3).
local function paste_in_chunks(text, size)
  local count = math.ceil(#text / size)
  for i = 1, count do
    local phase = i == 1 and 1 or (i == count and 3 or 2)
    vim.api.nvim_paste(text:sub((i - 1) * size + 1, i * size), true, phase)
  end
end

case("a paste past the editor's limit is refused whole; one within it is taken whole", function()
  local requests = log_requests()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("4")
  wait_screen("Type answer...")
  paste_in_chunks(string.rep("0123456789", 7000), 8192)
  wait_for("the warning", function()
    return #h.notes > 0
  end)
  sleep(50)
  eq(h.notes, {
    {
      message = "askd: the editor would hold 70000 bytes; the limit is 65536",
      level = vim.log.levels.WARN,
    },
  }, "one warning")
  wait_screen("Type answer...")
  local inserts = vim.tbl_filter(function(r)
    return r.method == "insert"
  end, requests())
  eq(#inserts, 1, "one insert")
  eq(#inserts[1].params.text, 70000, "the paste sent whole")
  h.notes = {}
  paste_in_chunks(string.rep("abcdefghij", 6000), 8192)
  wait_screen("abcdefghij")
  feed("<CR>")
  wait_screen("❯ 1. Submit")
  feed("1")
  wait_done(run)
  eq(#run.result.details.answers.size.customText, 60000, "the answer holds the whole paste")
  eq(h.notes, {}, "no warning")
end)

case("a paste larger than the plugin sends at once is refused whole, with one warning", function()
  local requests = log_requests()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("4")
  wait_screen("Type answer...")
  paste_in_chunks(string.rep("x", askd.PASTE_MAX_BYTES + 10), 65536)
  eq(h.notes, {
    {
      message = string.format(
        "askd: the paste holds %d bytes; a paste holds at most %d: nothing was pasted",
        askd.PASTE_MAX_BYTES + 10,
        askd.PASTE_MAX_BYTES
      ),
      level = vim.log.levels.WARN,
    },
  }, "one warning")
  sleep(50)
  eq(#vim.tbl_filter(function(r)
    return r.method == "insert"
  end, requests()), 0, "no insert")
  feed("<C-c><C-c>")
  wait_done(run)
end)

case("vim.paste is the plugin's only while a flow is open", function()
  local neovims = vim.paste
  askd.setup({ cmd = ASKD })
  eq(vim.paste == neovims, true, "setup leaves vim.paste alone")
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  eq(vim.paste ~= neovims, true, "the plugin's vim.paste while the flow is open")
  feed("<Esc>")
  wait_done(run)
  eq(vim.paste == neovims, true, "Neovim's vim.paste once the flow is done")
  -- A wrapper installed over the plugin's meanwhile is kept, and passes pastes on.
  run = start(payload(SIZE))
  wait_screen("Pick a size")
  local pasted = {}
  local askds = vim.paste
  vim.paste = function(lines, phase)
    table.insert(pasted, lines[1])
    return askds(lines, phase)
  end
  local wrapper = vim.paste
  feed("<Esc>")
  wait_done(run)
  eq(vim.paste == wrapper, true, "a wrapper over the plugin's is kept")
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_paste("into the buffer", true, -1)
  eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "into the buffer" }, "the paste")
  eq(pasted, { "into the buffer" }, "the wrapper saw it")
  -- The wrapper stays, as it would in a user's Neovim: the next flows paste through it.
  vim.api.nvim_buf_delete(buf, { force = true })
end)

case("ask with a missing engine never raises: its handle's on_done reports it", function()
  askd.setup({ cmd = "/nonexistent/askd" })
  _G.askd_test_done = nil
  -- Through an Ex command run by nvim_exec, where an error message (Neovim's own
  -- vim.notify of an error) would become an error of the caller.
  local collect = vim.notify
  vim.notify = neovims_notify
  local ok, err = pcall(
    vim.api.nvim_exec,
    "lua _G.askd_test_handle = require('askd').ask({ questions = {} }, {}, "
      .. "function(result, message) _G.askd_test_done = { result, message } end)",
    true
  )
  vim.notify = collect
  eq(ok, true, "the command that called ask: " .. tostring(err))
  eq(type(_G.askd_test_handle.session), "string", "a handle")
  wait_for("on_done", function()
    return _G.askd_test_done ~= nil
  end)
  local message = "askd: /nonexistent/askd was not found or is not executable"
    .. " (set require('askd').setup{ cmd = ... })"
  eq(_G.askd_test_done, { nil, message }, "on_done")
  wait_for("the notification", function()
    return #h.notes > 0
  end)
  eq(h.notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
  _G.askd_test_handle, _G.askd_test_done = nil, nil
end)

case("emoji sequences fit the float on every Neovim (0.7 draws their code points)", function()
  local run = start({
    title = "Emoji",
    questions = {
      {
        id = "who",
        prompt = "Who?",
        options = {
          { value = "dev", label = "👩‍💻 developer" },
          { value = "fr", label = "🇫🇷 France 👍🏽 ❤️" },
        },
      },
    },
  }, { width = 30 })
  wait_screen("Who?")
  feed("3")
  wait_screen("Type answer...")
  vim.api.nvim_paste("👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻", true, -1)
  wait_no_screen("Type answer...")
  local win = floats()[1]
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  local widths = {}
  for _, line in ipairs(lines) do
    table.insert(widths, vim.fn.strdisplaywidth(line))
  end
  local widest = math.max(unpack(widths))
  truthy(widest <= 30, "a line wider than the float: " .. vim.inspect({ lines, widths }))
  eq(vim.api.nvim_win_get_height(win), #lines, "one row a line: nothing wraps")
  -- The editor box's lines all end at its right border.
  local box = {}
  for i, line in ipairs(lines) do
    if line:find("│", 1, true) or line:find("╭", 1, true) or line:find("╰", 1, true) then
      table.insert(box, widths[i])
    end
  end
  eq(#box >= 3, true, "the editor box: " .. vim.inspect(lines))
  for _, w in ipairs(box) do
    eq(w, box[1], "the box's right border is aligned: " .. vim.inspect(lines))
  end
  feed("<C-c><C-c>")
  wait_done(run)
end)

---------------------------------------------------------------------------------------------
