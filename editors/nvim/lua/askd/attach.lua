-- Attach: the plugin as a person's client of the hub, where every agent's questions wait.
--
-- One connection speaks the protocol to the hub through a child process's standard input and
-- output (Neovim has no WebSocket client): by default `askd hub --pipe`, which relays to the
-- hub of the discovery file (the one every agent asks in) and starts one when none runs.
-- `subscribe { attach = true }` says that a person
-- answers here. Each flow that arrives (`session/opened`) is queued with the plugin's own
-- flows, oldest first: the one in front shows in the float; a notice comes first, and the
-- float does not take the focus (`:Askd` enters it), so that keys typed in a buffer never land
-- in a question. A flow answered, or withdrawn, anywhere leaves the queue.

local rpc = require("askd.rpc")

local M = {}

--- The hub connection while attached: `{ client, dismissed, reconciling? }` (`dismissed`:
--- the ids of the flows whose float the person closed); nil otherwise.
local hub = nil

--- How long after a flow arrives or ends the hub's list is read again, for flows whose
--- `session/opened` did not come (two flows opened at once by another connection).
local RECONCILE_MS = 100

local function askd()
  return require("askd")
end

local function internal()
  return askd()._internal
end

local function notify(message, level)
  internal().notify(message, level)
end

--- The argv of the hub connection: `attach_cmd`, else the engine's `hub --pipe`.
local function command()
  local config = askd().config
  if config.attach_cmd then
    return config.attach_cmd
  end
  local engine = internal().engine()
  if engine == nil then
    return nil
  end
  local argv = rpc.argv(engine)
  vim.list_extend(argv, { "hub", "--pipe" })
  return argv
end

--- Who asked, in words: `title` — asker in folder.
function M.described(entry)
  local parts = {}
  local title = type(entry.title) == "string" and entry.title or nil
  table.insert(parts, title and string.format('"%s"', title) or "a question")
  local asker = type(entry.asker) == "table" and entry.asker or {}
  if type(asker.name) == "string" then
    table.insert(parts, "from " .. asker.name)
  end
  if type(asker.folder) == "string" then
    table.insert(parts, "in " .. vim.fn.fnamemodify(asker.folder, ":~"))
  end
  return table.concat(parts, " ")
end

--- The notice of a flow shown without the focus.
local function on_show(F, focus)
  if not focus then
    notify(
      "askd: " .. M.described(F.entry) .. " waits: :Askd to answer",
      vim.log.levels.INFO
    )
  end
end

