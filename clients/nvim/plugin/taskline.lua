if vim.g.loaded_taskline then
  return
end
vim.g.loaded_taskline = true

vim.api.nvim_create_user_command('Taskline', function()
  require('taskline').open()
end, { desc = 'Show the Taskline task list' })
vim.api.nvim_create_user_command('TasklineToggleDone', function()
  require('taskline').toggle_hidden()
end, { desc = 'Show or hide the done and waiting tasks in the Taskline list' })
vim.api.nvim_create_user_command('TasklineUndo', function()
  require('taskline').undo()
end, { desc = 'Undo the newest Taskline change made from this Neovim' })
vim.api.nvim_create_user_command('TasklineRedo', function()
  require('taskline').redo()
end, { desc = 'Redo the newest Taskline change undone from this Neovim' })
