-- Headless tests of the askd Neovim plugin against a real askd.
--
-- Run by tests/run.sh (ASKD_BIN names the askd binary). Every case runs in its own
-- coroutine: it feeds keys as typed input, yields to the main loop so that Neovim processes
-- them (mappings, the engine's answers, redraws), and asserts the float and the results.
-- The last line printed is `N passed, M failed`; the exit status is non-zero on any failure.

local ASKD = os.getenv("ASKD_BIN")
local CASE_TIMEOUT_MS = 10000
local WAIT_MS = 5000

local askd = require("askd")
local ui = require("askd.ui")
local render = require("askd.render")
local keys = require("askd.keys")
local layout = require("askd.layout")
local locate = require("askd.locate")

local function out(line)
  io.stdout:write(line .. "\n")
  io.stdout:flush()
end

-- Notifications are collected instead of shown.
local notes = {}
vim.notify = function(message, level)
  table.insert(notes, { message = message, level = level })
end

---------------------------------------------------------------------------------------------
-- Harness

local cases = {}
-- ASKD_TEST_FILTER (a Lua pattern) runs only the cases whose names match.
local FILTER = os.getenv("ASKD_TEST_FILTER")

local function case(name, fn)
  if not FILTER or FILTER == "" or name:find(FILTER) then
    table.insert(cases, { name = name, fn = fn })
  end
end

--- A case that needs a feature not every askd has (see FEATURES): skipped, with the reason
--- printed, when the engine lacks it.
local function engine_case(name, feature, fn)
  if not FILTER or FILTER == "" or name:find(FILTER) then
    table.insert(cases, { name = name, fn = fn, feature = feature })
  end
end

local resume_current

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
  askd.ask(payload, opts or {}, function(result, err)
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
  askd.setup({ cmd = ASKD })
  notes = {}
end

local bench

local function finish(passed, failed, skipped)
  if bench then
    bench()
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
  progress = {
    reason = "the engine's views carry no progress",
    probe = function()
      return view_of(probe_open({})[1]).progress ~= nil
    end,
  },
  deadline = {
    reason = "the engine takes no timeoutMs (its views carry no deadline)",
    probe = function()
      return type(view_of(probe_open({ timeoutMs = 60000 })[1]).deadline) == "number"
    end,
  },
  cancel_reason = {
    reason = "the engine's cancelled results carry no details.cancelReason",
    probe = function()
      local answers = probe_open({}, { { method = "cancel" } })
      local step = answers[2] and answers[2].result
      return step ~= nil and step.result.details.cancelReason ~= nil
    end,
  },
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
  vim_preset = {
    reason = 'the engine has no keymapPreset "vim"',
    probe = function()
      local answers = probe_open({ keymapPreset = "vim" }, { { method = "key", params = { key = "j" } } })
      return view_of(answers[2]).question ~= nil and view_of(answers[2]).question.activeOption == 1
    end,
  },
  paging = {
    reason = "PageDown does not move the active row in this engine",
    probe = function()
      local payload = { questions = { { id = "a", prompt = "A?", options = many_options(15) } } }
      local answers =
        probe_open({ payload = payload }, { { method = "key", params = { key = "pagedown" } } })
      local q = view_of(answers[2]).question
      return q ~= nil and q.activeOption > 0
    end,
  },
  help = {
    reason = "? opens no help overlay in this engine",
    probe = function()
      local answers = probe_open({ width = 60 }, {
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
    local co = coroutine.create(c.fn)
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
  local ignored = { "<C-o>", "<C-i>", "<C-^>", "<C-6>", "<C-]>", "<C-t>", "<F1>" }
  if vim.api.nvim_replace_termcodes("<C-i>", true, true, true) == "\t" then
    table.remove(ignored, 2)
  end
  -- <C-t> is taken by the keymap override here.
  table.remove(ignored, #ignored - 1)
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
    AskdBorder = "FloatBorder",
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

case("two flows at once share one engine", function()
  local requests = log_requests()
  local first = start(payload(SIZE))
  wait_screen("Pick a size")
  local first_win = floats()[1]
  local second = start(payload(LANGS))
  wait_for("a second float", function()
    return #floats() == 2
  end)
  feed("<Esc>")
  wait_for("the second flow to end", function()
    return second.done
  end)
  eq(second.result.details.cancelled, true, "second cancelled")
  eq(first.done, false, "the first flow is still open")
  vim.api.nvim_set_current_win(first_win)
  feed("3")
  wait_screen("Elaborate")
  feed("1")
  wait_done(first)
  eq(first.result.content[1].text, "Size: Large", "first result")
  -- One process saw both flows: its log holds every request, ids increasing.
  wait_for(function()
    return "the last close request; requests: " .. vim.inspect(methods(requests()))
  end, function()
    return #requests() == 9
  end)
  local log = requests()
  eq(
    methods(log),
    { "ask", "getView", "ask", "getView", "key", "close", "key", "key", "close" },
    "requests"
  )
  eq(log[3].params.session, log[5].params.session, "the second flow's ask and key")
  eq(log[5].params.session, log[6].params.session, "the second flow's key and close")
  eq(log[7].params.key, "3", "a key of the first flow")
  for i, r in ipairs(log) do
    eq(r.id, log[1].id + i - 1, "request ids increase")
  end
end)

case("VimResized refits the float and asks for the view at the new width", function()
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
  -- Neovim may also raise VimResized by itself for the new 'columns': one getView or more.
  wait_for(function()
    return "getView; requests: " .. vim.inspect(requests())
  end, function()
    return #requests() >= 3
  end)
  local log = requests()
  eq({ log[1].method, log[1].params.width }, { "ask", 78 }, "ask and its width")
  eq({ log[2].method, log[2].params.width }, { "getView", nil }, "the first view")
  for i = 3, #log do
    eq({ log[i].method, log[i].params.width }, { "getView", 48 }, "request after the resize")
  end
  wait_screen("Pick a size")
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
    "askd: /nonexistent/askd was not found or is not executable (set require('askd').setup{ cmd = ... })"
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
  vim.cmd("checkhealth askd")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  vim.cmd("bwipeout!")
  truthy(text:find("OK: found: " .. vim.fn.exepath(ASKD), 1, true), "found:\n" .. text)
  truthy(text:find("OK: answers initialize: askd ", 1, true), "initialize:\n" .. text)
  truthy(not text:find("ERROR", 1, true), "no error:\n" .. text)
  askd.setup({ cmd = "/nonexistent/askd" })
  vim.cmd("checkhealth askd")
  text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  vim.cmd("bwipeout!")
  truthy(text:find("ERROR: askd: /nonexistent/askd was not found", 1, true), "missing:\n" .. text)
end)

---------------------------------------------------------------------------------------------

if not ASKD or ASKD == "" then
  out("ASKD_BIN is not set")
  out("0 passed, 1 failed")
  vim.cmd("cquit 1")
else
  run_all()
end
