-- The user's options and how they turn into a server command line.

local M = {}

local defaults = {
  server = nil, -- path or name of the taskline binary; else $TASKLINE_SERVER, else `taskline` on PATH
  db = nil, -- database path passed as --db; nil lets the server pick its default
  args = {}, -- further command-line arguments for the server
  request_timeout = 10000, -- ms a request may wait for its answer; then the server is restarted
  show_hidden = false, -- whether the list shows done and waiting tasks when it opens (H toggles)
  reminders = true, -- ask the server for tasks/remind notifications, shown through vim.notify
}

M.options = vim.deepcopy(defaults)

function M.set(options)
  M.options = vim.tbl_extend('force', vim.deepcopy(defaults), options or {})
end

--- The server binary's path, or nil and the reason it was not found.
function M.server_path()
  local env_server = vim.env.TASKLINE_SERVER
  local server = M.options.server or (env_server ~= '' and env_server) or 'taskline'
  local path = vim.fn.exepath(server)
  if path == '' then
    return nil, string.format('%q is not an executable file or on PATH', server)
  end
  return path
end

--- The server's command-line arguments for the configured database.
function M.server_args()
  local args = vim.deepcopy(M.options.args)
  if M.options.db then
    vim.list_extend(args, { '--db', M.options.db })
  end
  return args
end

return M
