-- The harness of the headless tests of the askd Neovim plugin: cases, assertions, waits,
-- the engine's features, the run. tests/run.lua loads it, then the files of cases in order.
--
-- Every case runs in its own coroutine: it feeds keys as typed input, yields to the main loop
-- so that Neovim processes them (mappings, the engine's answers, redraws), and asserts the
-- float and the results.

local H = {}

local ASKD = os.getenv("ASKD_BIN")
local CASE_TIMEOUT_MS = 60000
local WAIT_MS = 15000

local askd = require("askd")
local ui = require("askd.ui")
local render = require("askd.render")
local keys = require("askd.keys")
local layout = require("askd.layout")
local locate = require("askd.locate")

-- Mode messages ("-- INSERT --") would land in the report's lines.
vim.o.showmode = false

local function out(line)
  io.stdout:write(line .. "\n")
  io.stdout:flush()
end

-- Notifications are collected instead of shown.
-- The notifications of the running case.
H.notes = {}
local neovims_notify = vim.notify
vim.notify = function(message, level)
  table.insert(H.notes, { message = message, level = level })
end

---------------------------------------------------------------------------------------------
-- Harness

local cases = {}
-- ASKD_TEST_FILTER (Lua patterns separated by `|`) runs only the cases whose names match one.
local FILTER = os.getenv("ASKD_TEST_FILTER")

-- Screens of the cases on scrolling and borders.
local HINTS_44 = {
  " ↑ up · ↓ down · tab/→ next tab ·",
  " shift+tab/← previous tab · enter confirm ·",
  " space toggle · n option note ·",
  " N question note · 1-9 quick select ·",
  " esc cancel · ctrl+c dismiss",
  string.rep("─", 44),
}
local SCROLL_TOP = table.concat({
  string.rep("─", 44),
  " Tall",
  " [□ Q1]  ✓ Submit ",
  "",
  " Pick one",
  "",
  " ❯ 1. ○ Option 1",
  "   2. ○ Option 2",
  "   3. ○ Option 3",
  table.concat(HINTS_44, "\n"),
}, "\n")
local SCROLL_DOWN = table.concat({
  string.rep("─", 44),
  " Tall",
  " [□ Q1]  ✓ Submit ",
  "   3. ○ Option 3",
  "   4. ○ Option 4",
  "   5. ○ Option 5",
  "   6. ○ Option 6",
  "   7. ○ Option 7",
  " ❯ 8. ○ Option 8",
  table.concat(HINTS_44, "\n"),
}, "\n")
local EDITOR_HINTS_44 = {
  " enter save ·",
  " shift+enter/alt+enter new line ·",
  " esc close · ctrl+c dismiss",
  string.rep("─", 44),
}
local SCROLL_HEADER = string.rep("─", 44) .. "\n Tall\n [□ Q1]  ✓ Submit "
local SCROLL_EDITOR = table.concat({
  SCROLL_HEADER,
  "   6. ○ Option 6",
  "   7. ○ Option 7",
  "   8. ○ Option 8",
  "   9. ○ Option 9",
  " ❯    ○ Type your own",
  "   ╭─ Your answer ────────────────────────╮",
  "   │ Type answer...                       │",
  "   ╰──────────────────────────────────────╯",
  table.concat(EDITOR_HINTS_44, "\n"),
}, "\n")
local SCROLL_EDITOR_TWO_LINES = table.concat({
  SCROLL_HEADER,
  "   7. ○ Option 7",
  "   8. ○ Option 8",
  "   9. ○ Option 9",
  " ❯    ○ Type your own",
  "   ╭─ Your answer ────────────────────────╮",
  "   │ ab                                   │",
  "   │ cd                                   │",
  "   ╰──────────────────────────────────────╯",
  table.concat(EDITOR_HINTS_44, "\n"),
}, "\n")
local BORDERED = table.concat({
  " Setup",
  " [□ Size]  ✓ Submit ",
  "",
  " Pick a size",
  "",
  " ❯ 1. ○ Small",
  "        Fits in a pocket",
  "   2. ○ Medium",
  "   3. ○ Large",
  "   4. ○ Type your own",
  "",
  " ↑ up · ↓ down · tab/→ next tab ·",
  " shift+tab/← previous tab ·",
  " enter confirm · space toggle ·",
  " n option note · N question note ·",
  " 1-4 quick select · esc cancel ·",
  " ctrl+c dismiss",
}, "\n")

--- Whether a case runs: every case without ASKD_TEST_FILTER, else those whose name matches
--- one of its patterns (separated by `|`).
local function selected(name)
  if not FILTER or FILTER == "" then
    return true
  end
  for _, pattern in ipairs(vim.split(FILTER, "|", { plain = true })) do
    if name:find(pattern) then
      return true
    end
  end
  return false
end

local function case(name, fn)
  if selected(name) then
    table.insert(cases, { name = name, fn = fn })
  end
end

--- A case that needs a feature not every askd has (see FEATURES): skipped, with the reason
--- printed, when the engine lacks it.
local function engine_case(name, feature, fn)
  if selected(name) then
    table.insert(cases, { name = name, fn = fn, feature = feature })
  end
end

local resume_current

--- What a case registered to run when it ends, passed or failed (`on_cleanup`), last first.
local cleanups = {}

local function on_cleanup(fn)
  table.insert(cleanups, fn)
end

local function run_cleanups()
  for i = #cleanups, 1, -1 do
    local ok, err = pcall(cleanups[i])
    if not ok then
      out("  cleanup failed: " .. tostring(err))
    end
  end
  cleanups = {}
end

--- Yields to the main loop for `ms` milliseconds.
local function sleep(ms)
  local resume = resume_current
  vim.defer_fn(function()
    resume()
  end, ms)
  coroutine.yield()
end

--- Waits until `pred()` holds; fails the case after WAIT_MS. `what` describes the wait (a
--- function is called when the wait fails, to describe the state then).
local function wait_for(what, pred)
  local start = vim.loop.now()
  while not pred() do
    if vim.loop.now() - start > WAIT_MS then
      error("timed out waiting for " .. (type(what) == "function" and what() or what), 2)
    end
    sleep(10)
  end
end

local function fmt(v)
  return type(v) == "string" and string.format("%q", v) or vim.inspect(v)
end

local function eq(actual, expected, what)
  if not vim.deep_equal(actual, expected) then
    error(string.format("%s:\n  expected %s\n  actual   %s", what, fmt(expected), fmt(actual)), 2)
  end
end

local function truthy(v, what)
  if not v then
    error(what, 2)
  end
end

--- Feeds keys (Vim notation) as if typed.
local function feed(notation)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(notation, true, false, true), "mt", false)
end

