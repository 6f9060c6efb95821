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
-- Every flow whose window is open, or that waits for it, or whose result is awaited, as a
-- set of flow states.
local flows = {}
-- The flow in front: the one whose float is open (at most one at a time).
local front = nil
-- The flows waiting for the float, oldest first.
local waiting = {}
local initialized = false
-- Session ids the plugin makes: `nvim-<pid>-1`, `nvim-<pid>-2`, … (the process id keeps one
-- Neovim's flows apart from another's in an engine they share; an unfinished flow a killed
-- engine left is only offered, never resumed by an `open` of its id).
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

--- The most bytes one paste gathers before it is sent whole: past it the paste is refused
--- whole, so that its request stays well within the engine's message limit (1 MiB by
--- default; the text of an editor is limited to 64 KiB by default anyway).
M.PASTE_MAX_BYTES = 512 * 1024

local function notify(message, level)
  vim.notify(message, level, { title = "askd" })
end

--- Notifies on the next turn of the main loop: never inside the caller's own call (Neovim
--- 0.10 and later show an error notification as `:echoerr` does, which a `:try` or a
--- `pcall(vim.cmd, ...)` around the caller would turn into an error).
local function notify_later(message, level)
  vim.schedule(function()
    notify(message, level)
  end)
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

--- The flow of a session id, among those not finished (of one engine's client when given:
--- the hub's sessions and the local engine's may share ids).
local function flow_of(id, of_client)
  for F in pairs(flows) do
    if F.id == id and not F.finished and (of_client == nil or F.client == of_client) then
      return F
    end
  end
  return nil
end

local draw
local show
local input_hooks

--- Redraws the flow in front (how many wait is part of its screen).
local function redraw_front()
  if front then
    draw(front)
  end
end

--- Takes a flow off the queue of those waiting for the float.
local function unqueue(F)
  for i, other in ipairs(waiting) do
    if other == F then
      table.remove(waiting, i)
      redraw_front()
      return
    end
  end
end

--- Brings the oldest waiting flow to the front, when nothing is there. `focus`: whether it
--- takes the focus (the flow before it had it).
local function promote(focus)
  if front or #waiting == 0 then
    return
  end
  local F = table.remove(waiting, 1)
  show(F, focus)
end

--- Takes a flow off the screen: its window closes (or it leaves the queue), and the next
--- waiting flow comes to the front, with the focus when this one had it.
local function retire(F)
  stop_timer(F)
  if front == F then
    local had_focus = F.win ~= nil and vim.api.nvim_get_current_win() == F.win
    front = nil
    ui.close(F.win, F.buf)
    promote(had_focus)
  else
    unqueue(F)
  end
end

--- Ends a flow: the window closes, the engine forgets the session, `on_done` runs once and
--- `User AskdDone` fires; the next waiting flow comes to the front.
local function deliver(F, result, message)
  F.finished = true
  flows[F] = nil
  retire(F)
  -- A session the engine never took (an `ask` it refused) is not this flow's to close: it
  -- may be another flow's of the same id.
  if F.own and F.accepted and not F.close_sent and F.client and F.client:running() then
    F.close_sent = true
    F.client:request("close", { session = F.id }, function() end)
  end
  local ok, err = pcall(F.on_done, result, message)
  if not ok then
    notify("askd: on_done failed: " .. tostring(err), vim.log.levels.ERROR)
  end
  emit("AskdDone", { session = F.id, result = result, error = message })
  input_hooks()
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
  if F.finished or F.closing or not F.view or F ~= front then
    return
  end
  F.frame.waiting = #waiting
  -- A float shown without the focus says how to enter it.
  F.frame.enter_hint = vim.api.nvim_get_current_win() ~= F.win
  local ok, err = pcall(ui.draw, F.buf, F.win, F.view, F.frame)
  if not ok then
    fail(F, "askd: cannot draw the flow: " .. tostring(err))
    return
  end
  tick(F)
end

--- Takes a Step of the flow's session (a reply or a `session/changed`) unless an earlier
--- one than the Step drawn already. True when it was taken.
local function take_step(F, step)
  if type(step) ~= "table" or type(step.view) ~= "table" then
    return false
  end
  local version = tonumber(step.version)
  if version and F.version and version < F.version then
    return false
  end
  F.version = version or F.version
  F.view = step.view
  return true
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
  -- A Step of the session: the engine took this flow's `ask` (a refused one is answered
  -- before any later request).
  F.accepted = true
  if not take_step(F, step) then
    return
  end
  if step.status == "done" then
    F.transcript = step.transcript
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

