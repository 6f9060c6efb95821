-- askd for Neovim: ask-user flows drawn in a floating window, decided by the askd engine.
--
-- One askd process serves every flow (sessions multiplexed by request id). The plugin only
-- forwards keys and draws the views the engine answers with.

local rpc = require("askd.rpc")
local keys = require("askd.keys")
local ui = require("askd.ui")

local M = {}

local defaults = {
  -- The askd program: a path or name on PATH, or an argv list.
  cmd = "askd",
  -- Widest the float gets (columns, inside the border).
  width = 80,
  -- Border of the float, as for nvim_open_win ("none": the engine draws rules itself).
  border = "none",
  -- Keymap overrides sent with every flow: { ["main.toggle"] = { "x" } }.
  keymap = nil,
}

--- The active configuration.
M.config = vim.deepcopy(defaults)

local client = nil
-- The open flows, as a set of session states.
local sessions = {}
local initialized = false

--- JSON-RPC codes that a key may meet without harm: the flow completed meanwhile, or the
--- editor closed before the text arrived.
local BENIGN = { [-32002] = true, [-32003] = true }

--- A limit refused the key (an editor or the flow would hold too much text): the flow goes on
--- unchanged, and the user is told why the key did nothing.
local LIMIT = -32004

local function notify_error(message)
  vim.notify(message, vim.log.levels.ERROR, { title = "askd" })
end

--- Reports a failure that happened before any window opened.
local function fail_early(on_done, message)
  notify_error(message)
  on_done(nil, message)
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

--- Ends a session: the window closes and the engine forgets it.
local function release(S)
  S.finished = true
  sessions[S] = nil
  ui.close(S.win)
  if S.client:running() then
    S.client:request("close", { session = S.id }, function() end)
  end
end

local function fail(S, message)
  if S.finished then
    return
  end
  release(S)
  notify_error(message)
  S.on_done(nil, message)
end

--- Hands a done Step to the caller.
local function complete(step, on_done)
  local invalid = invalid_input(step.result)
  if invalid then
    fail_early(on_done, invalid)
  else
    on_done(step.result)
  end
end

local function finish(S, step)
  if S.finished then
    return
  end
  release(S)
  complete(step, S.on_done)
end

local function draw(S)
  if S.finished or not S.view then
    return
  end
  local ok, err = pcall(ui.draw, S.buf, S.win, S.view, S.width, S.border)
  if not ok then
    fail(S, "askd: cannot draw the flow: " .. tostring(err))
  end
end

--- Applies the answer to a request that changes the session.
local function on_step(S, err, step)
  if S.finished then
    return
  end
  if err then
    if err.code == LIMIT then
      vim.notify("askd: " .. tostring(err.message), vim.log.levels.WARN, { title = "askd" })
    elseif not BENIGN[err.code] then
      fail(S, "askd: " .. tostring(err.message))
    end
    return
  end
  S.view = step.view
  if step.status == "done" then
    finish(S, step)
  else
    draw(S)
  end
end

local function send_key(S, name)
  if S.finished then
    return
  end
  S.client:request("key", { session = S.id, key = name }, function(err, step)
    on_step(S, err, step)
  end)
end

--- Text typed outside ASCII: inserted into the open editor, else sent as a key.
local function send_text(S, text)
  if S.finished then
    return
  end
  if S.view and S.view.editor then
    S.client:request("insert", { session = S.id, text = text }, function(err, step)
      on_step(S, err, step)
    end)
  else
    send_key(S, text)
  end
end

local function session_for_buf(buf)
  for S in pairs(sessions) do
    if S.buf == buf then
      return S
    end
  end
  return nil
end

local function on_resized()
  for S in pairs(sessions) do
    S.width = ui.width(S.max_width, S.border)
    draw(S)
    S.client:request("getView", { session = S.id, width = S.width }, function(err, view)
      if not err and not S.finished then
        S.view = view
        draw(S)
      end
    end)
  end
end

--- Fails the flows of an engine that exited.
local function on_client_exit(exited, message)
  for S in pairs(sessions) do
    if S.client == exited then
      fail(S, message)
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
  vim.on_key(function(raw)
    local text = keys.typed_text(raw)
    if not text or vim.api.nvim_get_mode().mode ~= "n" then
      return
    end
    local S = session_for_buf(vim.api.nvim_get_current_buf())
    if S then
      send_text(S, text)
    end
  end, vim.api.nvim_create_namespace("askd.typed"))
end

local function ensure_client()
  if not client then
    local created
    created = rpc.new(M.config.cmd, function(message)
      on_client_exit(created, message)
    end)
    client = created
  end
  return client:start()
end

--- Configures the plugin: `{ cmd, width, border, keymap }` (see the README).
function M.setup(opts)
  local old_cmd = M.config.cmd
  M.config = vim.tbl_extend("force", vim.deepcopy(defaults), opts or {})
  if client and not vim.deep_equal(old_cmd, M.config.cmd) then
    client:stop()
    client = nil
  end
  init()
end

local function map_keys(S)
  for _, binding in ipairs(keys.bindings(S.keymap)) do
    local name = binding[2]
    vim.keymap.set("n", binding[1], function()
      send_key(S, name)
    end, { buffer = S.buf, nowait = true, silent = true })
  end
end

--- Cancels the flow when its window is closed from outside (`:close`, a window command).
local function watch_window(S)
  vim.api.nvim_create_autocmd("WinClosed", {
    pattern = tostring(S.win),
    once = true,
    callback = function()
      if S.finished then
        return
      end
      S.client:request("cancel", { session = S.id, reason = "user" }, function(err, step)
        on_step(S, err, step)
      end)
    end,
  })
end

--- Runs an ask flow: `payload` as the agent sent it (pi dialect unless `opts.dialect`),
--- `opts` `{ width?, border?, keymap?, dialect?, session? }`. Calls `on_done(result)` with
--- the engine's result once the flow completes, or `on_done(nil, message)` on failure.
function M.ask(payload, opts, on_done)
  if type(opts) == "function" then
    opts, on_done = nil, opts
  end
  opts = opts or {}
  on_done = on_done or function() end
  init()
  local ok, err = ensure_client()
  if not ok then
    vim.schedule(function()
      fail_early(on_done, err)
    end)
    return
  end
  local border = opts.border or M.config.border
  local max_width = opts.width or M.config.width
  local keymap = opts.keymap or M.config.keymap
  local width = ui.width(max_width, border)
  local params = {
    payload = payload,
    width = width,
    keymap = keymap,
    dialect = opts.dialect,
    session = opts.session,
  }
  local engine = client
  engine:request("open", params, function(open_err, step)
    if open_err then
      fail_early(on_done, "askd: " .. tostring(open_err.message))
      return
    end
    if step.status == "done" then
      complete(step, on_done)
      return
    end
    local S = {
      id = step.session,
      client = engine,
      view = step.view,
      on_done = on_done,
      width = width,
      max_width = max_width,
      border = border,
      keymap = keymap,
      finished = false,
    }
    local opened, buf, win = pcall(ui.open, width, border)
    if not opened then
      engine:request("close", { session = S.id }, function() end)
      fail_early(on_done, "askd: cannot open the flow window: " .. tostring(buf))
      return
    end
    S.buf, S.win = buf, win
    sessions[S] = true
    map_keys(S)
    watch_window(S)
    draw(S)
  end)
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
  M.ask(M.demo_payload, {}, function(result)
    if result then
      local text = result.content and result.content[1] and result.content[1].text or ""
      vim.api.nvim_echo({ { text } }, true, {})
    end
  end)
end

return M
