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
  { "<C-k>", "ctrl+k" },
  { "<C-Left>", "ctrl+left" },
  { "<C-Right>", "ctrl+right" },
  { "<M-b>", "alt+b" },
  { "<M-f>", "alt+f" },
  { "<M-BS>", "alt+backspace" },
  { "<S-CR>", "shift+enter" },
  { "<M-CR>", "alt+enter" },
}

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

--- Every mapping of the flow window as `{ lhs, key }` pairs: printable ASCII, the special
--- keys, then the keys named in a keymap override (`{ ["main.toggle"] = { "x" } }`).
function M.bindings(keymap)
  local list, seen = {}, {}
  local function add(lhs, key)
    local id = vim.api.nvim_replace_termcodes(lhs, true, true, true)
    if not seen[id] then
      seen[id] = true
      table.insert(list, { lhs, key })
    end
  end
  for byte = 33, 126 do
    local c = string.char(byte)
    add(char_lhs(c), c)
  end
  for _, pair in ipairs(M.special) do
    add(pair[1], pair[2])
  end
  if type(keymap) == "table" then
    local actions = vim.tbl_keys(keymap)
    table.sort(actions)
    for _, action in ipairs(actions) do
      local names = keymap[action]
      if type(names) == "table" then
        for _, name in ipairs(names) do
          local lhs = M.to_lhs(name)
          if lhs then
            add(lhs, name)
          end
        end
      end
    end
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
