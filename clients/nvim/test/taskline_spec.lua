-- Tests for the plugin, run by run.sh in headless Neovim against the real server.

local taskline = require('taskline')
local buffer = require('taskline.buffer')
local config = require('taskline.config')
local format = require('taskline.format')
local prompt = require('taskline.prompt')
local rpc = require('taskline.rpc')
local session = require('taskline.session')
local tasks = require('taskline.tasks')

local uv = vim.uv or vim.loop

local WAIT_MS = 5000
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

--- Puts `text` in quick add's input, as typing it would.
local function type_in_prompt(text)
  local bufnr = assert(prompt.bufnr(), 'the input is open')
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, { prompt.PROMPT .. text })
end

--- Quick add: `a`, the words, Enter.
local function quick_add(text)
  press('a')
  type_in_prompt(text)
  press('<CR>')
end

--- What quick add's input shows under the words, or nil.
local function preview_text()
  local bufnr = prompt.bufnr()
  local marks = bufnr and vim.api.nvim_buf_get_extmarks(bufnr, vim.api.nvim_create_namespace('taskline_preview'),
    0, -1, { details = true }) or {}
  return marks[1] and marks[1][4].virt_lines[1][1][1]
end

local function wait_for_preview(pattern)
  wait_for(function()
    return 'a preview matching ' .. pattern .. ', have ' .. vim.inspect(preview_text())
  end, function()
    return (preview_text() or ''):match(pattern) ~= nil
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

--- Records the method of every request sent by any rpc client from now on, as
--- { client = <the rpc client>, method = <name> }. `any_client` is an rpc client
--- (it may have stopped), to reach the class.
local function record_requests(any_client)
  local sent = {}
  local Client = getmetatable(any_client)
  local send = Client.request
  stub(Client, 'request', function(self, method, ...)
    table.insert(sent, { client = self, method = method })
    return send(self, method, ...)
  end)
  return sent
end

--- The methods in `sent` that `client` sent.
local function methods_sent_by(client, sent)
  local methods = {}
  for _, request in ipairs(sent) do
    if request.client == client then
      table.insert(methods, request.method)
    end
  end
  return methods
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
  -- Most tests follow done tasks; those about hiding them set show_hidden = false.
  taskline.setup({ db = db, show_hidden = true })
  stub(vim, 'notify', function(message)
    table.insert(messages, message)
  end)
end

local function tear_down()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(bufnr):match('^taskline://task/') then
      vim.api.nvim_buf_delete(bufnr, { force = true })
    end
  end
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

local function wait_for_message(pattern)
  wait_for(function()
    return 'a message matching ' .. pattern .. ', have ' .. vim.inspect(messages)
  end, function()
    for _, message in ipairs(messages) do
      if message:match(pattern) then
        return true
      end
    end
    return false
  end)
  take_messages()
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

-- The local date `days` from today, as the protocol writes a date.
local function date_in(days)
  local today = os.date('*t')
  return os.date('%Y-%m-%d', os.time({ year = today.year, month = today.month, day = today.day + days, hour = 12 }))
end

test('the list shows tasks oldest first with done mark, priority, due in words, project, tags and notes', function()
  local client = taskline.client()
  local in_two_days = os.time() + 2 * 86400
  -- Ids in creation order: tasks made in the same millisecond are listed by id.
  call(client, 'tasks/create', { id = 'task-1', title = 'First', due = date_in(1), priority = 3 })
  call(client, 'tasks/create', { id = 'task-2', title = 'Second', done = true, tags = { 'work', 'docs' } })
  call(client, 'tasks/create', { id = 'task-3', title = 'Third', due = os.date('!%Y-%m-%dT%H:%M:%SZ', in_two_days),
    tags = { 'x' }, project = 'Home.Garage', notes = 'Some notes' })
  call(client, 'tasks/create', { id = 'task-4', title = 'Fourth', due = date_in(-2), priority = 1 })
  call(client, 'tasks/create', { id = 'task-5', title = 'Fifth', due = date_in(3) })
  call(client, 'tasks/create', { id = 'task-6', title = 'Sixth', due = '2099-01-31', priority = 2 })
  call(client, 'tasks/create', { id = 'task-7', title = 'Seventh', due = date_in(-1), done = true })
  vim.cmd('Taskline')
  wait_for_lines({
    '[ ] !!! First  due tomorrow',
    '[x] Second  #docs #work',
    '[ ] Third  due in 2 days ' .. os.date('%H:%M', in_two_days) .. '  +Home.Garage  #x  (notes)',
    '[ ] ! Fourth  2 days overdue',
    '[ ] Fifth  due in 3 days',
    '[ ] !! Sixth  due 2099-01-31',
    '[x] Seventh  due yesterday',
  })
  local marks = vim.api.nvim_buf_get_extmarks(buffer.bufnr(), vim.api.nvim_create_namespace('taskline'), 0, -1,
    { details = true })
  local highlighted = vim.tbl_map(function(mark)
    local line = list_lines()[mark[2] + 1]
    local last = mark[4].end_row > mark[2] and #line or mark[4].end_col
    return { mark[4].hl_group, line:sub(mark[3] + 1, last) }
  end, marks)
  assert_equal({
    { 'TasklineDone', '[x] Second  #docs #work' },
    { 'TasklineOverdue', '2 days overdue' },
    { 'TasklineDone', '[x] Seventh  due yesterday' },
  }, highlighted, 'highlights')
end)

-- The vectors every front-end's dates are tested against (protocol/dates.md).
local DATES_SHOWN = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h')
  .. '/protocol/conformance/dates-shown.json'

test('dates read as protocol/dates.md says, in every zone of its vectors', function()
  -- The zone changes within this process: tzset makes the C library read TZ again.
  local ffi = require('ffi')
  ffi.cdef('void tzset(void);')
  local cases = vim.json.decode(table.concat(vim.fn.readfile(DATES_SHOWN), '\n')).cases
  assert(#cases > 30, 'the vectors are read')
  local zone = vim.env.TZ
  local wrong = {}
  local ok, err = pcall(function()
    for _, case in ipairs(cases) do
      vim.env.TZ = case.timeZone
      ffi.C.tzset()
      local now = format.parse_time(case.now).epoch
      local shown = format.when(case.stored, now, case.open)
      local overdue = format.is_overdue({ done = not case.open, due = case.stored }, now)
      if shown ~= case.shown or overdue ~= case.overdue then
        table.insert(wrong, string.format('%s: %q, overdue %s (expected %q, %s)', case.name, shown,
          tostring(overdue), case.shown, tostring(case.overdue)))
      end
    end
  end)
  vim.env.TZ = zone
  ffi.C.tzset()
  assert(ok, err)
  assert_equal({}, wrong, 'the cases read otherwise')
end)

test('done and waiting tasks are hidden by default; H and :TasklineToggleDone show and hide them', function()
  taskline.setup({ db = db })
  local client = taskline.client()
  call(client, 'tasks/create', { id = 'task-1', title = 'Done', done = true })
  call(client, 'tasks/create', { id = 'task-2', title = 'Open' })
  call(client, 'tasks/create', { id = 'task-3', title = 'Waits', wait = date_in(2) })
  call(client, 'tasks/create', { id = 'task-4', title = 'Waited', wait = date_in(-1) })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Open', '[ ] Waited' })
  press('H')
  wait_for_lines({ '[x] Done', '[ ] Open', '[ ] Waits  waits till in 2 days', '[ ] Waited' })
  vim.cmd('TasklineToggleDone')
  wait_for_lines({ '[ ] Open', '[ ] Waited' })
  -- The keys act on the task on the line, not on the one at that place in the whole list.
  move_to_line(2)
  press('x')
  wait_for_lines({ '[ ] Open' })
  assert_equal(true, call(client, 'tasks/get', { id = 'task-4' }).done, 'the task x marked done')
  press('x')
  wait_for_lines({ 'No tasks to show; 4 done or waiting: press H to show them.' })
end)

test('when a due or a wait passes, the list shows it without a key press', function()
  taskline.setup({ db = db })
  local client = taskline.client()
  local soon = os.time() + 3
  call(client, 'tasks/create', { id = 'task-1', title = 'Due soon', due = os.date('!%Y-%m-%dT%H:%M:%SZ', soon) })
  local wait = os.date('!%Y-%m-%dT%H:%M:%SZ', soon)
  call(client, 'tasks/create', { id = 'task-2', title = 'Actionable soon', wait = wait })
  vim.cmd('Taskline')
  local due_line = '[ ] Due soon  due today ' .. os.date('%H:%M', soon)
  wait_for_lines({ due_line })
  local function overdue_highlights()
    return #vim.api.nvim_buf_get_extmarks(buffer.bufnr(), vim.api.nvim_create_namespace('taskline'), 0, -1, {})
  end
  assert_equal(0, overdue_highlights(), 'highlights before the due')
  wait_for_lines({ due_line, '[ ] Actionable soon' }, 7000)
  wait_for(function()
    return 'the overdue highlight'
  end, function()
    return overdue_highlights() == 1
  end, 2000)
end)

test('K shows the notes and fields of the task under the cursor in a float', function()
  call(taskline.client(), 'tasks/create', { title = 'With notes', notes = 'line one\nline two', project = 'Work',
    priority = 2, due = date_in(1), recurrence = { rule = 'FREQ=WEEKLY' }, remindAt = date_in(1),
    startedAt = '2030-01-01T09:00:00Z', annotations = { { text = 'called', at = '2030-01-01T10:00:00Z' } } })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] !! ↻ With notes  due tomorrow  +Work  (notes)' })
  local list_window = vim.api.nvim_get_current_win()
  press('K')
  local float
  for _, window in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(window).relative ~= '' then
      float = window
    end
  end
  assert(float, 'a floating window')
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false)
  assert_equal({ 'With notes', '', 'Priority: medium', 'Due: ' .. date_in(1) .. ' (due tomorrow)',
    'Repeat: FREQ=WEEKLY', 'Remind: ' .. date_in(1) .. ' (tomorrow)', 'Started: 2030-01-01T09:00:00.000Z',
    'Project: Work', '2030-01-01T10:00:00.000Z  called', '', 'line one', 'line two' },
    lines, 'the float')
  assert_equal(list_window, vim.api.nvim_get_current_win(), 'the focused window')
  vim.api.nvim_win_close(float, true)
end)

