-- Headless tests of the askd Neovim plugin against a real askd.
--
-- Run by tests/run.sh (ASKD_BIN names the askd binary). Every case runs in its own
-- coroutine: it feeds keys as typed input, yields to the main loop so that Neovim processes
-- them (mappings, the engine's answers, redraws), and asserts the float and the results.
-- The last line printed is `N passed, M failed`; the exit status is non-zero on any failure.

-- The harness, then the cases by concept, in the order they run.
local dir = os.getenv("ASKD_NVIM_PLUGIN") .. "/tests/"
local h = dofile(dir .. "harness.lua")
for _, file in ipairs({
  "units.lua",
  "flows.lua",
  "paste_typeahead.lua",
  "api_docs.lua",
  "window_countdown.lua",
  "engine_failures.lua",
  "endings.lua",
  "guards.lua",
  "attach.lua",
  "recovery.lua",
  "terminal.lua",
}) do
  assert(loadfile(dir .. file))(h)
end

if not h.ASKD or h.ASKD == "" then
  h.out("ASKD_BIN is not set")
  h.out("0 passed, 1 failed")
  vim.cmd("cquit 1")
else
  h.run_all()
end
