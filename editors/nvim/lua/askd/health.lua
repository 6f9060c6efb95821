-- :checkhealth askd — is the engine there, and does it answer?

local locate = require("askd.locate")
local rpc = require("askd.rpc")

local M = {}

--- Milliseconds the probe waits for the engine.
local TIMEOUT_MS = 5000

--- The report functions of this Neovim: `vim.health` (0.8 and later, renamed in 0.10) or the
--- `health#report_*` functions of 0.7.
local function reporter()
  local h = vim.health
  if h and h.start then
    return h
  end
  if h and h.report_start then
    return {
      start = h.report_start,
      ok = h.report_ok,
      warn = h.report_warn,
      error = h.report_error,
      info = h.report_info,
    }
  end
  local function vimscript(name)
    return function(message)
      vim.fn["health#report_" .. name](message)
    end
  end
  return {
    start = vimscript("start"),
    ok = vimscript("ok"),
    warn = vimscript("warn"),
    error = vimscript("error"),
    info = vimscript("info"),
  }
end

--- Sends `requests` to a fresh engine, closes its input and returns the decoded answers by
--- id, or nil and the reason.
local function probe(cmd, requests)
  local output = {}
  local ok, job = pcall(vim.fn.jobstart, rpc.argv(cmd), {
    stdout_buffered = true,
    on_stdout = function(_, data)
      output = data
    end,
  })
  if not ok or type(job) ~= "number" or job <= 0 then
    return nil, "could not start it: " .. tostring(job)
  end
  local lines = {}
  for _, request in ipairs(requests) do
    table.insert(lines, vim.json.encode(request))
  end
  vim.fn.chansend(job, table.concat(lines, "\n") .. "\n")
  vim.fn.chanclose(job, "stdin")
  local status = vim.fn.jobwait({ job }, TIMEOUT_MS)[1]
  if status == -1 then
    vim.fn.jobstop(job)
    return nil, string.format("no answer within %d ms", TIMEOUT_MS)
  end
  local answers = {}
  for _, line in ipairs(output) do
    local decoded, msg = pcall(vim.json.decode, line, { luanil = { object = true } })
    if decoded and type(msg) == "table" and msg.id ~= nil then
      answers[msg.id] = msg
    end
  end
  return answers
end

--- The health check.
function M.check()
  local report = reporter()
  local configured = require("askd").config.cmd
  local cmd = configured or locate.engine()
  report.start("askd")
  if vim.fn.has("nvim-0.7") == 1 then
    report.ok("Neovim 0.7 or later")
  else
    report.error("Neovim 0.7 or later is required")
  end
  if cmd == nil then
    report.error(locate.engine_missing())
    return
  end
  local problem = rpc.check_cmd(cmd)
  if problem then
    report.error(problem)
    return
  end
  local where = ""
  if configured == nil then
    where = cmd == "askd" and " (on PATH)" or " (the repository's build)"
  end
  report.ok("found: " .. vim.fn.exepath(rpc.argv(cmd)[1]) .. where)
  local answers, err = probe(cmd, {
    { jsonrpc = "2.0", id = 1, method = "initialize", params = vim.empty_dict() },
    {
      jsonrpc = "2.0",
      id = 2,
      method = "open",
      params = {
        payload = {
          questions = { { id = "q", prompt = "?", options = { { value = "v", label = "V" } } } },
        },
        width = 40,
      },
    },
  })
  if not answers then
    report.error("askd does not answer: " .. err)
    return
  end
  local init = answers[1] and answers[1].result
  if type(init) ~= "table" or type(init.serverInfo) ~= "table" then
    local reason = answers[1] and answers[1].error and answers[1].error.message or "no answer"
    report.error("askd does not answer initialize: " .. tostring(reason))
    return
  end
  report.ok(
    string.format(
      "answers initialize: %s %s, protocol %s",
      tostring(init.serverInfo.name),
      tostring(init.serverInfo.version),
      tostring(init.protocolVersion)
    )
  )
  local step = answers[2] and answers[2].result
  if type(step) == "table" and type(step.view) == "table" and type(step.view.lines) == "table" then
    report.ok("views carry rendered lines")
  else
    report.info("views carry no rendered lines: the plugin draws its built-in screen")
  end
end

return M
