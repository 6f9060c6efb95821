-- Headless tests of the askd Neovim plugin: key names, fallback screens, highlights.
-- Loaded in order by tests/run.lua, which passes the harness (tests/harness.lua).

local h = ...
local ui = h.ui
local render = h.render
local keys = h.keys
local case = h.case
local eq = h.eq
local highlights = h.highlights

---------------------------------------------------------------------------------------------
-- Units: key names, rendering, highlights

case("askd key names become mapping left-hand sides", function()
  eq(keys.to_lhs("ctrl+x"), "<C-x>", "ctrl+x")
  eq(keys.to_lhs("shift+enter"), "<S-CR>", "shift+enter")
  eq(keys.to_lhs("alt+backspace"), "<M-BS>", "alt+backspace")
  eq(keys.to_lhs("ctrl+shift+tab"), "<C-S-Tab>", "ctrl+shift+tab")
  eq(keys.to_lhs("esc"), "<Esc>", "esc")
  eq(keys.to_lhs("pagedown"), "<PageDown>", "pagedown")
  eq(keys.to_lhs("<C-y>"), "<C-y>", "<C-y>")
  eq(keys.to_lhs("|"), "<Bar>", "|")
  eq(keys.to_lhs("<"), "<lt>", "<")
  eq(keys.to_lhs("q"), "q", "q")
  eq(keys.to_lhs("ü"), "ü", "ü")
  eq(keys.to_lhs("hyper+q"), nil, "hyper+q")
  eq(keys.to_lhs("nonsense"), nil, "nonsense")
end)

case("the window maps printable ASCII, the special keys and keymap overrides", function()
  local list =
    keys.bindings({ ["main.toggle"] = { "x", "ctrl+t" }, ["editor.submit"] = { "alt+s" } })
  local by_lhs, by_action = {}, {}
  for _, b in ipairs(list) do
    if b.action then
      by_action[b.action] = by_action[b.action] or {}
      table.insert(by_action[b.action], b[1])
    else
      by_lhs[b[1]] = b[2]
    end
  end
  eq(
    #list - #by_action.paste - #by_action.click - #by_action.ignore,
    94 + #keys.special + 2,
    "keys for the engine"
  )
  eq(by_action.paste, { "<C-r>" }, "the register paste key")
  eq(by_action.click, { "<LeftMouse>" }, "the click")
  -- Neovim 0.7 tells <C-i> from <Tab>; later versions take <C-i> as <Tab> (sent to the engine).
  local ignored = vim.deepcopy(keys.inert)
  eq(
    vim.list_slice(ignored, 1, 7),
    { "<C-o>", "<C-i>", "<C-^>", "<C-6>", "<C-]>", "<C-t>", "<F1>" },
    "the keys that leave the float's buffer"
  )
  eq(vim.list_slice(ignored, 8), {
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
  }, "the keys that would scroll the float's view or edit its buffer")
  -- <C-t> is taken by the keymap override here.
  table.remove(ignored, 6)
  if vim.api.nvim_replace_termcodes("<C-i>", true, true, true) == "\t" then
    table.remove(ignored, 2)
  end
  eq(by_action.ignore, ignored, "keys that do nothing in the float")
  eq(by_lhs["<C-d>"], "ctrl+d", "<C-d>")
  eq(by_lhs["<lt>"], "<", "<lt>")
  eq(by_lhs["<Bar>"], "|", "<Bar>")
  eq(by_lhs["<Bslash>"], "\\", "<Bslash>")
  eq(by_lhs["N"], "N", "N")
  eq(by_lhs["<S-Tab>"], "shift+tab", "<S-Tab>")
  eq(by_lhs["<C-c>"], "ctrl+c", "<C-c>")
  eq(by_lhs["<M-b>"], "alt+b", "<M-b>")
  eq(by_lhs["<M-CR>"], "alt+enter", "<M-CR>")
  eq(by_lhs["<C-t>"], "ctrl+t", "<C-t>")
  eq(by_lhs["<M-s>"], "alt+s", "<M-s>")
  eq(keys.typed_text("é"), "é", "typed é")
  eq(keys.typed_text("한"), "한", "typed 한")
  eq(keys.typed_text("a"), nil, "typed a")
  eq(keys.typed_text("\128\253g"), nil, "special key code")
end)

