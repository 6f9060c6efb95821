-- Headless tests of the askd Neovim plugin: recovery of the flows a killed engine left
-- unfinished, as a person meets it. Loaded in order by tests/run.lua, which passes the harness
-- (tests/harness.lua). Each case's engines keep their flows in a state directory of the case's
-- own (the harness gives every case one).

local h = ...
local ASKD = h.ASKD
local askd = h.askd
local case = h.case
local on_cleanup = h.on_cleanup
local wait_for = h.wait_for
local eq = h.eq
local feed = h.feed
local floats = h.floats
local screen = h.screen
local wait_screen = h.wait_screen
local start = h.start
local wait_done = h.wait_done
local cursor_marks = h.cursor_marks
local SIZE = h.SIZE
local LANGS = h.LANGS
local payload = h.payload

local recovery = require("askd.recovery")

--- Runs the engine behind a shell that writes its process id; returns a function that kills
--- the engine as a crash would (SIGKILL).
local function killable_engine()
  local pidfile = vim.fn.tempname()
  askd.setup({ cmd = { "sh", "-c", 'echo "$$" > "$1"; exec "$0"', ASKD, pidfile } })
  return function()
    local pid = tonumber(vim.fn.readfile(pidfile)[1])
    vim.fn.delete(pidfile)
    vim.loop.kill(pid, 9)
  end
end

--- Opens `SIZE` under `session`, types `draft` into its own answer, and kills the engine.
--- Returns the screen before the draft was typed and the screen (and caret) at the kill.
local function killed_with_draft(session, draft)
  local kill = killable_engine()
  local run = start(payload(SIZE), { session = session })
  wait_screen("Pick a size")
  local fresh = screen()
  feed("4" .. draft)
  wait_screen(draft)
  -- The caret two characters back, so that where it was shows in the answer.
  for _ = 1, 2 do
    local before = cursor_marks()
    feed("<Left>")
    wait_for("the caret to move", function()
      return not vim.deep_equal(cursor_marks(), before)
    end)
  end
  local at_kill = { screen = screen(), caret = cursor_marks() }
  kill()
  wait_done(run)
  eq(run.err, "askd exited unexpectedly (code 137)", "the killed flow's error")
  h.notes = {}
  return fresh, at_kill
end

--- `vim.ui.select` answered by the script: the n-th call picks the n-th index (nil: none).
--- Returns the list of what each call showed: `{ prompt, items }` (items as formatted).
local function scripted_select(picks)
  local shown = {}
  local original = vim.ui.select
  on_cleanup(function()
    vim.ui.select = original
  end)
  local calls = 0
  vim.ui.select = function(items, opts, on_choice)
    calls = calls + 1
    local formatted = {}
    for i, item in ipairs(items) do
      formatted[i] = opts.format_item and opts.format_item(item) or item
    end
    table.insert(shown, { prompt = opts.prompt, items = formatted })
    local pick = picks[calls]
    vim.schedule(function()
      on_choice(pick and items[pick] or nil, pick)
    end)
  end
  return shown
end

--- The plugin's list of offers, waited for.
local function offers()
  local list
  askd.offers(function(found)
    list = found
  end)
  wait_for("the offers", function()
    return list ~= nil
  end)
  return list
end

local SETUP_OFFER = '"Setup", saved less than a minute ago, 0 of 1 answered, text typed'
local NOTICE = "askd: a flow was left unfinished when askd stopped: "
  .. SETUP_OFFER
  .. ". :Askd recover resumes or discards it"

case("recovery: how long ago and how far, in words", function()
  eq(recovery.age(0), "less than a minute ago", "0 ms")
  eq(recovery.age(59999), "less than a minute ago", "59.999 s")
  eq(recovery.age(60000), "1 minute ago", "1 min")
  eq(recovery.age(59 * 60000 + 59999), "59 minutes ago", "59 min")
  eq(recovery.age(3600000), "1 hour ago", "1 h")
  eq(recovery.age(23 * 3600000 + 3599999), "23 hours ago", "23 h")
  eq(recovery.age(2 * 86400000), "2 days ago", "2 days")
  eq(
    recovery.describe({
      session = "s",
      title = "Deploy",
      asker = { name = "Claude Code", folder = "/srv/app" },
      ageMs = 3 * 3600000,
      progress = { answered = 1, total = 3 },
      typed = false,
    }),
    '"Deploy" from Claude Code in /srv/app, saved 3 hours ago, 1 of 3 answered',
    "an offer from an agent, nothing typed"
  )
  eq(
    recovery.describe({ session = "s", ageMs = 120000, typed = true }),
    "a question, saved 2 minutes ago, text typed",
    "an offer without title or progress"
  )
end)

