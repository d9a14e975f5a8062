-- JSON-RPC 2.0 with a child process over stdio, in LSP (Content-Length) framing.
-- All callbacks run on the main loop (vim.schedule), so they may call any API.

local uv = vim.uv or vim.loop -- vim.loop is deprecated since 0.10

local M = {}

local STDERR_TAIL_BYTES = 4096
local STOP_GRACE_MS = 2000

--- The `code` of the error a request gets when it is not answered in time.
M.TIMEOUT = 'timeout'

--- Splits a byte stream into LSP frame bodies. Returns a function that takes the
--- next chunk and returns the list of bodies it completes.
function M.frame_reader()
  local buffered = ''
  return function(chunk)
    buffered = buffered .. chunk
    local bodies = {}
    while true do
      local separator_start, separator_end = buffered:find('\r?\n\r?\n')
      if not separator_start then
        break
      end
      local header = buffered:sub(1, separator_start - 1)
      local length = tonumber(header:lower():match('content%-length:%s*(%d+)'))
      if not length then
        error('taskline: frame header without Content-Length: ' .. header)
      end
      if #buffered < separator_end + length then
        break
      end
      table.insert(bodies, buffered:sub(separator_end + 1, separator_end + length))
      buffered = buffered:sub(separator_end + length + 1)
    end
    return bodies
  end
end

