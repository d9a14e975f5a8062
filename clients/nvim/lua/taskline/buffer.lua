-- The task list: a scratch buffer showing the tasks that `taskline.tasks` keeps.

local config = require('taskline.config')
local form = require('taskline.form')
local format = require('taskline.format')
local prompt = require('taskline.prompt')
local tasks = require('taskline.tasks')

local M = {}

local BUFFER_NAME = 'taskline://tasks'
local EMPTY_HINT = 'No tasks. Press a to add one.'
local TASK_NOT_FOUND = 1001
local VERSION_CONFLICT = 1002
local UNDO_CONFLICT = 1007
local METHOD_NOT_FOUND = -32601

local uv = vim.uv or vim.loop -- vim.loop is deprecated since 0.10
local namespace = vim.api.nvim_create_namespace('taskline')
-- Renders the open list again when time changes what it shows (format.next_change).
local clock = uv.new_timer()
vim.cmd('highlight default link TasklineOverdue ErrorMsg')
vim.cmd('highlight default link TasklineDone Comment')

-- The open list, or nil: { bufnr, get_client, key, show_hidden, shown = the tasks on its lines }.
local view

local function report(message)
  vim.notify('taskline: ' .. message, vim.log.levels.ERROR)
end

local function inform(message)
  vim.notify('taskline: ' .. message, vim.log.levels.INFO)
end

--- Whether `H` reveals the task: it is done, or waits (its `wait` is still to come).
function M.hidden_by_default(task, now)
  return task.done or format.is_waiting(task, now)
end