local function form_buffer()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(bufnr):match('^taskline://task/') then
      return bufnr
    end
  end
end

-- :write in the form, and wait until the save is answered.
local function save_form(bufnr, what)
  vim.cmd('write')
  wait_for(function()
    return what
  end, function()
    return not vim.bo[bufnr].modified
  end)
end

test('e opens a form of every field; :write saves what changed in one update', function()
  local client = taskline.client()
  local task = call(client, 'tasks/create', { title = 'Plan', tags = { 'a' }, notes = 'old notes' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Plan  #a  (notes)' })
  press('e')
  local bufnr = form_buffer()
  assert_equal(bufnr, vim.api.nvim_get_current_buf(), 'the current buffer')
  assert_equal({ 'Title: Plan', 'Priority: none', 'Due: ', 'Wait: ', 'Project: ', 'Tags: a', 'Repeat: ', 'Remind: ',
    'Notes:', 'old notes' }, vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), 'the form')
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, {
    'Title: Plan the trip', 'Priority: h', 'Due: tomorrow', 'Wait: 2030-01-01T08:00:00Z', 'Project: Home.Travel',
    'Tags: #a b', 'Repeat: FREQ=WEEKLY;BYDAY=TU', 'Remind: 2030-01-02T09:00:00Z',
    'Notes:', 'new notes', 'second line' })
  local sent = record_requests(client)
  save_form(bufnr, 'the form to be saved')
  -- The words of Due, Wait, Repeat and Remind are read by the server first.
  assert_equal({ 'tasks/parse', 'tasks/update' }, methods_sent_by(client, sent), 'requests')
  local stored = call(client, 'tasks/get', { id = task.id })
  assert_equal({ 'Plan the trip', 3, date_in(1), 'Home.Travel', { 'a', 'b' }, 'new notes\nsecond line',
    { rule = 'FREQ=WEEKLY;BYDAY=TU' }, 2 },
    { stored.title, stored.priority, stored.due, stored.project, stored.tags, stored.notes,
      stored.recurrence, stored.version }, 'the stored task')
  assert_equal({ '2030-01-01 08:00', '2030-01-02 09:00' },
    { os.date('!%Y-%m-%d %H:%M', format.parse_time(stored.wait).epoch),
      os.date('!%Y-%m-%d %H:%M', format.parse_time(stored.remindAt).epoch) }, 'the stored wait and remindAt (UTC)')
  assert_equal({ 'Title: Plan the trip', 'Priority: high', 'Due: ' .. date_in(1), 'Wait: ' .. stored.wait,
    'Project: Home.Travel', 'Tags: a b', 'Repeat: FREQ=WEEKLY;BYDAY=TU', 'Remind: ' .. stored.remindAt, 'Notes:',
    'new notes', 'second line' }, vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), 'the form after saving')
  -- Cleared fields are sent as null (a due stays: a repeating task needs one); an unchanged form sends nothing.
  vim.api.nvim_buf_set_lines(bufnr, 3, 8, false, { 'Wait:', 'Project:', 'Tags: a b', 'Repeat:', 'Remind:' })
  save_form(bufnr, 'the second save')
  stored = call(client, 'tasks/get', { id = task.id })
  assert_equal({ date_in(1), vim.NIL, vim.NIL, vim.NIL, vim.NIL, 3 },
    { stored.due, stored.wait, stored.project, stored.recurrence, stored.remindAt, stored.version },
    'due, wait, project, recurrence, remindAt and version after clearing')
  -- Fields other than the word fields need no tasks/parse.
  vim.api.nvim_buf_set_lines(bufnr, 1, 2, false, { 'Priority: low' })
  local sent_before = #sent
  save_form(bufnr, 'the third save')
  assert_equal({ 'tasks/update' }, methods_sent_by(client, vim.list_slice(sent, sent_before + 1)),
    'requests of the third save')
  sent_before = #sent
  vim.cmd('write')
  assert_equal(sent_before, #sent, 'requests sent by saving an unchanged form')
  vim.api.nvim_buf_delete(form_buffer(), { force = true })
  wait_for_lines({ '[ ] ! Plan the trip  due tomorrow  #a #b  (notes)' })
end)

