-- The task list: a scratch buffer showing the tasks that `taskline.tasks` keeps.

local tasks = require('taskline.tasks')

local M = {}

local BUFFER_NAME = 'taskline://tasks'
local EMPTY_HINT = 'No tasks. Press a to add one.'
local TASK_NOT_FOUND = 1001
local VERSION_CONFLICT = 1002

-- The open list, or nil: { bufnr, get_client, key }.
local view

local function report(message)
  vim.notify('taskline: ' .. message, vim.log.levels.ERROR)
end

local function format_line(task)
  local parts = { (task.done and '[x] ' or '[ ] ') .. task.title }
  if task.due ~= vim.NIL then
    table.insert(parts, 'due ' .. task.due)
  end
  if #task.tags > 0 then
    table.insert(parts, '#' .. table.concat(task.tags, ' #'))
  end
  return table.concat(parts, '  ')
end

local function render()
  local lines = vim.tbl_map(format_line, tasks.list())
  if #lines == 0 then
    lines = { EMPTY_HINT }
  end
  vim.bo[view.bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(view.bufnr, 0, -1, false, lines)
  vim.bo[view.bufnr].modifiable = false
end

tasks.on_update = function()
  if view then
    render()
  end
end

--- A tasks/didChange notification from the session `client`.
function M.on_did_change(client, params)
  tasks.on_did_change(client, params)
end

--- A tasks/didMissChanges notification from the session `client`.
function M.on_did_miss_changes(client, params)
  tasks.on_did_miss_changes(client, params)
end

--- The session `client` has started (and answered initialize): an open list that
--- does not follow it yet catches up through it.
function M.on_session_start(client)
  if view and not tasks.follows(client) then
    tasks.sync(client, view.key)
  end
end

-- Sends a request whose effect arrives as a notification; shows errors, and
-- corrects the list when the server says it was out of date.
local function request(method, params)
  local client, reason = view.get_client()
  if not client then
    return report(reason)
  end
  client:request(method, params, function(err)
    if not err then
      return
    end
    if err.code == VERSION_CONFLICT then
      tasks.correct({ { kind = 'updated', task = err.data.task } })
      report('the task was changed elsewhere; the list now shows its current state')
    elseif err.code == TASK_NOT_FOUND then
      tasks.correct({ { kind = 'deleted', id = err.data.id } })
      report('the task was deleted elsewhere')
    else
      report(err.message)
    end
  end)
end

local function task_under_cursor()
  return tasks.list()[vim.api.nvim_win_get_cursor(0)[1]]
end

-- Brings the list up to date (see taskline.tasks); `refetch_all` fetches every task.
local function sync(refetch_all)
  local client, reason = view.get_client()
  if not client then
    return report(reason)
  end
  if not client.database then
    return -- initialize has not answered yet: on_session_start syncs then
  end
  tasks.sync(client, view.key, refetch_all)
end

--- Fetches every task again and shows them.
function M.refresh()
  sync(true)
end

function M.add()
  vim.ui.input({ prompt = 'New task: ' }, function(title)
    if title and title:match('%S') then
      request('tasks/create', { title = title })
    end
  end)
end

function M.rename()
  local task = task_under_cursor()
  if not task then
    return
  end
  vim.ui.input({ prompt = 'Rename: ', default = task.title }, function(title)
    if title and title:match('%S') and title ~= task.title then
      request('tasks/update', { id = task.id, changes = { title = title }, ifVersion = task.version })
    end
  end)
end

function M.toggle()
  local task = task_under_cursor()
  if task then
    request('tasks/update', { id = task.id, changes = { done = not task.done }, ifVersion = task.version })
  end
end

function M.delete()
  local task = task_under_cursor()
  if task and vim.fn.confirm(string.format('Delete "%s"?', task.title), '&Yes\n&No', 2) == 1 then
    request('tasks/delete', { id = task.id, ifVersion = task.version })
  end
end

function M.close()
  vim.api.nvim_buf_delete(view.bufnr, { force = true })
end

local keys = {
  { 'a', M.add, 'Add a task' },
  { 'r', M.rename, 'Rename the task' },
  { 'x', M.toggle, 'Toggle done' },
  { '<Space>', M.toggle, 'Toggle done' },
  { 'dd', M.delete, 'Delete the task' },
  { 'R', M.refresh, 'Refresh the list' },
  { 'q', M.close, 'Close the list' },
}

local function create_buffer()
  local bufnr = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(bufnr, BUFFER_NAME)
  vim.bo[bufnr].bufhidden = 'wipe'
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].filetype = 'taskline'
  for _, key in ipairs(keys) do
    vim.keymap.set('n', key[1], key[2], { buffer = bufnr, nowait = true, desc = key[3] })
  end
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = bufnr,
    callback = function()
      view = nil
      tasks.stop_following()
    end,
  })
  return bufnr
end

--- Shows the task list in the current window. `get_client()` returns the rpc
--- client to use (or nil and a reason); `key` names the server command line, so
--- that the tasks kept for another one are not shown. The list shows what it
--- kept from the last time at once, then catches up.
function M.open(get_client, key)
  if not view then
    view = { bufnr = create_buffer(), get_client = get_client, key = key }
  end
  vim.api.nvim_win_set_buf(0, view.bufnr)
  local client = get_client()
  if not (client and tasks.follows(client) and view.key == key) then
    view.key = key
    if tasks.loaded(key) then
      render() -- what was kept, until the catch-up brings it up to date
    end
    sync(false)
  end
end

--- The buffer number of the open list, or nil.
function M.bufnr()
  return view and view.bufnr
end

return M
