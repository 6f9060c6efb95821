-- Headless tests of the askd Neovim plugin: flows against the engine.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ASKD = h.ASKD
local askd = h.askd
local case = h.case
local sleep = h.sleep
local wait_for = h.wait_for
local eq = h.eq
local truthy = h.truthy
local feed = h.feed
local floats = h.floats
local screen = h.screen
local wait_screen = h.wait_screen
local wait_no_screen = h.wait_no_screen
local start = h.start
local wait_done = h.wait_done
local cursor_marks = h.cursor_marks
local log_requests = h.log_requests
local methods = h.methods
local SIZE = h.SIZE
local LANGS = h.LANGS
local payload = h.payload

---------------------------------------------------------------------------------------------
-- Flows against the engine

case("single select: a digit picks and advances, Enter submits on review", function()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  local s = screen()
  for _, text in ipairs({ "Small", "Medium", "Large", "Type your own", "Fits in a pocket" }) do
    truthy(s:find(text, 1, true), "the float lacks " .. text .. ":\n" .. s)
  end
  eq(vim.api.nvim_win_get_config(0).relative, "editor", "the float has the focus")
  feed("2")
  wait_screen("Elaborate")
  s = screen()
  truthy(s:find("Medium", 1, true), "the review lists the answer:\n" .. s)
  feed("<CR>")
  wait_done(run)
  eq(run.err, nil, "error")
  eq(run.result.content, { { type = "text", text = "Size: Medium" } }, "content")
  eq(run.result.details.answers, {
    size = { values = { "medium" }, labels = { "Medium" }, indices = { 2 } },
  }, "answers")
  eq(run.result.details.mode, "submit", "mode")
  eq(run.result.details.cancelled, false, "cancelled")
end)

case("multi select: Space toggles, arrows move, Tab reaches review", function()
  local run = start(payload(LANGS))
  wait_screen("Which languages?")
  feed("<Space><Down><Down><Space><Up><Space><Space><Tab>")
  wait_screen("Elaborate")
  feed("1")
  wait_done(run)
  eq(run.result.content[1].text, "Langs: Lua, Python", "content")
  eq(run.result.details.answers.langs.values, { "lua", "python" }, "values")
  eq(run.result.details.answers.langs.indices, { 1, 3 }, "indices")
end)

