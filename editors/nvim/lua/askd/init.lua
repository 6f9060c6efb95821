-- askd for Neovim: ask-user flows drawn in a floating window, decided by the askd engine.
--
-- One askd process serves every flow. Each flow is an `ask` request that stays pending until
-- the flow completes, however it completes (a key, the window closing, a timeout), and a
-- session whose views the plugin draws. The plugin only forwards keys and draws.

local config = require("askd.config")
local keys = require("askd.keys")
local layout = require("askd.layout")
local locate = require("askd.locate")
local rpc = require("askd.rpc")
local ui = require("askd.ui")

local uv = vim.uv or vim.loop

local M = {}

--- The active configuration (see `config.defaults`).
M.config = vim.deepcopy(config.defaults)

--- The last `User AskdOpen` / `User AskdDone` event as `{ event, session, result?, error? }`,
--- set before the autocommands run: where Neovim 0.7 autocommands read what 0.8 and later
--- pass in `data`.
M.last_event = nil

local client = nil
-- The flows whose window is open or whose result is awaited, as a set of flow states.
local flows = {}
local initialized = false
-- Session ids the plugin makes: `nvim-1`, `nvim-2`, …
local session_count = 0

--- JSON-RPC codes that a key may meet without harm: the flow completed meanwhile, or the
--- editor closed before the text arrived.
local BENIGN = { [-32002] = true, [-32003] = true }

--- A limit refused the key (an editor or the flow would hold too much text): the flow goes on
--- unchanged, and the user is told why the key did nothing.
local LIMIT = -32004

--- `insert` while no editor is open.
local NO_EDITOR = -32003

--- The code of the plugin's own transport failures (the engine exited, a write failed).
local TRANSPORT = -1

--- The dsh error codes of a flow that ended without an answer: a result, not a failure.
local FLOW_ENDINGS =
  { ASK_CANCELLED = true, ASK_ABORTED = true, ASK_TIMEOUT = true, NO_PROVIDER = true }

local function notify(message, level)
  vim.notify(message, level, { title = "askd" })
end

--- Runs `fn` now, or on the main loop when called from a fast event (a luv callback).
local function on_main_loop(fn)
  if vim.in_fast_event() then
    vim.schedule(fn)
  else
    fn()
  end
end

--- Fires `User <event>` with `data` (in the autocommand's `data` on 0.8 and later, and in
--- `M.last_event` on every version).
local function emit(event, data)
  M.last_event = vim.tbl_extend("force", { event = event }, data)
  local opts = { pattern = event, modeline = false }
  if vim.fn.has("nvim-0.8") == 1 then
    opts.data = data
  end
  local ok, err = pcall(vim.api.nvim_exec_autocmds, "User", opts)
  if not ok then
    local message = "askd: a User " .. event .. " autocommand failed: " .. tostring(err)
    notify(message, vim.log.levels.ERROR)
  end
end

--- The error text of an `invalid_input` result, nil for any other result.
local function invalid_input(result)
  local details = type(result) == "table" and result.details or nil
  if type(details) ~= "table" or details.error == nil then
    return nil
  end
  local content = result.content
  local text = type(content) == "table" and content[1] and content[1].text
  return type(text) == "string" and text or "askd: invalid payload"
end

local function stop_timer(F)
  if F.timer then
    F.timer:stop()
    F.timer:close()
    F.timer = nil
  end
end

--- Ends a flow: the window closes, the engine forgets the session, `on_done` runs once and
--- `User AskdDone` fires.
local function deliver(F, result, message)
  F.finished = true
  flows[F] = nil
  stop_timer(F)
  ui.close(F.win, F.buf)
  if not F.close_sent and F.client:running() then
    F.close_sent = true
    F.client:request("close", { session = F.id }, function() end)
  end
  local ok, err = pcall(F.on_done, result, message)
  if not ok then
    notify("askd: on_done failed: " .. tostring(err), vim.log.levels.ERROR)
  end
  emit("AskdDone", { session = F.id, result = result, error = message })
