-- Headless tests of the askd Neovim plugin: Neovim in a real terminal (tmux).
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ASKD = h.ASKD
local case = h.case
local sleep = h.sleep
local wait_for = h.wait_for
local fmt = h.fmt
local eq = h.eq
local truthy = h.truthy
local many_options = h.many_options
local agent_requests = h.agent_requests
local ask_request = h.ask_request

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