--- Types keys (Vim notation) as a terminal would deliver them: into the input queue, all
--- in one burst.
local function type_keys(notation)
  vim.api.nvim_input(notation)
end

local function floats()
  local list = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      table.insert(list, win)
    end
  end
  return list
end

--- The text of the (single) flow window, or nil when none is open.
local function screen()
  local wins = floats()
  if #wins ~= 1 then
    return nil
  end
  local buf = vim.api.nvim_win_get_buf(wins[1])
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

local function wait_screen(text)
  local function what()
    return "the float to show " .. fmt(text) .. "; it shows " .. fmt(screen())
  end
  wait_for(what, function()
    local s = screen()
    return s ~= nil and s:find(text, 1, true) ~= nil
  end)
end

local function wait_no_screen(text)
  local function what()
    return "the float to stop showing " .. fmt(text) .. "; it shows " .. fmt(screen())
  end
  wait_for(what, function()
    local s = screen()
    return s ~= nil and s:find(text, 1, true) == nil
  end)
end

--- Starts a flow; returns a table that gets `done`, `result` and `err` once on_done runs.
local function start(payload, opts)
  local run = { done = false }
  run.handle = askd.ask(payload, opts or {}, function(result, err)
    run.done, run.result, run.err = true, result, err
    run.calls = (run.calls or 0) + 1
  end)
  return run
end

local function wait_done(run)
  wait_for("on_done", function()
    return run.done
  end)
  -- The window closes before on_done runs.
  eq(#floats(), 0, "floats left open after the flow ended")
end

--- Highlights of the flow window as { line, start_col, end_col, group } (0-based).
local function highlights()
  local buf = vim.api.nvim_win_get_buf(floats()[1])
  local list = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ui.ns, 0, -1, { details = true })) do
    table.insert(list, { m[2], m[3], m[4].end_col, m[4].hl_group })
  end
  return list
end

local function cursor_marks()
  local list = {}
  for _, h in ipairs(highlights()) do
    if h[4] == "AskdCursor" then
      table.insert(list, h)
    end
  end
  return list