end

local function fail(F, message)
  if F.finished then
    return
  end
  notify(message, vim.log.levels.ERROR)
  deliver(F, nil, message)
end

--- Completes a flow with the engine's result (an `invalid_input` result is a failure).
local function finish(F, result)
  if F.finished then
    return
  end
  local invalid = invalid_input(result)
  if invalid then
    fail(F, invalid)
  else
    deliver(F, result, nil)
  end
end

local draw

--- Milliseconds past a whole second of the countdown at which it is redrawn (timers may
--- fire a little early).
local TICK_MARGIN_MS = 20

--- Keeps a countdown running while the view has a deadline: a redraw just after each whole
--- second left.
local function tick(F)
  local deadline = F.view and F.view.deadline
  if type(deadline) ~= "number" then
    stop_timer(F)
    return
  end
  local left = deadline - ui.now_ms()
  if left <= 0 then
    return
  end
  F.timer = F.timer or uv.new_timer()
  if F.timer:is_active() then
    return
  end
  F.timer:start(
    left % 1000 + TICK_MARGIN_MS,
    0,
    vim.schedule_wrap(function()
      draw(F)
    end)
  )
end

draw = function(F)
  if F.finished or F.closing or not F.view then
    return
  end
  local ok, err = pcall(ui.draw, F.buf, F.win, F.view, F.frame)
  if not ok then
    fail(F, "askd: cannot draw the flow: " .. tostring(err))
    return
  end
  tick(F)
end

--- Applies the answer to a request that changes the session.
local function on_step(F, err, step)
  if F.finished then
    return
  end
  if err then
    if err.code == LIMIT then
      notify("askd: " .. tostring(err.message), vim.log.levels.WARN)
    elseif not BENIGN[err.code] then
      fail(F, err.code == TRANSPORT and err.message or "askd: " .. tostring(err.message))
    end
    return
  end
  F.view = step.view
  if step.status == "done" then
    finish(F, step.result)
  else
    draw(F)
  end
end

--- Whether keys and edits may still go to the flow's session.
local function live(F)
  return not F.finished and not F.closing
end

local function send_key(F, name)
  if not live(F) then
    return
  end
  F.client:request("key", { session = F.id, key = name }, function(err, step)
    on_step(F, err, step)
  end)
end

--- Text typed outside ASCII: inserted into the open editor, else sent as a key.
local function send_text(F, text)
  if not live(F) then
    return
  end
  if F.view and F.view.editor then
    F.client:request("insert", { session = F.id, text = text }, function(err, step)
      on_step(F, err, step)
    end)
  else
    send_key(F, text)
  end
end

--- Pastes text into the open editor; without one, the user is told once per paste.
local function send_paste(F, text)
  if not live(F) or text == "" then
    return
  end
  F.client:request("insert", { session = F.id, text = text }, function(err, step)
    if err and err.code == NO_EDITOR then
      if live(F) and not F.paste_warned then
        F.paste_warned = true
        notify(
          "askd: nothing to paste into: open an answer (Type your own) or a note first",
          vim.log.levels.WARN
        )
      end
      return
    end
    on_step(F, err, step)
  end)
end

--- `<C-r>{register}`: reads the register's name and pastes its contents.
local function paste_register(F)
  local ok, name = pcall(vim.fn.getcharstr)
  -- <C-r><C-r>, <C-r><C-o> and <C-r><C-p> insert literally in Insert mode: the same here.
  if ok and (name == "\18" or name == "\15" or name == "\16") then
    ok, name = pcall(vim.fn.getcharstr)
  end
  if not ok or name == "\27" then
    return
  end
  if not name:match('^[%w"%-%*%+%.:/#%%]$') then
    notify("askd: no register " .. vim.fn.strtrans(name) .. " to paste", vim.log.levels.WARN)
    return
  end
  F.paste_warned = false
  send_paste(F, table.concat(vim.fn.getreg(name, 1, true), "\n"))
