-- The edit form: a buffer holding one task's fields, saved with :write as one tasks/update.

local format = require('taskline.format')

local M = {}

local TASK_NOT_FOUND = 1001
local VERSION_CONFLICT = 1002

-- The one-line fields, in the form's order: label, task member.
local FIELDS = {
  { 'Title', 'title' },
  { 'Priority', 'priority' },
  { 'Due', 'due' },
  { 'Wait', 'wait' },
  { 'Project', 'project' },
  { 'Tags', 'tags' },
  { 'Repeat', 'recurrence' },
  { 'Remind', 'remindAt' },
}
local NOTES_LABEL = 'Notes:'
-- The fields that take the command line's words (`fri 9am`, `+3d`, `monthly`), read by the
-- server (tasks/parse): the attribute that sets each, by task member.
local WORD_ATTRIBUTES = { due = 'due', wait = 'wait', recurrence = 'recur', remindAt = 'remind' }

local function report(message)
  vim.notify('taskline: ' .. message, vim.log.levels.ERROR)
end

local function text_of(value)
  return (value == nil or value == vim.NIL) and '' or value
end

local function rule_of(task)
  return type(task.recurrence) == 'table' and task.recurrence.rule or vim.NIL
end

-- The rule by its name when it has one.
local function rule_text(rule)
  return text_of(rule) == '' and '' or format.rule_in_words(rule)
end

-- The text of each one-line field, by task member, as the form shows it.
local function field_texts(task)
  return {
    title = task.title,
    priority = format.PRIORITY_NAMES[task.priority],
    due = text_of(task.due),
    wait = text_of(task.wait),
    project = text_of(task.project),
    tags = table.concat(task.tags, ' '),
    recurrence = rule_text(rule_of(task)),
    remindAt = text_of(task.remindAt),
  }
end

local function form_lines(task)
  local values = field_texts(task)
  local lines = {}
  for _, field in ipairs(FIELDS) do
    table.insert(lines, field[1] .. ': ' .. values[field[2]])
  end
  table.insert(lines, NOTES_LABEL)
  vim.list_extend(lines, vim.split(task.notes, '\n', { plain = true }))
  return lines
end