--- A click (`<LeftMouse>`, with 'mouse' on): in the float, on a part of the screen that the
--- view's `lineTargets` name, `activate` with its target (the buffer's line and the display
--- column under the mouse, wherever the float's view stands); elsewhere in the float, nothing;
--- outside the float, what the click does in Neovim.
local function click(F)
  local pos = vim.fn.getmousepos()
  if pos.winid ~= F.win then
    local key = vim.api.nvim_replace_termcodes(keys.CLICK, true, false, true)
    vim.api.nvim_feedkeys(key, "n", false)
    return
  end
  if not live(F) or not F.view or pos.line < 1 or pos.column < 1 then
    return
  end
  local text = vim.api.nvim_buf_get_lines(F.buf, pos.line - 1, pos.line, false)[1] or ""
  -- Display cells before the character under the mouse (a wide character takes two).
  local column = vim.fn.strdisplaywidth(text:sub(1, pos.column - 1))
  local target = ui.target_at(F.view, F.frame, pos.line, column)
  if target then
    F.client:request("activate", { session = F.id, target = target }, function(err, step)
      on_step(F, err, step)
    end)
  end
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
  local text = table.concat(vim.fn.getreg(name, 1, true), "\n")
  if #text > M.PASTE_MAX_BYTES then
    notify(
      string.format(
        "askd: register %s holds %d bytes; a paste holds at most %d: nothing was pasted",
        name,
        #text,
        M.PASTE_MAX_BYTES
      ),
      vim.log.levels.WARN
    )
    return
  end
  send_paste(F, text)
end

--- One phase of a bracketed paste into the float (see `vim.paste`): the chunks of a paste
--- are gathered and sent as one text when it ends, so that the engine takes it whole or
--- refuses it whole (a limit), never a part of it.
local function paste_phase(F, lines, phase)
  local text = table.concat(lines, "\n")
  if phase == -1 then
    F.paste_warned = false
    F.pasting = { parts = {}, bytes = 0 }
  elseif phase == 1 or not F.pasting then
    F.paste_warned = false
    F.pasting = { parts = {}, bytes = 0 }
  end
  local pasting = F.pasting
  if not pasting.over then
    pasting.bytes = pasting.bytes + #text
    if pasting.bytes > M.PASTE_MAX_BYTES then
      pasting.over = true
      pasting.parts = {}
    else
      table.insert(pasting.parts, text)
    end
  else
    pasting.bytes = pasting.bytes + #text
  end
  if phase == -1 or phase == 3 then
    F.pasting = nil
    if pasting.over then
      notify(
        string.format(
          "askd: the paste holds %d bytes; a paste holds at most %d: nothing was pasted",
          pasting.bytes,
          M.PASTE_MAX_BYTES
        ),
        vim.log.levels.WARN
      )
    else
      send_paste(F, table.concat(pasting.parts))
    end
  end
end

local function flow_for_buf(buf)
  if front and front.buf == buf and live(front) then
    return front
  end
  return nil
end

--- Tells the engine that a flow's window went away: the flow ends as closed by the client
--- (the pending `ask` answers with that result), then the engine forgets the session; the
--- engine answers requests in order.
local function cancel_closed(F)
  F.close_sent = true
  F.client:request("cancel", { session = F.id, reason = "closed" }, function(err, step)
    -- No `ask` waits on a resumed flow (see `askd.recovery`): the cancel's Step ends it.
    if F.resumed then
      on_step(F, err, step)
    end
  end)
  F.client:request("close", { session = F.id }, function() end)
end

--- The float or its buffer went away (or the handle closed the flow): the pending `ask`
--- answers with the flow's result (cancelled, reason `closed`).
local function gone(F)
  if not live(F) then
    return
  end
  F.closing = true
  retire(F)
  if not F.client:running() then
    fail(F, "askd is not running")
  elseif F.own then
    cancel_closed(F)
  else
    -- A flow of another client (attached): its asker still waits for an answer; it is
    -- only taken off this editor.
    F.dismissed = true
    deliver(F, nil, nil)
  end