end

local function flow_for_buf(buf)
  for F in pairs(flows) do
    if F.buf == buf and live(F) then
      return F
    end
  end
  return nil
end

--- The float or its buffer went away: the engine closes the session, and the pending `ask`
--- answers with the flow's result (cancelled, reason `closed`).
local function gone(F)
  if not live(F) then
    return
  end
  F.closing = true
  stop_timer(F)
  ui.close(F.win, F.buf)
  if F.client:running() then
    F.close_sent = true
    -- The flow ends as closed by the client (the pending `ask` answers with that result),
    -- then the engine forgets the session; the engine answers requests in order.
    F.client:request("cancel", { session = F.id, reason = "closed" }, function() end)
    F.client:request("close", { session = F.id }, function() end)
  else
    fail(F, "askd is not running")
  end
end

--- Puts a flow's buffer back into its float when something else was shown there (Neovim
--- without 'winfixbuf').
local function restore_buffers()
  for F in pairs(flows) do
    if
      live(F)
      and vim.api.nvim_win_is_valid(F.win)
      and vim.api.nvim_buf_is_valid(F.buf)
      and vim.api.nvim_win_get_buf(F.win) ~= F.buf
    then
      pcall(vim.api.nvim_win_set_buf, F.win, F.buf)
    end
  end
end

local function engine_width(width)
  return math.max(layout.MIN_WIDTH, width)
end

local function on_resized()
  for F in pairs(flows) do
    if live(F) then
      F.frame.width = ui.width(F.max_width, F.frame.border)
      draw(F)
      local params = { session = F.id, width = engine_width(F.frame.width) }
      -- The Steps of later keys come at the new width, and Up and Down in an editor follow
      -- the lines it shows.
      F.client:request("subscribe", params, function() end)
      F.client:request("getView", params, function(err, view)
        if not err and live(F) then
          F.view = view
          draw(F)
        end
      end)
    end
  end
end

--- Fails the flows of an engine that exited.
local function on_client_exit(exited, message)
  for F in pairs(flows) do
    if F.client == exited then
      fail(F, message)
    end
  end
end

local function init()
  if initialized then
    return
  end
  initialized = true
  ui.define_highlights()
  local group = vim.api.nvim_create_augroup("askd", { clear = true })
  vim.api.nvim_create_autocmd("VimResized", { group = group, callback = on_resized })
  vim.api.nvim_create_autocmd("BufWinEnter", { group = group, callback = restore_buffers })
  vim.on_key(function(raw)
    local text = keys.typed_text(raw)
    if not text or vim.api.nvim_get_mode().mode ~= "n" then
      return
    end
    local F = flow_for_buf(vim.api.nvim_get_current_buf())
    if F then
      send_text(F, text)
    end
  end, vim.api.nvim_create_namespace("askd.typed"))
  local paste = vim.paste
  vim.paste = function(lines, phase)
    local F = flow_for_buf(vim.api.nvim_get_current_buf())
    if not F then
      return paste(lines, phase)
    end
    if phase == -1 or phase == 1 then
      F.paste_warned = false
    end
    send_paste(F, table.concat(lines, "\n"))
    return true
  end
end

--- The engine's client, started; nil and the reason when it cannot start.
local function ensure_client()
  local cmd = M.config.cmd or locate.engine()
  if cmd == nil then
    return nil, locate.engine_missing()
  end
  if client and not vim.deep_equal(client.cmd, cmd) then
    client:stop()
    client = nil
  end
  if not client then
    local created
    created = rpc.new(cmd, function(message)
      on_client_exit(created, message)
    end)
    client = created
  end
  local ok, err = client:start()
  if not ok then
    return nil, err
  end
  return client
end

