-- Headless tests of the askd Neovim plugin: pastes, the float's buffer, typeahead.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ASKD = h.ASKD
local askd = h.askd
local case = h.case
local sleep = h.sleep
local wait_for = h.wait_for
local fmt = h.fmt
local eq = h.eq
local feed = h.feed
local type_keys = h.type_keys
local floats = h.floats
local screen = h.screen
local wait_screen = h.wait_screen
local start = h.start
local wait_done = h.wait_done
local log_requests = h.log_requests
local SIZE = h.SIZE
local payload = h.payload

---------------------------------------------------------------------------------------------
-- Paste

case("a bracketed paste goes into the open editor through insert", function()
  local requests = log_requests()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("4")
  wait_screen("Type answer...")
  -- What the terminal UI calls for a bracketed paste (`tmux paste-buffer -p`).
  local ok, pasted = pcall(vim.api.nvim_paste, "line one\nline two", true, -1)
  eq({ ok, pasted }, { true, true }, "nvim_paste")
  wait_screen("line two")
  -- A paste in chunks arrives as one text.
  vim.api.nvim_paste(" and", true, 1)
  vim.api.nvim_paste(" more\nthree", true, 2)
  vim.api.nvim_paste("!", true, 3)
  wait_screen("three!")
  feed("<CR>1")
  wait_done(run)
  eq(
    run.result.details.answers.size.customText,
    "line one\nline two and more\nthree!",
    "custom text"
  )
  local inserts = {}
  for _, r in ipairs(requests()) do
    if r.method == "insert" then
      table.insert(inserts, r.params.text)
    end
  end
  -- The chunks of one paste are sent as one text when it ends.
  eq(inserts, { "line one\nline two", " and more\nthree!" }, "insert requests")
  eq(h.notes, {}, "notifications")
end)

case("a terminal's bracketed paste (tmux paste-buffer -p) goes into the answer", function()
  -- A Neovim of the same version in a real terminal: tmux on a server of its own.
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local result_file = dir .. "/result.json"
  vim.fn.writefile({
    "vim.opt.runtimepath:append(" .. vim.inspect(os.getenv("ASKD_NVIM_PLUGIN")) .. ")",
    "require('askd').setup({ cmd = " .. vim.inspect(ASKD) .. " })",
    "function _G.askd_test()",
    "  require('askd').ask(" .. vim.inspect(payload(SIZE)):gsub("\n", " ") .. ", {},",
    "    function(result) vim.fn.writefile({ vim.json.encode(result) }, "
      .. vim.inspect(result_file)
      .. ") end)",
    "end",
  }, dir .. "/init.lua")
  local server = "askd-test-" .. vim.fn.getpid()
  local function tmux(args)
    local output = vim.fn.system(vim.list_extend({ "tmux", "-L", server }, args))
    return output, vim.v.shell_error
  end
  local function pane()
    return (tmux({ "capture-pane", "-p", "-t", "t" }))
  end
  local function wait_pane(text)
    wait_for(function()
      return "the terminal to show " .. fmt(text) .. "; it shows:\n" .. pane()
    end, function()
      return pane():find(text, 1, true) ~= nil
    end)
  end
  local command = table.concat({
    vim.fn.shellescape(vim.v.progpath),
    "-u",
    vim.fn.shellescape(dir .. "/init.lua"),
    "-i NONE",
  }, " ")
  local _, code = tmux({ "new-session", "-d", "-s", "t", "-x", "90", "-y", "30", command })
  eq(code, 0, "tmux new-session")
  local ok, err = pcall(function()
    wait_pane("~")
    tmux({ "send-keys", "-t", "t", ":lua askd_test()", "Enter" })
    wait_pane("Pick a size")
    tmux({ "send-keys", "-t", "t", "4" })
    wait_pane("Type answer...")
    vim.fn.writefile({ "pasted in", "two lines" }, dir .. "/paste.txt", "b")
    tmux({ "load-buffer", "-b", "p", dir .. "/paste.txt" })
    tmux({ "paste-buffer", "-p", "-d", "-b", "p", "-t", "t" })
    wait_pane("two lines")
    tmux({ "send-keys", "-t", "t", "Enter" })
    wait_pane("Elaborate")
    tmux({ "send-keys", "-t", "t", "1" })
    wait_for("the flow's result", function()
      return vim.fn.filereadable(result_file) == 1
    end)
  end)
  tmux({ "kill-server" })
  assert(ok, err)
  local result = vim.json.decode(vim.fn.readfile(result_file)[1])
  eq(result.details.answers.size.customText, "pasted in\ntwo lines", "the pasted answer")
end)

case("<C-r> pastes a register into the open editor", function()
  vim.fn.setreg("a", "from a")
  vim.fn.setreg("b", { "first", "second" }, "l")
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("4<C-r>a ")
  wait_screen("from a ")
  feed("<C-r>b")
  wait_screen("second")
  feed("<CR>1")
  wait_done(run)
  eq(run.result.details.answers.size.customText, "from a first\nsecond", "custom text")
end)

