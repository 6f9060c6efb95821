-- Rejoin: after the hub went away, the attachment watches for the next hub and attaches to it
-- by itself, as the VS Code extension does. It looks at the hub's discovery file, more and more
-- seldom (backoff), and asks `askd hub --status` whether a hub runs each time the file is new
-- or changed; it never starts a hub itself (a hub stopped on purpose stays stopped until an
-- agent or `:Askd` starts one).

local rpc = require("askd.rpc")

local uv = vim.uv or vim.loop

local M = {}

--- The first pause between two looks at the discovery file, and the longest.
M.FIRST_MS = 250
M.MAX_MS = 4000

--- While watching: `{ timer, delay, tried, checking }` (`tried`: the modification time of the
--- discovery file last tried); nil otherwise.
local watch = nil

--- The hub's discovery file: `$XDG_RUNTIME_DIR/askd/hub.json` (an absolute
--- `XDG_RUNTIME_DIR`), else `${TMPDIR:-/tmp}/askd-<uid>/askd/hub.json`, as askd finds it.
function M.discovery_file()
  local runtime = vim.env.XDG_RUNTIME_DIR
  if type(runtime) == "string" and runtime:sub(1, 1) == "/" then
    return runtime .. "/askd/hub.json"
  end
  local temporary = vim.env.TMPDIR
  if type(temporary) ~= "string" or temporary:sub(1, 1) ~= "/" then
    temporary = "/tmp"
  end
  return string.format("%s/askd-%d/askd/hub.json", temporary, uv.getuid())
end

--- Stops watching; true when it was watching.
function M.stop()
  if not watch then
    return false
  end
  local timer = watch.timer
  watch = nil
  timer:stop()
  timer:close()
  return true
end

--- Whether the attachment watches for the next hub.
function M.watching()
  return watch ~= nil
end

local look

--- The next look, after a pause twice as long as the last (at most `MAX_MS`).
local function later(w)
  if watch ~= w then
    return
  end
  w.timer:start(
    w.delay,
    0,
    vim.schedule_wrap(function()
      look(w)
    end)
  )
  w.delay = math.min(w.delay * 2, M.MAX_MS)
end

--- Asks `askd hub --status` whether a hub runs; `callback(runs)`.
local function hub_runs(engine, callback)
  local argv = rpc.argv(engine)
  vim.list_extend(argv, { "hub", "--status" })
  local ok, job = pcall(vim.fn.jobstart, argv, {
    on_exit = function(_, code)
      callback(code == 0)
    end,
  })
  if not ok or type(job) ~= "number" or job <= 0 then
    callback(false)
  end
end

look = function(w)
  if watch ~= w or w.checking then
    return
  end
  local stat = uv.fs_stat(M.discovery_file())
  local mtime = stat and (stat.mtime.sec * 1e9 + stat.mtime.nsec) or nil
  if mtime == nil or mtime == w.tried then
    w.tried = mtime
    return later(w)
  end
  w.tried = mtime
  w.checking = true
  hub_runs(w.engine, function(runs)
    w.checking = false
    if watch ~= w then
      return
    end
    if runs then
      M.stop()
      w.on_hub()
    else
      later(w)
    end
  end)
end

--- Starts watching for the next hub (`engine`: the askd that answers `hub --status`);
--- `on_hub()` runs once, on the main loop, when one runs. Watching already: nothing changes.
function M.start(engine, on_hub)
  if watch then
    return
  end
  watch = { timer = uv.new_timer(), delay = M.FIRST_MS, engine = engine, on_hub = on_hub }
  later(watch)
end

return M