case("fallback screen of a question with the custom editor open", function()
  local view = {
    title = "Setup",
    tabs = {
      { label = "Size", kind = "question", answered = true, active = false },
      { label = "Name", kind = "question", answered = false, active = true },
      { label = "Submit", kind = "review", answered = false, active = false },
    },
    question = {
      prompt = "Pick a name",
      detail = "Shown in the title bar",
      note = "ask the team",
      rows = {
        {
          index = 1,
          value = "a",
          label = "Alpha",
          selected = true,
          active = false,
          custom = false,
          recommended = true,
          description = "First",
        },
        {
          index = 2,
          value = "b",
          label = "Beta",
          selected = false,
          active = false,
          custom = false,
          note = "maybe",
        },
        {
          index = 3,
          value = "__other__",
          label = "Type your own",
          selected = false,
          active = true,
          custom = true,
        },
      },
    },
    editor = {
      target = { kind = "custom", questionId = "name" },
      text = "héllo\nwo",
      cursor = { byte = 1 },
      placeholder = "Type answer...",
    },
    hints = {
      { action = "editor.submit", keys = { "enter" }, label = "save" },
      { action = "global.dismiss", keys = { "ctrl+c" }, label = "dismiss" },
    },
  }
  local lines, active = render.fallback(view)
  local flat = render.flatten(lines)
  eq(flat.texts, {
    "Setup",
    " ✓ Size  [□ Name]  Submit ",
    "",
    "Pick a name",
    "Shown in the title bar",
    "Note: ask the team",
    "",
    "  [x] 1. Alpha (recommended)",
    "      First",
    "  [ ] 2. Beta",
    "      note: maybe",
    "❯ [ ] 3. Type your own",
    "      > héllo",
    "        wo",
    "",
    "enter save · ctrl+c dismiss",
  }, "lines")
  eq(active, 12, "active line")
  eq(flat.cursor, { 12, 9 }, "cursor (row, byte)")
  local cursor_marks_found = {}
  for _, m in ipairs(flat.marks) do
    if m[4] == "cursor" then
      table.insert(cursor_marks_found, m)
    end
  end
  eq(cursor_marks_found, { { 12, 9, 11, "cursor" } }, "the cursor span covers é")
end)

case("fallback screen of a long list shows the window and what lies outside it", function()
  local rows = {}
  for i = 6, 15 do
    table.insert(rows, {
      index = i,
      value = "v" .. i,
      label = "Option " .. i,
      selected = false,
      active = i == 10,
      custom = false,
    })
  end
  local view = {
    tabs = {},
    question = {
      prompt = "Pick one",
      rowCount = 16,
      rowsAbove = 5,
      rowsBelow = 1,
      rows = rows,
    },
    hints = {},
  }
  local lines, active = render.fallback(view)
  local flat = render.flatten(lines)
  eq(flat.texts, {
    "",
    "",
    "Pick one",
    "",
    "  ↑ 5 more",
    "  [ ] 6. Option 6",
    "  [ ] 7. Option 7",
    "  [ ] 8. Option 8",
    "  [ ] 9. Option 9",
    "❯ [ ] 10. Option 10",
    "  [ ] 11. Option 11",
    "  [ ] 12. Option 12",
    "  [ ] 13. Option 13",
    "  [ ] 14. Option 14",
    "  [ ] 15. Option 15",
    "  ↓ 1 more",
  }, "lines")
  eq(active, 10, "active line")
end)