--- Why the hub connection ended, in words: what `askd hub --pipe` said last on its standard
--- error (`askd: the hub at ws://… went away (…)`), else the connection's own message.
local function went_away(client, message)
  local said = client.stderr[#client.stderr]
  if type(said) == "string" and said:find("^askd: the hub ") then
    return (said:gsub("^askd: ", ""))
  end
  return message
end

local list_waiting
local reconcile

--- Queues a flow of the hub (an entry of `sessions` or `session/opened`) unless it is known
--- or not open.
local function arrived(entry)
  if not hub or type(entry) ~= "table" or type(entry.session) ~= "string" then
    return
  end
  if entry.status ~= "open" and entry.status ~= nil then
    return
  end
  local I = internal()
  if I.flow_of(entry.session, hub.client) or hub.dismissed[entry.session] then
    return
  end
  local config = askd().config
  local F
  F = {
    id = entry.session,
    own = false,
    entry = entry,
    client = hub.client,
    max_width = config.width,
    keymap = config.keymap,
    frame = { border = config.border },
    finished = false,
    closing = false,
    on_show = on_show,
    on_done = function()
      -- A float the person closed stays off this editor until `:Askd` lists the hub again.
      if F.dismissed and hub then
        hub.dismissed[F.id] = true
      end
      -- A flow that ends here may have hidden one whose notice the hub did not send.
      reconcile()
    end,
  }
  I.enqueue(F, false)
end

--- The hub's notifications: flows arriving, changing, ending.
local function on_notify(method, params)
  if type(params) ~= "table" then
    return
  end
  local I = internal()
  if method == "session/opened" then
    arrived(params)
    -- Flows opened at once by other connections: the list catches any whose own
    -- `session/opened` did not come.
    reconcile()
    return
  end
  local F = hub and I.flow_of(params.session, hub.client)
  if not F then
    return
  end
  if method == "session/changed" then
    I.on_step(F, nil, params)
  elseif method == "session/closed" then
    I.deliver(F, nil, nil)
  end
end

--- Oldest first, by `openedAt` when the hub says it.
local function by_opening(list)
  local sorted = {}
  for i, entry in ipairs(list) do
    sorted[i] = { entry = entry, index = i }
  end
  table.sort(sorted, function(a, b)
    local ta, tb = tonumber(a.entry.openedAt), tonumber(b.entry.openedAt)
    if ta and tb and ta ~= tb then
      return ta < tb
    end
    return a.index < b.index
  end)
  local out = {}
  for i, item in ipairs(sorted) do
    out[i] = item.entry
  end
  return out
end

--- Asks the hub for the flows it holds and queues the open ones not shown.
list_waiting = function()
  if not hub then
    return
  end
  hub.client:request("sessions", vim.empty_dict(), function(err, list)
    if not err and type(list) == "table" then
      for _, entry in ipairs(by_opening(list)) do
        arrived(entry)
      end
    end
  end)
end

--- Lists the hub's flows again shortly (once for a burst of events).
reconcile = function()
  if not hub or hub.reconciling then
    return
  end
  hub.reconciling = true
  vim.defer_fn(function()
    if hub then
      hub.reconciling = false
      list_waiting()
    end
  end, RECONCILE_MS)
end

--- Connects to the hub and shows the flows waiting there and every one that arrives; true,
--- or false and the reason. Attached already: true. `opts.on_attached(err)` runs once the hub
--- has answered (`err` nil) or failed.
function M.attach(opts)
  opts = opts or {}
  if hub then
    return true
  end
  local I = internal()
  I.init()
  local argv = command()
  if argv == nil then
    local problem = require("askd.locate").engine_missing()
    notify(problem, vim.log.levels.ERROR)
    return false, problem
  end
  -- Attached (again): no need to watch for a hub any more.
  require("askd.rejoin").stop()
  local client
  client = rpc.new(argv, function(message)
    if hub and hub.client == client then
      hub = nil
      local reason = went_away(client, message)
      local engine = not askd().config.attach_cmd and I.engine() or nil
      if engine then
        -- The agents' hub: the next one is watched for, and attached to by itself.
        notify(
          "askd: detached from the hub: "
            .. reason
            .. "; attaching again when a hub runs (:Askd detach stops)",
          vim.log.levels.WARN
        )
        require("askd.rejoin").start(engine, function()
          notify("askd: a hub runs again; attaching to it", vim.log.levels.INFO)
          M.attach()
        end)
      else
        notify(
          "askd: detached from the hub: " .. reason .. "; :Askd attaches again",
          vim.log.levels.WARN
        )
      end
    end
    -- Its flows leave this editor (the hub, when it comes back, still has them).
    local flows = internal()
    for _, F in ipairs(flows.all()) do
      if F.client == client and not F.finished then
        flows.deliver(F, nil, nil)
      end
    end
  end, on_notify, askd().config.attach_cmd and "attach_cmd" or "cmd")
  local ok, err = client:start()
  if not ok then
    notify(err, vim.log.levels.ERROR)
    return false, err
  end
  hub = { client = client, dismissed = {} }
  local config = askd().config
  local width = I.engine_width(require("askd.ui").width(config.width, config.border))
  client:request("initialize", { clientInfo = { name = "neovim" } }, function() end)
  client:request("subscribe", { attach = true, width = width }, function(serr, list)
    if serr then
      notify("askd: the hub refused to attach: " .. tostring(serr.message), vim.log.levels.ERROR)
      if opts.on_attached then
        opts.on_attached(serr.message)
      end
      return
    end
    for _, entry in ipairs(by_opening(type(list) == "table" and list or {})) do
      arrived(entry)
    end
    -- Flows a stopped hub left unfinished are offered: the person is told (once).
    require("askd.recovery").announce(client, "hub")
    if opts.on_attached then
      opts.on_attached(nil)
    end
  end)
  return true
end

--- Stops showing the hub's flows: the connection closes; the flows stay in the hub.
function M.detach()
  -- Watching for the next hub: it stops too.
  local watched = require("askd.rejoin").stop()
  if not hub then
    return watched
  end
  local client = hub.client
  hub = nil
  local I = internal()
  local shown = {}
  for _, F in ipairs(I.all()) do
    if F.client == client then
      table.insert(shown, F)
    end
  end
  for _, F in ipairs(shown) do
    I.deliver(F, nil, nil)
  end
  client:stop()
  return true
end

--- The job id of the hub connection's process (for tests), nil when not attached.
function M.job()
  return hub and hub.client.job or nil
end

--- The hub connection's client while attached, else nil.
function M.client()
  return hub and hub.client or nil
end

--- Whether the plugin is attached to the hub.
function M.attached()
  return hub ~= nil
end

--- `:Askd`: enters the flow in front when one shows; else attaches when not attached, or
--- lists the hub's waiting flows again.
function M.command(args)
  if args == "recover" then
    askd().recover()
    return
  end
  if args == "detach" then
    if not M.detach() then
      notify("askd: not attached", vim.log.levels.INFO)
    end
    return
  end
  if args ~= nil and args ~= "" then
    notify(
      'askd: unknown :Askd argument "' .. args .. '" (none, recover or detach)',
      vim.log.levels.ERROR
    )
    return
  end
  -- A flow shown (the plugin's own or the hub's) is entered first.
  if askd().focus() then
    return
  end
  if not hub then
    M.attach()
    return
  end
  hub.dismissed = {}
  list_waiting()
  notify("askd: attached to the hub; no question waits", vim.log.levels.INFO)
end

return M