case("recovery: a killed engine's flow is told of, and resumes where it was", function()
  local _, at_kill = killed_with_draft("kept", "draft")
  -- The next flow starts the engine again: a notice, and the new flow keeps the focus.
  local other = start(payload(LANGS))
  wait_screen("Which languages?")
  wait_for("the notice", function()
    return #h.notes > 0
  end)
  eq(h.notes, { { message = NOTICE, level = vim.log.levels.INFO } }, "the notice")
  eq(vim.api.nvim_get_current_win(), floats()[1], "the new flow keeps the focus")
  feed("<Esc>")
  wait_done(other)
  -- :Askd recover lists it; Resume shows it exactly as it was, with the focus.
  local shown = scripted_select({ 1, 1 })
  vim.cmd("messages clear")
  vim.cmd("Askd recover")
  wait_screen("draft")
  eq(shown, {
    { prompt = "askd: unfinished flows", items = { SETUP_OFFER } },
    { prompt = "askd: " .. SETUP_OFFER, items = { "Resume", "Discard", "Leave" } },
  }, "what the person was asked")
  eq(screen(), at_kill.screen, "the screen as it was")
  eq(cursor_marks(), at_kill.caret, "the caret as it was")
  eq(vim.api.nvim_get_current_win(), floats()[1], "the float has the focus")
  -- Typed at the caret, saved, submitted: the answer holds the draft as it was edited.
  feed("X<CR>")
  wait_screen("Elaborate")
  feed("1")
  wait_for("the float to close", function()
    return #floats() == 0
  end)
  eq(vim.fn.execute("messages"), "\nSize: draXft", "the answer, echoed")
  eq(offers(), {}, "nothing is offered any more")
  eq(#vim.tbl_filter(function(n)
    return n.level == vim.log.levels.ERROR
  end, h.notes), 0, "no error: " .. vim.inspect(h.notes))
end)