end

--- Runs the engine behind `tee`, so that the requests it gets are logged to a file; returns
--- a function that reads the decoded requests so far.
local function log_requests()
  local path = vim.fn.tempname()
  askd.setup({ cmd = { "sh", "-c", 'tee "$1" | "$0"', ASKD, path } })
  return function()
    local list = {}
    for _, line in ipairs(vim.fn.filereadable(path) == 1 and vim.fn.readfile(path) or {}) do
      table.insert(list, vim.json.decode(line))
    end
    return list
  end
end

local function methods(requests)
  local list = {}
  for _, r in ipairs(requests) do
    table.insert(list, r.method)
  end
  return list
end

--- The entries of the `:checkhealth` buffer as `{ kind, text }` (the report's format differs
--- between Neovim versions: `- OK: text` on 0.7, `- ✅ OK text` from 0.10).
local function health_entries()
  local entries = {}
  for _, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    local item = line:match("^%s*%- (.*)$")
    if item then
      item = item:gsub("^[^%w]+", "")
      local kind, text = item:match("^(%u+):? (.*)$")
      if kind then
        table.insert(entries, { kind, text })
      end
    end
  end
  return entries
end

local ROOT = locate.root
local PATH = vim.env.PATH
local LINES, COLUMNS = vim.o.lines, vim.o.columns

local function reset()
  for _, win in ipairs(floats()) do
    pcall(vim.api.nvim_win_close, win, true)
  end
  locate.root = ROOT
  vim.env.PATH = PATH
  if vim.o.lines ~= LINES or vim.o.columns ~= COLUMNS then
    vim.o.lines, vim.o.columns = LINES, COLUMNS
  end
  askd.detach()
  askd.setup({ cmd = ASKD })
  -- The engines a case starts keep their flows in a state directory of the case's own: what
  -- an engine killed in one case left unfinished is never offered in another.
  vim.env.XDG_STATE_HOME = vim.fn.tempname()
  H.notes = {}
end

local bench

local function finish(passed, failed, skipped)
  if bench then
    local run_bench = bench
    bench = nil
    return run_bench(function()
      finish(passed, failed, skipped)
    end)
  end
  local line = string.format("%d passed, %d failed", passed, failed)
  if skipped > 0 then
    line = line .. string.format(", %d skipped", skipped)
  end
  out(line)
  if failed > 0 then
    vim.cmd("cquit 1")
  else
    vim.cmd("qall!")
  end
end

---------------------------------------------------------------------------------------------
-- Engine features: each is found from the engine's own answers to a few requests.

--- Runs the engine on newline-delimited requests; returns its answers by id.
local function engine_answers(requests)
  local lines = {}
  for _, request in ipairs(requests) do
    request.jsonrpc = "2.0"
    table.insert(lines, vim.fn.json_encode(request))
  end
  local answers = {}
  for _, line in ipairs(vim.fn.systemlist({ ASKD }, table.concat(lines, "\n") .. "\n")) do
    local ok, msg = pcall(vim.json.decode, line, { luanil = { object = true } })
    if ok and type(msg) == "table" and msg.id ~= nil then
      answers[msg.id] = msg
    end
  end
  return answers
end

local function probe_open(params, then_requests)
  params.session = "probe"
  params.payload = params.payload
    or {
      questions = {
        { id = "a", prompt = "A?", options = { { value = "x", label = "X" } } },
        { id = "b", prompt = "B?", options = { { value = "y", label = "Y" } } },
      },
    }
  local requests = { { id = 1, method = "open", params = params } }
  for i, r in ipairs(then_requests or {}) do
    r.id = i + 1
    r.params = r.params or {}
    r.params.session = "probe"
    table.insert(requests, r)
  end
  return engine_answers(requests)
end

local function view_of(answer)
  return answer and answer.result and answer.result.view or {}
end

local function many_options(n)
  local options = {}
  for i = 1, n do
    table.insert(options, { value = "v" .. i, label = "Option " .. i })
  end
  return options
end

