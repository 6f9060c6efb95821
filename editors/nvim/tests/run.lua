-- Headless tests of the askd Neovim plugin against a real askd.
--
-- Run by tests/run.sh (ASKD_BIN names the askd binary). Every case runs in its own
-- coroutine: it feeds keys as typed input, yields to the main loop so that Neovim processes
-- them (mappings, the engine's answers, redraws), and asserts the float and the results.
-- The last line printed is `N passed, M failed`; the exit status is non-zero on any failure.

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
local notes = {}
local neovims_notify = vim.notify
vim.notify = function(message, level)
  table.insert(notes, { message = message, level = level })
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
  notes = {}
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
      notes = {}
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
-- Units: key names, rendering, highlights

case("askd key names become mapping left-hand sides", function()
  eq(keys.to_lhs("ctrl+x"), "<C-x>", "ctrl+x")
  eq(keys.to_lhs("shift+enter"), "<S-CR>", "shift+enter")
  eq(keys.to_lhs("alt+backspace"), "<M-BS>", "alt+backspace")
  eq(keys.to_lhs("ctrl+shift+tab"), "<C-S-Tab>", "ctrl+shift+tab")
  eq(keys.to_lhs("esc"), "<Esc>", "esc")
  eq(keys.to_lhs("pagedown"), "<PageDown>", "pagedown")
  eq(keys.to_lhs("<C-y>"), "<C-y>", "<C-y>")
  eq(keys.to_lhs("|"), "<Bar>", "|")
  eq(keys.to_lhs("<"), "<lt>", "<")
  eq(keys.to_lhs("q"), "q", "q")
  eq(keys.to_lhs("ü"), "ü", "ü")
  eq(keys.to_lhs("hyper+q"), nil, "hyper+q")
  eq(keys.to_lhs("nonsense"), nil, "nonsense")
end)

case("the window maps printable ASCII, the special keys and keymap overrides", function()
  local list =
    keys.bindings({ ["main.toggle"] = { "x", "ctrl+t" }, ["editor.submit"] = { "alt+s" } })
  local by_lhs, by_action = {}, {}
  for _, b in ipairs(list) do
    if b.action then
      by_action[b.action] = by_action[b.action] or {}
      table.insert(by_action[b.action], b[1])
    else
      by_lhs[b[1]] = b[2]
    end
  end
  eq(#list - #by_action.paste - #by_action.ignore, 94 + #keys.special + 2, "keys for the engine")
  eq(by_action.paste, { "<C-r>" }, "the register paste key")
  -- Neovim 0.7 tells <C-i> from <Tab>; later versions take <C-i> as <Tab> (sent to the engine).
  local ignored = vim.deepcopy(keys.inert)
  eq(
    vim.list_slice(ignored, 1, 7),
    { "<C-o>", "<C-i>", "<C-^>", "<C-6>", "<C-]>", "<C-t>", "<F1>" },
    "the keys that leave the float's buffer"
  )
  eq(vim.list_slice(ignored, 8), {
    "<C-f>",
    "<C-b>",
    "<C-y>",
    "<S-Up>",
    "<S-Down>",
    "<C-v>",
    "<C-q>",
    "<Insert>",
    "<C-PageUp>",
    "<C-PageDown>",
    "<ScrollWheelUp>",
    "<ScrollWheelDown>",
    "<ScrollWheelLeft>",
    "<ScrollWheelRight>",
    "<LeftDrag>",
    "<2-LeftMouse>",
    "<3-LeftMouse>",
    "<4-LeftMouse>",
  }, "the keys that would scroll the float's view or edit its buffer")
  -- <C-t> is taken by the keymap override here.
  table.remove(ignored, 6)
  if vim.api.nvim_replace_termcodes("<C-i>", true, true, true) == "\t" then
    table.remove(ignored, 2)
  end
  eq(by_action.ignore, ignored, "keys that do nothing in the float")
  eq(by_lhs["<C-d>"], "ctrl+d", "<C-d>")
  eq(by_lhs["<lt>"], "<", "<lt>")
  eq(by_lhs["<Bar>"], "|", "<Bar>")
  eq(by_lhs["<Bslash>"], "\\", "<Bslash>")
  eq(by_lhs["N"], "N", "N")
  eq(by_lhs["<S-Tab>"], "shift+tab", "<S-Tab>")
  eq(by_lhs["<C-c>"], "ctrl+c", "<C-c>")
  eq(by_lhs["<M-b>"], "alt+b", "<M-b>")
  eq(by_lhs["<M-CR>"], "alt+enter", "<M-CR>")
  eq(by_lhs["<C-t>"], "ctrl+t", "<C-t>")
  eq(by_lhs["<M-s>"], "alt+s", "<M-s>")
  eq(keys.typed_text("é"), "é", "typed é")
  eq(keys.typed_text("한"), "한", "typed 한")
  eq(keys.typed_text("a"), nil, "typed a")
  eq(keys.typed_text("\128\253g"), nil, "special key code")
end)

case("fallback screen of a question with the custom editor open", function()
  local view = {
    title = "Setup",
    tabs = {
      { label = "Size", kind = "question", answered = true, active = false },
      { label = "Name", kind = "question", answered = false, active = true },
      { label = "Submit", kind = "review", answered = false, active = false },
    },
    question = {
      prompt = "Pick a name",
      detail = "Shown in the title bar",
      note = "ask the team",
      rows = {
        {
          index = 1,
          value = "a",
          label = "Alpha",
          selected = true,
          active = false,
          custom = false,
          recommended = true,
          description = "First",
        },
        {
          index = 2,
          value = "b",
          label = "Beta",
          selected = false,
          active = false,
          custom = false,
          note = "maybe",
        },
        {
          index = 3,
          value = "__other__",
          label = "Type your own",
          selected = false,
          active = true,
          custom = true,
        },
      },
    },
    editor = {
      target = { kind = "custom", questionId = "name" },
      text = "héllo\nwo",
      cursor = { byte = 1 },
      placeholder = "Type answer...",
    },
    hints = {
      { action = "editor.submit", keys = { "enter" }, label = "save" },
      { action = "global.dismiss", keys = { "ctrl+c" }, label = "dismiss" },
    },
  }
  local lines, active = render.fallback(view)
  local flat = render.flatten(lines)
  eq(flat.texts, {
    "Setup",
    " ✓ Size  [□ Name]  Submit ",
    "",
    "Pick a name",
    "Shown in the title bar",
    "Note: ask the team",
    "",
    "  [x] 1. Alpha (recommended)",
    "      First",
    "  [ ] 2. Beta",
    "      note: maybe",
    "❯ [ ] 3. Type your own",
    "      > héllo",
    "        wo",
    "",
    "enter save · ctrl+c dismiss",
  }, "lines")
  eq(active, 12, "active line")
  eq(flat.cursor, { 12, 9 }, "cursor (row, byte)")
  local cursor_marks_found = {}
  for _, m in ipairs(flat.marks) do
    if m[4] == "cursor" then
      table.insert(cursor_marks_found, m)
    end
  end
  eq(cursor_marks_found, { { 12, 9, 11, "cursor" } }, "the cursor span covers é")
end)

case("fallback screen of a long list shows the window and what lies outside it", function()
  local rows = {}
  for i = 6, 15 do
    table.insert(rows, {
      index = i,
      value = "v" .. i,
      label = "Option " .. i,
      selected = false,
      active = i == 10,
      custom = false,
    })
  end
  local view = {
    tabs = {},
    question = {
      prompt = "Pick one",
      rowCount = 16,
      rowsAbove = 5,
      rowsBelow = 1,
      rows = rows,
    },
    hints = {},
  }
  local lines, active = render.fallback(view)
  local flat = render.flatten(lines)
  eq(flat.texts, {
    "",
    "",
    "Pick one",
    "",
    "  ↑ 5 more",
    "  [ ] 6. Option 6",
    "  [ ] 7. Option 7",
    "  [ ] 8. Option 8",
    "  [ ] 9. Option 9",
    "❯ [ ] 10. Option 10",
    "  [ ] 11. Option 11",
    "  [ ] 12. Option 12",
    "  [ ] 13. Option 13",
    "  [ ] 14. Option 14",
    "  [ ] 15. Option 15",
    "  ↓ 1 more",
  }, "lines")
  eq(active, 10, "active line")
end)

case("fallback screen of the review tab and of an empty note editor", function()
  local review = {
    tabs = {
      { label = "Size", kind = "question", answered = true, active = false },
      { label = "Submit", kind = "review", answered = false, active = true },
    },
    review = {
      activeAction = 1,
      actions = {
        { key = "1", label = "Submit", active = false },
        { key = "2", label = "Elaborate", active = true },
        { key = "3", label = "Cancel", active = false },
      },
      questions = {
        {
          label = "Size",
          answers = { { label = "Small", custom = false, note = "cheap" } },
          note = "why ask",
          otherNotes = { { value = "large", label = "Large", note = "too big" } },
        },
        { label = "Name", answers = {}, otherNotes = {} },
      },
    },
    hints = {},
  }
  local lines, active = render.fallback(review)
  eq(render.flatten(lines).texts, {
    " ✓ Size  [Submit]",
    "",
    "Size",
    "  → Small",
    "    note: cheap",
    "  note: why ask",
    "  Large note: too big",
    "Name",
    "  → unanswered",
    "",
    "  1. Submit",
    "❯ 2. Elaborate",
    "  3. Cancel",
  }, "review lines")
  eq(active, 12, "active action line")
  local ruled, ruled_active = render.fallback(review, 6)
  local ruled_texts = render.flatten(ruled).texts
  eq(
    { ruled_texts[1], ruled_texts[#ruled_texts], #ruled_texts },
    { "──────", "──────", 15 },
    "rules"
  )
  eq(ruled_active, 13, "active action line below the top rule")

  local noting = {
    tabs = {},
    question = {
      prompt = "P",
      rows = {
        { index = 1, value = "a", label = "A", selected = false, active = true, custom = false },
      },
    },
    editor = {
      target = { kind = "optionNote", questionId = "q", optionValue = "a" },
      text = "",
      cursor = { byte = 0 },
      placeholder = "Add a note...",
    },
  }
  local flat = render.flatten((render.fallback(noting)))
  eq(
    flat.texts,
    { "", "", "P", "", "❯ [ ] 1. A", "      note:  Add a note..." },
    "note editor lines"
  )
  eq(flat.cursor, { 5, 12 }, "cursor of an empty editor")
end)

case("engine lines are drawn as they come, styles mapped to highlight groups", function()
  local buf, win = ui.open(30, "rounded")
  local view = {
    lines = {
      { { text = "Title", style = "title" } },
      {},
      { { text = "❯ ", style = "accent" }, { text = "1. Yes", style = "selected" } },
      {
        { text = "> ab", style = "text" },
        { text = "c", style = "cursor" },
        { text = "d", style = "sparkly" },
      },
      {
        { text = "hint", style = "dim" },
        { text = " x", style = "muted" },
        { text = "!", style = "warning" },
      },
    },
  }
  ui.draw(buf, win, view, { width = 30, border = "rounded" })
  eq(
    vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    { "Title", "", "❯ 1. Yes", "> abcd", "hint x!" },
    "buffer text"
  )
  eq(highlights(), {
    { 0, 0, 5, "AskdTitle" },
    { 2, 0, 4, "AskdAccent" },
    { 2, 4, 10, "AskdSelected" },
    { 3, 0, 4, "AskdText" },
    { 3, 4, 5, "AskdCursor" },
    { 4, 0, 4, "AskdDim" },
    { 4, 4, 6, "AskdMuted" },
    { 4, 6, 7, "AskdWarning" },
  }, "highlights (the unknown style gets none)")
  eq(vim.api.nvim_win_get_cursor(win), { 4, 4 }, "Neovim's cursor sits on the engine's cursor")
  local config = vim.api.nvim_win_get_config(win)
  eq({ config.width, config.height }, { 30, 5 }, "float size")
  -- A screen of as many lines rewrites the lines that changed: their text or their styles.
  view.lines[1] = { { text = "Other", style = "title" } }
  view.lines[5] = { { text = "hint", style = "muted" }, { text = " x!", style = "dim" } }
  ui.draw(buf, win, view, { width = 30, border = "rounded" })
  eq(
    vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    { "Other", "", "❯ 1. Yes", "> abcd", "hint x!" },
    "buffer text after a second screen"
  )
  eq(highlights(), {
    { 0, 0, 5, "AskdTitle" },
    { 2, 0, 4, "AskdAccent" },
    { 2, 4, 10, "AskdSelected" },
    { 3, 0, 4, "AskdText" },
    { 3, 4, 5, "AskdCursor" },
    { 4, 0, 4, "AskdMuted" },
    { 4, 4, 7, "AskdDim" },
  }, "highlights after a second screen")
  -- Without a cursor span, the active row stays in sight.
  table.remove(view.lines, 4)
  ui.draw(buf, win, view, { width = 30, border = "rounded" })
  eq(vim.api.nvim_win_get_cursor(win)[1], 3, "cursor on the ❯ line")
  ui.close(win, buf)
end)

case("highlight groups link to standard groups", function()
  local expected = {
    AskdAccent = "Special",
    AskdSuccess = "String",
    AskdMuted = "Comment",
    AskdDim = "NonText",
    AskdWarning = "WarningMsg",
    AskdSelected = "Statement",
    AskdCursor = "TermCursor",
    AskdTitle = "Title",
    AskdText = "NormalFloat",
  }
  local function link_of(group)
    return vim.fn.execute("highlight " .. group):match("links to (%w+)")
  end
  for group, link in pairs(expected) do
    eq(link_of(group), link, group .. " links to")
  end
  -- Colour schemes start with `:highlight clear`: the default links survive it.
  vim.cmd("highlight clear")
  eq(link_of("AskdMuted"), "Comment", "after :highlight clear")
  -- A group the user defined is kept.
  vim.cmd("highlight AskdAccent ctermfg=1")
  ui.define_highlights()
  eq(link_of("AskdAccent"), nil, "the user's AskdAccent is kept")
  eq(vim.fn.synIDattr(vim.fn.hlID("AskdAccent"), "fg", "cterm"), "1", "the user's colour")
  vim.cmd("highlight link AskdAccent Special")
  eq(ui.group("sparkly"), nil, "an unknown style has no group")
end)

--- AskdBorder as Neovim resolves it: `{ fg, bg, reverse }` in the GUI's colours and the
--- terminal's.
local function border_colours()
  local gui = vim.api.nvim_get_hl_by_name("AskdBorder", true)
  local cterm = vim.api.nvim_get_hl_by_name("AskdBorder", false)
  return {
    gui = { gui.foreground, gui.background, gui.reverse },
    cterm = { cterm.foreground, cterm.background, cterm.reverse },
  }
end

case("AskdBorder draws the rules in the border's colour, never as solid bars", function()
  -- Neovim 0.7's default scheme draws FloatBorder reversed (its VertSplit): a rule drawn
  -- with it would be a solid bar. AskdBorder has no background and no reverse.
  vim.cmd("highlight clear")
  vim.cmd("doautocmd ColorScheme")
  local colours = border_colours()
  eq({ colours.gui[2], colours.gui[3], colours.cterm[2], colours.cterm[3] }, {}, "default scheme")
  -- habamax (Neovim 0.8 and later) gives VertSplit, which FloatBorder links to, a background
  -- of the same colour as its foreground.
  if #vim.api.nvim_get_runtime_file("colors/habamax.vim", false) > 0 then
    vim.o.termguicolors = true
    vim.cmd("colorscheme habamax")
    colours = border_colours()
    local split = vim.api.nvim_get_hl_by_name("VertSplit", true)
    eq(split.background, split.foreground, "habamax's VertSplit is a solid bar")
    eq(colours.gui, { split.foreground }, "habamax: the border's colour, no background")
    eq({ colours.cterm[2], colours.cterm[3] }, {}, "habamax: no terminal background")
    vim.o.termguicolors = false
  end
  -- A user's AskdBorder is kept, across colour schemes too.
  vim.cmd("highlight AskdBorder ctermfg=1 ctermbg=2")
  vim.cmd("highlight clear")
  vim.cmd("highlight AskdBorder ctermfg=1 ctermbg=2")
  vim.cmd("doautocmd ColorScheme")
  eq(border_colours().cterm, { 1, 2 }, "the user's AskdBorder")
  vim.cmd("highlight clear AskdBorder")
  vim.cmd("highlight clear")
  vim.cmd("doautocmd ColorScheme")
end)

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
    return #notes > 0
  end)
  local warning = {
    message = "askd: the editor would hold 17 bytes; the limit is 16",
    level = vim.log.levels.WARN,
  }
  eq(notes, { warning }, "one warning for the refused key")
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
  eq(#notes, 0, "no notification on a cancel")
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
    vim.list_slice(methods(log), 1, 7),
    { "ask", "subscribe", "getView", "ask", "subscribe", "ask", "subscribe" },
    "every ask is sent at once; only the flow in front asks for its view"
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
    return #requests() >= 5
  end)
  local log = requests()
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
  eq(#notes, 0, "notifications")
  local rejected = start({ questions = {} }, { dialect = "dsh" })
  wait_done(rejected)
  eq(rejected.err, "askd: questions must hold at least one question", "rejected request")
end)

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
  eq(notes, {}, "notifications")
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
    return #notes > 0
  end)
  sleep(50)
  eq(notes, {
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
-- Options sent to the engine

case("the dirty-dismiss guard is on by default; options reach ask by the engine's names", function()
  local requests = log_requests()
  local function last_ask()
    local found
    for _, r in ipairs(requests()) do
      if r.method == "ask" then
        found = r.params
      end
    end
    return found
  end
  local function ask_with(opts)
    local before = #requests()
    local run = start(payload(SIZE), opts)
    wait_for("the ask request", function()
      return #requests() >= before + 2
    end)
    wait_screen("Pick a size")
    feed("<Esc>")
    wait_done(run)
    return last_ask()
  end
  local params = ask_with({})
  eq(params.behaviour, { confirmDismissWhenDirty = true }, "default behaviour")
  eq({ params.keymapPreset, params.timeoutMs }, { nil, nil }, "no preset, no timeout")
  truthy(
    params.session:match("^nvim%-" .. vim.fn.getpid() .. "%-%d+$"),
    "a session id of the plugin: " .. params.session
  )
  local cmd = askd.config.cmd
  askd.setup({ cmd = cmd, confirm_dismiss = false, keymap_preset = "vim" })
  params = ask_with({})
  eq(params.behaviour, { confirmDismissWhenDirty = false }, "confirm_dismiss = false")
  eq(params.keymapPreset, "vim", "keymap_preset")
  askd.setup({ cmd = cmd, behaviour = { profile = "pi-0.9", presentSingleAsMulti = true } })
  local folder = vim.fn.tempname()
  vim.fn.mkdir(folder, "p")
  params = ask_with({
    behaviour = { presentSingleAsMulti = false },
    timeout_ms = 90000,
    session = "call-7",
    keymap_preset = "vim",
    cwd = folder,
  })
  eq(params.behaviour, {
    profile = "pi-0.9",
    presentSingleAsMulti = false,
    confirmDismissWhenDirty = true,
  }, "behaviour tables merged")
  eq(
    { params.timeoutMs, params.session, params.keymapPreset, params.cwd },
    { 90000, "call-7", "vim", folder },
    "flow options"
  )
  params = ask_with({ behaviour = { confirmDismissWhenDirty = false }, confirm_dismiss = true })
  eq(params.behaviour.confirmDismissWhenDirty, false, "a behaviour table wins")
  eq(notes, {}, "notifications")
end)

case("setup and ask warn about unknown options, naming them", function()
  askd.setup({ cmd = ASKD, widht = 60, zzz = 1 })
  eq(notes, {
    {
      message = 'askd: unknown setup option "widht" (did you mean "width"?)',
      level = vim.log.levels.WARN,
    },
    { message = 'askd: unknown setup option "zzz"', level = vim.log.levels.WARN },
  }, "setup warnings")
  eq({ askd.config.width, askd.config.widht }, { 80, nil }, "the typo is not kept")
  notes = {}
  local run = start(payload(SIZE), { bordr = "rounded" })
  wait_screen("Pick a size")
  eq(notes, {
    {
      message = 'askd: unknown ask option "bordr" (did you mean "border"?)',
      level = vim.log.levels.WARN,
    },
  }, "ask warnings")
  feed("<Esc>")
  wait_done(run)
end)

---------------------------------------------------------------------------------------------
-- Lua API

case("ask returns a handle: its session, abort() and close()", function()
  local aborted = start(payload(SIZE), { session = "call-1" })
  eq(aborted.handle.session, "call-1", "the session given")
  wait_screen("Pick a size")
  aborted.handle.abort()
  wait_done(aborted)
  eq(aborted.result.details.cancelled, true, "aborted: cancelled")
  local closed = start(payload(SIZE))
  truthy(closed.handle.session:match("^nvim%-%d+%-%d+$"), "a session made by the plugin")
  wait_screen("Pick a size")
  closed.handle.close()
  wait_done(closed)
  eq(closed.result.content[1].text, "User cancelled the ask flow", "closed")
  -- Both are no-ops once the flow is done.
  closed.handle.close()
  closed.handle.abort()
  sleep(50)
  eq({ aborted.calls, closed.calls }, { 1, 1 }, "on_done calls")
end)

case("ask may be called from a luv callback", function()
  local run = { done = false }
  local timer = (vim.uv or vim.loop).new_timer()
  timer:start(0, 0, function()
    timer:close()
    run.in_fast = vim.in_fast_event()
    run.handle = askd.ask(payload(SIZE), {}, function(result, err)
      run.done, run.result, run.err = true, result, err
    end)
  end)
  wait_screen("Pick a size")
  eq(run.in_fast, true, "called in a fast event")
  eq(type(run.handle.session), "string", "the handle came back at once")
  feed("3")
  wait_screen("Elaborate")
  feed("1")
  wait_done(run)
  eq(run.result.content[1].text, "Size: Large", "result")
  -- The handle too works from a luv callback, before the float has opened.
  local closed = { done = false }
  timer = (vim.uv or vim.loop).new_timer()
  timer:start(0, 0, function()
    timer:close()
    askd.ask(payload(SIZE), {}, function(result, err)
      closed.done, closed.result, closed.err = true, result, err
    end).close()
  end)
  wait_done(closed)
  eq(closed.result.content[1].text, "User cancelled the ask flow", "closed at once")
end)

case("User AskdOpen and AskdDone carry the session and the result", function()
  local events = {}
  local group = vim.api.nvim_create_augroup("askd.test", { clear = true })
  for _, name in ipairs({ "AskdOpen", "AskdDone" }) do
    vim.api.nvim_create_autocmd("User", {
      group = group,
      pattern = name,
      callback = function(args)
        local event = askd.last_event
        local data = vim.fn.has("nvim-0.8") == 1 and args.data or event
        table.insert(events, {
          event.event,
          data.session,
          data.result and data.result.content[1].text,
          data.error,
        })
      end,
    })
  end
  local run = start(payload(SIZE), { session = "ev-1" })
  wait_screen("Pick a size")
  feed("2")
  wait_screen("Elaborate")
  feed("1")
  wait_done(run)
  local failed = start({ questions = {} }, { session = "ev-2" })
  wait_done(failed)
  vim.api.nvim_del_augroup_by_id(group)
  eq(events, {
    { "AskdOpen", "ev-1", nil, nil },
    { "AskdDone", "ev-1", "Size: Medium", nil },
    { "AskdOpen", "ev-2", nil, nil },
    { "AskdDone", "ev-2", nil, failed.err },
  }, "events")
end)

case("schema() decodes the repository's JSON Schemas", function()
  local pi = askd.schema("pi")
  eq({ pi.title, pi.type, pi.required }, { "PiPayload", "object", { "questions" } }, "pi")
  eq(pi.properties.questions.items, { ["$ref"] = "#/$defs/PiQuestion" }, "pi references")
  eq(askd.schema().title, "PiPayload", "pi by default")
  eq(askd.schema("dsh").title, "AskUserQuestionRequest", "dsh")
  local inline = askd.schema("pi", { inline = true })
  eq({ inline["$defs"], inline["$schema"] }, { nil, nil }, "no definitions left")
  eq(inline.properties.questions.items.required, pi["$defs"].PiQuestion.required, "inlined")
  eq(
    inline.properties.questions.items.properties.options.items.required,
    { "value", "label" },
    "nested references inlined"
  )
  local ok, err = pcall(askd.schema, "klingon")
  eq(
    { ok, err },
    { false, 'askd: unknown dialect "klingon" (one of pi, dsh, claude, codex, opencode, mcp)' },
    "unknown dialect"
  )
  locate.root = vim.fn.tempname()
  ok, err = pcall(askd.schema, "dsh")
  eq({ ok, err }, {
    false,
    "askd: no JSON Schema for the dsh dialect in "
      .. locate.root
      .. "/protocol/schemas (looked for dsh-payload.json and dsh-request.json)",
  }, "no schema")
end)

--- The Lua block of the README that follows `<!-- codecompanion-tool -->`.
local function readme_tool()
  local path = os.getenv("ASKD_NVIM_PLUGIN") .. "/README.md"
  local text = table.concat(vim.fn.readfile(path), "\n")
  local code = text:match("<!%-%- codecompanion%-tool %-%->\n```lua\n(.-)\n```")
  truthy(code, "the README has the tool's code block")
  local chunk = assert(loadstring(code, "README codecompanion tool"))
  return chunk()
end

case("the README's codecompanion ask_user tool runs a flow and reports its text", function()
  local tool = readme_tool()
  eq(tool.name, "ask_user", "name")
  local fn = tool.schema["function"]
  eq({ tool.schema.type, fn.name }, { "function", "ask_user" }, "schema")
  eq(fn.parameters, askd.schema("pi", { inline = true }), "parameters")
  local outputs = {}
  tool.cmds[1](tool, payload(SIZE), {
    output_cb = function(msg)
      table.insert(outputs, msg)
    end,
  })
  wait_screen("Pick a size")
  feed("2")
  wait_screen("Elaborate")
  feed("1")
  wait_for("the tool's output", function()
    return #outputs > 0
  end)
  eq(outputs, { { status = "success", data = "Size: Medium" } }, "output")
  local chat = { added = {} }
  function chat:add_tool_output(t, text)
    table.insert(self.added, { t == tool, text })
  end
  tool.output.success(tool, { outputs[1].data }, { tools = { chat = chat } })
  tool.cmds[1](tool, { questions = {} }, {
    output_cb = function(msg)
      table.insert(outputs, msg)
    end,
  })
  wait_for("the tool's error", function()
    return #outputs > 1
  end)
  local invalid = "Invalid ask_user payload:\n- questions: At least one question is required"
  eq(outputs[2], { status = "error", data = invalid }, "error output")
  tool.output.error(tool, { outputs[2].data }, { tools = { chat = chat } })
  eq(chat.added, { { true, "Size: Medium" }, { true, invalid } }, "chat outputs")
end)

---------------------------------------------------------------------------------------------
-- lazy.nvim

--- Where lazy.nvim is: ASKD_LAZY_NVIM, else the tests' own copy (see the README's Tests).
local LAZY_NVIM = os.getenv("ASKD_LAZY_NVIM")
if not LAZY_NVIM or LAZY_NVIM == "" then
  LAZY_NVIM = os.getenv("ASKD_NVIM_PLUGIN") .. "/.test/lazy.nvim"
end

FEATURES.lazy = {
  reason = "lazy.nvim (0.8 and later) is not in editors/nvim/.test/lazy.nvim nor ASKD_LAZY_NVIM",
  probe = function()
    return vim.fn.has("nvim-0.8") == 1
      and vim.fn.filereadable(LAZY_NVIM .. "/lua/lazy/init.lua") == 1
  end,
}

--- The README's lazy.nvim spec, the code block after `<!-- lazy-spec -->`.
local function readme_lazy_spec()
  local path = os.getenv("ASKD_NVIM_PLUGIN") .. "/README.md"
  local text = table.concat(vim.fn.readfile(path), "\n")
  local code = text:match("<!%-%- lazy%-spec %-%->\n```lua\n(.-)\n```")
  truthy(code, "the README has the lazy.nvim spec")
  return code
end

engine_case("the README's lazy.nvim spec: help tags, setup, :Lazy build", "lazy", function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. "/bin", "p")
  -- `cargo` as the spec's build finds it: it says where it ran and with what.
  vim.fn.writefile({
    "#!/bin/sh",
    'echo "$PWD $*" > ' .. vim.fn.shellescape(dir .. "/cargo.txt"),
  }, dir .. "/bin/cargo")
  vim.fn.setfperm(dir .. "/bin/cargo", "rwx------")
  local spec = readme_lazy_spec():gsub(
    vim.pesc('"~/src/askd/editors/nvim"'),
    vim.inspect(os.getenv("ASKD_NVIM_PLUGIN"))
  )
  local report = dir .. "/report.json"
  vim.fn.writefile({
    "vim.opt.runtimepath:prepend(" .. vim.inspect(LAZY_NVIM) .. ")",
    "require('lazy').setup({ " .. spec:gsub("\n", " ") .. " }, {",
    "  root = " .. vim.inspect(dir .. "/lazy") .. ",",
    "  lockfile = " .. vim.inspect(dir .. "/lazy-lock.json") .. ",",
    "  rocks = { enabled = false },",
    "  change_detection = { enabled = false },",
    "})",
    "local out = {}",
    "out.help = pcall(vim.cmd, 'help askd') and vim.fn.expand('%:t') or false",
    "vim.cmd('silent! helpclose')",
    "out.setup = vim.fn.hlexists('AskdAccent') == 1",
    "out.demo = vim.fn.exists(':AskdDemo') == 2",
    "vim.cmd('Lazy! build askd')",
    "local f = io.open(" .. vim.inspect(report) .. ", 'w')",
    "f:write(vim.json.encode(out))",
    "f:close()",
    "vim.cmd('qall!')",
  }, dir .. "/init.lua")
  local job = { output = {} }
  vim.fn.jobstart({ vim.v.progpath, "--headless", "-u", dir .. "/init.lua", "-i", "NONE" }, {
    env = { PATH = dir .. "/bin:" .. vim.env.PATH, XDG_DATA_HOME = dir .. "/data" },
    on_stdout = function(_, data)
      vim.list_extend(job.output, data)
    end,
    on_stderr = function(_, data)
      vim.list_extend(job.output, data)
    end,
    on_exit = function(_, code)
      job.code = code
    end,
  })
  wait_for("Neovim with lazy.nvim", function()
    return job.code ~= nil
  end)
  eq(job.code, 0, "Neovim with lazy.nvim: " .. table.concat(job.output, "\n"))
  local got = vim.json.decode(table.concat(vim.fn.readfile(report), "\n"))
  eq(got, { help = "askd.txt", setup = true, demo = true }, ":help askd, setup and :AskdDemo")
  local ran = vim.fn.readfile(dir .. "/cargo.txt")
  eq(ran, { vim.fn.resolve(os.getenv("ASKD_NVIM_PLUGIN")) .. " build --release" }, ":Lazy build")
end)

---------------------------------------------------------------------------------------------
-- The help file

case("doc/askd.txt: tags generate, every link resolves, no tag is defined twice", function()
  local source = os.getenv("ASKD_NVIM_PLUGIN") .. "/doc/askd.txt"
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local lines = vim.fn.readfile(source)
  vim.fn.writefile(lines, dir .. "/askd.txt")
  local ok, err = pcall(vim.cmd, "helptags " .. vim.fn.fnameescape(dir))
  truthy(ok, ":helptags failed: " .. tostring(err))
  -- The repository holds the tags (lazy.nvim makes none for a `dir` plugin): as generated.
  eq(
    vim.fn.readfile(os.getenv("ASKD_NVIM_PLUGIN") .. "/doc/tags"),
    vim.fn.readfile(dir .. "/tags"),
    "doc/tags is what :helptags makes of doc/askd.txt (run :helptags editors/nvim/doc)"
  )
  local ours = {}
  for _, line in ipairs(vim.fn.readfile(dir .. "/tags")) do
    ours[line:match("^([^\t]+)")] = true
  end
  local defined, twice = {}, {}
  local links = {}
  for _, line in ipairs(lines) do
    -- Example blocks (between `>` and `<`) hold code, not tags or links.
    for tag in line:gmatch("%*([^%s%*|]+)%*") do
      if defined[tag] then
        table.insert(twice, tag)
      end
      defined[tag] = true
    end
    for link in line:gmatch("|([^%s|]+)|") do
      table.insert(links, link)
    end
  end
  eq(twice, {}, "tags defined twice")
  truthy(ours["askd"] and ours["askd.txt"], "the askd and askd.txt tags")
  local runtime = {}
  for _, line in ipairs(vim.fn.readfile(vim.env.VIMRUNTIME .. "/doc/tags")) do
    runtime[line:match("^([^\t]+)")] = true
  end
  local unresolved = {}
  for _, link in ipairs(links) do
    if not ours[link] and not runtime[link] then
      table.insert(unresolved, link)
    end
  end
  eq(unresolved, {}, "links that resolve to no tag")
  truthy(#links >= 10, "the help file links its parts: " .. #links .. " links")
end)

case("the plugin calls none of the option and highlight functions Neovim deprecated", function()
  local deprecated = {
    "nvim_buf_set_option",
    "nvim_buf_get_option",
    "nvim_win_set_option",
    "nvim_win_get_option",
    "nvim_buf_add_highlight",
  }
  local found = {}
  local dir = os.getenv("ASKD_NVIM_PLUGIN")
  local files = vim.fn.glob(dir .. "/lua/askd/*.lua", false, true)
  table.insert(files, dir .. "/plugin/askd.lua")
  truthy(#files >= 9, "the plugin's files: " .. #files)
  for _, file in ipairs(files) do
    for n, line in ipairs(vim.fn.readfile(file)) do
      for _, name in ipairs(deprecated) do
        if line:find(name, 1, true) then
          table.insert(found, vim.fn.fnamemodify(file, ":t") .. ":" .. n .. " " .. name)
        end
      end
    end
  end
  eq(found, {}, "deprecated calls")
end)

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
  eq(notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
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
  eq(notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
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
  eq(notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
end)

case("a payload that is not JSON is reported", function()
  local run = start({ questions = { print } })
  wait_done(run)
  truthy(run.err:find("^askd: cannot encode the request as JSON"), "error: " .. tostring(run.err))
  eq(#notes, 1, "notifications")
end)

case("a missing binary is reported", function()
  askd.setup({ cmd = "/nonexistent/askd" })
  local run = start(payload(SIZE))
  wait_done(run)
  local message =
    "askd: /nonexistent/askd was not found or is not executable"
    .. " (set require('askd').setup{ cmd = ... })"
  eq(run.err, message, "error")
  eq(notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
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
    eq(notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
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
  eq(notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
  eq(run.calls, 1, "on_done calls")
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

---------------------------------------------------------------------------------------------
-- Timeouts, why a flow ends unanswered, the vim preset, long lists (behaviour §10)

local CLOSED_BY_CLIENT = "closed"

case("cancel reasons: user, dismissed, aborted, closed", function()
  local function reason_of(run)
    wait_done(run)
    return run.result.details.cancelReason
  end
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("<Esc>")
  eq(reason_of(run), "user", "Esc")
  run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("<C-c>")
  eq(reason_of(run), "dismissed", "Ctrl+C")
  run = start(payload(SIZE))
  wait_screen("Pick a size")
  run.handle.abort()
  eq(reason_of(run), "aborted", "handle.abort()")
  run = start(payload(SIZE))
  wait_screen("Pick a size")
  run.handle.close()
  eq(reason_of(run), CLOSED_BY_CLIENT, "handle.close()")
  run = start(payload(SIZE))
  wait_screen("Pick a size")
  vim.api.nvim_win_close(floats()[1], true)
  eq(reason_of(run), CLOSED_BY_CLIENT, "the float closed")
  run = start(payload(SIZE))
  wait_screen("Pick a size")
  vim.cmd("bwipeout! " .. vim.api.nvim_win_get_buf(floats()[1]))
  eq(reason_of(run), CLOSED_BY_CLIENT, "the buffer wiped")
  eq(run.calls, 1, "on_done calls")
end)

case('keymap_preset = "vim": j/k move, q cancels', function()
  local run = start(payload(SIZE), { keymap_preset = "vim" })
  wait_screen("Pick a size")
  feed("jj")
  wait_screen("❯ 3. ")
  feed("k")
  wait_screen("❯ 2. ")
  feed("G")
  wait_screen("❯ 4. ○ Type your own")
  -- The first key of gg waits for the next, and the screen says so.
  feed("g")
  wait_screen("\n pending: g\n")
  feed("g")
  wait_screen("❯ 1. ○ Small")
  wait_no_screen("pending: g")
  feed("q")
  wait_done(run)
  eq(run.result.details.cancelled, true, "q cancels")
end)

case("PageDown, End, PageUp and Home move the active row", function()
  local run = start({ questions = { { id = "a", prompt = "Pick", options = many_options(15) } } })
  wait_screen("❯ 1. ")
  -- Rows past the ninth carry no digit: digits select only the first nine.
  feed("<PageDown>")
  wait_screen("❯    ○ Option 11\n")
  feed("<End>")
  wait_screen("❯    ○ Type your own\n")
  feed("<Home>")
  wait_screen("❯ 1. ○ Option 1\n")
  feed("<End><PageUp>")
  wait_screen("❯ 6. ○ Option 6\n")
  feed("<Esc>")
  wait_done(run)
end)

case("timeout_ms: the engine's deadline as a countdown, then the flow times out", function()
  -- The deadline of the views the float draws, as the engine sent it.
  local screen_of = ui.screen
  local deadline
  ui.screen = function(view, frame)
    deadline = view.deadline
    return screen_of(view, frame)
  end
  local ok, err = pcall(function()
    local run = start(payload(SIZE), { timeout_ms = 2500, width = 40 })
    wait_screen("Pick a size")
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
      vim.tbl_contains({ "0:03", "0:02", "0:01" }, top_line():match("%d:%d%d")),
      "a countdown of at most the 2.5 s asked: " .. top_line()
    )
    wait_done(run)
    eq(run.result.content, {
      { type = "text", text = "The ask flow timed out before the user answered" },
    }, "the result's text")
    eq(run.result.details.cancelled, true, "cancelled")
    eq(run.result.details.cancelReason, "timeout", "reason")
  end)
  ui.screen = screen_of
  assert(ok, err)
end)

---------------------------------------------------------------------------------------------
-- Engine features not in every askd. Each case needs one feature (see FEATURES) and is
-- skipped, with the reason printed, against an engine that lacks it.

engine_case("by default the first Esc on a dirty flow only warns", "confirm_dismiss", function()
  local run = start(payload(SIZE, LANGS))
  wait_screen("Pick a size")
  feed("1")
  wait_screen("Which languages?")
  feed("<Esc>")
  wait_screen("Unsaved ask answers or drafts.")
  eq(run.done, false, "the flow is still open")
  feed("<Esc>")
  wait_done(run)
  eq(run.result.details.cancelled, true, "cancelled by the second Esc")
  eq(run.result.details.answers.size.values, { "small" }, "answers kept")
end)

engine_case("confirm_dismiss = false: one Esc ends a dirty flow", "confirm_dismiss", function()
  askd.setup({ cmd = ASKD, confirm_dismiss = false })
  local run = start(payload(SIZE, LANGS))
  wait_screen("Pick a size")
  feed("1")
  wait_screen("Which languages?")
  feed("<Esc>")
  wait_done(run)
  eq(run.result.details.cancelled, true, "cancelled")
end)

engine_case("? opens the help overlay and closes it again (pi-0.9 profile)", "help", function()
  local run = start(payload(SIZE), { width = 40, behaviour = { profile = "pi-0.9" } })
  local rule = string.rep("─", 40)
  local question = table.concat({
    rule,
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
    " t question type · 1-4 quick select ·",
    " esc cancel · ctrl+c dismiss · ? help",
    rule,
  }, "\n")
  wait_for(function()
    return "the question; the float shows " .. fmt(screen())
  end, function()
    return screen() == question
  end)
  feed("?")
  local overlay_top = table.concat({
    rule,
    " Setup",
    " [□ Size]  ✓ Submit ",
    "",
    " Key bindings",
    "",
    " Everywhere",
    "   ctrl+c              dismiss",
    "   ?                   help",
    "",
    " Question tab",
  }, "\n")
  wait_for(function()
    return "the help overlay; the float shows " .. fmt(screen())
  end, function()
    local shown = screen()
    return shown ~= nil and shown:sub(1, #overlay_top) == overlay_top
  end)
  feed("?")
  wait_for(function()
    return "the question again; the float shows " .. fmt(screen())
  end, function()
    return screen() == question
  end)
  feed("<Esc>")
  wait_done(run)
  eq(run.result.details.cancelled, true, "Esc cancels after the overlay closed")
end)

engine_case("claude, codex, opencode and mcp results in their own shapes", "dialects", function()
  local claude = {
    questions = {
      {
        question = "Which database?",
        header = "DB",
        multiSelect = false,
        options = {
          { label = "Postgres", description = "A server" },
          { label = "SQLite", description = "A file" },
        },
      },
    },
  }
  local run = start(claude, { dialect = "claude" })
  wait_screen("Which database?")
  feed("2")
  wait_screen("Cancel")
  feed("1")
  wait_done(run)
  eq(run.result, {
    behavior = "allow",
    updatedInput = { questions = claude.questions, answers = { ["Which database?"] = "SQLite" } },
  }, "claude submit")
  local cancels = {
    {
      "codex",
      {
        questions = {
          {
            id = "db",
            header = "DB",
            question = "Which database?",
            options = {
              { label = "Postgres", description = "A server" },
              { label = "SQLite", description = "A file" },
            },
          },
        },
      },
      { answers = {} },
    },
    {
      "opencode",
      {
        questions = {
          {
            header = "DB",
            question = "Which database?",
            options = {
              { label = "Postgres", description = "A server" },
              { label = "SQLite", description = "A file" },
            },
          },
        },
      },
      { rejected = true },
    },
    {
      "mcp",
      {
        message = "Pick a database",
        requestedSchema = {
          type = "object",
          properties = { db = { type = "string", enum = { "postgres", "sqlite" } } },
        },
      },
      { action = "cancel" },
    },
  }
  -- Each flow answered and submitted: a line only that dialect draws, then its own result.
  local submits = {
    {
      "codex",
      "   3. ○ None of the above",
      "[✓ Submit]",
      { answers = { db = { answers = { "SQLite" } } } },
    },
    { "opencode", "   2. ○ SQLite", "[✓ Submit]", { answers = { { "SQLite" } } } },
    {
      "mcp",
      " Requested by test",
      "[✓ Accept]",
      { action = "accept", content = { db = "sqlite" } },
    },
  }
  for i, c in ipairs(submits) do
    local extra = c[1] == "mcp" and { mcp = { requester = { name = "test" } } } or nil
    local submitted = start(cancels[i][2], { dialect = c[1], params = extra })
    wait_screen(c[2])
    feed("2")
    wait_screen(c[3])
    feed("1")
    wait_done(submitted)
    eq(submitted.result, c[4], c[1] .. " submit")
  end
  for _, c in ipairs(cancels) do
    local extra = c[1] == "mcp" and { mcp = { requester = { name = "test" } } } or nil
    local cancelled = start(c[2], { dialect = c[1], params = extra })
    wait_for(c[1] .. " flow", function()
      return #floats() == 1 and screen() ~= " …"
    end)
    feed("<Esc>")
    wait_done(cancelled)
    eq(cancelled.result, c[3], c[1] .. " cancel")
  end
end)

---------------------------------------------------------------------------------------------
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
  local config = vim.api.nvim_win_get_config(floats()[1])
  local row = (type(config.row) == "table" and config.row[false] or config.row) + 5
  local col = (type(config.col) == "table" and config.col[false] or config.col) + 4
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
  eq(notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
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
    return #notes > 0
  end)
  sleep(50)
  eq(notes, {
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
  notes = {}
  paste_in_chunks(string.rep("abcdefghij", 6000), 8192)
  wait_screen("abcdefghij")
  feed("<CR>")
  wait_screen("❯ 1. Submit")
  feed("1")
  wait_done(run)
  eq(#run.result.details.answers.size.customText, 60000, "the answer holds the whole paste")
  eq(notes, {}, "no warning")
end)

case("a paste larger than the plugin sends at once is refused whole, with one warning", function()
  local requests = log_requests()
  local run = start(payload(SIZE))
  wait_screen("Pick a size")
  feed("4")
  wait_screen("Type answer...")
  paste_in_chunks(string.rep("x", askd.PASTE_MAX_BYTES + 10), 65536)
  eq(notes, {
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
    return #notes > 0
  end)
  eq(notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
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
-- Shared sessions: another client of the same engine (a browser page of `askd serve
-- --listen`, played by a WebSocket client in node).

--- Runs the engine as `askd serve --listen 127.0.0.1:0`; returns a function that answers its
--- WebSocket endpoint (with the token) once it is listening.
local function listening_engine()
  local errors = vim.fn.tempname()
  askd.setup({
    cmd = { "sh", "-c", 'exec "$0" serve --listen 127.0.0.1:0 2>"$1"', ASKD, errors },
  })
  return function()
    local url
    wait_for("the engine's WebSocket endpoint", function()
      for _, line in ipairs(vim.fn.filereadable(errors) == 1 and vim.fn.readfile(errors) or {}) do
        url = url or line:match("WebSocket endpoint (ws://%S+)")
      end
      return url ~= nil
    end)
    return url
  end
end

--- Presses keys on a session from a WebSocket client; returns a table that gets `code` and
--- `output` when it exits.
local function keys_from_browser(url, session, list)
  local job = { output = {} }
  local script = os.getenv("ASKD_NVIM_PLUGIN") .. "/tests/lib/ws-keys.mjs"
  local argv = { "node", "--experimental-websocket", script, url, session }
  vim.list_extend(argv, list)
  vim.fn.jobstart(argv, {
    on_stdout = function(_, data)
      vim.list_extend(job.output, data)
    end,
    on_stderr = function(_, data)
      vim.list_extend(job.output, data)
    end,
    on_exit = function(_, code)
      job.code = code
    end,
  })
  wait_for("the browser's keys", function()
    return job.code ~= nil
  end)
  eq(job.code, 0, "the browser client: " .. table.concat(job.output, "\n"))
  return job
end

case("keys pressed in a browser on the same session redraw the float at once", function()
  if vim.fn.executable("node") == 0 then
    error("node is needed for the browser's part")
  end
  local endpoint = listening_engine()
  local run = start(payload(SIZE, LANGS), { session = "shared-flow" })
  wait_screen("❯ 1. ○ Small")
  local url = endpoint()
  keys_from_browser(url, "shared-flow", { "down", "down" })
  -- No Neovim key: the float shows the browser's keys.
  wait_screen("❯ 3. ○ Large")
  feed("<Up>")
  wait_screen("❯ 2. ○ Medium")
  -- The browser answers and submits: the flow ends here with the browser's answers.
  keys_from_browser(url, "shared-flow", { "enter", "1", "tab", "1" })
  wait_done(run)
  eq(run.result.content[1].text, "Size: Medium\nLangs: Lua", "the result")
end)

---------------------------------------------------------------------------------------------
-- Attach: flows that agents ask in the hub, shown one at a time without taking the focus.

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

--- Attaches to a hub played by `askd serve --listen` (its standard input is the plugin's
--- connection); returns the WebSocket endpoint agents ask at.
local function attach_to_test_hub()
  local errors = vim.fn.tempname()
  askd.setup({
    cmd = ASKD,
    attach_cmd = { "sh", "-c", 'exec "$0" serve --listen 127.0.0.1:0 2>"$1"', ASKD, errors },
  })
  local attached
  eq(askd.attach({
    on_attached = function(err)
      attached = err or true
    end,
  }), true, "attach()")
  wait_for("the hub's answer", function()
    return attached ~= nil
  end)
  eq(attached, true, "attached")
  local url
  wait_for("the hub's WebSocket endpoint", function()
    for _, line in ipairs(vim.fn.filereadable(errors) == 1 and vim.fn.readfile(errors) or {}) do
      url = url or line:match("WebSocket endpoint (ws://%S+)")
    end
    return url ~= nil
  end)
  return url
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

case("attach: agents' flows pop up one at a time, never taking the focus by surprise", function()
  if vim.fn.executable("node") == 0 then
    error("node is needed for the agents' part")
  end
  local url = attach_to_test_hub()
  -- A person types in a buffer.
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_set_current_buf(buf)
  local editing = vim.api.nvim_get_current_win()
  local agent = agent_requests(url, {
    ask_request(1, "deploy", "Deploy", "Deploy to production now?"),
    ask_request(2, "tests", "Tests", "Run the slow tests?"),
  })
  wait_screen("Deploy to production now?")
  -- A notice first; the float shows beside the buffer, which keeps the focus and the keys.
  eq(notes[1], {
    message = 'askd: "Deploy" waits: :Askd to answer',
    level = vim.log.levels.INFO,
  }, "the notice")
  eq(vim.api.nvim_get_current_win(), editing, "the focus stays in the buffer")
  type_keys("iyes typed here<Esc>")
  wait_for("the typed text", function()
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false)[1] == "yes typed here"
  end)
  wait_screen("+1 waiting")
  eq(agent.responses[1], nil, "the first flow is not answered by the typing")
  -- :Askd enters the question; its answer goes back to the agent.
  vim.cmd("Askd")
  eq(vim.api.nvim_get_current_win(), floats()[1], ":Askd enters the float")
  feed("2")
  wait_screen("Elaborate")
  feed("1")
  wait_for("the agent's first answer", function()
    return agent.responses[1] ~= nil
  end)
  eq(agent.responses[1].result.content[1].text, "Q1: No", "the first answer")
  -- The next flow comes to the front, with the focus (the person was answering).
  wait_screen("Run the slow tests?")
  wait_no_screen("waiting")
  eq(vim.api.nvim_get_current_win(), floats()[1], "the next flow has the focus")
  feed("1")
  wait_screen("Elaborate")
  feed("1")
  wait_for("the agent to end", function()
    return agent.code ~= nil
  end)
  eq(agent.code, 0, "the agent: " .. table.concat(agent.output, "\n"))
  eq(agent.responses[2].result.content[1].text, "Q1: Yes", "the second answer")
  eq(#floats(), 0, "no float left")
  eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "yes typed here" }, "the buffer")
  askd.detach()
  vim.api.nvim_buf_delete(buf, { force = true })
end)

case("attach: a flow answered or withdrawn elsewhere leaves the float", function()
  if vim.fn.executable("node") == 0 then
    error("node is needed for the agents' part")
  end
  local url = attach_to_test_hub()
  local agent = agent_requests(url, {
    ask_request(1, "a1", "First", "First question?"),
    ask_request(2, "a2", "Second", "Second question?"),
  })
  wait_screen("First question?")
  wait_for(function()
    return "+1 waiting; it shows "
      .. fmt(screen())
      .. "; waiting "
      .. askd.waiting()
      .. "; agent "
      .. vim.inspect(agent)
      .. "; focus in the float "
      .. tostring(vim.api.nvim_get_current_win() == floats()[1])
  end, function()
    return (screen() or ""):find("+1 waiting", 1, true) ~= nil
  end)
  -- The waiting flow is answered in a browser: the count goes.
  keys_from_browser(url, "a2", { "1", "1" })
  wait_no_screen("waiting")
  wait_for("the second answer", function()
    return agent.responses[2] ~= nil
  end)
  -- The flow in front is answered in a browser: the float closes.
  keys_from_browser(url, "a1", { "2", "1" })
  wait_for("the float to close", function()
    return #floats() == 0
  end)
  wait_for("the agent to end", function()
    return agent.code ~= nil
  end)
  eq(agent.responses[1].result.content[1].text, "Q1: No", "the first answer")
  eq(askd.waiting(), 0, "nothing waits")
  -- A float the person closes leaves this editor, and stays off it when another flow
  -- arrives; `:Askd` lists the hub's flows again.
  local later = agent_requests(url, { ask_request(3, "a3", "Third", "Third question?") })
  wait_screen("Third question?")
  vim.api.nvim_win_close(floats()[1], true)
  wait_for("the float to close", function()
    return #floats() == 0
  end)
  local other = agent_requests(url, { ask_request(4, "a4", "Fourth", "Fourth question?") })
  wait_screen("Fourth question?")
  sleep(300)
  eq(askd.waiting(), 0, "the closed flow does not come back with the next")
  vim.api.nvim_win_close(floats()[1], true)
  wait_for("the float to close", function()
    return #floats() == 0
  end)
  vim.cmd("Askd")
  wait_screen("Third question?")
  wait_screen("+1 waiting")
  eq({ later.code, other.code }, { nil, nil }, "both agents still wait")
  -- Detached, a new flow shows nowhere here.
  eq(askd.detach(), true, "detach()")
  eq(askd.detach(), false, "detach() again")
end)

case("attach: a hub connection that cannot start is reported, and attaches nothing", function()
  askd.setup({ cmd = ASKD, attach_cmd = { "/nonexistent/askd-relay" } })
  local ok, err = askd.attach()
  local message = "askd: /nonexistent/askd-relay was not found or is not executable"
    .. " (set require('askd').setup{ attach_cmd = ... })"
  eq({ ok, err }, { false, message }, "attach()")
  eq(notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
  eq(askd.detach(), false, "nothing to detach")
  -- :Askd with an unknown argument says what it takes.
  notes = {}
  vim.cmd("Askd nonsense")
  eq(notes, {
    {
      message = 'askd: unknown :Askd argument "nonsense" (none, or detach)',
      level = vim.log.levels.ERROR,
    },
  }, ":Askd nonsense")
end)

case("attach: when the hub goes away its flows leave the float, with a warning", function()
  if vim.fn.executable("node") == 0 then
    error("node is needed for the agents' part")
  end
  local url = attach_to_test_hub()
  agent_requests(url, {
    ask_request(1, "gone-1", "First", "First question?"),
    ask_request(2, "gone-2", "Second", "Second question?"),
  })
  wait_screen("+1 waiting")
  -- The hub stops (here: its process is killed).
  local pid = vim.fn.jobpid(askd._internal.hub_job())
  vim.loop.kill(pid, 9)
  wait_for("the float to close", function()
    return #floats() == 0
  end)
  eq(askd.waiting(), 0, "nothing waits")
  eq(askd._internal.count(), 0, "no flow left")
  local warned = vim.tbl_filter(function(n)
    return n.message:find("^askd: detached from the hub") ~= nil
  end, notes)
  eq(#warned, 1, "one warning: " .. vim.inspect(notes))
  eq(askd.detach(), false, "already detached")
end)

---------------------------------------------------------------------------------------------
-- Attach to the agents' hub: the default connection, `askd hub --pipe`.

--- A runtime directory (where the hub's discovery file goes) and a state directory of the
--- case's own, in Neovim's environment (the jobs it starts inherit it) until the case ends;
--- then the plugin detaches and the hub of that runtime directory is stopped. Returns the
--- case's folder.
local function own_hub_dirs()
  local dir = vim.fn.tempname()
  local runtime, state = dir .. "/runtime", dir .. "/state"
  vim.fn.mkdir(runtime, "p")
  vim.fn.mkdir(state, "p")
  vim.loop.fs_chmod(runtime, tonumber("700", 8))
  local saved = {
    runtime = vim.env.XDG_RUNTIME_DIR,
    state = vim.env.XDG_STATE_HOME,
    browser = vim.env.ASKD_NO_BROWSER,
  }
  vim.env.XDG_RUNTIME_DIR = runtime
  vim.env.XDG_STATE_HOME = state
  vim.env.ASKD_NO_BROWSER = "1"
  on_cleanup(function()
    askd.detach()
    vim.fn.system({ ASKD, "hub", "--stop" })
    vim.env.XDG_RUNTIME_DIR = saved.runtime
    vim.env.XDG_STATE_HOME = saved.state
    vim.env.ASKD_NO_BROWSER = saved.browser
  end)
  return dir
end

--- Claude Code's `AskUserQuestion` call as its `PreToolUse` hook input.
local function claude_hook_input(tool_use_id, cwd)
  return {
    session_id = "7b0c1d2e-0000-4000-8000-000000000001",
    transcript_path = cwd .. "/transcript.jsonl",
    cwd = cwd,
    permission_mode = "default",
    hook_event_name = "PreToolUse",
    tool_name = "AskUserQuestion",
    tool_input = {
      questions = {
        {
          question = "Which database should we use?",
          header = "Database",
          multiSelect = false,
          options = {
            { label = "Postgres", description = "Full SQL, runs as a server" },
            { label = "SQLite", description = "A single file, no server" },
          },
        },
      },
    },
    tool_use_id = tool_use_id,
  }
end

--- Runs `askd hook claude` as Claude Code does: the hook input on its standard input. Returns
--- a table that gets `stdout` (lines), `stderr` and `code` when it exits. Stopped, if it still
--- runs, when the case ends.
local function claude_hook(input)
  local job = { stdout = {}, stderr = {} }
  local id = vim.fn.jobstart({ ASKD, "hook", "claude" }, {
    cwd = input.cwd,
    on_stdout = function(_, data)
      vim.list_extend(job.stdout, data)
    end,
    on_stderr = function(_, data)
      vim.list_extend(job.stderr, data)
    end,
    on_exit = function(_, code)
      job.code = code
    end,
  })
  truthy(id > 0, "askd hook claude started")
  -- A hook still waiting when the case ends stops first: it would start a hub again.
  on_cleanup(function()
    vim.fn.jobstop(id)
  end)
  vim.fn.chansend(id, vim.fn.json_encode(input))
  vim.fn.chanclose(id, "stdin")
  return job
end

--- The hook output that answers the call of `claude_hook_input` with `answer`.
local function claude_allowed(answer)
  local call = claude_hook_input("", "")
  return {
    hookSpecificOutput = {
      hookEventName = "PreToolUse",
      permissionDecision = "allow",
      updatedInput = {
        questions = call.tool_input.questions,
        answers = { ["Which database should we use?"] = answer },
      },
    },
  }
end

--- Whether the hub of the runtime directory runs with `n` clients attached.
local function hub_attached(n)
  local status = vim.fn.system({ ASKD, "hub", "--status" })
  return vim.v.shell_error == 0 and status:find("\nattached: " .. n .. "\n", 1, true) ~= nil
end

local function hook_answer(job)
  wait_for("the hook to end", function()
    return job.code ~= nil
  end)
  eq(job.code, 0, "the hook: " .. table.concat(job.stderr, "\n"))
  local printed = vim.tbl_filter(function(line)
    return line ~= ""
  end, job.stdout)
  eq(#printed, 1, "one line printed: " .. vim.inspect(job.stdout))
  return vim.json.decode(printed[1])
end

case("attach: by default the agents' hub: a Claude Code hook's question answered here", function()
  local dir = own_hub_dirs()
  local folder = dir .. "/app"
  vim.fn.mkdir(folder, "p")
  -- No attach_cmd: `askd hub --pipe`, which starts the hub (none runs in this runtime dir).
  askd.setup({ cmd = ASKD })
  local attached
  eq(askd.attach({
    on_attached = function(err)
      attached = err or true
    end,
  }), true, "attach()")
  wait_for("the hub's answer", function()
    return attached ~= nil
  end)
  eq(attached, true, "attached")
  truthy(hub_attached(1), "a hub runs with this editor attached")
  -- A person types in a buffer while Claude Code asks through its hook.
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_set_current_buf(buf)
  local editing = vim.api.nvim_get_current_win()
  local hook = claude_hook(claude_hook_input("toolu_01ABC", folder))
  wait_screen("Which database should we use?")
  eq(notes[1], {
    message = "askd: a question from Claude Code in " .. folder .. " waits: :Askd to answer",
    level = vim.log.levels.INFO,
  }, "the notice comes first")
  eq(vim.api.nvim_get_current_win(), editing, "the focus stays in the buffer")
  eq(hook.code, nil, "the hook waits")
  -- :Askd enters the question; SQLite, then submit on the review.
  vim.cmd("Askd")
  eq(vim.api.nvim_get_current_win(), floats()[1], ":Askd enters the float")
  feed("2")
  wait_screen("Review your answers")
  feed("1")
  eq(hook_answer(hook), claude_allowed("SQLite"), "Claude Code gets exactly the answer")
  wait_for("the float to close", function()
    return #floats() == 0
  end)
  -- The hub goes away: the plugin says so and how to attach again.
  notes = {}
  vim.fn.system({ ASKD, "hub", "--stop" })
  eq(vim.v.shell_error, 0, "askd hub --stop")
  wait_for("the detach", function()
    return not askd._internal.hub_job()
  end)
  eq(#notes, 1, "one notice: " .. vim.inspect(notes))
  eq(notes[1].level, vim.log.levels.WARN, "a warning")
  truthy(
    notes[1].message:find(
      "^askd: detached from the hub: the hub at ws://127%.0%.0%.1:%d+/rpc went away %(.+%);"
        .. " :Askd attaches again$"
    ),
    "the warning: " .. notes[1].message
  )
  -- :Askd attaches again, to a hub it starts; the next question shows here too.
  vim.cmd("Askd")
  wait_for("this editor attached to a new hub", function()
    sleep(50)
    return hub_attached(1)
  end)
  notes = {}
  local again = claude_hook(claude_hook_input("toolu_02DEF", folder))
  wait_screen("Which database should we use?")
  eq(#notes, 1, "a notice: " .. vim.inspect(notes))
  vim.cmd("Askd")
  feed("1")
  wait_screen("Review your answers")
  feed("1")
  eq(hook_answer(again), claude_allowed("Postgres"), "the answer through the new hub")
  askd.detach()
  vim.fn.system({ ASKD, "hub", "--stop" })
  eq(vim.v.shell_error, 0, "the hub stops at the end")
  vim.api.nvim_buf_delete(buf, { force = true })
end)

---------------------------------------------------------------------------------------------
-- In a real terminal: a Neovim of the same version under tmux.

--- Starts `nvim -u init.lua` in tmux (a server of its own, `columns` × `rows`), its init
--- loading the plugin and defining `_G.askd_test()` that runs `payload` with `opts` and
--- writes the result to a file. Returns a table: `send(keys...)`, `pane()`, `wait(text)`,
--- `resize(columns, rows)`, `result()`, `stop()`.
local tmux_count = 0

local function tmux_neovim(payload_, opts, columns, rows, setup)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local result_file = dir .. "/result.json"
  setup = vim.tbl_extend("force", { cmd = ASKD }, setup or {})
  vim.fn.writefile({
    "vim.opt.runtimepath:append(" .. vim.inspect(os.getenv("ASKD_NVIM_PLUGIN")) .. ")",
    "require('askd').setup(" .. vim.inspect(setup):gsub("\n", " ") .. ")",
    "function _G.askd_test()",
    "  require('askd').ask(" .. vim.inspect(payload_):gsub("\n", " ") .. ", "
      .. vim.inspect(opts or {}):gsub("\n", " ")
      .. ",",
    "    function(result) vim.fn.writefile({ vim.json.encode(result) }, "
      .. vim.inspect(result_file)
      .. ") end)",
    "end",
  }, dir .. "/init.lua")
  -- A tmux server of its own for each terminal, so that one shutting down never meets the
  -- next.
  tmux_count = tmux_count + 1
  local server = "askd-test-" .. vim.fn.getpid() .. "-" .. tmux_count
  local t = {}
  function t.tmux(args)
    local output = vim.fn.system(vim.list_extend({ "tmux", "-L", server }, args))
    return output, vim.v.shell_error
  end
  function t.pane()
    return (t.tmux({ "capture-pane", "-p", "-t", "t" }))
  end
  function t.wait(text)
    wait_for(function()
      return "the terminal to show " .. fmt(text) .. "; it shows:\n" .. t.pane()
    end, function()
      return t.pane():find(text, 1, true) ~= nil
    end)
  end
  function t.send(...)
    t.tmux(vim.list_extend({ "send-keys", "-t", "t" }, { ... }))
  end
  function t.resize(c, r)
    t.tmux({ "resize-window", "-t", "t", "-x", tostring(c), "-y", tostring(r) })
  end
  function t.result()
    wait_for("the flow's result", function()
      return vim.fn.filereadable(result_file) == 1
    end)
    return vim.json.decode(vim.fn.readfile(result_file)[1])
  end
  function t.stop()
    t.tmux({ "kill-server" })
  end
  --- Keeps a capture of the pane for a person to look at (ASKD_TEST_CAPTURES names the
  --- folder; nothing is kept without it).
  function t.keep(name)
    local folder = os.getenv("ASKD_TEST_CAPTURES")
    if folder and folder ~= "" then
      vim.fn.mkdir(folder, "p")
      local version = vim.version()
      local file = string.format("%s/%d.%d-%s.txt", folder, version.major, version.minor, name)
      vim.fn.writefile(vim.split(t.pane(), "\n"), file)
    end
  end
  t.dir = dir
  local command = table.concat({
    vim.fn.shellescape(vim.v.progpath),
    "-u",
    vim.fn.shellescape(dir .. "/init.lua"),
    "-i NONE",
  }, " ")
  local _, code = t.tmux({
    "new-session",
    "-d",
    "-s",
    "t",
    "-x",
    tostring(columns),
    "-y",
    tostring(rows),
    command,
  })
  eq(code, 0, "tmux new-session")
  return t
end

--- The pane's lines, trailing spaces and the empty lines at its end left out.
local function pane_lines(text)
  local lines = vim.split(text, "\n")
  for i, line in ipairs(lines) do
    lines[i] = line:gsub("%s+$", "")
  end
  while #lines > 0 and lines[#lines] == "" do
    table.remove(lines)
  end
  return lines
end

case("in a terminal that shrinks mid-flow the float keeps header, active row, hints", function()
  local t = tmux_neovim({
    title = "Tall",
    questions = { { id = "a", prompt = "Pick one", options = many_options(9) } },
  }, { width = 44, confirm_dismiss = false }, 80, 30)
  local ok, err = pcall(function()
    t.wait("~")
    t.send(":lua askd_test()", "Enter")
    t.wait("Pick one")
    t.send("Down", "Down", "Down", "Down", "Down", "Down", "Down")
    t.wait("❯ 8. ○ Option 8")
    t.keep("resize-before")
    t.resize(80, 14)
    -- The hints of the 14-row screen: three rows of them at 44 columns, the rule.
    t.wait("   7. ○ Option 7")
    t.keep("resize-after")
    local shrunk = pane_lines(t.pane())
    local expected = {
      "Tall",
      "[□ Q1]  ✓ Submit",
      "7. ○ Option 7",
      "❯ 8. ○ Option 8",
      "↑ up · ↓ down · tab/→ next tab ·",
      "esc cancel · ctrl+c dismiss",
    }
    local float = {}
    for _, line in ipairs(shrunk) do
      local inner = line:match("^~?%s*(.-)%s*$")
      for _, want in ipairs(expected) do
        if inner == want then
          table.insert(float, inner)
        end
      end
    end
    eq(float, expected, "the float at 14 rows:\n" .. table.concat(shrunk, "\n"))
    -- Vim's scroll keys change nothing.
    local before = t.pane()
    t.send("C-f", "C-b", "C-y", "C-e", "S-Down", "C-v", "IC")
    sleep(300)
    t.keep("resize-scroll-keys")
    eq(pane_lines(t.pane()), pane_lines(before), "the screen after the scroll keys")
    -- The terminal grows again: the whole screen.
    t.resize(80, 30)
    t.wait("Pick one")
    t.keep("resize-grown")
    t.send("C-c")
    eq(t.result().details.cancelReason, "dismissed", "the flow's end")
  end)
  t.stop()
  assert(ok, err)
end)

case("attach in a terminal: typing goes on in the buffer while a question arrives", function()
  if vim.fn.executable("node") == 0 then
    error("node is needed for the agents' part")
  end
  local errors = vim.fn.tempname()
  local t = tmux_neovim({ questions = {} }, {}, 90, 30, {
    attach_cmd = { "sh", "-c", 'exec "$0" serve --listen 127.0.0.1:0 2>"$1"', ASKD, errors },
  })
  local ok, err = pcall(function()
    t.wait("~")
    t.send(":Askd", "Enter")
    local url
    wait_for("the hub's WebSocket endpoint", function()
      for _, line in ipairs(vim.fn.filereadable(errors) == 1 and vim.fn.readfile(errors) or {}) do
        url = url or line:match("WebSocket endpoint (ws://%S+)")
      end
      return url ~= nil
    end)
    t.send("i", "h", "e", "l", "l", "o")
    t.wait("hello")
    local agent = agent_requests(url, {
      ask_request(1, "deploy", "Deploy", "Deploy to production now?"),
    })
    wait_for(function()
      return "the question; the agent: "
        .. vim.inspect(agent)
        .. "\nthe terminal shows:\n"
        .. t.pane()
    end, function()
      return t.pane():find("Deploy to production now?", 1, true) ~= nil
    end)
    t.wait(":Askd to answer")
    -- The person goes on typing: the keys stay in the buffer (still in Insert mode).
    t.send(" ", "2", " ", "w", "o", "r", "l", "d", "Escape")
    t.wait("hello 2 world")
    t.keep("attach-typing")
    eq(agent.responses[1], nil, "the question is not answered by the typing")
    t.send(":Askd", "Enter")
    t.send("2")
    t.wait("Elaborate")
    t.keep("attach-review")
    t.send("1")
    wait_for("the agent's answer", function()
      return agent.responses[1] ~= nil
    end)
    eq(agent.responses[1].result.content[1].text, "Q1: No", "the answer")
    wait_for(function()
      return "the float to close; the terminal shows:\n" .. t.pane()
    end, function()
      return t.pane():find("Deploy to production", 1, true) == nil
    end)
    t.keep("attach-done")
    truthy(t.pane():find("hello 2 world", 1, true), "the buffer:\n" .. t.pane())
  end)
  t.stop()
  assert(ok, err)
end)

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

if not ASKD or ASKD == "" then
  out("ASKD_BIN is not set")
  out("0 passed, 1 failed")
  vim.cmd("cquit 1")
else
  run_all()
end