case("a paste with no editor open warns once and changes nothing", function()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  local before = screen()
  vim.api.nvim_paste("hello", true, 1)
  vim.api.nvim_paste(" world", true, 3)
  wait_for("the warning", function()
    return #h.notes > 0
  end)
  sleep(50)
  eq(h.notes, {
    {
      message = "askd: nothing to paste into: open an answer (Type your own) or a note first",
      level = vim.log.levels.WARN,
    },
  }, "one warning")
  eq(screen(), before, "screen")
  feed("<Esc>")
  wait_done(run)
end)

---------------------------------------------------------------------------------------------
-- The float keeps its buffer

case("<C-o>, <C-i>, <C-^> and tag keys leave the float showing the flow", function()
  local first, second = vim.fn.tempname(), vim.fn.tempname()
  vim.fn.writefile({ "first file" }, first)
  vim.fn.writefile({ "second file" }, second)
  vim.cmd("edit " .. first)
  vim.cmd("edit " .. second)
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  local win = floats()[1]
  local buf = vim.api.nvim_win_get_buf(win)
  local before = screen()
  feed("<C-o><C-^><C-6><C-]><C-t><F1>")
  sleep(50)
  eq(vim.api.nvim_win_get_buf(win), buf, "the float's buffer after <C-o> <C-^> <C-]> <C-t>")
  eq(screen(), before, "screen")
  feed("<C-i>")
  sleep(50)
  eq(vim.api.nvim_win_get_buf(win), buf, "the float's buffer after <C-i>")
  eq(vim.api.nvim_get_current_win(), win, "the float keeps the focus")
  eq(run.done, false, "the flow goes on")
  vim.cmd("bwipeout! " .. vim.fn.bufnr(first))
  vim.cmd("bwipeout! " .. vim.fn.bufnr(second))
  vim.api.nvim_set_current_win(win)
  feed("<Esc>")
  wait_done(run)
end)

case("a buffer put into the float is replaced by the flow's", function()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  local win = floats()[1]
  local buf = vim.api.nvim_win_get_buf(win)
  local other = vim.api.nvim_create_buf(true, false)
  -- Refused where the float has 'winfixbuf'; put back by the plugin elsewhere.
  pcall(vim.api.nvim_win_set_buf, win, other)
  wait_for("the flow's buffer back in its float", function()
    return vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == buf
  end)
  vim.api.nvim_buf_delete(other, { force = true })
  vim.api.nvim_set_current_win(win)
  feed("2")
  wait_screen("Elaborate")
  feed("1")
  wait_done(run)
  eq(run.result.content[1].text, "Size: Medium", "the flow still works")
end)

case("wiping the flow's buffer completes it as cancelled, once", function()
  local events = {}
  local group = vim.api.nvim_create_augroup("askd.test", { clear = true })
  vim.api.nvim_create_autocmd("User", {
    group = group,
    pattern = "AskdDone",
    callback = function()
      table.insert(events, askd.last_event.session)
    end,
  })
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  local buf = vim.api.nvim_win_get_buf(floats()[1])
  vim.cmd("bwipeout! " .. buf)
  wait_done(run)
  sleep(50)
  vim.api.nvim_del_augroup_by_id(group)
  eq(run.result.content, { { type = "text", text = "User cancelled the ask flow" } }, "content")
  eq(run.result.details.cancelled, true, "cancelled")
  eq(run.calls, 1, "on_done calls")
  eq(#events, 1, "AskdDone events")
end)

---------------------------------------------------------------------------------------------
-- Typeahead

case("the float has the focus and a placeholder before the engine answers", function()
  local run = start(payload(SIZE))
  -- Nothing has come back from the engine yet: this runs before the main loop turns.
  eq(vim.api.nvim_win_get_config(0).relative, "editor", "the current window is the float")
  eq(screen(), " …", "placeholder")
  wait_screen("Pick a size")
  feed("<Esc>")
  wait_done(run)
end)

case("keys typed in the same burst as :AskdDemo reach the flow", function()
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "keep me" })
  type_keys(":AskdDemo<CR>x2")
  wait_screen("Which languages do you write this week?")
  eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "keep me" }, "the user's buffer")
  local session = askd.last_event.session
  vim.api.nvim_win_close(floats()[1], true)
  wait_for("the demo to end", function()
    return askd.last_event.event == "AskdDone" and askd.last_event.session == session
  end)
  vim.api.nvim_buf_delete(buf, { force = true })
end)

case("a flow opened while the user types in Insert mode takes the keys that follow", function()
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_set_current_buf(buf)
  local run
  vim.keymap.set("i", "<F2>", function()
    run = start(payload(SIZE))
  end, { buffer = buf })
  type_keys("iab<F2>2")
  wait_screen("Elaborate")
  eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "ab" }, "the user's buffer")
  feed("1")
  wait_done(run)
  eq(run.result.content[1].text, "Size: Medium", "result")
  vim.api.nvim_buf_delete(buf, { force = true })
end)

---------------------------------------------------------------------------------------------
