-- luacheck's settings for the Neovim plugin (scripts/lint runs it).
-- Neovim runs the plugin on LuaJIT, with the editor's API in the global `vim`; its option
-- tables (vim.g, vim.bo, …) are there to be set.
std = "luajit"
local settable = { read_only = false, other_fields = true }
read_globals = {
  vim = { other_fields = true, fields = { g = settable, b = settable, bo = settable, wo = settable, o = settable } },
}
-- The tests stand in for parts of the API (vim.notify, vim.ui.input, …) with recorders.
files["test/"] = { globals = { "vim" } }