--- What each feature needs of the engine, and how to tell.
local FEATURES = {
  confirm_dismiss = {
    reason = "the engine has no behaviour.confirmDismissWhenDirty",
    probe = function()
      local answers = probe_open({ behaviour = { confirmDismissWhenDirty = true } }, {
        { method = "key", params = { key = "1" } },
        { method = "key", params = { key = "escape" } },
      })
      return answers[3] ~= nil and answers[3].result ~= nil and answers[3].result.status == "open"
    end,
  },
  help = {
    reason = "? opens no help overlay in this engine (pi-0.9 profile)",
    probe = function()
      local answers = probe_open({ width = 60, behaviour = { profile = "pi-0.9" } }, {
        { method = "key", params = { key = "?" } },
      })
      return not vim.deep_equal(view_of(answers[1]).lines, view_of(answers[2]).lines)
    end,
  },
  dialects = {
    reason = "the engine speaks no claude, codex, opencode or mcp dialect",
    probe = function()
      local payload = {
        questions = {
          {
            question = "Which?",
            header = "Pick",
            multiSelect = false,
            options = { { label = "A", description = "a" }, { label = "B", description = "b" } },
          },
        },
      }
      local answers = probe_open({ dialect = "claude", payload = payload })
      return answers[1] ~= nil and answers[1].result ~= nil
    end,
  },
}

local feature_cache = {}

--- Whether the engine has a feature (probed once).
local function has_feature(name)
  if feature_cache[name] == nil then
    local ok, yes = pcall(FEATURES[name].probe)
    feature_cache[name] = ok and yes == true
  end
  return feature_cache[name]
end

local function run_all()
  local passed, failed, skipped = 0, 0, 0
  local index = 0
  if #cases == 0 then
    out("no test case matches ASKD_TEST_FILTER")
    return finish(0, 1, 0)
  end
  local next_case
  next_case = function()
    index = index + 1
    local c = cases[index]
    if not c then
      return finish(passed, failed, skipped)
    end
    if c.feature and not has_feature(c.feature) then
      skipped = skipped + 1
      out("skip " .. c.name .. " (" .. FEATURES[c.feature].reason .. ")")
      return vim.schedule(next_case)
    end
    reset()
    local co = coroutine.create(function()
      -- Flows a case left open or waiting end before the next case starts.
      wait_for("the flows of the case before to end", function()
        for _, win in ipairs(floats()) do
          pcall(vim.api.nvim_win_close, win, true)
        end
        return (askd._internal and askd._internal.count() or 0) == 0 and #floats() == 0
      end)
      H.notes = {}
      c.fn()
    end)
    local settled = false
    local function settle(ok, err)
      if settled then
        return
      end
      settled = true
      if ok then
        passed = passed + 1
        out("ok   " .. c.name)
      else
        failed = failed + 1
        out("FAIL " .. c.name .. "\n  " .. tostring(err):gsub("\n", "\n  "))
      end
      run_cleanups()
      vim.schedule(next_case)
    end
    resume_current = function()
      if settled then
        return
      end
      local ok, err = coroutine.resume(co)
      if not ok then
        settle(false, debug.traceback(co, err))
      elseif coroutine.status(co) == "dead" then
        settle(true)
      end
    end
    vim.defer_fn(function()
      settle(false, "case timed out")
    end, CASE_TIMEOUT_MS)
    resume_current()
  end
  next_case()
end

---------------------------------------------------------------------------------------------
-- Payloads

local SIZE = {
  id = "size",
  label = "Size",
  prompt = "Pick a size",
  options = {
    { value = "small", label = "Small", description = "Fits in a pocket" },
    { value = "medium", label = "Medium" },
    { value = "large", label = "Large" },
  },
}

local LANGS = {
  id = "langs",
  label = "Langs",
  prompt = "Which languages?",
  type = "multi",
  options = {
    { value = "lua", label = "Lua" },
    { value = "rust", label = "Rust" },
    { value = "python", label = "Python" },
  },
}

local function payload(...)
  return { title = "Setup", questions = { ... } }
end

---------------------------------------------------------------------------------------------
-- Agents: requests from a WebSocket client of the hub

--- Sends requests from an agent's WebSocket client; returns a table whose `responses` (by
--- id) fill in as they arrive, and `code` once it exits.
local function agent_requests(url, requests)
  local job = { responses = {}, output = {} }
  local script = os.getenv("ASKD_NVIM_PLUGIN") .. "/tests/lib/ws-requests.mjs"
  local argv = { "node", "--experimental-websocket", script, url }
  for _, r in ipairs(requests) do
    r.jsonrpc = "2.0"
    table.insert(argv, vim.fn.json_encode(r))
  end
  vim.fn.jobstart(argv, {
    on_stdout = function(_, data)
      for _, line in ipairs(data) do
        local ok, msg = pcall(vim.json.decode, line)
        if ok and type(msg) == "table" and msg.id ~= nil then
          job.responses[msg.id] = msg
        elseif line ~= "" then
          table.insert(job.output, line)
        end
      end
    end,
    on_stderr = function(_, data)
      vim.list_extend(job.output, data)
    end,
    on_exit = function(_, code)
      job.code = code
    end,
  })
  return job