case("custom answer typed in the editor, with the engine's cursor shown", function()
  local run = start(payload(SIZE, LANGS))
  wait_screen("Pick a size")
  feed("4")
  wait_screen("Type answer...")
  eq(#cursor_marks(), 1, "one cursor highlight in an empty editor")
  feed("helo wrld")
  wait_screen("helo wrld")
  local at_end = cursor_marks()
  eq(#at_end, 1, "one cursor highlight")
  feed("<Left><Left><Left>ö<M-b><M-b><Right><Right><Right>l")
  wait_screen("hello wörld")
  local moved = cursor_marks()
  eq(#moved, 1, "one cursor highlight after moving")
  truthy(moved[1][2] < at_end[1][2], "the cursor moved left: " .. vim.inspect({ at_end, moved }))
  eq(vim.api.nvim_win_get_cursor(0)[1], moved[1][1] + 1, "Neovim's cursor is on the editor line")
  feed("<End> 한<BS><BS>!")
  wait_screen("hello wörld!")
  -- Enter saves the answered custom text and advances to the next question.
  feed("<CR>")
  wait_screen("Which languages?")
  feed("<Tab>1")
  wait_done(run)
  eq(run.result.content[1].text, "Size: hello wörld!", "content")
  eq(run.result.details.answers.size, {
    values = { "hello wörld!" },
    labels = { "hello wörld!" },
    indices = {},
    customText = "hello wörld!",
  }, "custom answer")
end)

case("Shift+Enter and Alt+Enter put new lines in the custom answer", function()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("4one<S-CR>two<M-CR>three")
  wait_screen("three")
  feed("<CR>1")
  wait_done(run)
  eq(run.result.details.answers.size.customText, "one\ntwo\nthree", "custom text")
end)

case("a key refused by a limit warns, and the flow goes on unchanged", function()
  -- Every text of the payload fits in 16 bytes ("Fits in a pocket"); the answer does not.
  askd.setup({ cmd = { ASKD, "--max-text-bytes", "16" } })
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("4sixteen bytes ok!")
  wait_for("the warning", function()
    return #h.notes > 0
  end)
  local warning = {
    message = "askd: the editor would hold 17 bytes; the limit is 16",
    level = vim.log.levels.WARN,
  }
  eq(h.notes, { warning }, "one warning for the refused key")
  wait_screen("sixteen bytes ok")
  feed("<CR>1")
  wait_done(run)
  eq(run.result.details.answers.size.customText, "sixteen bytes ok", "custom text")
end)

case("editor line editing keys: Ctrl+W, Ctrl+U, Ctrl+A, Ctrl+K, Home, Del", function()
  local run = start(payload(SIZE), { confirm_dismiss = false })
  wait_screen("Pick a size")
  feed("4one two three")
  wait_screen("one two three")
  feed("<C-w>")
  wait_no_screen("three")
  feed("<C-u>zero<C-a><Del>Z<C-e> end")
  wait_screen("Zero end")
  feed("<Home><Right><C-k>")
  wait_no_screen("Zero end")
  feed("<C-e>irst<Esc>")
  wait_no_screen("Type answer...")
  feed("<Esc>")
  wait_done(run)
  eq(run.result.details.answers.size.customText, "Zirst", "custom text after editing")
  eq(run.result.details.cancelled, true, "Esc on the question cancels")
end)

case("a note on an option and a question note", function()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("n")
  wait_screen("Add a note...")
  feed("why not? it's cheap")
  wait_screen("why not? it's cheap")
  feed("<CR>")
  wait_no_screen("Add a note...")
  feed("N")
  wait_screen("Add a note...")
  feed("for the trip<CR>")
  wait_no_screen("Add a note...")
  wait_screen("for the trip")
  feed("1")
  wait_screen("Elaborate")
  feed("<CR>")
  wait_done(run)
  eq(
    run.result.content[1].text,
    "Size: Small\nSize note: for the trip\nSize / Small note: why not? it's cheap",
    "content"
  )
  eq(run.result.details.answers.size.note, "for the trip", "question note")
  eq(run.result.details.answers.size.optionNotes, { small = "why not? it's cheap" }, "option notes")
end)

case("review Elaborate hands back the notes", function()
  local run = start(payload(SIZE, LANGS))
  wait_screen("Pick a size")
  feed("<Down>n")
  wait_screen("Add a note...")
  feed("how big?<CR>")
  wait_screen("how big?")
  feed("<S-Tab>")
  wait_screen("Elaborate")
  feed("<Down>")
  wait_screen("how big?")
  feed("<CR>")
  wait_done(run)
  eq(run.result.details.mode, "elaborate", "mode")
  eq(
    run.result.content[1].text,
    'User asked to elaborate on question "Pick a size" option "Medium" with note "how big?"',
    "content"
  )
  eq(run.result.details.continuation.affectedQuestionIds, { "size" }, "affected questions")
end)

case("Esc cancels the flow", function()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("<Esc>")
  wait_done(run)
  eq(run.err, nil, "error")
  eq(run.result.content[1].text, "User cancelled the ask flow", "content")
  eq(run.result.details.cancelled, true, "cancelled")
  eq(#h.notes, 0, "no notification on a cancel")
end)

case("Ctrl+C dismisses the flow from an editor without saving the draft", function()
  local run = start(payload(SIZE), { confirm_dismiss = false })
  wait_screen("Pick a size")
  feed("1")
  wait_screen("Elaborate")
  feed("<S-Tab>4draft")
  wait_screen("draft")
  feed("<C-c>")
  wait_done(run)
  eq(run.result.details.cancelled, true, "cancelled")
  eq(
    run.result.details.answers,
    { size = { values = { "small" }, labels = { "Small" }, indices = { 1 } } },
    "answers"
  )
end)

case("closing the window from outside cancels the flow", function()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  vim.api.nvim_win_close(floats()[1], true)
  wait_done(run)
  eq(run.result.content, { { type = "text", text = "User cancelled the ask flow" } }, "content")
  eq(run.result.details.cancelled, true, "cancelled")
  sleep(50)
  eq(run.calls, 1, "on_done calls")
end)

case("two flows at once: one in front saying how many wait, the next after it", function()
  local requests = log_requests()
  local first = start(payload(SIZE), { width = 40 })
  wait_screen("Pick a size")
  local first_win = floats()[1]
  local second = start(payload(LANGS), { width = 40 })
  local third = start(payload(LANGS), { width = 40, session = "third" })
  -- One float only: the first flow's, with the focus, and a count of those waiting.
  wait_screen("+2 waiting")
  eq(#floats(), 1, "floats")
  eq(vim.api.nvim_get_current_win(), first_win, "the first flow keeps the focus")
  eq(
    vim.split(screen(), "\n")[1],
    string.rep("─", 27) .. " +2 waiting ─",
    "the count in the top rule"
  )
  eq(askd.waiting(), 2, "waiting()")
  -- A waiting flow that ends (its asker withdrew it) leaves the queue without showing.
  third.handle.abort()
  wait_for("the third flow's end", function()
    return third.done
  end)
  eq(third.result.details.cancelReason, "aborted", "the third flow's reason")
  wait_screen("+1 waiting")
  feed("3")
  wait_screen("Elaborate")
  feed("1")
  wait_for("the first flow's result", function()
    return first.done
  end)
  eq(first.result.content[1].text, "Size: Large", "first result")
  -- The second flow comes to the front with the focus (the first one had it).
  wait_screen("Which languages?")
  wait_no_screen("waiting")
  eq(vim.api.nvim_get_current_win(), floats()[1], "the second flow has the focus")
  feed("<Esc>")
  wait_done(second)
  eq(second.result.details.cancelled, true, "second cancelled")
  -- One process saw every flow: its log holds every request, ids increasing.
  wait_for(function()
    return "the last close request; requests: " .. vim.inspect(methods(requests()))
  end, function()
    return #vim.tbl_filter(function(r)
      return r.method == "close"
    end, requests()) == 3
  end)
  local log = requests()
  for i, r in ipairs(log) do
    eq(r.id, log[1].id + i - 1, "request ids increase")
  end
  local sessions = {}
  for _, r in ipairs(log) do
    if r.method == "ask" then
      table.insert(sessions, r.params.session)
    end
  end
  eq(#sessions, 3, "three asks, sent at once")
  eq(
    vim.list_slice(methods(log), 1, 8),
    { "ask", "subscribe", "sessions", "getView", "ask", "subscribe", "ask", "subscribe" },
    "every ask is sent at once; only the flow in front asks for its view (the engine, just"
      .. " started, is asked for the flows it offers)"
  )
end)

case("VimResized refits the float and asks for Steps and the view at the new width", function()
  local requests = log_requests()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  local win = floats()[1]
  eq(vim.api.nvim_win_get_config(win).width, 78, "width on an 80-column screen")
  vim.o.columns = 50
  vim.cmd("doautocmd VimResized")
  wait_for("the float to narrow", function()
    return vim.api.nvim_win_get_config(win).width == 48
  end)
  local col = vim.api.nvim_win_get_config(win).col
  eq(type(col) == "table" and col[false] or col, 1, "centred column")
  -- Neovim may also raise VimResized by itself for the new 'columns': one pair or more.
  wait_for(function()
    return "subscribe and getView; requests: " .. vim.inspect(requests())
  end, function()
    return #requests() >= 6
  end)
  local log = requests()
  eq(log[3].method, "sessions", "the engine, just started, is asked for the flows it offers")
  table.remove(log, 3)
  eq({ log[1].method, log[1].params.width }, { "ask", 78 }, "ask and its width")
  eq(
    { log[2].method, log[2].params },
    { "subscribe", { session = log[1].params.session } },
    "subscribe to the changes of other clients"
  )
  eq({ log[3].method, log[3].params.width }, { "getView", 78 }, "the first view")
  table.remove(log, 2)
  for i = 3, #log do
    local method = i % 2 == 1 and "subscribe" or "getView"
    eq({ log[i].method, log[i].params.width }, { method, 48 }, "request after the resize")
  end
  wait_screen("Pick a size")
  -- The Step of a key after the resize is rendered at the new width.
  feed("<Down>")
  wait_screen("❯ 2. ○ Medium")
  local first = vim.split(screen(), "\n")[1]
  eq(vim.fn.strdisplaywidth(first), 48, "the first line of the Step after the resize")
  vim.o.columns = 80
  vim.cmd("doautocmd VimResized")
  wait_for("the float to widen", function()
    return vim.api.nvim_win_get_config(win).width == 78
  end)
  feed("<Esc>")
  wait_done(run)
end)

case("the width option caps the float", function()
  local run = start(payload(SIZE), { width = 40, border = "none" })
  wait_screen("Pick a size")
  eq(vim.api.nvim_win_get_config(floats()[1]).width, 40, "width")
  feed("<Esc>")
  wait_done(run)
end)

case("keymap overrides are sent to the engine and mapped", function()
  local keymap = { ["main.confirm"] = { "ctrl+y" }, ["review.confirm"] = { "alt+s" } }
  local run = start(payload(SIZE), { keymap = keymap })
  wait_screen("Pick a size")
  feed("<CR><C-y>")
  wait_screen("Elaborate")
  feed("<CR><M-s>")
  wait_done(run)
  eq(run.result.content[1].text, "Size: Small", "content")
end)

case("the dsh dialect: answers and a cancel come back in its own shapes", function()
  local dsh = {
    questions = {
      {
        id = "db",
        question = "Which database?",
        options = { { label = "Postgres" }, { label = "SQLite" } },
      },
    },
  }
  local run = start(dsh, { dialect = "dsh" })
  wait_screen("Which database?")
  feed("2")
  wait_screen("Cancel")
  feed("<CR>")
  wait_done(run)
  eq(run.result, { answer = { answers = { { id = "db", selected = { "SQLite" } } } } }, "answer")
  local cancelled = start(dsh, { dialect = "dsh" })
  wait_screen("Which database?")
  feed("<Esc>")
  wait_done(cancelled)
  eq(cancelled.err, nil, "a cancel is a result, not a failure")
  eq(cancelled.result.error.code, "ASK_CANCELLED", "code")
  eq(#h.notes, 0, "notifications")
  local rejected = start({ questions = {} }, { dialect = "dsh" })
  wait_done(rejected)
  eq(rejected.err, "askd: questions must hold at least one question", "rejected request")
end)