end

--- A window that is not a float, to show a buffer that was put into the float: the window
--- the flow was opened from when it is still there, else the first one of the tab page.
local function editing_window(F)
  if F.origin and vim.api.nvim_win_is_valid(F.origin) then
    return F.origin
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_config(win).relative == "" then
      return win
    end
  end
  return nil
end

--- Puts the flow's buffer back into its float when something else was shown there (an
--- `:edit`, a `--remote` file, a plugin's `:buffer`), and shows that other buffer in an
--- editing window instead, so that it is where the user asked for it and the keys of the
--- float never edit it.
local function restore_buffers()
  local F = front
  if
    not F
    or not live(F)
    or not vim.api.nvim_win_is_valid(F.win)
    or not vim.api.nvim_buf_is_valid(F.buf)
  then
    return
  end
  local shown = vim.api.nvim_win_get_buf(F.win)
  if shown == F.buf then
    return
  end
  if not pcall(vim.api.nvim_win_set_buf, F.win, F.buf) then
    return
  end
  local target = editing_window(F)
  if target and vim.api.nvim_buf_is_valid(shown) then
    pcall(vim.api.nvim_win_set_buf, target, shown)
  end
end

--- Restores the float's buffer now and once more after the command that replaced it has
--- run to its end (`:edit` of a file not loaded yet reads it after `BufWinEnter`).
local function guard_buffer()
  restore_buffers()
  vim.schedule(restore_buffers)
end

--- The float shows its screen from its first line: nothing scrolls it away (the screen is
--- never taller than the float).
local function keep_view()
  local F = front
  if F and live(F) and vim.api.nvim_win_is_valid(F.win) then
    ui.reset_view(F.win)
  end
end

local function engine_width(width)
  return math.max(layout.MIN_WIDTH, width)
end

local function on_resized()
  local F = front
  if not F or not live(F) then
    return
  end
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

--- Fails the flows of an engine that exited.
local function on_client_exit(exited, message)
  local failed = {}
  for F in pairs(flows) do
    if F.client == exited then
      table.insert(failed, F)
    end
  end
  -- The flow in front last, so that no failing flow is brought to the front meanwhile.
  table.sort(failed, function(a, b)
    return a ~= front and b == front
  end)
  for _, F in ipairs(failed) do
    fail(F, message)
  end
end

--- What other clients of the engine did to a flow of this one: a key pressed in a browser
--- on the same session redraws the float at once.
local function on_notify(method, params)
  if type(params) ~= "table" then
    return
  end
  if M._on_notify and M._on_notify(method, params) then
    return
  end
  local F = flow_of(params.session, client)
  if not F then
    return
  end
  if method == "session/changed" then
    on_step(F, nil, params)
  elseif method == "session/closed" and not F.own then
    deliver(F, nil, nil)
  end
end

local typed_ns = vim.api.nvim_create_namespace("askd.typed")
local paste_of_neovim = nil
local paste_of_askd = nil

--- Text typed outside ASCII goes to the flow in front (Neovim maps no such key).
local function on_typed(raw)
  local text = keys.typed_text(raw)
  if not text or vim.api.nvim_get_mode().mode ~= "n" then
    return
  end
  local F = flow_for_buf(vim.api.nvim_get_current_buf())
  if F then
    send_text(F, text)
  end
end

