-- Entry points: setup(), the shared server session, and the :Taskline command.

local config = require('taskline.config')
local session = require('taskline.session')
local buffer = require('taskline.buffer')
local format = require('taskline.format')
local rpc = require('taskline.rpc')

local M = {}

local STOP_WAIT_MS = 3000

local current -- the running rpc client, started on first use

function M.setup(options)
  config.set(options)
end

local function report(message)
  vim.notify('taskline: ' .. message, vim.log.levels.ERROR)
end

local start

-- An open list follows a new session at once: live updates go on.
local function reconnect()
  if buffer.bufnr() and not (current and current:is_running()) then
    local client, reason
    client, reason = start()
    current = client
    if not client then
      report(reason)
    end
  end
end

start = function()
  local path, reason = config.server_path()
  if not path then
    return nil, reason
  end
  local client
  client, reason = session.start(path, config.server_args(), {
    on_notification = function(method, params)
      if method == 'tasks/didChange' then
        buffer.on_did_change(client, params)
      elseif method == 'tasks/didMissChanges' then
        buffer.on_did_miss_changes(client, params)
      elseif method == 'tasks/remind' then
        M.on_remind(params)
      end
    end,
    on_timeout = function(method)
      if client.stopping then
        return -- stop() kills it after its grace period
      end
      report(string.format('the server did not answer %s within %d ms; restarting it', method,
        client.request_timeout))
      client.restart = true
      client:kill()
    end,
    on_exit = function(code, signal)
      if current == client then
        current = nil
      end
      if not client.stopping then
        report(string.format('the server %s: %s', rpc.describe_exit(code, signal), client.stderr))
      end
      -- A session that never answered initialize is not retried: it would fail again.
      if client.database and (client.restart or not client.stopping) then
        vim.schedule(reconnect)
      end
    end,
  }, function(failure, result)
    if failure then
      report(failure)
    else
      client.database = result.database -- { id, seq }: which file, and its newest seq then
      buffer.on_session_start(client)
    end
  end, config.options.request_timeout, { reminders = config.options.reminders })
  if client then
    vim.api.nvim_create_autocmd('VimLeavePre', {
      group = vim.api.nvim_create_augroup('taskline_session', { clear = true }),
      callback = M.stop,
    })
  end
  return client, reason
end

--- A tasks/remind notification: one message per task.
function M.on_remind(params)
  local now = os.time()
  for _, task in ipairs(type(params) == 'table' and params.tasks or {}) do
    local due = task.due ~= nil and task.due ~= vim.NIL and (', ' .. format.due_words(task, now)) or ''
    vim.notify(string.format('taskline: reminder: %s%s', task.title, due), vim.log.levels.WARN)
  end
end

--- The running server session, started if needed; nil and a reason if it cannot start.
function M.client()
  if current and current:is_running() then
    return current
  end
  local reason
  current, reason = start()
  return current, reason
end

--- Stops the server session and waits until it has exited.
function M.stop()
  local client = current
  current = nil
  if client and client:is_running() then
    client:stop()
    client:wait_for_exit(STOP_WAIT_MS)
  end
end

--- :TasklineUndo, :TasklineRedo.
function M.undo()
  buffer.undo(M.client)
end

function M.redo()
  buffer.redo(M.client)
end

--- :TasklineToggleDone: shows or hides the done and waiting tasks of the open list.
function M.toggle_hidden()
  buffer.toggle_hidden()
end

--- :Taskline — shows the task list in the current window.
function M.open()
  local client, reason = M.client()
  if not client then
    return report(reason)
  end
  buffer.open(M.client, table.concat(config.server_args(), '\n'))
end

return M
