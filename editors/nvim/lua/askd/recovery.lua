-- Recovery: the flows an askd that stopped (killed, or gone with Neovim) left unfinished.
--
-- askd keeps every open flow in its state directory and, in a later process, *offers* the
-- unfinished ones (`sessions` lists them as `recovered`); nothing is resumed or deleted unless
-- a client asks. The plugin tells the person once, in a notice, when the engine it starts or
-- the hub it attaches to offers flows it has not told of yet, and `:Askd recover` (or
-- `recover()`) lists them: what each asked, when it was last saved, how far it got. A flow
-- resumed shows in the float exactly where it was (draft, caret, tab); one is discarded only
-- on the person's word, confirmed; one left stays offered.

local M = {}

--- The offers the person was told of, by id and last save: each is told of once.
local told = {}

local function askd()
  return require("askd")
end

local function internal()
  return askd()._internal
end

local function notify(message, level)
  internal().notify(message, level)
end

--- How long ago, in words, from milliseconds.
function M.age(ms)
  ms = tonumber(ms) or 0
  local minutes = math.floor(ms / 60000)
  if minutes < 1 then
    return "less than a minute ago"
  end
  local function count(n, unit)
    return string.format("%d %s%s ago", n, unit, n == 1 and "" or "s")
  end
  if minutes < 60 then
    return count(minutes, "minute")
  end
  local hours = math.floor(minutes / 60)
  if hours < 24 then
    return count(hours, "hour")
  end
  return count(math.floor(hours / 24), "day")
end

--- One offer in words: what it asked, who asked, when it was last saved, how far it got.
function M.describe(entry)
  local parts = { require("askd.attach").described(entry) }
  table.insert(parts, "saved " .. M.age(entry.ageMs))
  local progress = type(entry.progress) == "table" and entry.progress or nil
  if progress and tonumber(progress.total) then
    table.insert(
      parts,
      string.format("%d of %d answered", tonumber(progress.answered) or 0, progress.total)
    )
  end
  if entry.typed then
    table.insert(parts, "text typed")
  end
  return table.concat(parts, ", ")
end

