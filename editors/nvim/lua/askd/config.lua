-- The plugin's options: their defaults, the names `setup` and `ask` accept, and the engine
-- params they become.

local M = {}

--- Options of `setup`, with their defaults (`nil` ones are listed in `SETUP_KEYS`).
M.defaults = {
  -- The engine: nil runs `askd` from PATH, else the repository's own build.
  cmd = nil,
  -- Widest the float gets (columns, inside the border).
  width = 80,
  -- Border of the float, as for nvim_open_win ("none": the engine draws rules itself).
  border = "none",
  -- Keymap overrides sent with every flow: { ["main.toggle"] = { "x" } }.
  keymap = nil,
  -- A keymap preset of the engine ("vim"), applied before `keymap`.
  keymap_preset = nil,
  -- Whether the first Esc / Ctrl+C of a flow holding answers or drafts only warns.
  confirm_dismiss = true,
  -- Engine behaviour options, passed through: { profile = "pi-0.9", ... }.
  behaviour = nil,
  -- The hub connection of `attach()`: an argv whose standard input and output speak the
  -- protocol to the hub. nil: the engine as `askd hub --pipe` (the agents' hub, started when
  -- none runs).
  attach_cmd = nil,
}

--- Every option `setup` takes.
M.SETUP_KEYS = {
  "cmd",
  "width",
  "border",
  "keymap",
  "keymap_preset",
  "confirm_dismiss",
  "behaviour",
  "attach_cmd",
}

--- Every option `ask` takes: the per-flow ones of `setup`, and those of one flow only.
M.ASK_KEYS = {
  "width",
  "border",
  "keymap",
  "keymap_preset",
  "confirm_dismiss",
  "behaviour",
  "dialect",
  "session",
  "timeout_ms",
  "cwd",
  "params",
}

--- Levenshtein distance of two short strings.
local function distance(a, b)
  local previous = {}
  for j = 0, #b do
    previous[j] = j
  end
  for i = 1, #a do
    local current = { [0] = i }
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      current[j] = math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    end
    previous = current
  end
  return previous[#b]
end

--- The known name closest to `name`, when it is a likely typo of it.
local function closest(name, known)
  local best, best_distance = nil, 3
  for _, candidate in ipairs(known) do
    local d = distance(name, candidate)
    if d < best_distance then
      best, best_distance = candidate, d
    end
  end
  return best
end

--- Warnings for the keys of `opts` that are not in `known`, in sorted order:
--- `askd: unknown setup option "widht" (did you mean "width"?)`.
function M.unknown(opts, known, what)
  local set = {}
  for _, name in ipairs(known) do
    set[name] = true
  end
  local names = {}
  for key in pairs(opts or {}) do
    if not set[key] then
      table.insert(names, tostring(key))
    end
  end
  table.sort(names)
  local warnings = {}
  for _, name in ipairs(names) do
    local guess = closest(name, known)
    local hint = guess and string.format(' (did you mean "%s"?)', guess) or ""
    table.insert(warnings, string.format('askd: unknown %s option "%s"%s', what, name, hint))
  end
  return warnings
end

--- The `behaviour` param of a flow: the `behaviour` tables of `setup` and of the flow
--- merged (the flow's win), with `confirmDismissWhenDirty` from `confirm_dismiss` unless a
--- table sets it.
function M.behaviour(config, opts)
  local merged = vim.tbl_extend("force", config.behaviour or {}, opts.behaviour or {})
  if merged.confirmDismissWhenDirty == nil then
    local confirm = opts.confirm_dismiss
    if confirm == nil then
      confirm = config.confirm_dismiss
    end
    merged.confirmDismissWhenDirty = confirm ~= false
  end
  return merged
end

return M
