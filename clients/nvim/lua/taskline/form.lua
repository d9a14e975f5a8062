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

local function form_lines(task)
  local values = {
    title = task.title,
    priority = format.PRIORITY_NAMES[task.priority],
    due = text_of(task.due),
    wait = text_of(task.wait),
    project = text_of(task.project),
    tags = table.concat(task.tags, ' '),
    recurrence = rule_text(rule_of(task)),
    remindAt = text_of(task.remindAt),
  }
  local lines = {}
  for _, field in ipairs(FIELDS) do
    table.insert(lines, field[1] .. ': ' .. values[field[2]])
  end
  table.insert(lines, NOTES_LABEL)
  vim.list_extend(lines, vim.split(task.notes, '\n', { plain = true }))
  return lines
end

-- `today`, `tomorrow` and `+3d` as dates; anything else as written (the server
-- says what is wrong with it); empty as none.
local function time_value(text)
  if text == '' then
    return vim.NIL
  end
  local lowered = text:lower()
  local days = ({ today = 0, tomorrow = 1 })[lowered] or tonumber(lowered:match('^%+(%d+)d?$'))
  if not days then
    return text
  end
  local today = os.date('*t')
  return os.date('%Y-%m-%d', os.time({ year = today.year, month = today.month, day = today.day + days, hour = 12 }))
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

--- The fields the form's lines give, as task members; nil and what is wrong
--- when a line is missing or a value is no value for its field.
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
    due = time_value(values.due),
    wait = time_value(values.wait),
    project = values.project == '' and vim.NIL or values.project,
    tags = tags,
    recurrence = values.recurrence == '' and vim.NIL or format.RULE_NAMES[values.recurrence:lower()]
      or values.recurrence,
    remindAt = time_value(values.remindAt),
    notes = table.concat(vim.list_slice(lines, notes_at + 1), '\n'),
  }
end

--- The members of `fields` that differ from the task's, as `tasks/update` takes them.
function M.changes(task, fields)
  local changes = {}
  for name, value in pairs(fields) do
    local before = task[name]
    if name == 'recurrence' then
      if value ~= rule_of(task) then
        changes.recurrence = value == vim.NIL and vim.NIL or { rule = value }
      end
    elseif name == 'tags' then
      if not vim.deep_equal(sorted_set(value), sorted_set(before)) then
        changes.tags = value
      end
    elseif value ~= before then
      changes[name] = value
    end
  end
  return changes
end

-- Open forms by task id: { bufnr, task }.
local forms = {}

local function save(form, get_client)
  local fields, wrong = M.parse(vim.api.nvim_buf_get_lines(form.bufnr, 0, -1, false))
  if not fields then
    return report('not saved: ' .. wrong)
  end
  local changes = M.changes(form.task, fields)
  if vim.tbl_isempty(changes) then
    vim.bo[form.bufnr].modified = false
    return
  end
  local client, reason = get_client()
  if not client then
    return report('not saved: ' .. reason)
  end
  local tick = vim.api.nvim_buf_get_changedtick(form.bufnr)
  client:request('tasks/update', { id = form.task.id, changes = changes, ifVersion = form.task.version },
    function(err, task)
      if not err then
        form.task = task
        if not vim.api.nvim_buf_is_valid(form.bufnr) then
          return
        end
        -- The form shows what was stored (`tomorrow` as a date), unless it was edited meanwhile.
        if vim.api.nvim_buf_get_changedtick(form.bufnr) == tick then
          vim.api.nvim_buf_set_lines(form.bufnr, 0, -1, false, form_lines(task))
          vim.bo[form.bufnr].modified = false
        end
      elseif err.code == VERSION_CONFLICT then
        report('not saved: the task was changed elsewhere since the form was opened; '
          .. 'your edits stay in the form: reopen the task with e in the list to see its current state')
      elseif err.code == TASK_NOT_FOUND then
        report('not saved: the task was deleted elsewhere')
      else
        report('not saved: ' .. format.error_in_words(err))
      end
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
