-- The tasks the list shows, kept in memory, oldest first, and kept current.
--
-- The first sync fetches every task (tasks/fetch) and remembers the seq of the
-- first page (the newest seq when it was read); after that every
-- tasks/didChange of the session is applied, and the seq of the last change
-- applied is remembered. What is kept outlives the list's buffer: when the list
-- is reopened, or the server was restarted, the next sync catches up with
-- tasks/changes from that seq instead of fetching everything again. It fetches
-- everything again when the session serves another database file (its
-- `database.id` from initialize differs: a file replaced, whatever its seqs),
-- when the server no longer keeps changes that old (1005), or when it does not
-- know that seq (-32602 on `since`). A tasks/didMissChanges makes it catch up
-- (reason `backlog`) or fetch everything (any other reason).
--
-- While a sync runs, notifications are held back, and applied when it ends,
-- except those it has already covered.

local M = {}

local PAGE_SIZE = 1000
local HISTORY_EXPIRED = 1005
local INVALID_PARAMS = -32602

--- Called after the list has changed.
M.on_update = function() end

-- What is kept, nil before the first sync:
--   key     names the server command line it came from; another one starts afresh
--   tasks   the list
--   loaded  whether a fetch has completed: until then `tasks` is not the list
--   seq     the seq the list is up to date with; nil before the first fetch
--   database  the `database.id` of the file the list is of
--   client  the session whose notifications are applied; nil when none is
--           (the list is closed, or the last sync failed)
local state
-- The sync under way, or nil: { client, held = { changes held back } }.
local running

local function report(message)
  vim.notify('taskline: ' .. message, vim.log.levels.ERROR)
end

local function sorts_before(a, b)
  if a.createdAt ~= b.createdAt then
    return a.createdAt < b.createdAt
  end
  return a.id < b.id
end

local function index_of(tasks, id)
  for i, task in ipairs(tasks) do
    if task.id == id then
      return i
    end
  end
end

-- Puts `task` in its place in the sorted list, unless the list holds it at this version or later.
local function upsert(tasks, task)
  local existing = index_of(tasks, task.id)
  if existing then
    if tasks[existing].version < task.version then
      tasks[existing] = task
    end
    return
  end
  local position = #tasks + 1
  for i, other in ipairs(tasks) do
    if sorts_before(task, other) then
      position = i
      break
    end
  end
  table.insert(tasks, position, task)
end

local function remove(tasks, id)
  local i = index_of(tasks, id)
  if i then
    table.remove(tasks, i)
  end
end

local function apply(tasks, changes)
  for _, change in ipairs(changes) do
    -- A change read after the task was deleted (in a tasks/changes page, or
    -- another process's change in a notification) comes without `task`.
    if change.kind == 'deleted' or change.task == nil or change.task == vim.NIL then
      remove(tasks, change.id)
    else
      upsert(tasks, change.task)
    end
  end
end

-- Applies the changes after the last one applied, and remembers the seq.
local function apply_new(changes)
  for _, change in ipairs(changes) do
    if not state.seq or change.seq > state.seq then
      apply(state.tasks, { change })
      state.seq = change.seq
    end
  end
end

--- The list (do not change it).
function M.list()
  return state and state.tasks or {}
end

--- Whether the list has been loaded for `key` (see sync()).
function M.loaded(key)
  return state ~= nil and state.key == key and state.loaded == true
end

--- The seq of the last change applied, or nil.
function M.seq()
  return state and state.seq
end

--- Whether the list follows, or is syncing with, the session `client`.
function M.follows(client)
  return (running ~= nil and running.client == client) or (state ~= nil and state.client == client)
end

--- A tasks/didChange from the session `client`.
function M.on_did_change(client, params)
  if running and running.client == client then
    vim.list_extend(running.held, params.changes)
  elseif state and state.client == client then
    apply_new(params.changes)
    M.on_update()
  end
end

--- Applies changes learned otherwise than from the session (an error that shows
--- the list was out of date).
function M.correct(changes)
  if state then
    apply(state.tasks, changes)
    M.on_update()
  end
end

local function finish(run)
  running = nil
  apply_new(run.held)
  state.client = run.client
  M.on_update()
end

local function fail(message)
  running = nil
  report(message)
end

-- Fetches every task, and follows on from the first page's seq: the session's
-- notifications after it (held while the sync runs) are applied; later pages
-- may show some of them already, which applying again leaves as they are.
local function refetch(run)
  local loading = {}
  local first_seq
  local function fetch_page(cursor)
    run.client:request('tasks/fetch', { limit = PAGE_SIZE, cursor = cursor }, function(err, page)
      if running ~= run then
        return -- the list was closed, or a newer sync started
      end
      if err then
        return fail(err.message)
      end
      first_seq = first_seq or page.seq
      for _, task in ipairs(page.tasks) do
        upsert(loading, task)
      end
      if page.nextCursor ~= vim.NIL then
        return fetch_page(page.nextCursor)
      end
      state.tasks, state.loaded, state.seq = loading, true, first_seq
      state.database = run.client.database.id
      finish(run)
    end)
  end
  fetch_page(nil)
end

local function catch_up(run, since)
  run.client:request('tasks/changes', { since = since, limit = PAGE_SIZE }, function(err, page)
    if running ~= run then
      return
    end
    if err then
      local expired = err.code == HISTORY_EXPIRED
      local unknown = err.code == INVALID_PARAMS and type(err.data) == 'table' and err.data.field == 'since'
      if expired or unknown then
        return refetch(run)
      end
      return fail(err.message)
    end
    apply(state.tasks, page.changes)
    state.seq = page.seq
    if page.hasMore then
      return catch_up(run, page.seq)
    end
    finish(run)
  end)
end

--- Brings the list up to date through the session `client` (initialized: its
--- `database` is known): catches up from the last seq seen, or fetches
--- everything (always when `refetch_all`). `key` names the server command line;
--- what was kept for another one is dropped.
function M.sync(client, key, refetch_all)
  if not state or state.key ~= key then
    state = { key = key, tasks = {} }
  end
  state.client = nil
  local run = { client = client, held = {} }
  running = run
  if refetch_all or not state.seq or state.database ~= client.database.id then
    refetch(run)
  else
    catch_up(run, state.seq)
  end
end

--- A tasks/didMissChanges from the session `client`: the changes after
--- `params.since` through `params.seq` came in no tasks/didChange.
function M.on_did_miss_changes(client, params)
  if M.follows(client) then
    M.sync(client, state.key, params.reason ~= 'backlog')
  end
end

--- Stops applying notifications (the list was closed); what is kept stays for the next sync.
function M.stop_following()
  running = nil
  if state then
    state.client = nil
  end
end

return M
