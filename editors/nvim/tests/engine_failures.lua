-- Headless tests of the askd Neovim plugin: finding the engine, failures, commands.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ASKD = h.ASKD
local askd = h.askd
local locate = h.locate
local case = h.case
local wait_for = h.wait_for
local eq = h.eq
local truthy = h.truthy
local feed = h.feed
local floats = h.floats
local wait_screen = h.wait_screen
local start = h.start
local wait_done = h.wait_done
local health_entries = h.health_entries
local engine_answers = h.engine_answers
local SIZE = h.SIZE
local payload = h.payload

---------------------------------------------------------------------------------------------
-- Finding the engine

case("without cmd, the engine is askd on PATH, else the repository's build", function()
  local tree = vim.fn.tempname()
  vim.fn.mkdir(tree .. "/bin", "p")
  vim.env.PATH = tree .. "/bin"
  eq(locate.engine(tree), nil, "nothing found")
  vim.fn.mkdir(tree .. "/target/debug", "p")
  vim.loop.fs_symlink(ASKD, tree .. "/target/debug/askd")
  eq(locate.engine(tree), tree .. "/target/debug/askd", "the debug build")
  vim.fn.mkdir(tree .. "/target/release", "p")
  vim.loop.fs_symlink(ASKD, tree .. "/target/release/askd")
  eq(locate.engine(tree), tree .. "/target/release/askd", "the release build first")
  vim.loop.fs_symlink(ASKD, tree .. "/bin/askd")
  eq(locate.engine(tree), "askd", "askd on PATH first")
  vim.fn.delete(tree .. "/bin/askd")
  -- setup without cmd runs the repository's build.
  locate.root = tree
  askd.setup({})
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("1")
  wait_screen("Elaborate")
  feed("1")
  wait_done(run)
  eq(run.result.content[1].text, "Size: Small", "a flow on the found engine")
  vim.cmd("checkhealth askd")
  local found = health_entries()[2]
  vim.cmd("bwipeout!")
  local expected = "found: " .. tree .. "/target/release/askd (the repository's build)"
  eq(found, { "OK", expected }, "health")
end)

