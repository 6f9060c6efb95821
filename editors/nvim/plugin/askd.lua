-- askd: the :AskdDemo and :Askd commands; everything else loads on first use.
if vim.g.loaded_askd then
  return
end
vim.g.loaded_askd = true

vim.api.nvim_create_user_command("AskdDemo", function()
  require("askd").demo()
end, { desc = "Run the askd demo flow and echo its result" })

vim.api.nvim_create_user_command("Askd", function(args)
  require("askd.attach").command(args.args)
end, {
  nargs = "?",
  complete = function()
    return { "recover", "detach" }
  end,
  desc = "Attach to the askd hub, or enter the question shown (:Askd recover, :Askd detach)",
})