--- Configures the plugin (see the README and `:help askd-setup`). Unknown options are
--- reported with a warning and left out.
function M.setup(opts)
  opts = opts or {}
  for _, warning in ipairs(config.unknown(opts, config.SETUP_KEYS, "setup")) do
    notify(warning, vim.log.levels.WARN)
  end
  local chosen = vim.deepcopy(config.defaults)
  for _, key in ipairs(config.SETUP_KEYS) do
    if opts[key] ~= nil then
      chosen[key] = opts[key]
    end
  end
  M.config = chosen
  init()
end

local function map_keys(F)
  local map_opts = { buffer = F.buf, nowait = true, silent = true }
  for _, binding in ipairs(keys.bindings(F.keymap)) do
    if binding.action == "paste" then
      vim.keymap.set("n", binding[1], function()
        paste_register(F)
      end, map_opts)
    elseif binding.action == "ignore" then
      vim.keymap.set("n", binding[1], "<Nop>", map_opts)
    else
      local name = binding[2]
      vim.keymap.set("n", binding[1], function()
        send_key(F, name)
      end, map_opts)
    end
  end
end

--- Completes the flow as closed when its window closes or its buffer goes.
local function watch(F)
  vim.api.nvim_create_autocmd("WinClosed", {
    pattern = tostring(F.win),
    once = true,
    callback = function()
      gone(F)
    end,
  })
  vim.api.nvim_create_autocmd({ "BufWipeout", "BufDelete", "BufUnload" }, {
    buffer = F.buf,
    once = true,
    callback = function()
      gone(F)
    end,
  })
end

--- What the engine's `ask` answers, as the `result` of a done Step: the pi and the other
--- dialects' results as they come, a dsh answer as `{ answer }`, a dsh flow that ended
--- without one as `{ error }`. Nil and a message for a failure.
local function ask_result(F, err, result)
  if err then
    local data = err.data
    if err.code == -32010 and type(data) == "table" and FLOW_ENDINGS[data.code] then
      return { error = { name = data.name, code = data.code, message = err.message } }
    end
    return nil, err.code == TRANSPORT and err.message or "askd: " .. tostring(err.message)
  end
  local dialect = (F.view and F.view.dialect) or F.dialect or "pi"
  if dialect == "dsh" then
    return { answer = result }
  end
  return result
end

--- Withdraws a flow's question: it completes as aborted.
local function abort(F)
  if live(F) then
    F.client:request("cancel", { session = F.id, reason = "abort" }, function(err, step)
      on_step(F, err, step)
    end)
  end
end

--- Reports a flow that could not start (no window was opened): `on_done(nil, message)`
--- runs on the next turn of the main loop, after `ask` has returned.
local function refuse(F, message)
  F.finished = true
  notify(message, vim.log.levels.ERROR)
  vim.schedule(function()
    local ok, err = pcall(F.on_done, nil, message)
    if not ok then
      notify("askd: on_done failed: " .. tostring(err), vim.log.levels.ERROR)
    end
  end)
end

--- Opens the float (focused at once, so that every key typed from now on reaches the flow),
--- then asks the engine.
local function start(F, payload, opts)
  if F.finished then
    return
  end
  init()
  local engine, problem = ensure_client()
  if not engine then
    refuse(F, problem)
    return
  end
  F.client = engine
  local opened, buf, win = pcall(ui.open, F.frame.width, F.frame.border)
  if not opened then
    refuse(F, "askd: cannot open the flow window: " .. tostring(buf))
    return
  end
  F.buf, F.win = buf, win
  flows[F] = true
  map_keys(F)
  watch(F)
  emit("AskdOpen", { session = F.id })
  local params = {
    payload = payload,
    session = F.id,
    width = engine_width(F.frame.width),
    dialect = opts.dialect,
    keymap = F.keymap,
    keymapPreset = opts.keymap_preset or M.config.keymap_preset,
    behaviour = config.behaviour(M.config, opts),
    timeoutMs = opts.timeout_ms,
    cwd = opts.cwd,
  }
  for key, value in pairs(opts.params or {}) do
    params[key] = value
  end
  engine:request("ask", params, function(err, result)
    if F.finished then
      return
    end
    local value, message = ask_result(F, err, result)
    if message then
      fail(F, message)
    else
      finish(F, value)
    end
  end)
  engine:request("getView", { session = F.id }, function(err, view)
    if not err and live(F) and view.status ~= "done" then
      F.view = view
      draw(F)
    end
  end)
  -- A close() or abort() of the handle that came before the flow started.
  if F.later == "close" then
    gone(F)
  elseif F.later == "abort" then
    abort(F)
  end