--- Hooks Neovim's typed text and `vim.paste` while a flow is open, and only then: with no
--- flow open, Neovim's own `vim.paste` is in place.
input_hooks = function()
  local open = next(flows) ~= nil
  if open and not paste_of_askd then
    vim.on_key(on_typed, typed_ns)
    local paste = vim.paste
    paste_of_neovim = paste
    paste_of_askd = function(lines, phase)
      local F = flow_for_buf(vim.api.nvim_get_current_buf())
      if not F then
        return paste(lines, phase)
      end
      paste_phase(F, lines, phase)
      return true
    end
    vim.paste = paste_of_askd
  elseif not open and paste_of_askd then
    vim.on_key(nil, typed_ns)
    -- Put back only when nobody wrapped it since; a wrapper around ours still works (with
    -- no flow open it passes every paste on).
    if vim.paste == paste_of_askd then
      vim.paste = paste_of_neovim
      paste_of_askd, paste_of_neovim = nil, nil
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
  vim.api.nvim_create_autocmd(
    { "BufWinEnter", "BufEnter" },
    { group = group, callback = guard_buffer }
  )
  vim.api.nvim_create_autocmd("WinScrolled", { group = group, callback = keep_view })
  -- The float never holds a selection: a Visual mode that starts in it (a double click whose
  -- first click Neovim took as its own, say) is left at once.
  vim.api.nvim_create_autocmd("ModeChanged", {
    group = group,
    pattern = "*:[vV\22]*",
    callback = function()
      local F = front
      if F and live(F) and vim.api.nvim_get_current_win() == F.win then
        local esc = vim.api.nvim_replace_termcodes("<Esc>", true, false, true)
        vim.api.nvim_feedkeys(esc, "n", false)
      end
    end,
  })
  -- The float says how to enter it while it has no focus.
  vim.api.nvim_create_autocmd("WinEnter", {
    group = group,
    callback = function()
      local F = front
      if F and live(F) and F.frame.enter_hint ~= (vim.api.nvim_get_current_win() ~= F.win) then
        draw(F)
      end
    end,
  })
  vim.api.nvim_create_autocmd("ColorScheme", {
    group = group,
    callback = function()
      ui.define_highlights()
    end,
  })
end

--- The engine's client, started; nil and the reason when it cannot start. Also true when
--- this call started its process.
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
    end, on_notify)
    client = created
  end
  local started = not client:running()
  local ok, err = client:start()
  if not ok then
    return nil, err
  end
  return client, nil, started
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
      vim.keymap.set({ "n", "v" }, binding[1], "<Nop>", map_opts)
    elseif binding.action == "click" then
      vim.keymap.set("n", binding[1], function()
        click(F)
      end, map_opts)
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

--- Reports a flow that could not start (no window was opened): the notification and
--- `on_done(nil, message)` come on the next turn of the main loop, after `ask` has returned.
local function refuse(F, message)
  F.finished = true
  notify_later(message, vim.log.levels.ERROR)
  vim.schedule(function()
    local ok, err = pcall(F.on_done, nil, message)
    if not ok then
      notify("askd: on_done failed: " .. tostring(err), vim.log.levels.ERROR)
    end
  end)
end

--- Opens the float of a flow and brings it to the front. `focus`: the float takes the focus
--- (every key typed from then on reaches the flow); else it shows beside the user's work,
--- and `:Askd` (or `require("askd").focus()`) enters it.
show = function(F, focus)
  local origin = vim.api.nvim_get_current_win()
  F.frame.width = ui.width(F.max_width, F.frame.border)
  local opened, buf, win = pcall(ui.open, F.frame.width, F.frame.border, focus)
  if not opened then
    fail(F, "askd: cannot open the flow window: " .. tostring(buf))
    return
  end
  front = F
  F.origin = origin
  F.buf, F.win = buf, win
  map_keys(F)
  watch(F)
  emit("AskdOpen", { session = F.id })
  if F.on_show then
    F.on_show(F, focus)
  end
  local params = { session = F.id, width = engine_width(F.frame.width) }
  if F.asked_width ~= params.width then
    -- The Steps of this connection come at the float's width (a flow of the hub, or one that
    -- waited while the editor was resized).
    F.client:request("subscribe", params, function() end)
  end
  F.client:request("getView", params, function(err, view)
    if err or not live(F) then
      return
    end
    F.accepted = true
    if view.status ~= "done" then
      F.view = view
      draw(F)
    end
  end)
end

--- Puts a flow in front, or in the queue behind the flow in front (which then says how
--- many wait).
local function enqueue(F, focus)
  flows[F] = true
  input_hooks()
  if front then
    table.insert(waiting, F)
    redraw_front()
  else
    show(F, focus)
  end
end