local function priority_value(text)
  local lowered = text:lower()
  for number = 0, 3 do
    local name = format.PRIORITY_NAMES[number]
    if lowered == tostring(number) or (lowered ~= '' and name:sub(1, #lowered) == lowered) then
      return number
    end
  end
  return nil, 'Priority: write one of none, low, medium, high'
end

local function sorted_set(list)
  local seen, out = {}, {}
  for _, item in ipairs(list) do
    if not seen[item] then
      seen[item] = true
      table.insert(out, item)
    end
  end
  table.sort(out)
  return out
end

--- The fields the form's lines give, as task members (Due, Wait, Repeat and Remind as
--- their text); nil and what is wrong when a line is missing or a value is no value for
--- its field.
function M.parse(lines)
  local values = {}
  local notes_at
  for i, line in ipairs(lines) do
    if line == NOTES_LABEL then
      notes_at = i
      break
    end
    for _, field in ipairs(FIELDS) do
      local value = line:match('^' .. field[1] .. ':%s*(.-)%s*$')
      if value then
        values[field[2]] = value
      end
    end
  end
  for _, field in ipairs(FIELDS) do
    if not values[field[2]] then
      return nil, string.format('the form has no "%s:" line', field[1])
    end
  end
  if not notes_at then
    return nil, 'the form has no "Notes:" line'
  end
  local priority, wrong = priority_value(values.priority)
  if not priority then
    return nil, wrong
  end
  local tags = {}
  for tag in values.tags:gmatch('%S+') do
    tag = tag:gsub('^#', '')
    if tag ~= '' then
      table.insert(tags, tag)
    end
  end
  return {
    title = values.title,
    priority = priority,
    due = values.due,
    wait = values.wait,
    project = values.project == '' and vim.NIL or values.project,
    tags = tags,
    recurrence = values.recurrence,
    remindAt = values.remindAt,
    notes = table.concat(vim.list_slice(lines, notes_at + 1), '\n'),
  }
end

local function differs(task, name, value)
  if name == 'recurrence' then
    return (type(value) == 'table' and value.rule or vim.NIL) ~= rule_of(task)
  elseif name == 'tags' then
    return not vim.deep_equal(sorted_set(value), sorted_set(task.tags))
  end
  return value ~= task[name]
end

--- What saving `fields` (as `parse` gives them) asks for: the other fields that differ from
--- the task's, as `tasks/update` takes them; the words for tasks/parse of the word fields
--- whose text is not what the form showed (`due:fri remind:fri 9am`, `wait:` to clear), or
--- nil; and the set of members those words are for.
function M.changes(task, fields)
  local changes, words, asked = {}, {}, {}
  local shown = field_texts(task)
  for _, field in ipairs(FIELDS) do
    local name = field[2]
    local attribute = WORD_ATTRIBUTES[name]
    if attribute and fields[name] ~= shown[name] then
      table.insert(words, attribute .. ':' .. fields[name])
      asked[name] = true
    end
  end
  for name, value in pairs(fields) do
    if not WORD_ATTRIBUTES[name] and differs(task, name, value) then
      changes[name] = value
    end
  end
  return changes, #words > 0 and table.concat(words, ' ') or nil, asked
end

-- Open forms by task id: { bufnr, task }.
local forms = {}

local function report_refusal(err)
  if err.code == VERSION_CONFLICT then
    report('not saved: the task was changed elsewhere since the form was opened; '
      .. 'your edits stay in the form: reopen the task with e in the list to see its current state')
  elseif err.code == TASK_NOT_FOUND then
    report('not saved: the task was deleted elsewhere')
  else
    report('not saved: ' .. format.error_in_words(err))
  end
end

-- The form shows `task` as stored (`tomorrow` as a date), unless it was edited since `tick`.
local function show_stored(form, task, tick)
  form.task = task
  if vim.api.nvim_buf_is_valid(form.bufnr) and vim.api.nvim_buf_get_changedtick(form.bufnr) == tick then
    vim.api.nvim_buf_set_lines(form.bufnr, 0, -1, false, form_lines(task))
    vim.bo[form.bufnr].modified = false
  end
end

local function update(form, client, task, changes, tick)
  if vim.tbl_isempty(changes) then
    return show_stored(form, task, tick) -- words for what is stored already (`fri` for its date)
  end
  client:request('tasks/update', { id = task.id, changes = changes, ifVersion = task.version },
    function(err, stored)
      if err then
        return report_refusal(err)
      end
      show_stored(form, stored, tick)
    end)
end

-- What is wrong when the words of the word fields set members beyond those fields (`fri
-- soon` in Due is a due and a title), else nil.
local function beyond_word_fields(parsed, asked)
  for name, value in pairs(parsed) do
    if not asked[name] then
      local what = name == 'title' and string.format('the title ("%s")', value) or 'the ' .. name
      return 'Due, Wait, Repeat and Remind take a date, a time or a rule each; what they hold also sets ' .. what
    end
  end
end

local function save(form, get_client)
  local fields, wrong = M.parse(vim.api.nvim_buf_get_lines(form.bufnr, 0, -1, false))
  if not fields then
    return report('not saved: ' .. wrong)
  end
  local task = form.task
  local changes, words, asked = M.changes(task, fields)
  if vim.tbl_isempty(changes) and not words then
    vim.bo[form.bufnr].modified = false
    return
  end
  local client, reason = get_client()
  if not client then
    return report('not saved: ' .. reason)
  end
  local tick = vim.api.nvim_buf_get_changedtick(form.bufnr)
  if not words then
    return update(form, client, task, changes, tick)
  end
  client:request('tasks/parse', { text = words, id = task.id }, function(err, result)
    if err then
      return report_refusal(err)
    end
    local beyond = beyond_word_fields(result.changes, asked)
    if beyond then
      return report('not saved: ' .. beyond)
    end
    for name, value in pairs(result.changes) do
      if differs(task, name, value) then
        changes[name] = value
      end
    end
    update(form, client, task, changes, tick)
  end)
end

--- Opens the form of `task` in a split; `get_client()` gives the session to save through.
function M.open(task, get_client)
  local existing = forms[task.id]
  if existing and vim.api.nvim_buf_is_valid(existing.bufnr) then
    vim.cmd('sbuffer ' .. existing.bufnr)
    return existing.bufnr
  end
  local bufnr = vim.api.nvim_create_buf(false, true)
  local form = { bufnr = bufnr, task = task }
  forms[task.id] = form
  vim.api.nvim_buf_set_name(bufnr, 'taskline://task/' .. task.id)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, form_lines(task))
  vim.bo[bufnr].buftype = 'acwrite'
  vim.bo[bufnr].bufhidden = 'wipe'
  vim.bo[bufnr].filetype = 'taskline-form'
  vim.bo[bufnr].modified = false
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    buffer = bufnr,
    callback = function()
      save(form, get_client)
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = bufnr,
    callback = function()
      if forms[task.id] == form then
        forms[task.id] = nil
      end
    end,
  })
  vim.cmd('split')
  vim.api.nvim_win_set_buf(0, bufnr)
  return bufnr
end

return M
