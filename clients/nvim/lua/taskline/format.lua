-- How a task reads in the list: due dates in words, overdue, the fields on one line.

local M = {}

M.PRIORITY_NAMES = { [0] = 'none', 'low', 'medium', 'high' }
local PRIORITY_MARKS = { [0] = '', '!', '!!', '!!!' }
-- The rules shown by the name the command line's `recur:` takes for them (protocol/task.md, Recurrence).
local RULE_NAMES = {
  daily = 'FREQ=DAILY',
  weekdays = 'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR',
  weekly = 'FREQ=WEEKLY',
  monthly = 'FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD',
  lastday = 'FREQ=MONTHLY;BYMONTHDAY=-1',
  yearly = 'FREQ=YEARLY',
}
local RECURRING_MARK = '↻'

-- Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
local function days_from_civil(year, month, day)
  year = month <= 2 and year - 1 or year
  local era = math.floor(year / 400)
  local year_of_era = year - era * 400
  local day_of_year = math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1
  local day_of_era = year_of_era * 365 + math.floor(year_of_era / 4) - math.floor(year_of_era / 100) + day_of_year
  return era * 146097 + day_of_era - 719468
end

local function local_day(epoch)
  local t = os.date('*t', epoch)
  return days_from_civil(t.year, t.month, t.day), t
end

--- A time as the protocol writes it (a date, or a date-time with an offset), read as
--- { day = local days since the epoch, date = the local 'YYYY-MM-DD', epoch = seconds or nil
--- for a date, clock = the local 'HH:MM' or nil };
--- nil if it is neither.
function M.parse_time(text)
  local y, m, d = text:match('^(%d%d%d%d)-(%d%d)-(%d%d)$')
  if y then
    return { day = days_from_civil(tonumber(y), tonumber(m), tonumber(d)), date = text }
  end
  local hh, mm, ss, zone
  y, m, d, hh, mm, ss, zone = text:match('^(%d%d%d%d)-(%d%d)-(%d%d)[Tt](%d%d):(%d%d):(%d%d)%.?%d*(.*)$')
  if not y then
    return nil
  end
  local offset = 0
  if zone ~= 'Z' and zone ~= 'z' then
    local sign, oh, om = zone:match('^([+-])(%d%d):(%d%d)$')
    if not sign then
      return nil
    end
    offset = (tonumber(oh) * 3600 + tonumber(om) * 60) * (sign == '-' and -1 or 1)
  end
  local epoch = days_from_civil(tonumber(y), tonumber(m), tonumber(d)) * 86400
    + tonumber(hh) * 3600 + tonumber(mm) * 60 + tonumber(ss) - offset
  local day, t = local_day(epoch)
  return {
    day = day,
    epoch = epoch,
    date = string.format('%04d-%02d-%02d', t.year, t.month, t.day),
    clock = string.format('%02d:%02d', t.hour, t.min),
  }
end

local function plural(count, word)
  return string.format('%d %s%s', count, word, count == 1 and '' or 's')
end

-- Whether the time `text` is before (-1), at (0) or after (1) `now`; a date by
-- local days, so that a due date is not past before its day is. nil for no time.
local function compared_with_now(text, now)
  local time = text ~= nil and text ~= vim.NIL and M.parse_time(text)
  if not time then
    return nil
  end
  local at, current = time.epoch or time.day, time.epoch and now or local_day(now)
  return at < current and -1 or (at > current and 1 or 0)
end