case("fallback screen of the review tab and of an empty note editor", function()
  local review = {
    tabs = {
      { label = "Size", kind = "question", answered = true, active = false },
      { label = "Submit", kind = "review", answered = false, active = true },
    },
    review = {
      activeAction = 1,
      actions = {
        { key = "1", label = "Submit", active = false },
        { key = "2", label = "Elaborate", active = true },
        { key = "3", label = "Cancel", active = false },
      },
      questions = {
        {
          label = "Size",
          answers = { { label = "Small", custom = false, note = "cheap" } },
          note = "why ask",
          otherNotes = { { value = "large", label = "Large", note = "too big" } },
        },
        { label = "Name", answers = {}, otherNotes = {} },
      },
    },
    hints = {},
  }
  local lines, active = render.fallback(review)
  eq(render.flatten(lines).texts, {
    " ✓ Size  [Submit]",
    "",
    "Size",
    "  → Small",
    "    note: cheap",
    "  note: why ask",
    "  Large note: too big",
    "Name",
    "  → unanswered",
    "",
    "  1. Submit",
    "❯ 2. Elaborate",
    "  3. Cancel",
  }, "review lines")
  eq(active, 12, "active action line")
  local ruled, ruled_active = render.fallback(review, 6)
  local ruled_texts = render.flatten(ruled).texts
  eq(
    { ruled_texts[1], ruled_texts[#ruled_texts], #ruled_texts },
    { "──────", "──────", 15 },
    "rules"
  )
  eq(ruled_active, 13, "active action line below the top rule")

  local noting = {
    tabs = {},
    question = {
      prompt = "P",
      rows = {
        { index = 1, value = "a", label = "A", selected = false, active = true, custom = false },
      },
    },
    editor = {
      target = { kind = "optionNote", questionId = "q", optionValue = "a" },
      text = "",
      cursor = { byte = 0 },
      placeholder = "Add a note...",
    },
  }
  local flat = render.flatten((render.fallback(noting)))
  eq(
    flat.texts,
    { "", "", "P", "", "❯ [ ] 1. A", "      note:  Add a note..." },
    "note editor lines"
  )
  eq(flat.cursor, { 5, 12 }, "cursor of an empty editor")
end)

case("engine lines are drawn as they come, styles mapped to highlight groups", function()
  local buf, win = ui.open(30, "rounded")
  local view = {
    lines = {
      { { text = "Title", style = "title" } },
      {},
      { { text = "❯ ", style = "accent" }, { text = "1. Yes", style = "selected" } },
      {
        { text = "> ab", style = "text" },
        { text = "c", style = "cursor" },
        { text = "d", style = "sparkly" },
      },
      {
        { text = "hint", style = "dim" },
        { text = " x", style = "muted" },
        { text = "!", style = "warning" },
      },
    },
  }
  ui.draw(buf, win, view, { width = 30, border = "rounded" })
  eq(
    vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    { "Title", "", "❯ 1. Yes", "> abcd", "hint x!" },
    "buffer text"
  )
  eq(highlights(), {
    { 0, 0, 5, "AskdTitle" },
    { 2, 0, 4, "AskdAccent" },
    { 2, 4, 10, "AskdSelected" },
    { 3, 0, 4, "AskdText" },
    { 3, 4, 5, "AskdCursor" },
    { 4, 0, 4, "AskdDim" },
    { 4, 4, 6, "AskdMuted" },
    { 4, 6, 7, "AskdWarning" },
  }, "highlights (the unknown style gets none)")
  eq(vim.api.nvim_win_get_cursor(win), { 4, 4 }, "Neovim's cursor sits on the engine's cursor")
  local config = vim.api.nvim_win_get_config(win)
  eq({ config.width, config.height }, { 30, 5 }, "float size")
  -- A screen of as many lines rewrites the lines that changed: their text or their styles.
  view.lines[1] = { { text = "Other", style = "title" } }
  view.lines[5] = { { text = "hint", style = "muted" }, { text = " x!", style = "dim" } }
  ui.draw(buf, win, view, { width = 30, border = "rounded" })
  eq(
    vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    { "Other", "", "❯ 1. Yes", "> abcd", "hint x!" },
    "buffer text after a second screen"
  )
  eq(highlights(), {
    { 0, 0, 5, "AskdTitle" },
    { 2, 0, 4, "AskdAccent" },
    { 2, 4, 10, "AskdSelected" },
    { 3, 0, 4, "AskdText" },
    { 3, 4, 5, "AskdCursor" },
    { 4, 0, 4, "AskdMuted" },
    { 4, 4, 7, "AskdDim" },
  }, "highlights after a second screen")
  -- Without a cursor span, the active row stays in sight.
  table.remove(view.lines, 4)
  ui.draw(buf, win, view, { width = 30, border = "rounded" })
  eq(vim.api.nvim_win_get_cursor(win)[1], 3, "cursor on the ❯ line")
  ui.close(win, buf)
end)

case("highlight groups link to standard groups", function()
  local expected = {
    AskdAccent = "Special",
    AskdSuccess = "String",
    AskdMuted = "Comment",
    AskdDim = "NonText",
    AskdWarning = "WarningMsg",
    AskdSelected = "Statement",
    AskdCursor = "TermCursor",
    AskdTitle = "Title",
    AskdText = "NormalFloat",
  }
  local function link_of(group)
    return vim.fn.execute("highlight " .. group):match("links to (%w+)")
  end
  for group, link in pairs(expected) do
    eq(link_of(group), link, group .. " links to")
  end
  -- Colour schemes start with `:highlight clear`: the default links survive it.
  vim.cmd("highlight clear")
  eq(link_of("AskdMuted"), "Comment", "after :highlight clear")
  -- A group the user defined is kept.
  vim.cmd("highlight AskdAccent ctermfg=1")
  ui.define_highlights()
  eq(link_of("AskdAccent"), nil, "the user's AskdAccent is kept")
  eq(vim.fn.synIDattr(vim.fn.hlID("AskdAccent"), "fg", "cterm"), "1", "the user's colour")
  vim.cmd("highlight link AskdAccent Special")
  eq(ui.group("sparkly"), nil, "an unknown style has no group")
end)

--- AskdBorder as Neovim resolves it: `{ fg, bg, reverse }` in the GUI's colours and the
--- terminal's.
local function border_colours()
  local gui = vim.api.nvim_get_hl_by_name("AskdBorder", true)
  local cterm = vim.api.nvim_get_hl_by_name("AskdBorder", false)
  return {
    gui = { gui.foreground, gui.background, gui.reverse },
    cterm = { cterm.foreground, cterm.background, cterm.reverse },
  }
end

case("AskdBorder draws the rules in the border's colour, never as solid bars", function()
  -- Neovim 0.7's default scheme draws FloatBorder reversed (its VertSplit): a rule drawn
  -- with it would be a solid bar. AskdBorder has no background and no reverse.
  vim.cmd("highlight clear")
  vim.cmd("doautocmd ColorScheme")
  local colours = border_colours()
  eq({ colours.gui[2], colours.gui[3], colours.cterm[2], colours.cterm[3] }, {}, "default scheme")
  -- habamax (Neovim 0.8 and later) gives VertSplit, which FloatBorder links to, a background
  -- of the same colour as its foreground.
  if #vim.api.nvim_get_runtime_file("colors/habamax.vim", false) > 0 then
    vim.o.termguicolors = true
    vim.cmd("colorscheme habamax")
    colours = border_colours()
    local split = vim.api.nvim_get_hl_by_name("VertSplit", true)
    eq(split.background, split.foreground, "habamax's VertSplit is a solid bar")
    eq(colours.gui, { split.foreground }, "habamax: the border's colour, no background")
    eq({ colours.cterm[2], colours.cterm[3] }, {}, "habamax: no terminal background")
    vim.o.termguicolors = false
  end
  -- A user's AskdBorder is kept, across colour schemes too.
  vim.cmd("highlight AskdBorder ctermfg=1 ctermbg=2")
  vim.cmd("highlight clear")
  vim.cmd("highlight AskdBorder ctermfg=1 ctermbg=2")
  vim.cmd("doautocmd ColorScheme")
  eq(border_colours().cterm, { 1, 2 }, "the user's AskdBorder")
  vim.cmd("highlight clear AskdBorder")
  vim.cmd("highlight clear")
  vim.cmd("doautocmd ColorScheme")
end)
