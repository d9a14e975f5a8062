-- Starting a server and running the initialize handshake.

local rpc = require('taskline.rpc')

local M = {}

M.PROTOCOL_VERSION = '1'

--- Starts the server and sends initialize and initialized. Requests may be sent
--- at once: the server handles them in order, after initialize. `on_ready(failure,
--- result)` gets the initialize result, or a message saying why it failed; a server
--- speaking another protocol version is stopped.
--- `request_timeout` (ms, or nil for none) is how long each request may wait;
--- `initialization_options` (a table, or nil) goes with initialize.
--- Returns the rpc client, or nil and the reason it could not start.
function M.start(path, args, handlers, on_ready, request_timeout, initialization_options)
  local client, reason = rpc.start(path, args, handlers, request_timeout)
  if not client then
    return nil, reason
  end
  client:request('initialize', {
    processId = vim.fn.getpid(),
    clientInfo = { name = 'taskline.nvim' },
    initializationOptions = initialization_options,
  }, function(err, result)
    if err then
      return on_ready('initialize failed: ' .. err.message)
    end
    if result.protocolVersion ~= M.PROTOCOL_VERSION then
      client:stop()
      return on_ready(string.format('the server speaks protocol %s, this plugin %s',
        result.protocolVersion, M.PROTOCOL_VERSION))
    end
    on_ready(nil, result)
  end)
  client:notify('initialized')
  return client
end

return M