end

--- Runs an ask flow. `payload` is the tool input as the agent sent it; `opts` (optional) is
--- `{ width?, border?, keymap?, keymap_preset?, confirm_dismiss?, behaviour?, dialect?,
--- session?, timeout_ms?, cwd?, params? }` (`params`: further engine params, sent as they
--- are). `on_done(result)` runs once with the engine's result
--- when the flow completes, or `on_done(nil, message)` on failure. May be called from any
--- context. Returns a handle `{ session, close(), abort() }`.
function M.ask(payload, opts, on_done)
  if type(opts) == "function" then
    opts, on_done = nil, opts
  end
  opts = opts or {}
  on_main_loop(function()
    for _, warning in ipairs(config.unknown(opts, config.ASK_KEYS, "ask")) do
      notify(warning, vim.log.levels.WARN)
    end
  end)
  local id = opts.session
  if id == nil then
    session_count = session_count + 1
    id = "nvim-" .. session_count
  end
  local border = opts.border or M.config.border
  local max_width = opts.width or M.config.width
  local F = {
    id = id,
    dialect = opts.dialect,
    on_done = on_done or function() end,
    max_width = max_width,
    keymap = opts.keymap or M.config.keymap,
    frame = { border = border },
    finished = false,
    closing = false,
  }
  local handle = { session = id }
  --- Closes the flow's window: the flow completes as cancelled (closed).
  function handle.close()
    on_main_loop(function()
      if F.client then
        gone(F)
      else
        F.later = "close"
      end
    end)
  end
  --- Withdraws the question: the flow completes as aborted.
  function handle.abort()
    on_main_loop(function()
      if F.client then
        abort(F)
      else
        F.later = F.later or "abort"
      end
    end)
  end
  on_main_loop(function()
    F.frame.width = ui.width(max_width, border)
    start(F, payload, opts)
  end)
  return handle
end

--- The JSON Schema of a dialect's payload (default `pi`), decoded from the repository's
--- `protocol/schemas/`; `opts.inline` resolves its references. Raises an error when the
--- dialect is unknown or the schema is not found.
function M.schema(dialect, opts)
  return locate.schema(dialect, opts)
end

--- The payload `:AskdDemo` runs.
M.demo_payload = {
  title = "askd demo",
  questions = {
    {
      id = "editor",
      label = "Editor",
      prompt = "Which editor do you use most?",
      options = {
        { value = "nvim", label = "Neovim (Recommended)", description = "Modal and scriptable" },
        { value = "vim", label = "Vim" },
        { value = "helix", label = "Helix" },
      },
    },
    {
      id = "languages",
      label = "Languages",
      prompt = "Which languages do you write this week?",
      type = "multi",
      options = {
        { value = "lua", label = "Lua" },
        { value = "rust", label = "Rust" },
        { value = "python", label = "Python" },
      },
    },
    {
      id = "layout",
      label = "Layout",
      prompt = "Which window layout do you prefer?",
      type = "preview",
      options = {
        {
          value = "split",
          label = "Vertical split",
          preview = "+----+----+\n|    |    |\n+----+----+",
        },
        { value = "tabs", label = "Tabs", preview = "[1] [2] [3]\n+---------+\n+---------+" },
      },
    },
  },
}

--- Runs the built-in demo flow and echoes the summary the agent would receive.
function M.demo()
  return M.ask(M.demo_payload, {}, function(result)
    if result then
      local text = result.content and result.content[1] and result.content[1].text or ""
      vim.api.nvim_echo({ { text } }, true, {})
    end
  end)
end

return M
