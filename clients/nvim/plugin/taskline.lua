if vim.g.loaded_taskline then
  return
end
vim.g.loaded_taskline = true

vim.api.nvim_create_user_command('Taskline', function()
  require('taskline').open()
end, { desc = 'Show the Taskline task list' })
