-- askd: the :AskdDemo command; everything else loads on first use.
if vim.g.loaded_askd then
  return
end
vim.g.loaded_askd = true

vim.api.nvim_create_user_command("AskdDemo", function()
  require("askd").demo()
end, { desc = "Run the askd demo flow and echo its result" })