--- Sends a flow's `ask`, then shows it (in front, or queued), the float taking the focus.
local function start(F, payload, opts)
  if F.finished then
    return
  end
  init()
  local engine, problem, started = ensure_client()
  if not engine then
    refuse(F, problem)
    return
  end
  if flow_of(F.id, engine) then
    refuse(
      F,
      string.format(
        'askd: session "%s" is in use by an open flow; this ask is refused, and that flow goes on',
        F.id
      )
    )
    return
  end
  F.client = engine
  local params = {
    payload = payload,
    session = F.id,
    width = engine_width(ui.width(F.max_width, F.frame.border)),
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
  F.asked_width = params.width
  engine:request("ask", params, function(err, result)
    if F.finished then
      return
    end
    local value, message = ask_result(F, err, result)
    if not err or value then
      F.accepted = true
    end
    if message then
      fail(F, message)
    else
      finish(F, value)
    end
  end)
  -- Changes made by other clients of the engine (a browser on the same session) come as
  -- `session/changed`.
  engine:request("subscribe", { session = F.id }, function() end)
  if started then
    -- Flows a stopped askd left unfinished are offered: the person is told (once).
    require("askd.recovery").announce(engine, "engine")
  end
  enqueue(F, true)
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
--- context; never raises. Returns a handle `{ session, close(), abort() }`.
function M.ask(payload, opts, on_done)
  if type(opts) == "function" then
    opts, on_done = nil, opts
  end
  if type(opts) ~= "table" then
    opts = {}
  end
  on_main_loop(function()
    for _, warning in ipairs(config.unknown(opts, config.ASK_KEYS, "ask")) do
      notify_later(warning, vim.log.levels.WARN)
    end
  end)
  local id = opts.session
  if id == nil then
    session_count = session_count + 1
    id = "nvim-" .. uv.os_getpid() .. "-" .. session_count
  end
  local border = opts.border or M.config.border
  local max_width = opts.width or M.config.width
  local F = {
    id = id,
    own = true,
    dialect = opts.dialect,
    on_done = type(on_done) == "function" and on_done or function() end,
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
    local ok, err = pcall(start, F, payload, opts)
    if not ok and not F.finished then
      refuse(F, "askd: " .. tostring(err))
    end
  end)
  return handle
end

--- How many flows wait behind the one in front.
function M.waiting()
  return #waiting
end

--- Connects to the hub and shows each flow that arrives there (see `askd.attach`).
function M.attach(opts)
  return require("askd.attach").attach(opts)
end

--- Stops showing the hub's flows (they stay in the hub for other clients).
function M.detach()
  return require("askd.attach").detach()
end

--- The unfinished flows a stopped askd left, offered by the engine and the hub (when
--- attached): `callback(offers)`, each an entry of the engine's `sessions` (status
--- `recovered`) with `source` ("engine" or "hub"). See `askd.recovery`.
function M.offers(callback)
  return require("askd.recovery").offers(callback)
end

--- Resumes an unfinished flow in the float exactly where it was; without `session`, lists
--- them to choose from (`:Askd recover`). `opts`: `{ source? }`; `on_done(result)` as for
--- `ask`.
function M.recover(session, opts, on_done)
  if session == nil then
    return require("askd.recovery").pick()
  end
  if type(opts) == "function" then
    opts, on_done = nil, opts
  end
  return require("askd.recovery").recover(session, opts, on_done)
end

--- Drops an unfinished flow and what it holds, for good: `callback(discarded)`.
function M.discard(session, opts, callback)
  if type(opts) == "function" then
    opts, callback = nil, opts
  end
  return require("askd.recovery").discard(session, opts, callback)
end

--- Enters the float of the flow in front (it takes the focus); false when no flow is open.
function M.focus()
  if front and live(front) and vim.api.nvim_win_is_valid(front.win) then
    vim.api.nvim_set_current_win(front.win)
    ui.leave_insert()
    return true
  end
  return false
end

-- For the attach module: the flow machinery it shares.
M._internal = {
  hub_job = function()
    return require("askd.attach").job()
  end,
  all = function()
    return vim.tbl_keys(flows)
  end,
  notify = notify,
  engine = function()
    return M.config.cmd or locate.engine()
  end,
  count = function()
    return vim.tbl_count(flows)
  end,
  client = function()
    return client
  end,
  ensure_client = function()
    init()
    return ensure_client()
  end,
  enqueue = enqueue,
  deliver = deliver,
  on_step = on_step,
  flow_of = flow_of,
  live = live,
  init = init,
  engine_width = engine_width,
  front = function()
    return front
  end,
  waiting = function()
    return waiting
  end,
  send_key = send_key,
}

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