local function render()
  local now = os.time()
  local lines, highlights = {}, {}
  view.shown = {}
  local hidden = 0
  for _, task in ipairs(tasks.list()) do
    if view.show_hidden or not M.hidden_by_default(task, now) then
      local line, due_range = format.line(task, now)
      table.insert(view.shown, task)
      table.insert(lines, line)
      if task.done then
        table.insert(highlights, { 'TasklineDone', #lines - 1, 0, -1 })
      elseif due_range and format.is_overdue(task, now) then
        table.insert(highlights, { 'TasklineOverdue', #lines - 1, due_range[1], due_range[2] })
      end
    else
      hidden = hidden + 1
    end
  end
  if #lines == 0 then
    lines = { hidden > 0 and string.format('No tasks to show; %d done or waiting: press H to show them.', hidden)
      or EMPTY_HINT }
  end
  vim.bo[view.bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(view.bufnr, 0, -1, false, lines)
  vim.bo[view.bufnr].modifiable = false
  vim.api.nvim_buf_clear_namespace(view.bufnr, namespace, 0, -1)
  for _, highlight in ipairs(highlights) do
    vim.api.nvim_buf_add_highlight(view.bufnr, namespace, unpack(highlight))
  end
  clock:start((format.next_change(tasks.list(), now) - now) * 1000, 0, vim.schedule_wrap(function()
    if view then
      render()
    end
  end))
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
      report(format.error_in_words(err))
    end
  end)
end

local function task_under_cursor()
  return view.shown[vim.api.nvim_win_get_cursor(0)[1]]
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

--- Adds a task from words as `taskline add` takes them (`Call the bank +money due:fri
--- pri:H`), read by the server (tasks/parse), which shows what they make as they are typed.
function M.add()
  prompt.open(view.get_client, function(text)
    if not text:match('%S') then
      return
    end
    local client, reason = view.get_client()
    if not client then
      return report(reason)
    end
    client:request('tasks/parse', { text = text }, function(err, result)
      if err then
        return report(format.error_in_words(err))
      end
      request('tasks/create', result.task)
    end)
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

--- Opens the edit form of the task under the cursor (see taskline.form).
function M.edit()
  local task = task_under_cursor()
  if task then
    form.open(task, view.get_client)
  end
end

--- Shows the notes and fields of the task under the cursor in a float.
function M.show_notes()
  local task = task_under_cursor()
  if not task then
    return
  end
  local now = os.time()
  local lines = { task.title, '' }
  local function field(label, value)
    if value ~= nil and value ~= vim.NIL and value ~= '' then
      table.insert(lines, label .. ': ' .. value)
    end
  end
  field('Priority', task.priority > 0 and format.PRIORITY_NAMES[task.priority] or nil)
  if task.due ~= vim.NIL then
    field('Due', task.due .. ' (' .. format.due_words(task, now) .. ')')
  end
  if task.wait ~= nil and task.wait ~= vim.NIL then
    field('Wait', task.wait .. ' (' .. format.when(task.wait, now) .. ')')
  end
  if type(task.recurrence) == 'table' then
    field('Repeat', task.recurrence.rule)
  end
  if task.remindAt ~= nil and task.remindAt ~= vim.NIL then
    field('Remind', task.remindAt .. ' (' .. format.when(task.remindAt, now) .. ')')
  end
  field('Started', task.startedAt ~= nil and task.startedAt ~= vim.NIL and task.startedAt or nil)
  field('Project', task.project)
  field('Tags', table.concat(task.tags, ' '))
  field('Done', task.completedAt ~= vim.NIL and task.completedAt or nil)
  for _, annotation in ipairs(task.annotations or {}) do
    table.insert(lines, annotation.at .. '  ' .. annotation.text)
  end
  table.insert(lines, '')
  vim.list_extend(lines, task.notes == '' and { '(no notes)' } or vim.split(task.notes, '\n', { plain = true }))
  vim.lsp.util.open_floating_preview(lines, 'markdown', { focus_id = 'taskline_notes', border = 'single' })
end

--- Shows or hides the done and waiting tasks.
function M.toggle_hidden()
  if view then
    view.show_hidden = not view.show_hidden
    render()
  end
end

-- tasks/undo or tasks/redo on the changes of this editor's connection; after a conflict (1007),
-- asks whether to go ahead anyway.
local function undo_or_redo(get_client, method, word, force)
  local client, reason = get_client()
  if not client then
    return report(reason)
  end
  client:request(method, { scope = 'connection', force = force or nil }, function(err, result)
    if not err then
      -- {undone|redone: group, tasks, deleted}, or {} when there was nothing to revert.
      if type(result) ~= 'table' or (result.undone == nil and result.redone == nil) then
        inform('nothing to ' .. word)
      end
      return
    end
    if err.code == METHOD_NOT_FOUND then
      report(string.format('this taskline server cannot %s (it does not know %s)', word, method))
    elseif err.code == UNDO_CONFLICT and type(err.data) == 'table' then
      local titles = vim.tbl_map(function(task)
        return '"' .. task.title .. '"'
      end, err.data.tasks or {})
      local question = string.format('Changed elsewhere since: %s. %s anyway?', table.concat(titles, ', '),
        word:sub(1, 1):upper() .. word:sub(2))
      if vim.fn.confirm(question, '&Yes\n&No', 2) == 1 then
        undo_or_redo(get_client, method, word, true)
      end
    else
      report(format.error_in_words(err))
    end
  end)
end

--- Undoes the newest change made through the session `get_client()` gives (tasks/undo).
function M.undo(get_client)
  undo_or_redo(get_client or view.get_client, 'tasks/undo', 'undo')
end

--- Redoes the newest change undone through the session `get_client()` gives (tasks/redo).
function M.redo(get_client)
  undo_or_redo(get_client or view.get_client, 'tasks/redo', 'redo')
end

function M.close()
  vim.api.nvim_buf_delete(view.bufnr, { force = true })
end

local keys

--- The keys' help: `:help taskline-keys`, or, when the help is not installed (or its
--- tags not made), the keys and what they do as a message.
function M.help()
  if pcall(vim.cmd, 'help taskline-keys') then
    return
  end
  local lines = { 'Taskline keys (:help taskline needs the doc/ folder and :helptags ALL):' }
  for _, key in ipairs(keys) do
    table.insert(lines, string.format('  %-6s %s', key[1], key[3]))
  end
  vim.notify(table.concat(lines, '\n'), vim.log.levels.INFO)
end

keys = {
  { 'a', M.add, 'Add a task' },
  { 'e', M.edit, 'Edit the task in a form' },
  { '<CR>', M.edit, 'Edit the task in a form' },
  { 'r', M.rename, 'Rename the task' },
  { 'x', M.toggle, 'Mark done, or reopen a done task' },
  { '<Space>', M.toggle, 'Mark done, or reopen a done task' },
  { 'dd', M.delete, 'Delete the task' },
  { 'K', M.show_notes, 'Show the notes of the task' },
  { 'H', M.toggle_hidden, 'Show or hide done and waiting tasks' },
  { 'u', function()
    M.undo()
  end, 'Undo' },
  { '<C-r>', function()
    M.redo()
  end, 'Redo' },
  { 'R', M.refresh, 'Refresh the list' },
  { 'g?', function()
    M.help()
  end, 'Help' },
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
      clock:stop()
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
    view = { bufnr = create_buffer(), get_client = get_client, key = key, shown = {},
      show_hidden = config.options.show_hidden }
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