--- The notice of offers not told of yet.
local function notice(entries)
  if #entries == 1 then
    return "askd: a flow was left unfinished when askd stopped: "
      .. M.describe(entries[1])
      .. ". :Askd recover resumes or discards it"
  end
  local lines =
    { string.format("askd: %d flows were left unfinished when askd stopped:", #entries) }
  for _, entry in ipairs(entries) do
    table.insert(lines, "  " .. M.describe(entry))
  end
  table.insert(lines, ":Askd recover resumes or discards them")
  return table.concat(lines, "\n")
end

--- The offers among the entries of a `sessions` answer, each with its `source`.
local function recovered(list, source)
  local offers = {}
  for _, entry in ipairs(type(list) == "table" and list or {}) do
    local offered = type(entry) == "table" and entry.status == "recovered"
    if offered and type(entry.session) == "string" then
      local offer = vim.deepcopy(entry)
      offer.source = source
      table.insert(offers, offer)
    end
  end
  return offers
end

local function key(entry)
  return entry.session .. "\0" .. tostring(entry.savedAt)
end

--- Tells the person of the offers of `client` (the engine just started, or the hub just
--- attached to; `source`: "engine" or "hub") not told of before. `done()` (optional) runs once
--- the answer has been handled.
function M.announce(client, source, done)
  client:request("sessions", vim.empty_dict(), function(err, list)
    if not err then
      local fresh = {}
      for _, entry in ipairs(recovered(list, source)) do
        if not told[key(entry)] then
          told[key(entry)] = true
          table.insert(fresh, entry)
        end
      end
      if #fresh > 0 then
        notify(notice(fresh), vim.log.levels.INFO)
      end
    end
    if done then
      done()
    end
  end)
end

--- The connections that may hold offers: the hub's when attached, and the engine's
--- (started when it does not run). Each is `{ client, source }`.
local function sources()
  local list = {}
  local I = internal()
  local hub = require("askd.attach").client()
  if hub then
    table.insert(list, { client = hub, source = "hub" })
  end
  local engine, problem = I.ensure_client()
  if engine then
    table.insert(list, { client = engine, source = "engine" })
  end
  return list, problem
end

--- Lists the offers of the hub (when attached) and of the engine, oldest first;
--- `callback(offers)`, each an entry of `sessions` with `source` ("hub" or "engine"). Every
--- offer listed counts as told of. With neither (the engine cannot start, and not attached):
--- `callback({}, message)`.
function M.offers(callback)
  local list, problem = sources()
  local pending = #list
  local found = {}
  if pending == 0 then
    vim.schedule(function()
      callback({}, problem)
    end)
    return
  end
  for _, from in ipairs(list) do
    from.client:request("sessions", vim.empty_dict(), function(err, answer)
      if not err then
        for _, entry in ipairs(recovered(answer, from.source)) do
          told[key(entry)] = true
          table.insert(found, entry)
        end
      end
      pending = pending - 1
      if pending == 0 then
        -- Oldest first, as the engine lists them: by when they opened.
        table.sort(found, function(a, b)
          local ta = tonumber(a.openedAt) or tonumber(a.savedAt) or 0
          local tb = tonumber(b.openedAt) or tonumber(b.savedAt) or 0
          return ta < tb
        end)
        callback(found)
      end
    end)
  end
end

--- The client of an offer's source, nil when it is gone.
local function client_of(source)
  if source == "hub" then
    return require("askd.attach").client()
  end
  return internal().ensure_client()
end

--- Finds the offer `session` (in `source` when given); `callback(offer or nil)`.
local function find(session, source, callback)
  M.offers(function(offers, problem)
    for _, offer in ipairs(offers) do
      if offer.session == session and (source == nil or offer.source == source) then
        return callback(offer)
      end
    end
    callback(nil, problem)
  end)
end

--- Shows a resumed flow (the Step `recover` answered) in the float, taking the focus.
local function show(offer, client, step, width, on_done)
  local I = internal()
  local config = askd().config
  if step.status == "done" then
    on_done(step.result, nil)
    return
  end
  -- The hub may have announced it already (`session/opened`): it is shown as it came.
  local shown = I.flow_of(step.session, client)
  if shown then
    local before = shown.on_done
    shown.on_done = function(result, message)
      before(result, message)
      on_done(result, message, shown)
    end
    if I.front() == shown then
      askd().focus()
    end
    return
  end
  local F = {
    id = step.session,
    own = offer.source ~= "hub",
    entry = offer,
    client = client,
    max_width = config.width,
    keymap = config.keymap,
    frame = { border = config.border },
    finished = false,
    closing = false,
    resumed = true,
    accepted = true,
    version = tonumber(step.version),
    view = step.view,
  }
  F.on_done = function(result, message)
    on_done(result, message, F)
  end
  F.asked_width = width
  if F.own then
    -- Keys another client of the engine presses come as `session/changed`.
    client:request("subscribe", { session = F.id }, function() end)
  end
  I.enqueue(F, true)
end

--- Resumes the offer `session` in the float, exactly where it was. `opts`: `{ source? }`
--- ("hub" or "engine": where it is offered; by default wherever it is). `on_done(result)` runs
--- once when the flow completes, or `on_done(nil, message)` when it cannot be resumed or fails.
function M.recover(session, opts, on_done)
  opts = opts or {}
  on_done = on_done or function() end
  internal().init()
  find(session, opts.source, function(offer, problem)
    if not offer then
      local message = problem or string.format('askd: no unfinished flow "%s" is offered', session)
      notify(message, vim.log.levels.ERROR)
      return on_done(nil, message)
    end
    local client = client_of(offer.source)
    if not client then
      local message = "askd: the hub went away before the flow was resumed"
      notify(message, vim.log.levels.ERROR)
      return on_done(nil, message)
    end
    local I = internal()
    local config = askd().config
    local params = {
      session = offer.session,
      width = I.engine_width(require("askd.ui").width(config.width, config.border)),
    }
    -- A flow of this id open here: the offer comes back under another id.
    if I.flow_of(offer.session, client) then
      params["as"] = offer.session .. "-recovered"
    end
    client:request("recover", params, function(err, step)
      if err then
        local message = "askd: " .. tostring(err.message)
        notify(message, vim.log.levels.ERROR)
        return on_done(nil, message)
      end
      show(offer, client, step, params.width, on_done)
    end)
  end)
end

--- Drops the offer `session` and its files, for good; `callback(discarded)` (false when no
--- offer has that id), or `callback(nil, message)` on failure. `opts`: `{ source? }`.
function M.discard(session, opts, callback)
  opts = opts or {}
  callback = callback or function() end
  find(session, opts.source, function(offer, problem)
    if not offer then
      if problem then
        return callback(nil, problem)
      end
      return callback(false)
    end
    local client = client_of(offer.source)
    if not client then
      return callback(nil, "askd: the hub went away before the flow was discarded")
    end
    client:request("discard", { session = offer.session }, function(err, answer)
      if err then
        return callback(nil, "askd: " .. tostring(err.message))
      end
      callback(type(answer) == "table" and answer.discarded == true)
    end)
  end)
end

--- What a resumed flow answered, echoed for the person (no asker waits for it any more).
local function echo_result(result, message, F)
  if message or not result then
    return
  end
  -- The summary an agent would receive (as :AskdDemo echoes it), else the chat log's line.
  local content = type(result) == "table" and result.content
  local text = type(content) == "table" and content[1] and content[1].text or nil
  if type(text) ~= "string" then
    text = F and F.transcript and F.transcript.result
  end
  if type(text) == "string" and text ~= "" then
    vim.api.nvim_echo({ { text } }, true, {})
  end
end

--- The choices offered for one flow.
M.ACTIONS = { "Resume", "Discard", "Leave" }
M.CONFIRM = { "Discard it: what it holds is lost", "Keep it" }

--- Asks what to do with one offer: Resume, Discard (confirmed), Leave.
local function act(offer)
  local what = M.describe(offer)
  vim.ui.select(M.ACTIONS, { prompt = "askd: " .. what }, function(choice)
    if choice == "Resume" then
      M.recover(offer.session, { source = offer.source }, echo_result)
    elseif choice == "Discard" then
      vim.ui.select(M.CONFIRM, { prompt = "askd: discard " .. what .. "?" }, function(sure)
        if sure ~= M.CONFIRM[1] then
          return
        end
        M.discard(offer.session, { source = offer.source }, function(discarded, message)
          if message then
            notify(message, vim.log.levels.ERROR)
          elseif discarded then
            local what_it_was = require("askd.attach").described(offer)
            notify("askd: discarded " .. what_it_was, vim.log.levels.INFO)
          else
            notify(
              "askd: " .. require("askd.attach").described(offer) .. " is no longer offered",
              vim.log.levels.WARN
            )
          end
        end)
      end)
    end
  end)
end

--- `:Askd recover`: lists the offers with `vim.ui.select`, then asks what to do with the one
--- chosen.
function M.pick()
  internal().init()
  M.offers(function(offers, problem)
    if problem and #offers == 0 then
      notify(problem, vim.log.levels.ERROR)
      return
    end
    if #offers == 0 then
      notify("askd: no unfinished flow to recover", vim.log.levels.INFO)
      return
    end
    vim.ui.select(offers, {
      prompt = "askd: unfinished flows",
      format_item = M.describe,
    }, function(offer)
      if offer then
        act(offer)
      end
    end)
  end)
end

return M
