-- Headless tests of the askd Neovim plugin: options, the Lua API, lazy.nvim, the help file.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ASKD = h.ASKD
local askd = h.askd
local locate = h.locate
local case = h.case
local engine_case = h.engine_case
local sleep = h.sleep
local wait_for = h.wait_for
local eq = h.eq
local truthy = h.truthy
local feed = h.feed
local wait_screen = h.wait_screen
local start = h.start
local wait_done = h.wait_done
local log_requests = h.log_requests
local FEATURES = h.FEATURES
local SIZE = h.SIZE
local payload = h.payload

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
  eq(h.notes, {}, "notifications")
end)

case("setup and ask warn about unknown options, naming them", function()
  askd.setup({ cmd = ASKD, widht = 60, zzz = 1 })
  eq(h.notes, {
    {
      message = 'askd: unknown setup option "widht" (did you mean "width"?)',
      level = vim.log.levels.WARN,
    },
    { message = 'askd: unknown setup option "zzz"', level = vim.log.levels.WARN },
  }, "setup warnings")
  eq({ askd.config.width, askd.config.widht }, { 80, nil }, "the typo is not kept")
  h.notes = {}
  local run = start(payload(SIZE), { bordr = "rounded" })
  wait_screen("Pick a size")
  eq(h.notes, {
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