case("without cmd and without any engine, the flow reports where it looked", function()
  local tree = vim.fn.tempname()
  vim.fn.mkdir(tree, "p")
  vim.env.PATH = tree
  locate.root = tree
  askd.setup({})
  local run = start(payload(SIZE))
  wait_done(run)
  local message = "askd: askd is not on PATH, and there is no "
    .. tree
    .. "/target/release/askd nor "
    .. tree
    .. "/target/debug/askd (run `cargo build --release` in the repository, or set"
    .. " require('askd').setup{ cmd = ... })"
  eq(run.err, message, "error")
  eq(h.notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
end)

---------------------------------------------------------------------------------------------
-- Failures

case("an invalid payload reports the engine's issues", function()
  local run = start({
    questions = { { id = "a", prompt = " ", options = { { value = "x", label = "X" } } } },
  })
  wait_done(run)
  local message = "Invalid ask_user payload:\n- questions[0].prompt: Question 1: prompt is required"
  eq(run.result, nil, "result")
  eq(run.err, message, "error")
  eq(h.notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
end)

case("an empty Lua table is sent as an empty list", function()
  local run = start({ questions = {} })
  wait_done(run)
  eq(run.err, "Invalid ask_user payload:\n- questions: At least one question is required", "error")
end)

case("a JSON-RPC error on open is reported", function()
  local run = start(payload(SIZE), { keymap = { ["main.bogus"] = { "x" } } })
  wait_done(run)
  local message = 'askd: invalid params: keymap: unknown keymap action "main.bogus"'
  eq(run.err, message, "error")
  eq(h.notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
end)

case("a payload that is not JSON is reported", function()
  local run = start({ questions = { print } })
  wait_done(run)
  truthy(run.err:find("^askd: cannot encode the request as JSON"), "error: " .. tostring(run.err))
  eq(#h.notes, 1, "notifications")
end)

case("a missing binary is reported", function()
  askd.setup({ cmd = "/nonexistent/askd" })
  local run = start(payload(SIZE))
  wait_done(run)
  local message =
    "askd: /nonexistent/askd was not found or is not executable"
    .. " (set require('askd').setup{ cmd = ... })"
  eq(run.err, message, "error")
  eq(h.notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
end)

case(
  "an engine killed mid-flow closes the window and reports; the next flow restarts it",
  function()
    local pidfile = vim.fn.tempname()
    askd.setup({ cmd = { "sh", "-c", 'echo "$$" > "$1"; exec "$0"', ASKD, pidfile } })
    local run = start(payload(SIZE))
    wait_screen("Pick a size")
    local pid = tonumber(vim.fn.readfile(pidfile)[1])
    vim.fn.delete(pidfile)
    vim.loop.kill(pid, 9)
    wait_done(run)
    local message = "askd exited unexpectedly (code 137)"
    eq(run.err, message, "error")
    eq(h.notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
    local again = start(payload(SIZE))
    wait_screen("Pick a size")
    feed("2<CR>")
    wait_done(again)
    eq(again.result.content[1].text, "Size: Medium", "the restarted engine serves")
  end
)

case("an engine that dies after opening the flow is reported with its stderr", function()
  -- The engine sees only the `open` request, answers it, and the wrapper then fails.
  askd.setup({ cmd = { "sh", "-c", 'head -n 1 | "$0"; echo "engine gone" >&2; exit 3', ASKD } })
  local run = start(payload(SIZE))
  wait_done(run)
  local message = "askd exited unexpectedly (code 3): engine gone"
  eq(run.err, message, "error")
  eq(h.notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
  eq(run.calls, 1, "on_done calls")
end)

case("an engine's last words written in pieces are reported as one line", function()
  -- The line goes out in two writes, a moment apart: it reaches Neovim in two pieces.
  askd.setup({
    cmd = {
      "sh",
      "-c",
      'head -n 1 | "$0"; printf "engine " >&2; sleep 0.2; echo "gone" >&2; exit 3',
      ASKD,
    },
  })
  local run = start(payload(SIZE))
  wait_done(run)
  eq(run.err, "askd exited unexpectedly (code 3): engine gone", "error")
end)

---------------------------------------------------------------------------------------------
-- Commands

case(":AskdDemo runs the demo flow and echoes the result", function()
  vim.cmd("messages clear")
  vim.cmd("AskdDemo")
  wait_screen("Which editor do you use most?")
  feed("1")
  wait_screen("Which languages do you write this week?")
  feed("<Space><Down><Down><Space><CR>")
  wait_screen("Which window layout do you prefer?")
  feed("2")
  wait_screen("Elaborate")
  feed("1")
  wait_for("the demo to end", function()
    return #floats() == 0
  end)
  eq(
    vim.fn.execute("messages"),
    "\nEditor: Neovim (Recommended)\nLanguages: Lua, Python\nLayout: Tabs",
    "echoed result"
  )
end)

case(":checkhealth askd finds the engine and its answer", function()
  local init = engine_answers({ { id = 1, method = "initialize" } })[1].result
  vim.cmd("checkhealth askd")
  local found = health_entries()
  vim.cmd("bwipeout!")
  eq(found, {
    { "OK", "Neovim 0.7 or later" },
    { "OK", "found: " .. vim.fn.exepath(ASKD) },
    {
      "OK",
      string.format(
        "answers initialize: askd %s, protocol %d",
        init.serverInfo.version,
        init.protocolVersion
      ),
    },
    { "OK", "views carry rendered lines" },
  }, "report of a working engine")
  askd.setup({ cmd = "/nonexistent/askd" })
  vim.cmd("checkhealth askd")
  found = health_entries()
  vim.cmd("bwipeout!")
  eq(found, {
    { "OK", "Neovim 0.7 or later" },
    {
      "ERROR",
      "askd: /nonexistent/askd was not found or is not executable"
        .. " (set require('askd').setup{ cmd = ... })",
    },
  }, "report of a missing engine")
end)
