-- The task list: a scratch buffer showing every task, oldest first, kept up to
-- date by applying tasks/didChange notifications to the list in memory.

local M = {}

local BUFFER_NAME = 'taskline://tasks'
local PAGE_SIZE = 1000
local EMPTY_HINT = 'No tasks. Press a to add one.'
local TASK_NOT_FOUND = 1001
local VERSION_CONFLICT = 1002

-- The open list, or nil: { bufnr, get_client, tasks, loading }. `loading` is the
-- list a refresh is building; notifications go to it as well, so none is lost.
local view

local function report(message)
  vim.notify('taskline: ' .. message, vim.log.levels.ERROR)
end

local function sorts_before(a, b)
  if a.createdAt ~= b.createdAt then
    return a.createdAt < b.createdAt
  end
  return a.id < b.id
end

local function index_of(tasks, id)
  for i, task in ipairs(tasks) do
    if task.id == id then
      return i
    end
  end
end

-- Puts `task` in its place in the sorted list, unless the list holds it at this version or later.
local function upsert(tasks, task)
  local existing = index_of(tasks, task.id)
  if existing then
    if tasks[existing].version < task.version then
      tasks[existing] = task
    end
    return
  end
  local position = #tasks + 1
  for i, other in ipairs(tasks) do
    if sorts_before(task, other) then
      position = i
      break
    end
  end
  table.insert(tasks, position, task)
end

local function remove(tasks, id)
  local i = index_of(tasks, id)
  if i then
    table.remove(tasks, i)
  end
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
  local lines = vim.tbl_map(format_line, view.tasks)
  if #lines == 0 then
    lines = { EMPTY_HINT }
  end
  vim.bo[view.bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(view.bufnr, 0, -1, false, lines)
  vim.bo[view.bufnr].modifiable = false
end

--- Applies the `changes` of a tasks/didChange notification to the open list.
function M.apply_changes(changes)
  if not view then
    return
  end
  for _, list in ipairs({ view.tasks, view.loading }) do
    for _, change in ipairs(changes) do
      if change.kind == 'deleted' then
        remove(list, change.id)
      else
        upsert(list, change.task)
      end
    end
  end
  render()
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
      M.apply_changes({ { kind = 'updated', task = err.data.task } })
      report('the task was changed elsewhere; the list now shows its current state')
    elseif err.code == TASK_NOT_FOUND then
      M.apply_changes({ { kind = 'deleted', id = err.data.id } })
      report('the task was deleted elsewhere')
    else
      report(err.message)
    end
  end)
end

local function task_under_cursor()
  return view.tasks[vim.api.nvim_win_get_cursor(0)[1]]
end

--- Fetches every task again, page by page, and shows them.
function M.refresh()
  local client, reason = view.get_client()
  if not client then
    return report(reason)
  end
  local loading = {}
  view.loading = loading
  local function fetch_page(cursor)
    client:request('tasks/fetch', { limit = PAGE_SIZE, cursor = cursor }, function(err, page)
      if not view or view.loading ~= loading then
        return -- the list was closed or a newer refresh started
      end
      if err then
        view.loading = nil
        return report(err.message)
      end
      for _, task in ipairs(page.tasks) do
        upsert(loading, task)
      end
      if page.nextCursor ~= vim.NIL then
        return fetch_page(page.nextCursor)
      end
      view.tasks, view.loading = loading, nil
      render()
    end)
  end
  fetch_page(nil)
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
    end,
  })
  return bufnr
end

--- Shows the task list in the current window. `get_client()` returns the rpc
--- client to use (or nil and a reason).
function M.open(get_client)
  if not view then
    view = { bufnr = create_buffer(), get_client = get_client, tasks = {} }
  end
  vim.api.nvim_win_set_buf(0, view.bufnr)
  M.refresh()
end

--- The buffer number of the open list, or nil.
function M.bufnr()
  return view and view.bufnr
end

return M
