-- :checkhealth taskline — is the server there, and does it open the configured database?

local config = require('taskline.config')
local session = require('taskline.session')

local M = {}

local INITIALIZE_TIMEOUT_MS = 5000
local STOP_WAIT_MS = 3000

-- vim.health.start/ok/... arrived in 0.10; 0.8 and 0.9 have vim.health.report_*,
-- and 0.7 has those in the `health` module.
local health = vim.health or require('health')
local report = {
  start = health.start or health.report_start,
  ok = health.ok or health.report_ok,
  info = health.info or health.report_info,
  error = health.error or health.report_error,
}

-- Starts a server as the plugin does, on the configured database, and waits for
-- its answer to initialize; a server that cannot use the database ends instead.
local function ask_initialize(path)
  local answer
  local client, reason = session.start(path, config.server_args(), {}, function(failure, result)
    answer = { failure = failure, result = result }
  end)
  if not client then
    return nil, reason
  end
  vim.wait(INITIALIZE_TIMEOUT_MS, function()
    return answer ~= nil
  end, 10)
  client:stop()
  client:wait_for_exit(STOP_WAIT_MS)
  if not answer then
    return nil, string.format('no answer within %d ms', INITIALIZE_TIMEOUT_MS)
  end
  return answer.result, answer.failure
end

function M.check()
  report.start('taskline')
  local path, reason = config.server_path()
  if not path then
    return report.error('server not found: ' .. reason)
  end
  report.ok('server found: ' .. path)
  local database = config.options.db or "the server's default"

  local result, failure = ask_initialize(path)
  if not result then
    return report.error(string.format('the server does not start on the database %s: %s', database, failure))
  end
  report.ok(string.format('the server answers initialize: %s %s, protocol %s',
    result.serverInfo.name, result.serverInfo.version, result.protocolVersion))
  report.ok(string.format('the database %s opens (id %s, seq %d)', database, result.database.id,
    result.database.seq))
end

return M
