-- luacheck configuration of the Neovim client (run from editors/nvim: `luacheck .`).
std = "luajit"
globals = { "vim" }
max_line_length = 100
exclude_files = { ".test/" }