end

local function ask_request(id, session, title, prompt)
  return {
    id = id,
    method = "ask",
    params = {
      session = session,
      payload = {
        title = title,
        questions = {
          {
            id = "q",
            prompt = prompt,
            options = { { value = "yes", label = "Yes" }, { value = "no", label = "No" } },
          },
        },
      },
    },
  }
end

---------------------------------------------------------------------------------------------
-- Benchmark (printed, never asserted): from a key put into the input queue with nvim_input
-- to the float's buffer holding the engine's new screen.

local BENCH_KEYS = 200

local function percentile(sorted, p)
  return sorted[math.max(1, math.ceil(#sorted * p))]
end

bench = function(done)
  if not selected("bench") then
    return done()
  end
  reset()
  local co = coroutine.create(function()
    local uv = vim.uv or vim.loop
    local run = start({ questions = { { id = "a", prompt = "Pick", options = many_options(30) } } })
    wait_screen("Pick")
    local buf = vim.api.nvim_win_get_buf(floats()[1])
    -- The buffer's change is stamped as it happens; the loop goes on from the main loop.
    local changed_at, waiting
    local resume = resume_current
    vim.api.nvim_buf_attach(buf, false, {
      on_lines = function()
        changed_at = changed_at or uv.hrtime()
        if waiting then
          waiting = false
          vim.schedule(resume)
        end
      end,
    })
    local samples = {}
    for i = 1, BENCH_KEYS do
      changed_at, waiting = nil, true
      local sent_at = uv.hrtime()
      type_keys((i - 1) % 40 < 20 and "<Down>" or "<Up>")
      coroutine.yield()
      table.insert(samples, (changed_at - sent_at) / 1e6)
    end
    table.sort(samples)
    out(string.format(
      "bench: key to screen over %d keys: p50 %.2f ms, p99 %.2f ms (%s)",
      BENCH_KEYS,
      percentile(samples, 0.5),
      percentile(samples, 0.99),
      string.format("nvim %d.%d.%d", vim.version().major, vim.version().minor, vim.version().patch)
    ))
    feed("<Esc>")
    wait_done(run)
  end)
  resume_current = function()
    local ok, err = coroutine.resume(co)
    if not ok then
      out("bench: failed: " .. tostring(err))
      vim.schedule(done)
    elseif coroutine.status(co) == "dead" then
      vim.schedule(done)
    end
  end
  resume_current()
end

---------------------------------------------------------------------------------------------
-- What the files of cases and tests/run.lua use.
H.ASKD = ASKD
H.askd = askd
H.ui = ui
H.render = render
H.keys = keys
H.layout = layout
H.locate = locate
H.out = out
H.neovims_notify = neovims_notify
H.SCROLL_TOP = SCROLL_TOP
H.SCROLL_DOWN = SCROLL_DOWN
H.SCROLL_EDITOR = SCROLL_EDITOR
H.SCROLL_EDITOR_TWO_LINES = SCROLL_EDITOR_TWO_LINES
H.BORDERED = BORDERED
H.case = case
H.engine_case = engine_case
H.on_cleanup = on_cleanup
H.sleep = sleep
H.wait_for = wait_for
H.fmt = fmt
H.eq = eq
H.truthy = truthy
H.feed = feed
H.type_keys = type_keys
H.floats = floats
H.screen = screen
H.wait_screen = wait_screen
H.wait_no_screen = wait_no_screen
H.start = start
H.wait_done = wait_done
H.highlights = highlights
H.cursor_marks = cursor_marks
H.log_requests = log_requests
H.methods = methods
H.health_entries = health_entries
H.engine_answers = engine_answers
H.many_options = many_options
H.FEATURES = FEATURES
H.run_all = run_all
H.SIZE = SIZE
H.LANGS = LANGS
H.payload = payload
H.agent_requests = agent_requests
H.ask_request = ask_request

return H