case("recovery: discarded only on the person's confirmed word; left, it stays offered", function()
  killed_with_draft("left", "draft")
  -- The engine started again: told once, however often it is asked.
  local engine = askd._internal.ensure_client()
  local told = 0
  recovery.announce(engine, "engine", function()
    told = told + 1
  end)
  recovery.announce(engine, "engine", function()
    told = told + 1
  end)
  wait_for("both listings", function()
    return told == 2
  end)
  eq(h.notes, { { message = NOTICE, level = vim.log.levels.INFO } }, "one notice")
  h.notes = {}
  local offer = {
    session = "left",
    title = "Setup",
    status = "recovered",
    typed = true,
    progress = { answered = 0, total = 1 },
    source = "engine",
  }
  local function listed()
    local list = offers()
    local kept = {}
    for i, entry in ipairs(list) do
      kept[i] = {
        session = entry.session,
        title = entry.title,
        status = entry.status,
        typed = entry.typed,
        progress = entry.progress,
        source = entry.source,
      }
    end
    return kept
  end
  eq(listed(), { offer }, "the offer")
  -- Leave: nothing changes.
  local shown = scripted_select({ 1, 3 })
  vim.cmd("Askd recover")
  wait_for("the two questions", function()
    return #shown == 2
  end)
  eq(listed(), { offer }, "left, it stays offered")
  -- Discard, then Keep it: nothing changes.
  shown = scripted_select({ 1, 2, 2 })
  vim.cmd("Askd recover")
  wait_for("the three questions", function()
    return #shown == 3
  end)
  eq(shown[3], {
    prompt = "askd: discard " .. SETUP_OFFER .. "?",
    items = { "Discard it: what it holds is lost", "Keep it" },
  }, "the confirmation")
  eq(listed(), { offer }, "kept, it stays offered")
  -- Nothing chosen in the list: nothing changes.
  shown = scripted_select({})
  vim.cmd("Askd recover")
  wait_for("the list", function()
    return #shown == 1
  end)
  eq(listed(), { offer }, "nothing chosen, it stays offered")
  eq(h.notes, {}, "no notice so far")
  -- Discard, confirmed: gone, from the engine too.
  shown = scripted_select({ 1, 2, 1 })
  vim.cmd("Askd recover")
  wait_for("the discard's notice", function()
    return #h.notes > 0
  end)
  eq(h.notes, { { message = 'askd: discarded "Setup"', level = vim.log.levels.INFO } }, "notice")
  local sessions
  engine:request("sessions", vim.empty_dict(), function(_, list)
    sessions = list
  end)
  wait_for("the engine's sessions", function()
    return sessions ~= nil
  end)
  eq(sessions, {}, "the engine lists nothing")
  local discarded
  askd.discard("left", function(answer)
    discarded = answer
  end)
  wait_for("discard()", function()
    return discarded ~= nil
  end)
  eq(discarded, false, "discard() of what is gone")
  h.notes = {}
  vim.cmd("Askd recover")
  wait_for("the notice", function()
    return #h.notes > 0
  end)
  eq(h.notes, {
    { message = "askd: no unfinished flow to recover", level = vim.log.levels.INFO },
  }, "nothing to recover")
  eq(#floats(), 0, "no float")
end)

case("recovery: a new flow of the same id opens fresh; the offer stays beside it", function()
  local fresh = killed_with_draft("same-id", "old")
  local new = start(payload(SIZE), { session = "same-id" })
  wait_screen("Pick a size")
  eq(screen(), fresh, "the new flow shows nothing of the old one")
  wait_for("the notice", function()
    return #h.notes > 0
  end)
  eq(h.notes, { { message = NOTICE, level = vim.log.levels.INFO } }, "the notice")
  local list = offers()
  eq(#list, 1, "one offer: " .. vim.inspect(list))
  eq({ list[1].session, list[1].typed }, { "same-id", true }, "the old flow, still offered")
  -- The Lua API resumes it while the new flow is open: under another id, queued behind it.
  local resumed = {}
  askd.recover("same-id", function(result, message)
    resumed = { done = true, result = result, message = message }
  end)
  wait_screen("+1 waiting")
  feed("1")
  wait_screen("Elaborate")
  feed("1")
  wait_for("the new flow's on_done", function()
    return new.done
  end)
  eq(new.result.content[1].text, "Size: Small", "the new flow's answer")
  -- The old flow comes to the front as it was; on_done gets its result.
  wait_screen("old")
  feed("<CR>")
  wait_screen("Elaborate")
  feed("1")
  wait_for("on_done", function()
    return resumed.done
  end)
  eq(resumed.message, nil, "no failure")
  eq(resumed.result.content[1].text, "Size: old", "the old flow's answer")
  eq(resumed.result.details.answers.size.customText, "old", "its custom text")
  eq(askd.last_event.session, "same-id-recovered", "resumed under another id")
  eq(#floats(), 0, "no float left")
  eq(offers(), {}, "nothing is offered any more")
end)

case("recovery: several unfinished flows are told of in one notice, oldest first", function()
  local kill = killable_engine()
  local first = start(payload(SIZE), { session = "one" })
  wait_screen("Pick a size")
  feed("4typed")
  wait_screen("typed")
  local second = start({ title = "Later", questions = { LANGS } }, { session = "two" })
  wait_screen("+1 waiting")
  -- The engine answers in order: once it has answered a later request, it holds both flows.
  local open
  askd._internal.client():request("sessions", vim.empty_dict(), function(_, list)
    open = list
  end)
  wait_for("the engine's sessions", function()
    return open ~= nil
  end)
  eq(#open, 2, "both flows open: " .. vim.inspect(open))
  kill()
  wait_done(first)
  wait_done(second)
  h.notes = {}
  local engine = askd._internal.ensure_client()
  local listed = false
  recovery.announce(engine, "engine", function()
    listed = true
  end)
  wait_for("the listing", function()
    return listed
  end)
  eq(h.notes, {
    {
      message = table.concat({
        "askd: 2 flows were left unfinished when askd stopped:",
        '  "Setup", saved less than a minute ago, 0 of 1 answered, text typed',
        '  "Later", saved less than a minute ago, 0 of 1 answered',
        ":Askd recover resumes or discards them",
      }, "\n"),
      level = vim.log.levels.INFO,
    },
  }, "one notice for both")
  local list = offers()
  eq({ #list, list[1].session, list[2].session }, { 2, "one", "two" }, "offers(), oldest first")
end)

--- Attaches to a hub played by `askd serve --listen` that writes its process id; returns its
--- WebSocket endpoint and a function that kills it (SIGKILL).
local function killable_hub()
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
  local pid = vim.fn.jobpid(askd._internal.hub_job())
  return url, function()
    vim.loop.kill(pid, 9)
  end
end

case("recovery: a killed hub's flow is told of on attaching, and resumes in the float", function()
  if vim.fn.executable("node") == 0 then
    error("node is needed for the agent's part")
  end
  local url, kill = killable_hub()
  h.agent_requests(url, { h.ask_request(1, "deploy", "Deploy", "Deploy to production now?") })
  wait_screen("Deploy to production now?")
  vim.cmd("Askd")
  feed("3wait")
  wait_screen("wait")
  local at_kill = screen()
  kill()
  wait_for("the float to close", function()
    return #floats() == 0
  end)
  h.notes = {}
  -- Attached to the next hub: the notice.
  killable_hub()
  wait_for("the notice", function()
    return #h.notes > 0
  end)
  eq(h.notes, {
    {
      message = "askd: a flow was left unfinished when askd stopped: "
        .. '"Deploy", saved less than a minute ago, 0 of 1 answered, text typed.'
        .. " :Askd recover resumes or discards it",
      level = vim.log.levels.INFO,
    },
  }, "the notice")
  eq(#floats(), 0, "no float pops up")
  -- Resumed: in the float as it was, with the focus; answered, the answer is echoed.
  scripted_select({ 1, 1 })
  vim.cmd("messages clear")
  vim.cmd("Askd recover")
  wait_screen("wait")
  eq(screen(), at_kill, "the screen as it was")
  eq(vim.api.nvim_get_current_win(), floats()[1], "the float has the focus")
  feed("<CR>")
  wait_screen("Elaborate")
  feed("1")
  wait_for("the float to close", function()
    return #floats() == 0
  end)
  eq(vim.fn.execute("messages"), "\nQ1: wait", "the answer, echoed")
  eq(offers(), {}, "nothing is offered any more")
  askd.detach()
end)

case("recovery: a resumed flow whose float is closed ends as closed, as any flow", function()
  killed_with_draft("closed", "draft")
  local resumed = {}
  askd.recover("closed", {}, function(result, message)
    resumed = { done = true, result = result, message = message }
  end)
  wait_screen("draft")
  vim.api.nvim_win_close(floats()[1], true)
  wait_for("on_done", function()
    return resumed.done
  end)
  eq(resumed.message, nil, "no failure")
  eq(resumed.result.content[1].text, "User cancelled the ask flow", "the result")
  eq(
    { resumed.result.details.cancelled, resumed.result.details.cancelReason },
    { true, "closed" },
    "cancelled, as closed"
  )
  eq(askd._internal.count(), 0, "no flow left")
  eq(offers(), {}, "nothing is offered any more")
end)

case("recovery: without an engine to ask, :Askd recover says why", function()
  askd.setup({ cmd = "/nonexistent/askd" })
  vim.cmd("Askd recover")
  wait_for("the notice", function()
    return #h.notes > 0
  end)
  eq(h.notes, {
    {
      message = "askd: /nonexistent/askd was not found or is not executable"
        .. " (set require('askd').setup{ cmd = ... })",
      level = vim.log.levels.ERROR,
    },
  }, "the error")
  local resumed
  askd.recover("any", function(result, message)
    resumed = { result = result, message = message }
  end)
  wait_for("on_done", function()
    return resumed ~= nil
  end)
  eq(resumed.message, h.notes[1].message, "recover() fails with it")
end)