function M.encode_frame(message)
  local body = vim.json.encode(message)
  return string.format('Content-Length: %d\r\n\r\n%s', #body, body)
end

local Client = {}
Client.__index = Client

--- Spawns `cmd` with `args`. Handlers (all optional):
---   on_notification(method, params), on_exit(code, signal),
---   on_timeout(method): a request got no answer within `request_timeout` ms.
--- `client.stopping` is true once stop() or kill() was called: an exit after
--- that was asked for.
--- Returns the client, or nil and an error message if the process cannot start.
function M.start(cmd, args, handlers, request_timeout)
  local client = setmetatable({
    handlers = handlers or {},
    request_timeout = request_timeout,
    pending = {}, -- request id -> callback(err, result)
    next_id = 1,
    stderr = '',
    running = true,
    stdin = uv.new_pipe(false),
    stdout = uv.new_pipe(false),
    stderr_pipe = uv.new_pipe(false),
  }, Client)

  -- The client is finished once the process has exited and both its outputs are read.
  local exit_status
  local unfinished = 3
  local function finish_one()
    unfinished = unfinished - 1
    if unfinished == 0 then
      client:_finish(exit_status.code, exit_status.signal)
    end
  end

  local handle, pid_or_error = uv.spawn(cmd, {
    args = args,
    stdio = { client.stdin, client.stdout, client.stderr_pipe },
  }, function(code, signal)
    vim.schedule(function()
      exit_status = { code = code, signal = signal }
      finish_one()
    end)
  end)
  if not handle then
    client:_close_pipes()
    return nil, string.format('cannot start %s: %s', cmd, pid_or_error)
  end
  client.handle = handle
  client.pid = pid_or_error

  local read_frames = M.frame_reader()
  client.stdout:read_start(function(_, chunk)
    vim.schedule(function()
      if not chunk then
        return finish_one()
      end
      local read, bodies = pcall(read_frames, chunk)
      if not read then
        -- The stream cannot be resynchronised after a broken header.
        vim.notify('taskline: ' .. tostring(bodies), vim.log.levels.ERROR)
        return client:kill()
      end
      for _, body in ipairs(bodies) do
        local decoded, message = pcall(vim.json.decode, body)
        if decoded and type(message) == 'table' then
          client:_dispatch(message)
        else
          vim.notify('taskline: the server sent a message that is not JSON: ' .. body:sub(1, 200), vim.log.levels.ERROR)
        end
      end
    end)
  end)
  client.stderr_pipe:read_start(function(_, chunk)
    vim.schedule(function()
      if not chunk then
        return finish_one()
      end
      client.stderr = (client.stderr .. chunk):sub(-STDERR_TAIL_BYTES)
    end)
  end)
  return client
end

--- Sends a request; `callback(err, result)` gets the JSON-RPC error object (only a
--- `message` when the server is not running; `code` M.TIMEOUT when it did not
--- answer within the client's request_timeout, and then it is cancelled) or the result.
function Client:request(method, params, callback)
  if not self.running then
    vim.schedule(function()
      callback({ message = 'the taskline server is not running' })
    end)
    return
  end
  if type(params) == 'table' and vim.tbl_isempty(params) then
    params = vim.empty_dict() -- params must be an object; {} would be encoded as []
  end
  local id = self.next_id
  self.next_id = id + 1
  local timer
  if self.request_timeout then
    timer = uv.new_timer()
    timer:start(self.request_timeout, 0, vim.schedule_wrap(function()
      if not timer:is_closing() then
        timer:close()
      end
      if self.pending[id] == nil then
        return
      end
      self.pending[id] = nil
      self:notify('$/cancelRequest', { id = id })
      local message = string.format('%s got no answer within %d ms', method, self.request_timeout)
      callback({ code = M.TIMEOUT, message = message })
      if self.handlers.on_timeout then
        self.handlers.on_timeout(method)
      end
    end))
  end
  self.pending[id] = function(err, result)
    if timer and not timer:is_closing() then
      timer:close()
    end
    callback(err, result)
  end
  self:_write({ jsonrpc = '2.0', id = id, method = method, params = params })
end

function Client:notify(method, params)
  if self.running then
    self:_write({ jsonrpc = '2.0', method = method, params = params })
  end
end

function Client:is_running()
  return self.running
end

--- Sends shutdown and exit, and kills the process if it has not ended within the grace period.
function Client:stop()
  if not self.running or self.kill_timer then
    return
  end
  self.stopping = true
  self:request('shutdown', nil, function()
    if self.running then
      self:notify('exit')
      self.stdin:shutdown() -- end of input ends the server even if shutdown failed
    end
  end)
  self.kill_timer = uv.new_timer()
  self.kill_timer:start(STOP_GRACE_MS, 0, function()
    self.handle:kill('sigkill')
  end)
end

--- Ends the process at once (SIGKILL), as an exit that was asked for.
function Client:kill()
  if self.running then
    self.stopping = true
    self.handle:kill('sigkill')
  end
end

--- Waits (processing events) until the process has exited; returns whether it has.
function Client:wait_for_exit(timeout_ms)
  return vim.wait(timeout_ms, function()
    return not self.running
  end, 10)
end

function Client:_write(message)
  self.stdin:write(M.encode_frame(message))
end

function Client:_dispatch(message)
  if message.method then
    if message.id == nil and self.handlers.on_notification then
      self.handlers.on_notification(message.method, message.params)
    end
  elseif message.id == vim.NIL then
    -- An error the server could not tie to a request: one of our messages was malformed.
    vim.notify('taskline: server error: ' .. vim.json.encode(message.error), vim.log.levels.ERROR)
  else
    local callback = self.pending[message.id]
    self.pending[message.id] = nil
    if callback then
      callback(message.error, message.result)
    end
  end
end

function Client:_finish(code, signal)
  self.running = false
  if self.kill_timer then
    self.kill_timer:close()
  end
  self.handle:close()
  self:_close_pipes()
  local reason = 'the taskline server ' .. M.describe_exit(code, signal) .. ': ' .. self.stderr
  for id, callback in pairs(self.pending) do
    self.pending[id] = nil
    callback({ message = reason })
  end
  if self.handlers.on_exit then
    self.handlers.on_exit(code, signal)
  end
end

--- "exited with code N" or "was killed by signal N" (libuv reports code 0 then).
function M.describe_exit(code, signal)
  if signal ~= 0 then
    return string.format('was killed by signal %d', signal)
  end
  return string.format('exited with code %d', code)
end

function Client:_close_pipes()
  for _, pipe in ipairs({ self.stdin, self.stdout, self.stderr_pipe }) do
    if not pipe:is_closing() then
      pipe:close()
    end
  end
end

return M