--- `text` (a protocol time) in words, as protocol/dates.md has it read from the local
--- today: `today`, `tomorrow 09:00`, `in 3 days`, `2 days overdue` (`open`: an open
--- task's due, once past), `yesterday`, `3 days ago`, or the date further off; a time of
--- day after all but `overdue`. Returns the words and the number of days from today (nil
--- for a text that is no time).
function M.when(text, now, open)
  local time = M.parse_time(text)
  if not time then
    return text, nil
  end
  local days = time.day - local_day(now)
  local words
  if days == 0 then
    words = 'today'
  elseif days == 1 then
    words = 'tomorrow'
  elseif days == -1 and not open then
    words = 'yesterday'
  elseif days >= 2 and days <= 13 then
    words = string.format('in %d days', days)
  elseif days < 0 and open and compared_with_now(text, now) == -1 then
    return plural(-days, 'day') .. ' overdue', days -- says enough without the time of day
  elseif days >= -13 and days <= -2 then
    words = string.format('%d days ago', -days)
  else
    words = time.date
  end
  return words .. (time.clock and (' ' .. time.clock) or ''), days
end

--- Whether the task is not done and its due has passed (a date: before today).
function M.is_overdue(task, now)
  return not task.done and compared_with_now(task.due, now) == -1
end

--- Whether the task waits: its `wait` is still to come.
function M.is_waiting(task, now)
  return compared_with_now(task.wait, now) == 1
end

--- When (seconds since the epoch) a line of `task_list` may next read otherwise: an
--- open task's due date-time passing (overdue from the second after), its wait
--- date-time coming, or else the next local midnight (dates in words, due and wait dates).
function M.next_change(task_list, now)
  local today = os.date('*t', now)
  local next_change = os.time({ year = today.year, month = today.month, day = today.day + 1, hour = 0 })
  local function consider(text, from)
    local time = text ~= nil and text ~= vim.NIL and M.parse_time(text)
    if time and time.epoch and time.epoch + from > now then
      next_change = math.min(next_change, time.epoch + from)
    end
  end
  for _, task in ipairs(task_list) do
    if not task.done then
      consider(task.due, 1)
      consider(task.wait, 0)
    end
  end
  return next_change
end

--- The due in words: `due tomorrow`, `due in 3 days`, `2 days overdue`.
function M.due_words(task, now)
  local words, days = M.when(task.due, now, not task.done)
  -- An open task's past day reads `2 days overdue`, which needs no label.
  if days and days < 0 and not task.done then
    return words
  end
  return 'due ' .. words
end

--- One task as a line, and where its due stands in it ({ first, last } byte
--- columns, 0-based, end exclusive) or nil; `↻` marks a task that repeats:
---   [ ] !!! ↻ Title  due tomorrow  waits till in 3 days  +Home.Garage  #docs #work  (notes)
function M.line(task, now)
  local head = (task.done and '[x] ' or '[ ] ')
  local mark = PRIORITY_MARKS[task.priority] or ''
  if mark ~= '' then
    head = head .. mark .. ' '
  end
  if type(task.recurrence) == 'table' then
    head = head .. RECURRING_MARK .. ' '
  end
  local line = head .. task.title
  local due_range
  if task.due ~= vim.NIL then
    local due = M.due_words(task, now)
    due_range = { #line + 2, #line + 2 + #due }
    line = line .. '  ' .. due
  end
  if M.is_waiting(task, now) then
    line = line .. '  waits till ' .. M.when(task.wait, now)
  end
  if task.project ~= nil and task.project ~= vim.NIL then
    line = line .. '  +' .. task.project
  end
  if #task.tags > 0 then
    line = line .. '  #' .. table.concat(task.tags, ' #')
  end
  if task.notes ~= '' then
    line = line .. '  (notes)'
  end
  return line, due_range
end

--- A recurrence rule by its name in `RULE_NAMES` when it has one, else as it is.
function M.rule_in_words(rule)
  for name, named in pairs(RULE_NAMES) do
    if named == rule then
      return name
    end
  end
  return rule
end

-- `2026-12-11 (in 3 days)`: a time as stored, in local time, and in words.
local function stored_and_words(text, now, open)
  local time = M.parse_time(text)
  if not time then
    return tostring(text)
  end
  local stored = time.clock and (time.date .. ' ' .. time.clock) or time.date
  local words = M.when(text, now, open)
  return words == stored and stored or string.format('%s (%s)', stored, words)
end

local PARSED_ORDER = { 'title', 'due', 'wait', 'remindAt', 'recurrence', 'priority', 'project', 'tags',
  'dependsOn', 'done' }
local PARSED_LABELS = { remindAt = 'remind', dependsOn = 'depends on', recurrence = 'repeat' }

--- What tasks/parse made of words (tasks/create params or tasks/update changes), in
--- words: `“Call the bank”  due 2026-12-11 (in 3 days)  priority high  +money`.
function M.parsed_in_words(fields, now)
  local names, rank = {}, {}
  for index, name in ipairs(PARSED_ORDER) do
    rank[name] = index
  end
  for name in pairs(fields) do
    table.insert(names, name)
  end
  table.sort(names, function(a, b)
    local rank_a, rank_b = rank[a] or #PARSED_ORDER + 1, rank[b] or #PARSED_ORDER + 1
    return rank_a < rank_b or (rank_a == rank_b and a < b)
  end)
  local parts = {}
  for _, name in ipairs(names) do
    local value, label = fields[name], PARSED_LABELS[name] or name
    local part
    if name == 'title' then
      part = '“' .. value .. '”'
    elseif value == vim.NIL then
      part = 'no ' .. label
    elseif name == 'due' or name == 'wait' or name == 'remindAt' then
      part = label .. ' ' .. stored_and_words(value, now, name == 'due' and fields.done ~= true)
    elseif name == 'priority' and M.PRIORITY_NAMES[value] then
      part = 'priority ' .. M.PRIORITY_NAMES[value]
    elseif name == 'tags' then
      part = #value == 0 and 'no tags' or ('+' .. table.concat(value, ' +'))
    elseif name == 'recurrence' and type(value) == 'table' then
      part = 'repeats ' .. M.rule_in_words(value.rule)
    elseif name == 'dependsOn' and type(value) == 'table' then
      part = 'depends on ' .. (#value == 0 and 'none' or plural(#value, 'task'))
    elseif name == 'done' then
      part = value and 'done' or 'open'
    else
      part = label .. ' ' .. tostring(value)
    end
    table.insert(parts, part)
  end
  return table.concat(parts, '  ')
end

-- The form's names of the fields whose wire name is not their form line's.
local FIELD_NAMES = { recurrence = 'repeat', ['recurrence.rule'] = 'repeat', remindAt = 'remind' }

--- A JSON-RPC error for people: a refused value by its field and the reason
--- (`due: must be an RFC 3339 …`, `repeat: FREQ must be …`), words tasks/parse refused
--- by the command line's message, else the server's message.
function M.error_in_words(err)
  local data = err.data
  if err.code == -32602 and type(data) == 'table' and data.field == 'text' and type(data.reason) == 'string' then
    return data.reason
  end
  if err.code == -32602 and type(data) == 'table' and type(data.field) == 'string'
    and type(data.reason) == 'string' then
    local field = data.field:gsub('^changes%.', '')
    return (FIELD_NAMES[field] or field:match('[^.]+$')) .. ': ' .. data.reason
  end
  return err.message
end

return M
