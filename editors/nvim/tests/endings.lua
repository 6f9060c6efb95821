-- Headless tests of the askd Neovim plugin: why flows end, engine features not in every askd.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ASKD = h.ASKD
local askd = h.askd
local ui = h.ui
local layout = h.layout
local case = h.case
local engine_case = h.engine_case
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
local many_options = h.many_options
local SIZE = h.SIZE
local LANGS = h.LANGS
local payload = h.payload

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
