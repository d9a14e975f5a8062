-- Tests for the plugin, run by run.sh in headless Neovim against the real server.

local taskline = require('taskline')
local buffer = require('taskline.buffer')
local config = require('taskline.config')
local rpc = require('taskline.rpc')
local session = require('taskline.session')

local WAIT_MS = 5000
local CROSS_PROCESS_WAIT_MS = 1500
local EMPTY_HINT = 'No tasks. Press a to add one.'

vim.cmd('runtime plugin/taskline.lua')

-- Raised by wait_for, so an expected failure can tell "it never happened" from other errors.
local WaitTimeout = {}
WaitTimeout.__tostring = function(timeout)
  return timeout.message
end

local function wait_for(what, predicate, timeout_ms)
  if not vim.wait(timeout_ms or WAIT_MS, predicate, 10) then
    error(setmetatable({ message = 'timed out waiting for ' .. what() }, WaitTimeout))
  end
end

local function list_lines()
  local bufnr = buffer.bufnr()
  return bufnr and vim.api.nvim_buf_get_lines(bufnr, 0, -1, false) or {}
end

local function describe_difference(expected, actual)
  for i = 1, math.max(#expected, #actual) do
    if expected[i] ~= actual[i] then
      return string.format('%d lines, have %d; line %d should be %s, is %s',
        #expected, #actual, i, vim.inspect(expected[i]), vim.inspect(actual[i]))
    end
  end
end

local function wait_for_lines(expected, timeout_ms)
  wait_for(function()
    return 'list lines: ' .. describe_difference(expected, list_lines())
  end, function()
    return vim.deep_equal(list_lines(), expected)
  end, timeout_ms)
end

--- Sends a request and waits for its answer; raises on an error answer.
local function call(client, method, params)
  local answer
  client:request(method, params, function(err, result)
    answer = { err = err, result = result }
  end)
  wait_for(function()
    return 'the answer to ' .. method
  end, function()
    return answer ~= nil
  end)
  if answer.err then
    error(method .. ' failed: ' .. vim.inspect(answer.err))
  end
  return answer.result
end

local function press(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'x', false)
end

local function assert_equal(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(string.format('%s: expected %s, got %s', what, vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

local function move_to_line(line)
  vim.api.nvim_win_set_cursor(0, { line, 0 })
end

-- Per-test state: a fresh database, stubbed prompts, recorded messages, extra servers.
local db, stubs, messages, second_clients

local function stub(tbl, key, value)
  table.insert(stubs, { tbl = tbl, key = key, value = tbl[key] })
  tbl[key] = value
end

local function answer_prompts(...)
  local answers = { ... }
  stub(vim.ui, 'input', function(_, on_confirm)
    on_confirm(table.remove(answers, 1))
  end)
end

--- A second, separate server process on the same database.
local function second_client()
  local client = assert(session.start(config.server_path(), { '--db', db }, {}, function(failure)
    assert(not failure, failure)
  end))
  table.insert(second_clients, client)
  return client
end

--- The messages shown so far (vim.notify); any left at the end of a test fail it.
local function take_messages()
  local taken = messages
  messages = {}
  return taken
end

local function set_up()
  db = vim.fn.tempname() .. '.sqlite'
  stubs, messages, second_clients = {}, {}, {}
  taskline.setup({ db = db })
  stub(vim, 'notify', function(message)
    table.insert(messages, message)
  end)
end

local function tear_down()
  if buffer.bufnr() then
    vim.api.nvim_buf_delete(buffer.bufnr(), { force = true })
  end
  taskline.stop()
  for _, client in ipairs(second_clients) do
    client:stop()
    client:wait_for_exit(WAIT_MS)
  end
  for i = #stubs, 1, -1 do
    stubs[i].tbl[stubs[i].key] = stubs[i].value
  end
  assert_equal({}, messages, 'unexpected messages')
end

local tests = {}

local function test(name, fn, expected_failure)
  table.insert(tests, { name = name, fn = fn, expected_failure = expected_failure })
end

local frame_messages = {
  { jsonrpc = '2.0', id = 1, result = { title = 'Grüße, 世界 🎉' } },
  { jsonrpc = '2.0', method = 'tasks/didChange', params = { seq = 1 } },
}

local function read_all(chunks)
  local read_frames = rpc.frame_reader()
  local messages_read = {}
  for _, chunk in ipairs(chunks) do
    for _, body in ipairs(read_frames(chunk)) do
      table.insert(messages_read, vim.json.decode(body))
    end
  end
  return messages_read
end

test('the frame reader handles coalesced frames and frames split at every byte', function()
  local stream = rpc.encode_frame(frame_messages[1]) .. rpc.encode_frame(frame_messages[2])
  assert_equal(frame_messages, read_all({ stream }), 'coalesced')
  for split = 1, #stream - 1 do
    assert_equal(frame_messages, read_all({ stream:sub(1, split), stream:sub(split + 1) }), 'split at ' .. split)
  end
end)

test(':Taskline opens an empty, read-only scratch list', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  local bufnr = vim.api.nvim_get_current_buf()
  assert_equal(buffer.bufnr(), bufnr, 'the current buffer')
  assert_equal('nofile', vim.bo[bufnr].buftype, 'buftype')
  assert_equal(false, vim.bo[bufnr].modifiable, 'modifiable')
  assert_equal('taskline', vim.bo[bufnr].filetype, 'filetype')
end)

test('the list shows tasks oldest first with done mark, due and tags', function()
  local client = taskline.client()
  call(client, 'tasks/create', { title = 'First', due = '2026-12-01' })
  call(client, 'tasks/create', { title = 'Second', done = true, tags = { 'work', 'docs' } })
  call(client, 'tasks/create', { title = 'Third', due = '2026-12-01T17:00:00+01:00', tags = { 'x' } })
  vim.cmd('Taskline')
  wait_for_lines({
    '[ ] First  due 2026-12-01',
    '[x] Second  #docs #work',
    '[ ] Third  due 2026-12-01T17:00:00+01:00  #x',
  })
end)

test('the list holds every task when there are more than fit on one page', function()
  local client = taskline.client()
  local created, count = {}, 1001
  for i = 1, count do
    client:request('tasks/create', { title = string.format('task %04d', i) }, function(err, task)
      assert(not err, err and err.message)
      table.insert(created, task)
    end)
  end
  wait_for(function()
    return 'the creates to be answered, ' .. #created .. ' so far'
  end, function()
    return #created == count
  end, 60000)
  -- Oldest first; tasks created in the same millisecond are ordered by id.
  table.sort(created, function(a, b)
    return a.createdAt < b.createdAt or (a.createdAt == b.createdAt and a.id < b.id)
  end)
  vim.cmd('Taskline')
  wait_for_lines(vim.tbl_map(function(task)
    return '[ ] ' .. task.title
  end, created))
end)

test('a adds a task with the title typed at the prompt', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  answer_prompts('Buy milk', 'Walk the dog')
  press('a')
  wait_for_lines({ '[ ] Buy milk' })
  press('a')
  wait_for_lines({ '[ ] Buy milk', '[ ] Walk the dog' })
end)

test('x and <Space> toggle the task under the cursor', function()
  local client = taskline.client()
  call(client, 'tasks/create', { title = 'One' })
  call(client, 'tasks/create', { title = 'Two' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] One', '[ ] Two' })
  move_to_line(2)
  press('x')
  wait_for_lines({ '[ ] One', '[x] Two' })
  press(' ')
  wait_for_lines({ '[ ] One', '[ ] Two' })
  local stored = call(client, 'tasks/fetch', {}).tasks[2]
  assert_equal({ false, 3 }, { stored.done, stored.version }, 'the stored done and version')
end)

test('r renames the task under the cursor', function()
  call(taskline.client(), 'tasks/create', { title = 'Old name', tags = { 'keep' } })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Old name  #keep' })
  answer_prompts('New name')
  press('r')
  wait_for_lines({ '[ ] New name  #keep' })
end)

test('dd deletes the task under the cursor only when confirmed', function()
  local client = taskline.client()
  call(client, 'tasks/create', { title = 'Doomed' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Doomed' })
  local answer = 2
  stub(vim.fn, 'confirm', function()
    return answer
  end)
  press('dd')
  call(client, 'tasks/fetch', {}) -- a notification would come before this answer
  assert_equal({ '[ ] Doomed' }, list_lines(), 'lines after answering No')
  answer = 1
  press('dd')
  wait_for_lines({ EMPTY_HINT })
end)

test('a change made through the rpc API shows up without a key press', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  local client = taskline.client()
  local task = call(client, 'tasks/create', { title = 'From the API' })
  wait_for_lines({ '[ ] From the API' })
  call(client, 'tasks/update', { id = task.id, changes = { done = true, tags = { 'api' } } })
  wait_for_lines({ '[x] From the API  #api' })
  call(client, 'tasks/delete', { id = task.id })
  wait_for_lines({ EMPTY_HINT })
end)

test('R refreshes the list, picking up changes made by a second process', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  call(second_client(), 'tasks/create', { title = 'Made elsewhere' })
  press('R')
  wait_for_lines({ '[ ] Made elsewhere' })
end)

test('a change made by a second process shows up without a key press', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  call(second_client(), 'tasks/create', { title = 'Made elsewhere' })
  wait_for_lines({ '[ ] Made elsewhere' }, CROSS_PROCESS_WAIT_MS)
end, 'needs cross-process notifications')

test('toggling a task changed by a second process shows its current state', function()
  local task = call(taskline.client(), 'tasks/create', { title = 'Shared' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Shared' })
  call(second_client(), 'tasks/update', { id = task.id, changes = { title = 'Renamed elsewhere' } })
  press('x')
  wait_for_lines({ '[ ] Renamed elsewhere' })
  assert_equal({ 'taskline: the task was changed elsewhere; the list now shows its current state' },
    take_messages(), 'messages')
end)

test('q closes the list', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  local bufnr = buffer.bufnr()
  press('q')
  assert_equal(false, vim.api.nvim_buf_is_valid(bufnr), 'the list buffer is valid')
  assert_equal(nil, buffer.bufnr(), 'the open list')
end)

test(':Taskline reports a server that cannot be found', function()
  taskline.setup({ server = '/nonexistent/taskline' })
  vim.cmd('Taskline')
  assert_equal(nil, buffer.bufnr(), 'the open list')
  assert_equal({ 'taskline: "/nonexistent/taskline" is not an executable file or on PATH' },
    take_messages(), 'messages')
end)

local function checkhealth_lines()
  vim.cmd('silent checkhealth taskline')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd('bwipeout!')
  return table.concat(lines, '\n')
end

test(':checkhealth taskline says the server answers initialize, with its version', function()
  local report = checkhealth_lines()
  assert(report:match('OK[^\n]*the server answers initialize: taskline %d+%.%d+%.%d+'), report)
end)

test(':checkhealth taskline reports an error for a missing server', function()
  taskline.setup({ server = '/nonexistent/taskline' })
  local report = checkhealth_lines()
  assert(report:match('ERROR[^\n]*server not found'), report)
  assert(not report:match('OK'), report)
end)

local function run(entry)
  set_up()
  local passed, err = pcall(entry.fn)
  local cleaned_up, cleanup_err = pcall(tear_down)
  if passed and not cleaned_up then
    passed, err = false, 'tear-down: ' .. tostring(cleanup_err)
  end
  if not entry.expected_failure then
    return passed and 'pass' or 'fail', err
  end
  if passed then
    return 'fail', 'passed unexpectedly (' .. entry.expected_failure .. '): make it an ordinary test'
  end
  if getmetatable(err) == WaitTimeout then
    return 'skip', 'expected failure, ' .. entry.expected_failure
  end
  return 'fail', err
end

local counts = { pass = 0, fail = 0, skip = 0 }
local ok, runner_err = pcall(function()
  for _, entry in ipairs(tests) do
    local outcome, err = run(entry)
    counts[outcome] = counts[outcome] + 1
    local detail = err and (': ' .. tostring(err)) or ''
    io.stdout:write(string.format('%s - %s%s\n', outcome, entry.name, detail))
  end
end)
if not ok then
  counts.fail = counts.fail + 1
  io.stdout:write('the test runner failed: ' .. tostring(runner_err) .. '\n')
end
if counts.skip > 0 then
  io.stdout:write(string.format('%d skipped\n', counts.skip))
end
io.stdout:write(string.format('%d passed, %d failed\n', counts.pass, counts.fail))
vim.cmd(counts.fail == 0 and 'qall!' or 'cquit 1')
