-- Which Neovim keys the flow window maps, and the askd key name each one sends.

local M = {}

--- Special keys: Vim notation → askd key name.
M.special = {
  { "<Space>", "space" },
  { "<CR>", "enter" },
  { "<Esc>", "escape" },
  { "<Tab>", "tab" },
  { "<S-Tab>", "shift+tab" },
  { "<Up>", "up" },
  { "<Down>", "down" },
  { "<Left>", "left" },
  { "<Right>", "right" },
  { "<BS>", "backspace" },
  { "<Del>", "delete" },
  { "<Home>", "home" },
  { "<End>", "end" },
  { "<PageUp>", "pageup" },
  { "<PageDown>", "pagedown" },
  { "<C-c>", "ctrl+c" },
  { "<C-a>", "ctrl+a" },
  { "<C-e>", "ctrl+e" },
  { "<C-w>", "ctrl+w" },
  { "<C-u>", "ctrl+u" },
  { "<C-d>", "ctrl+d" },
  { "<C-k>", "ctrl+k" },
  { "<C-Left>", "ctrl+left" },
  { "<C-Right>", "ctrl+right" },
  { "<M-b>", "alt+b" },
  { "<M-f>", "alt+f" },
  { "<M-BS>", "alt+backspace" },
  { "<S-CR>", "shift+enter" },
  { "<M-CR>", "alt+enter" },
}

--- Keys of Neovim's own that would take the float's buffer away or leave it (the jump list,
--- the alternate file, tags, help, tab pages), scroll its view away from the screen (the
--- screen always fits the float), or start a mode that would edit it (Visual block,
--- Insert, a mouse drag or a double click that selects): mapped to nothing in the float.
M.inert = {
  "<C-o>",
  "<C-i>",
  "<C-^>",
  "<C-6>",
  "<C-]>",
  "<C-t>",
  "<F1>",
  "<C-f>",
  "<C-b>",
  "<C-y>",
  "<S-Up>",
  "<S-Down>",
  "<C-v>",
  "<C-q>",
  "<Insert>",
  "<C-PageUp>",
  "<C-PageDown>",
  "<ScrollWheelUp>",
  "<ScrollWheelDown>",
  "<ScrollWheelLeft>",
  "<ScrollWheelRight>",
  "<LeftDrag>",
  "<2-LeftDrag>",
  "<3-LeftDrag>",
  "<4-LeftDrag>",
  "<2-LeftMouse>",
  "<3-LeftMouse>",
  "<4-LeftMouse>",
}

--- The mouse's click: in the float, on what the engine's `lineTargets` name, `activate`.
M.CLICK = "<LeftMouse>"

--- The key that pastes a register into the open editor (`<C-r>` then the register's name).
M.PASTE_REGISTER = "<C-r>"

--- Characters that need a name on the left-hand side of a mapping.
local LHS_ESCAPES = { ["<"] = "<lt>", ["|"] = "<Bar>", ["\\"] = "<Bslash>" }

--- askd base key names → Vim key names.
local VIM_NAMES = {
  up = "Up",
  down = "Down",
  left = "Left",
  right = "Right",
  tab = "Tab",
  enter = "CR",
  ["return"] = "CR",
  cr = "CR",
  escape = "Esc",
  esc = "Esc",
  space = "Space",
  backspace = "BS",
  bs = "BS",
  delete = "Del",
  del = "Del",
  home = "Home",
  ["end"] = "End",
  pageup = "PageUp",
  pagedown = "PageDown",
}

local MODIFIERS = { ctrl = "C-", alt = "M-", meta = "M-", shift = "S-" }

--- The left-hand side for one printable ASCII character.
local function char_lhs(c)
  return LHS_ESCAPES[c] or c
end

--- The mapping left-hand side for an askd key name (`ctrl+x`, `shift+enter`, `<C-x>`, `q`),
--- or nil when Neovim has no such key.
function M.to_lhs(name)
  if type(name) ~= "string" or name == "" then
    return nil
  end
  if name:match("^<.+>$") then
    return name
  end
  if vim.fn.strchars(name) == 1 then
    return char_lhs(name)
  end
  local prefix, base = "", name
  while true do
    local mod, rest = base:match("^(%a+)%+(.+)$")
    if not mod or not MODIFIERS[mod:lower()] then
      break
    end
    prefix = prefix .. MODIFIERS[mod:lower()]
    base = rest
  end
  local vim_name = VIM_NAMES[base:lower()]
  if not vim_name then
    if vim.fn.strchars(base) ~= 1 then
      return nil
    end
    vim_name = LHS_ESCAPES[base] and LHS_ESCAPES[base]:sub(2, -2) or base
  end
  if prefix == "" and vim.fn.strchars(vim_name) == 1 then
    return vim_name
  end
  return "<" .. prefix .. vim_name .. ">"
end

--- Every mapping of the flow window, as `{ lhs, key }` pairs that send the engine `key`:
--- printable ASCII, the special keys, then the keys named in a keymap override
--- (`{ ["main.toggle"] = { "x" } }`); and, for keys none of those take, `{ lhs, action =
--- "paste" }` for `<C-r>`, `{ lhs, action = "click" }` for `<LeftMouse>` and `{ lhs, action =
--- "ignore" }` for the inert keys.
function M.bindings(keymap)
  local list, seen = {}, {}
  local function add(entry)
    local id = vim.api.nvim_replace_termcodes(entry[1], true, true, true)
    if not seen[id] then
      seen[id] = true
      table.insert(list, entry)
    end
  end
  for byte = 33, 126 do
    local c = string.char(byte)
    add({ char_lhs(c), c })
  end
  for _, pair in ipairs(M.special) do
    add({ pair[1], pair[2] })
  end
  if type(keymap) == "table" then
    local actions = vim.tbl_keys(keymap)
    table.sort(actions)
    for _, action in ipairs(actions) do
      local names = keymap[action]
      if type(names) == "string" then
        names = { names }
      end
      if type(names) == "table" then
        for _, name in ipairs(names) do
          local lhs = M.to_lhs(name)
          if lhs then
            add({ lhs, name })
          end
        end
      end
    end
  end
  add({ M.PASTE_REGISTER, action = "paste" })
  add({ M.CLICK, action = "click" })
  for _, lhs in ipairs(M.inert) do
    add({ lhs, action = "ignore" })
  end
  return list
end

--- The text of a typed non-ASCII character as `vim.on_key` reports it, or nil for anything
--- else (ASCII, special keys, several keys at once).
function M.typed_text(raw)
  if type(raw) ~= "string" or raw == "" then
    return nil
  end
  local first = raw:byte(1)
  -- Neovim's internal special-key codes start with 0x80; UTF-8 lead bytes are 0xC2..0xF4.
  if first < 0xC2 or first > 0xF4 then
    return nil
  end
  if vim.fn.strchars(raw) ~= 1 then
    return nil
  end
  return raw
end

return M
