-- One askd process spoken to over newline-delimited JSON-RPC 2.0 on its stdin/stdout.
-- Requests are multiplexed by id; every callback runs on the main loop.

local M = {}

local Client = {}
Client.__index = Client

--- Lines of stderr kept to explain a crash.
local STDERR_KEEP = 20

--- Decodes one JSON message; JSON null in objects becomes nil.
local function decode(line)
  return pcall(vim.json.decode, line, { luanil = { object = true } })
end

--- The argv of a configured command (a string or a list).
function M.argv(cmd)
  if type(cmd) == "table" then
    return vim.deepcopy(cmd)
  end
  return { cmd }
end

--- Why `cmd` cannot be started, or nil when its program is executable. `setting` names the
--- option that sets it (default `cmd`).
function M.check_cmd(cmd, setting)
  setting = setting or "cmd"
  local argv = M.argv(cmd)
  local program = argv[1]
  if type(program) ~= "string" or program == "" then
    return string.format("askd: no command configured (require('askd').setup{ %s = ... })", setting)
  end
  if vim.fn.executable(program) ~= 1 then
    return string.format(
      "askd: %s was not found or is not executable (set require('askd').setup{ %s = ... })",
      program,
      setting
    )
  end
  return nil
end

--- A client for `cmd`; `on_exit(message)` is called when a started process ends, and
--- `on_notify(method, params)` for every notification the engine sends (`session/changed`,
--- `session/opened`, `session/closed`). `setting`: the option that sets `cmd`, for messages.
function M.new(cmd, on_exit, on_notify, setting)
  return setmetatable({
    cmd = cmd,
    setting = setting,
    on_exit = on_exit,
    on_notify = on_notify,
    job = nil,
    next_id = 0,
    pending = {},
    partial = "",
    stderr = {},
    stderr_partial = "",
  }, Client)
end

--- True while the process runs.
function Client:running()
  return self.job ~= nil
end

--- Starts the process unless it runs; returns true, or nil and an error message.
function Client:start()
  if self.job then
    return true
  end
  local problem = M.check_cmd(self.cmd, self.setting)
  if problem then
    return nil, problem
  end
  self.partial = ""
  self.stderr = {}
  self.stderr_partial = ""
  local job
  local ok, res = pcall(vim.fn.jobstart, M.argv(self.cmd), {
    on_stdout = function(_, data)
      self:_on_stdout(data)
    end,
    on_stderr = function(_, data)
      self:_on_stderr(data)
    end,
    on_exit = function(_, code)
      -- Only the process this client started last may reset it.
      if self.job == job then
        self:_on_exit(code)
      end
    end,
  })
  if not ok or type(res) ~= "number" or res <= 0 then
    return nil, string.format("askd: could not start %s: %s", M.argv(self.cmd)[1], tostring(res))
  end
  job = res
  self.job = job
  return true
end

--- Stops the process (pending requests fail through the exit handler).
function Client:stop()
  if self.job then
    vim.fn.jobstop(self.job)
  end
end

--- Sends a request; `callback(err, result)` gets either a JSON-RPC error object
--- `{ code, message, data? }` or the result.
function Client:request(method, params, callback)
  if not self.job then
    vim.schedule(function()
      callback({ code = -1, message = "askd is not running" }, nil)
    end)
    return
  end
  self.next_id = self.next_id + 1
  local id = self.next_id
  -- Vimscript's encoder writes an empty Lua table as `[]` (`vim.empty_dict()` gives `{}`).
  local encoded, line =
    pcall(vim.fn.json_encode, { jsonrpc = "2.0", id = id, method = method, params = params })
  if not encoded then
    vim.schedule(function()
      callback(
        { code = -32602, message = "cannot encode the request as JSON: " .. tostring(line) },
        nil
      )
    end)
    return
  end
  self.pending[id] = callback
  local ok, err = pcall(vim.fn.chansend, self.job, line .. "\n")
  if not ok then
    self.pending[id] = nil
    vim.schedule(function()
      callback({ code = -1, message = "askd: write failed: " .. tostring(err) }, nil)
    end)
  end
end

function Client:_on_stdout(data)
  -- `data` continues the last partial line; its last item is the new partial line.
  self.partial = self.partial .. data[1]
  for i = 2, #data do
    local line = self.partial:gsub("\r$", "")
    self.partial = data[i]
    if line ~= "" then
      self:_dispatch(line)
    end
  end
end

--- Keeps a line of stderr (the last `STDERR_KEEP`).
function Client:_keep_stderr(line)
  line = line:gsub("\r$", "")
  if line ~= "" then
    table.insert(self.stderr, line)
    if #self.stderr > STDERR_KEEP then
      table.remove(self.stderr, 1)
    end
  end
end

function Client:_on_stderr(data)
  -- As on stdout: `data` continues the last partial line (a line written in pieces arrives
  -- in pieces); its last item is the new partial line.
  self.stderr_partial = self.stderr_partial .. data[1]
  for i = 2, #data do
    self:_keep_stderr(self.stderr_partial)
    self.stderr_partial = data[i]
  end
end

function Client:_dispatch(line)
  local ok, msg = decode(line)
  if not ok or type(msg) ~= "table" then
    return
  end
  if msg.id == nil then
    if type(msg.method) == "string" and self.on_notify then
      self.on_notify(msg.method, msg.params)
    end
    return
  end
  local callback = self.pending[msg.id]
  if not callback then
    return
  end
  self.pending[msg.id] = nil
  if msg.error then
    callback(msg.error, nil)
  else
    callback(nil, msg.result)
  end
end

function Client:_on_exit(code)
  self.job = nil
  -- A last line without its line break.
  self:_keep_stderr(self.stderr_partial)
  self.stderr_partial = ""
  local message = string.format("askd exited unexpectedly (code %d)", code)
  if #self.stderr > 0 then
    message = message .. ": " .. table.concat(self.stderr, "\n")
  end
  local pending = self.pending
  self.pending = {}
  local ids = vim.tbl_keys(pending)
  table.sort(ids)
  for _, id in ipairs(ids) do
    pending[id]({ code = -1, message = message }, nil)
  end
  if self.on_exit then
    self.on_exit(message)
  end
end

return M
