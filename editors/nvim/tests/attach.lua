-- Headless tests of the askd Neovim plugin: shared sessions, attach to the agents' hub.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ASKD = h.ASKD
local askd = h.askd
local case = h.case
local on_cleanup = h.on_cleanup
local sleep = h.sleep
local wait_for = h.wait_for
local fmt = h.fmt
local eq = h.eq
local truthy = h.truthy
local feed = h.feed
local type_keys = h.type_keys
local floats = h.floats
local screen = h.screen
local wait_screen = h.wait_screen
local wait_no_screen = h.wait_no_screen
local start = h.start
local wait_done = h.wait_done
local SIZE = h.SIZE
local LANGS = h.LANGS
local payload = h.payload
local agent_requests = h.agent_requests
local ask_request = h.ask_request

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
  eq(h.notes[1], {
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
  eq(h.notes, { { message = message, level = vim.log.levels.ERROR } }, "notification")
  eq(askd.detach(), false, "nothing to detach")
  -- :Askd with an unknown argument says what it takes.
  h.notes = {}
  vim.cmd("Askd nonsense")
  eq(h.notes, {
    {
      message = 'askd: unknown :Askd argument "nonsense" (none, recover or detach)',
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
  end, h.notes)
  eq(#warned, 1, "one warning: " .. vim.inspect(h.notes))
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
  eq(h.notes[1], {
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
  h.notes = {}
  vim.fn.system({ ASKD, "hub", "--stop" })
  eq(vim.v.shell_error, 0, "askd hub --stop")
  wait_for("the detach", function()
    return not askd._internal.hub_job()
  end)
  eq(#h.notes, 1, "one notice: " .. vim.inspect(h.notes))
  eq(h.notes[1].level, vim.log.levels.WARN, "a warning")
  truthy(
    h.notes[1].message:find(
      "^askd: detached from the hub: the hub at ws://127%.0%.0%.1:%d+/rpc went away %(.+%);"
        .. " attaching again when a hub runs %(:Askd detach stops%)$"
    ),
    "the warning: " .. h.notes[1].message
  )
  -- :Askd attaches again, to a hub it starts; the next question shows here too.
  vim.cmd("Askd")
  wait_for("this editor attached to a new hub", function()
    sleep(50)
    return hub_attached(1)
  end)
  h.notes = {}
  local again = claude_hook(claude_hook_input("toolu_02DEF", folder))
  wait_screen("Which database should we use?")
  eq(#h.notes, 1, "a notice: " .. vim.inspect(h.notes))
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

case("attach: after the agents' hub is killed, the next hub is attached to by itself", function()
  local dir = own_hub_dirs()
  local folder = dir .. "/app"
  vim.fn.mkdir(folder, "p")
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
  truthy(hub_attached(1), "a hub runs with this editor attached")
  -- The hub is killed: its discovery file stays behind, naming a hub that no longer runs.
  local discovery = require("askd.rejoin").discovery_file()
  eq(discovery, dir .. "/runtime/askd/hub.json", "the discovery file")
  local pid = vim.fn.json_decode(vim.fn.readfile(discovery)).pid
  h.notes = {}
  vim.loop.kill(pid, 9)
  wait_for("the detach", function()
    return not askd._internal.hub_job()
  end)
  eq(#h.notes, 1, "one notice: " .. vim.inspect(h.notes))
  truthy(
    h.notes[1].message:find(
      "^askd: detached from the hub: the hub at ws://127%.0%.0%.1:%d+/rpc went away %(.+%);"
        .. " attaching again when a hub runs %(:Askd detach stops%)$"
    ),
    "the warning: " .. h.notes[1].message
  )
  truthy(require("askd.rejoin").watching(), "it watches for the next hub")
  h.notes = {}
  -- A new hub starts: this editor finds it and attaches to it.
  local started = vim.fn.jobstart({ ASKD, "hub" })
  truthy(started > 0, "a new hub started")
  on_cleanup(function()
    vim.fn.jobstop(started)
  end)
  wait_for("this editor attached to the new hub", function()
    sleep(50)
    return hub_attached(1)
  end)
  eq(h.notes, {
    { message = "askd: a hub runs again; attaching to it", level = vim.log.levels.INFO },
  }, "the notice")
  h.notes = {}
  -- An agent asks there: the question pops up, without taking the focus.
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_set_current_buf(buf)
  local editing = vim.api.nvim_get_current_win()
  local hook = claude_hook(claude_hook_input("toolu_03GHI", folder))
  wait_screen("Which database should we use?")
  eq(h.notes, {
    {
      message = "askd: a question from Claude Code in " .. folder .. " waits: :Askd to answer",
      level = vim.log.levels.INFO,
    },
  }, "the question's notice")
  eq(vim.api.nvim_get_current_win(), editing, "the focus stays in the buffer")
  eq(require("askd.rejoin").watching(), false, "attached, it watches no more")
  vim.cmd("Askd")
  feed("2")
  wait_screen("Review your answers")
  feed("1")
  eq(hook_answer(hook), claude_allowed("SQLite"), "the answer through the new hub")
  -- Detached on purpose, nothing is watched for.
  eq(askd.detach(), true, "detach()")
  eq(require("askd.rejoin").watching(), false, "not watching")
  vim.fn.system({ ASKD, "hub", "--stop" })
  eq(vim.v.shell_error, 0, "the hub stops at the end")
  vim.api.nvim_buf_delete(buf, { force = true })
end)