-- The date of the next `weekday` (os.date's wday: 1 is Sunday) after today, as `due:fri` reads it.
local function next_weekday(wday)
  local days = (wday - os.date('*t').wday) % 7
  return date_in(days == 0 and 7 or days)
end

test("the form's Due, Wait, Remind and Repeat take the command line's words, read by the server", function()
  local client = taskline.client()
  local task = call(client, 'tasks/create', { title = 'Pay rent' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Pay rent' })
  press('e')
  local bufnr = form_buffer()
  vim.api.nvim_buf_set_lines(bufnr, 2, 8, false, { 'Due: fri', 'Wait: +3d', 'Project: ', 'Tags: ', 'Repeat: monthly',
    'Remind: fri 9am' })
  save_form(bufnr, 'the form to be saved')
  local stored = call(client, 'tasks/get', { id = task.id })
  local friday = next_weekday(6)
  local wait, remind = format.parse_time(stored.wait), format.parse_time(stored.remindAt)
  assert_equal({ friday, date_in(3), '00:00', friday, '09:00',
    { rule = 'FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD' }, 'Pay rent', 2 },
    { stored.due, wait.date, wait.clock, remind.date, remind.clock, stored.recurrence, stored.title, stored.version },
    'the stored task')
  assert_equal({ 'Due: ' .. friday, 'Wait: ' .. stored.wait, 'Project: ', 'Tags: ', 'Repeat: monthly',
    'Remind: ' .. stored.remindAt }, vim.api.nvim_buf_get_lines(bufnr, 2, 8, false), 'the form after saving')
  vim.api.nvim_buf_set_lines(bufnr, 6, 7, false, { 'Repeat: lastday' })
  save_form(bufnr, 'the second save')
  assert_equal({ rule = 'FREQ=MONTHLY;BYMONTHDAY=-1' }, call(client, 'tasks/get', { id = task.id }).recurrence,
    'the stored recurrence')
  assert_equal('Repeat: lastday', vim.api.nvim_buf_get_lines(bufnr, 6, 7, false)[1], 'the form after saving')
  -- Emptied, Due and Repeat clear the due and end the series.
  vim.api.nvim_buf_set_lines(bufnr, 2, 3, false, { 'Due:' })
  vim.api.nvim_buf_set_lines(bufnr, 6, 7, false, { 'Repeat:' })
  save_form(bufnr, 'the third save')
  stored = call(client, 'tasks/get', { id = task.id })
  assert_equal({ vim.NIL, vim.NIL, 4 }, { stored.due, stored.recurrence, stored.version }, 'due, recurrence, version')
  vim.api.nvim_buf_delete(bufnr, { force = true })
end)

test('a repeating task is marked in the list; the form takes a rule by name and shows a refused one', function()
  local client = taskline.client()
  local task = call(client, 'tasks/create', { id = 'task-1', title = 'Water plants', due = date_in(1) })
  call(client, 'tasks/create', { id = 'task-2', title = 'Pay rent', due = date_in(1), priority = 1,
    recurrence = { rule = 'FREQ=MONTHLY' } })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Water plants  due tomorrow', '[ ] ! ↻ Pay rent  due tomorrow' })
  press('e')
  local bufnr = form_buffer()
  vim.api.nvim_buf_set_lines(bufnr, 6, 7, false, { 'Repeat: FREQ=HOURLY' })
  vim.cmd('write')
  wait_for_message('^taskline: not saved: repeat: FREQ must be ')
  vim.api.nvim_buf_set_lines(bufnr, 6, 7, false, { 'Repeat: Weekdays' })
  save_form(bufnr, 'the form to be saved')
  assert_equal({ rule = 'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR' }, call(client, 'tasks/get', { id = task.id }).recurrence,
    'the stored recurrence')
  assert_equal('Repeat: weekdays', vim.api.nvim_buf_get_lines(bufnr, 6, 7, false)[1], 'the form after saving')
  vim.api.nvim_buf_delete(bufnr, { force = true })
  wait_for_lines({ '[ ] ↻ Water plants  due tomorrow', '[ ] ! ↻ Pay rent  due tomorrow' })
end)

test('the form says in words what is wrong, and keeps the edits', function()
  local client = taskline.client()
  local task = call(client, 'tasks/create', { title = 'Plan' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Plan' })
  press('e')
  local bufnr = form_buffer()
  vim.api.nvim_buf_set_lines(bufnr, 1, 2, false, { 'Priority: urgent' })
  vim.cmd('write')
  assert_equal({ 'taskline: not saved: Priority: write one of none, low, medium, high' }, take_messages(), 'messages')
  -- Words the grammar refuses show the server's message, and nothing is stored.
  vim.api.nvim_buf_set_lines(bufnr, 1, 3, false, { 'Priority: low', 'Due: whenever' })
  vim.cmd('write')
  wait_for_message('^taskline: not saved: due: takes today, tomorrow, .* or an RFC 3339 time, not whenever$')
  -- Words beyond a date (`fri soon`) would set the title: refused too.
  vim.api.nvim_buf_set_lines(bufnr, 2, 3, false, { 'Due: fri soon' })
  vim.cmd('write')
  wait_for_message('^taskline: not saved: Due, Wait, Repeat and Remind take a date, a time or a rule each; '
    .. 'what they hold also sets the title %("soon"%)$')
  local stored = call(client, 'tasks/get', { id = task.id })
  assert_equal({ 'Plan', 0, vim.NIL, 1 }, { stored.title, stored.priority, stored.due, stored.version },
    'stored after the refused words')
  vim.api.nvim_buf_set_lines(bufnr, 2, 5, false, { 'Due:', 'Wait:', 'Project: Home..Garage' })
  vim.cmd('write')
  wait_for_message('^taskline: not saved: project: each dot%-separated segment must be 1 to 64 characters$')
  vim.api.nvim_buf_set_lines(bufnr, 4, 5, false, { 'Project: Home' })
  -- A change made elsewhere after the form was opened is not overwritten.
  call(second_client(), 'tasks/update', { id = task.id, changes = { title = 'Renamed elsewhere' } })
  vim.cmd('write')
  wait_for_message('^taskline: not saved: the task was changed elsewhere since the form was opened')
  assert_equal(true, vim.bo[bufnr].modified, 'the form keeps its edits')
  stored = call(client, 'tasks/get', { id = task.id })
  assert_equal({ 'Renamed elsewhere', 0, vim.NIL }, { stored.title, stored.priority, stored.project }, 'stored')
  vim.api.nvim_buf_set_lines(bufnr, 8, 9, false, {})
  vim.cmd('write')
  assert_equal({ 'taskline: not saved: the form has no "Notes:" line' }, take_messages(), 'messages')
  vim.api.nvim_buf_delete(form_buffer(), { force = true })
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
  quick_add('Buy milk')
  wait_for_lines({ '[ ] Buy milk' })
  quick_add('Walk the dog')
  wait_for_lines({ '[ ] Buy milk', '[ ] Walk the dog' })
end)

test('a takes the words taskline add takes, read by the server', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  quick_add('Call the bank +money due:2099-01-15 pri:H')
  local client = taskline.client()
  local stored
  wait_for(function()
    return 'the task'
  end, function()
    stored = call(client, 'tasks/fetch', {}).tasks
    return #stored == 1
  end)
  local task = stored[1]
  assert_equal('Call the bank', task.title, 'title')
  assert_equal({ 'money' }, task.tags, 'tags')
  assert_equal(3, task.priority, 'priority')
  assert_equal('2099-01-15', task.due, 'due')
  quick_add('Call re:bank')
  wait_for_message('^taskline: re:bank: re is not one of ')
  assert_equal(1, #call(client, 'tasks/fetch', {}).tasks, 'tasks after the refusal')
end)

test('a shows what the words make as they are typed, and writes nothing until Enter', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  press('a')
  assert(prompt.bufnr(), 'a opens the input')
  assert_equal(nil, preview_text(), 'the preview before a word')
  type_in_prompt('Call the bank +money due:+3d pri:H')
  local made = '→ “Call the bank”  due ' .. date_in(3) .. ' (in 3 days)  priority high  +money'
  wait_for_preview('^' .. vim.pesc(made) .. '$')
  type_in_prompt('Call re:bank')
  wait_for_preview('^✗ re:bank: re is not one of ')
  type_in_prompt('Water the plants recur:weekly wait:tomorrow')
  local waits = '→ “Water the plants”  wait ' .. date_in(1) .. ' 00:00 (tomorrow 00:00)  repeats weekly'
  wait_for_preview('^' .. vim.pesc(waits) .. '$')
  type_in_prompt('   ')
  wait_for(function()
    return 'no preview for no words, have ' .. vim.inspect(preview_text())
  end, function()
    return preview_text() == nil
  end)
  assert_equal(0, #call(taskline.client(), 'tasks/fetch', {}).tasks, 'tasks while typing')
  type_in_prompt('Call the bank +money due:+3d pri:H')
  wait_for_preview('^' .. vim.pesc(made) .. '$')
  press('<CR>')
  wait_for_lines({ '[ ] !!! Call the bank  due in 3 days  #money' })
  assert_equal(nil, prompt.bufnr(), 'the input after Enter')
  press('a')
  type_in_prompt('Not added')
  press('<Esc>')
  assert_equal(nil, prompt.bufnr(), 'the input after Esc')
  assert_equal(1, #call(taskline.client(), 'tasks/fetch', {}).tasks, 'tasks after Esc')
end)

test('g? never throws, with the help file or without it', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  stub(vim, 'cmd', function(command)
    error('E149: Sorry, no help for ' .. command)
  end)
  buffer.help()
  wait_for_message('\n  a      Add a task\n')
end)

test('x and <Space> mark the task under the cursor done, and reopen a done one', function()
  local client = taskline.client()
  -- Ids in creation order: tasks made in the same millisecond are listed by id.
  call(client, 'tasks/create', { id = 'task-1', title = 'One' })
  call(client, 'tasks/create', { id = 'task-2', title = 'Two' })
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

test('R fetches the whole list again', function()
  local client = taskline.client()
  local task = call(client, 'tasks/create', { title = 'Kept' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Kept' })
  -- A list that has lost track of a task, as one that missed a change would have.
  tasks.correct({ { kind = 'deleted', id = task.id } })
  assert_equal({ EMPTY_HINT }, list_lines(), 'lines of the list that lost track')
  local sent = record_requests(client)
  press('R')
  wait_for_lines({ '[ ] Kept' })
  assert_equal({ 'tasks/fetch' }, methods_sent_by(client, sent), 'requests')
end)

test('a change made by a second process shows up without a key press', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  local other = second_client()
  local task = call(other, 'tasks/create', { title = 'Made elsewhere' })
  wait_for_lines({ '[ ] Made elsewhere' })
  call(other, 'tasks/update', { id = task.id, changes = { done = true } })
  wait_for_lines({ '[x] Made elsewhere' })
  call(other, 'tasks/delete', { id = task.id })
  wait_for_lines({ EMPTY_HINT })
end)

test('several changes in one notification all show (tasks/apply through the rpc API)', function()
  local client = taskline.client()
  -- Ids in creation order: tasks made in the same millisecond are listed by id.
  local old = call(client, 'tasks/create', { id = 'task-1', title = 'Old' })
  local doomed = call(client, 'tasks/create', { id = 'task-2', title = 'Doomed' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Old', '[ ] Doomed' })
  -- Tasks created in the same millisecond are listed in the order of their ids.
  call(client, 'tasks/apply', { operations = {
    { create = { id = 'new-1', title = 'New one' } },
    { create = { id = 'new-2', title = 'New two', tags = { 't' } } },
    { update = { id = old.id, changes = { done = true } } },
    { delete = { id = doomed.id } },
  } })
  wait_for_lines({ '[x] Old', '[ ] New one', '[ ] New two  #t' })
end)

test('several changes in one notification from a second process all show', function()
  local task = call(taskline.client(), 'tasks/create', { title = 'Here first' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Here first' })
  call(second_client(), 'tasks/apply', { operations = {
    { update = { id = task.id, changes = { title = 'Renamed' } } },
    { create = { id = 'batch-1', title = 'Batch one' } },
    { create = { id = 'batch-2', title = 'Batch two' } },
  } })
  wait_for_lines({ '[ ] Renamed', '[ ] Batch one', '[ ] Batch two' })
end)

test('toggling a task changed by a second process before the list heard of it shows its current state', function()
  local client = taskline.client()
  local task = call(client, 'tasks/create', { title = 'Shared' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Shared' })
  -- While the plugin's server is stopped it can tell the list nothing, so the
  -- list is out of date when x is pressed.
  uv.kill(client.pid, 'sigstop')
  local changed, err = pcall(function()
    call(second_client(), 'tasks/update', { id = task.id, changes = { title = 'Renamed elsewhere' } })
    press('x')
  end)
  uv.kill(client.pid, 'sigcont')
  assert(changed, err)
  wait_for(function()
    return 'a message'
  end, function()
    return #messages > 0
  end)
  assert_equal({ 'taskline: the task was changed elsewhere; the list now shows its current state' },
    take_messages(), 'messages')
  wait_for_lines({ '[ ] Renamed elsewhere' })
  assert_equal(false, call(client, 'tasks/get', { id = task.id }).done, 'done')
end)

test('reopening the list catches up with what changed while it was closed, without a refetch', function()
  local client = taskline.client()
  local kept = call(client, 'tasks/create', { title = 'Kept' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Kept' })
  local doomed = call(client, 'tasks/create', { title = 'Doomed' })
  wait_for_lines({ '[ ] Kept', '[ ] Doomed' })
  press('q')
  local other = second_client()
  call(other, 'tasks/update', { id = kept.id, changes = { done = true } })
  call(other, 'tasks/delete', { id = doomed.id })
  local brief = call(other, 'tasks/create', { title = 'Brief' })
  call(other, 'tasks/delete', { id = brief.id })
  call(other, 'tasks/create', { title = 'New' })
  local sent = record_requests(client)
  vim.cmd('Taskline')
  wait_for_lines({ '[x] Kept', '[ ] New' })
  assert_equal({ 'tasks/changes' }, methods_sent_by(client, sent), 'requests')
end)

test('after a restart of the server the open list catches up from the last seq it saw', function()
  local client = taskline.client()
  call(client, 'tasks/create', { title = 'Before' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Before' })
  call(client, 'tasks/create', { title = 'Seen' })
  wait_for_lines({ '[ ] Before', '[ ] Seen' })
  local seen = tasks.seq()
  taskline.stop()
  call(second_client(), 'tasks/create', { title = 'While it was down' })
  local sent = record_requests(client)
  local restarted = taskline.client()
  assert(restarted ~= client, 'a new session')
  wait_for_lines({ '[ ] Before', '[ ] Seen', '[ ] While it was down' })
  assert_equal({ 'initialize', 'tasks/changes' }, methods_sent_by(restarted, sent), 'requests')
  assert(tasks.seq() > seen, 'the seq moved on')
end)

test('reopening falls back to a refetch when the server no longer keeps the changes (1005)', function()
  -- --history-days 0: the server drops every change but the newest when it starts.
  taskline.setup({ db = db, args = { '--history-days', '0' } })
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  local client = taskline.client()
  call(client, 'tasks/create', { title = 'Mine' })
  wait_for_lines({ '[ ] Mine' })
  press('q')
  taskline.stop()
  local other = second_client()
  -- Ids in creation order: tasks made in the same millisecond are listed by id.
  call(other, 'tasks/create', { id = 'theirs-1', title = 'Theirs' })
  call(other, 'tasks/create', { id = 'theirs-2', title = 'Theirs too' })
  local sent = record_requests(client)
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Mine', '[ ] Theirs', '[ ] Theirs too' })
  assert_equal({ 'initialize', 'tasks/changes', 'tasks/fetch' }, methods_sent_by(taskline.client(), sent),
    'requests')
end)

test('reopening falls back to a refetch when the database file was replaced', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  local client = taskline.client()
  for i = 1, 3 do
    -- Ids in creation order: tasks made in the same millisecond are listed by id.
    call(client, 'tasks/create', { id = 'old-' .. i, title = 'Old ' .. i })
  end
  wait_for_lines({ '[ ] Old 1', '[ ] Old 2', '[ ] Old 3' })
  press('q')
  taskline.stop()
  for _, suffix in ipairs({ '', '-wal', '-shm' }) do
    os.remove(db .. suffix)
  end
  call(second_client(), 'tasks/create', { title = 'New' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] New' })
end)

test('a replaced database file is told by its id, even when its seq is higher', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  call(taskline.client(), 'tasks/create', { title = 'Old' })
  wait_for_lines({ '[ ] Old' })
  press('q')
  taskline.stop()
  for _, suffix in ipairs({ '', '-wal', '-shm' }) do
    os.remove(db .. suffix)
  end
  local other = second_client()
  for i = 1, 3 do -- past the seq the list saw
    call(other, 'tasks/create', { id = 'new-' .. i, title = 'New ' .. i })
  end
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] New 1', '[ ] New 2', '[ ] New 3' })
end)

test('after a fetch the list follows on from the page\'s seq: reopening catches up', function()
  call(second_client(), 'tasks/create', { title = 'Made before the list' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Made before the list' })
  press('q')
  call(second_client(), 'tasks/create', { title = 'Made while closed' })
  local client = taskline.client()
  local sent = record_requests(client)
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Made before the list', '[ ] Made while closed' })
  assert_equal({ 'tasks/changes' }, methods_sent_by(client, sent), 'requests')
end)

test('tasks/didMissChanges makes the list catch up (backlog) or refetch (any other reason)', function()
  local client = taskline.client()
  call(client, 'tasks/create', { title = 'Here' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] Here' })
  local sent = record_requests(client)
  client.handlers.on_notification('tasks/didMissChanges', { since = 1, seq = 1, reason = 'backlog' })
  wait_for(function()
    return 'a catch-up'
  end, function()
    return #methods_sent_by(client, sent) == 1 and tasks.follows(client)
  end)
  client.handlers.on_notification('tasks/didMissChanges', { since = 1, seq = 1, reason = 'historyExpired' })
  wait_for(function()
    return 'a refetch, after ' .. vim.inspect(methods_sent_by(client, sent))
  end, function()
    return #methods_sent_by(client, sent) == 2
  end)
  assert_equal({ 'tasks/changes', 'tasks/fetch' }, methods_sent_by(client, sent), 'requests')
  wait_for_lines({ '[ ] Here' })
end)

test('a server killed by a signal while idle is reported, and the open list goes on following', function()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  uv.kill(taskline.client().pid, 'sigkill')
  wait_for_message('killed by signal 9')
  call(second_client(), 'tasks/create', { title = 'After the kill' })
  -- A new server is spawned, initialized and caught up first: give a loaded machine time.
  wait_for_lines({ '[ ] After the kill' }, 3 * WAIT_MS)
end)

test('a request a stopped server does not answer times out, is reported, and the server is restarted', function()
  taskline.setup({ db = db, request_timeout = 300 })
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  local stuck = taskline.client()
  uv.kill(stuck.pid, 'sigstop')
  -- The stuck server keeps its 300 ms; the one started after it gets room on a loaded machine.
  require('taskline.config').options.request_timeout = 10000
  quick_add('Never answered')
  wait_for_message('did not answer tasks/parse within 300 ms')
  call(second_client(), 'tasks/create', { title = 'After the restart' })
  wait_for_lines({ '[ ] After the restart' })
  assert(not stuck:is_running(), 'the stopped server was ended')
end)

test('the list kept for one database is not shown for another', function()
  call(taskline.client(), 'tasks/create', { title = 'In the first' })
  vim.cmd('Taskline')
  wait_for_lines({ '[ ] In the first' })
  press('q')
  taskline.stop()
  taskline.setup({ db = vim.fn.tempname() .. '.sqlite' })
  vim.cmd('Taskline')
  assert_equal({ '' }, list_lines(), 'lines before the list is loaded')
  wait_for_lines({ EMPTY_HINT })
  call(taskline.client(), 'tasks/create', { title = 'In the second' })
  wait_for_lines({ '[ ] In the second' })
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

test(':checkhealth taskline fails when the configured database is not SQLite, or cannot be opened', function()
  local file = io.open(db, 'w')
  file:write('not a database, but notes kept in the wrong file\n')
  file:close()
  local report = checkhealth_lines()
  assert(report:match('ERROR[^\n]*the server does not start on the database ' .. vim.pesc(db)
    .. ':[^\n]*not a usable SQLite database'), report)
  assert(not report:match('answers initialize'), report)
  -- A path below a file is no place for a database.
  taskline.setup({ db = db .. '/tasks.sqlite' })
  report = checkhealth_lines()
  assert(report:match('ERROR[^\n]*the server does not start on the database[^\n]*Not a directory'), report)
end)

test(':checkhealth taskline opens the configured database', function()
  call(second_client(), 'tasks/create', { title = 'There' })
  local report = checkhealth_lines()
  assert(report:match('OK[^\n]*the database ' .. vim.pesc(db) .. ' opens %(id %x+, seq 1%)'), report)
end)

test(':helptags builds the tags of doc/taskline.txt, and :help taskline opens it', function()
  -- A copy, so that the tags file is not written into the plugin's folder.
  local plugin_dir = vim.fn.fnamemodify(vim.api.nvim_get_runtime_file('doc/taskline.txt', false)[1], ':h:h')
  local copy = vim.fn.tempname()
  vim.fn.mkdir(copy .. '/doc', 'p')
  vim.fn.writefile(vim.fn.readfile(plugin_dir .. '/doc/taskline.txt'), copy .. '/doc/taskline.txt')
  vim.cmd('helptags ' .. vim.fn.fnameescape(copy .. '/doc')) -- raises on a duplicate tag
  local tags = vim.fn.readfile(copy .. '/doc/tags')
  assert(#tags > 30, 'tags: ' .. #tags)
  local runtimepath = vim.o.runtimepath
  vim.o.runtimepath = copy .. ',' .. runtimepath
  local opened, err = pcall(function()
    for _, tag in ipairs({ 'taskline', 'taskline-keys', 'taskline-form', 'taskline-undo', ':TasklineToggleDone',
      'taskline-health' }) do
      vim.cmd('help ' .. tag)
      assert_equal('help', vim.bo.buftype, 'buftype after :help ' .. tag)
      assert_equal(copy .. '/doc/taskline.txt', vim.api.nvim_buf_get_name(0), 'the help file of ' .. tag)
      assert(vim.api.nvim_get_current_line():find('*' .. tag .. '*', 1, true), 'the line of ' .. tag)
      vim.cmd('helpclose')
    end
  end)
  vim.o.runtimepath = runtimepath
  assert(opened, err)
end)

test('initialize asks for reminders, and each tasks/remind task is shown through vim.notify', function()
  local client = taskline.client()
  local sent = {}
  stub(getmetatable(client), 'request', function(_, method, params, callback)
    table.insert(sent, { method = method, params = params })
    callback({ message = 'not sent' })
  end)
  taskline.stop()
  taskline.client()
  local initialize = vim.tbl_filter(function(request)
    return request.method == 'initialize'
  end, sent)
  assert_equal({ reminders = true }, initialize[1].params.initializationOptions, 'the initialization options')
  take_messages()
  require('taskline').on_remind({ tasks = {
    { title = 'Call the plumber', due = date_in(1) },
    { title = 'Water the plants', due = vim.NIL },
  } })
  assert_equal({ 'taskline: reminder: Call the plumber, due tomorrow', 'taskline: reminder: Water the plants' },
    take_messages(), 'messages')
end)

test('u and <C-r> undo and redo this connection\'s changes with tasks/undo and tasks/redo', function()
  local client = taskline.client()
  vim.cmd('Taskline')
  wait_for_lines({ EMPTY_HINT })
  local probe
  client:request('tasks/undo', { scope = 'connection' }, function(err)
    probe = err or {}
  end)
  wait_for(function()
    return 'the answer to tasks/undo'
  end, function()
    return probe ~= nil
  end)
  if probe.code == -32601 then
    -- A server without undo: the keys say so in words.
    press('u')
    wait_for_message('^taskline: this taskline server cannot undo %(it does not know tasks/undo%)$')
    press('<C-r>')
    wait_for_message('^taskline: this taskline server cannot redo %(it does not know tasks/redo%)$')
    return
  end
  quick_add('Undo me')
  wait_for_lines({ '[ ] Undo me' })
  press('u')
  wait_for_lines({ EMPTY_HINT })
  press('<C-r>')
  wait_for_lines({ '[ ] Undo me' })
  press('u')
  wait_for_lines({ EMPTY_HINT })
  press('u')
  wait_for_message('^taskline: nothing to undo$')
  -- A task changed elsewhere since: undo asks first, and reverts nothing unless told to.
  quick_add('Mine')
  wait_for_lines({ '[ ] Mine' })
  local mine = call(client, 'tasks/fetch', {}).tasks[1]
  call(second_client(), 'tasks/update', { id = mine.id, changes = { title = 'Theirs' } })
  wait_for_lines({ '[ ] Theirs' })
  local questions, answer = {}, 2
  stub(vim.fn, 'confirm', function(question)
    table.insert(questions, question)
    return answer
  end)
  press('u')
  wait_for(function()
    return 'the question'
  end, function()
    return #questions == 1
  end)
  assert_equal('Changed elsewhere since: "Theirs". Undo anyway?', questions[1], 'the question')
  assert_equal('Theirs', call(client, 'tasks/get', { id = mine.id }).title, 'the title after No')
  answer = 1
  press('u')
  wait_for_lines({ EMPTY_HINT })
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
