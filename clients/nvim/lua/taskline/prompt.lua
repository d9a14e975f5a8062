-- Quick add's input: one line in a float, under which shows, as the words are typed, what
-- the server makes of them (tasks/parse, which writes nothing).

local format = require('taskline.format')

local M = {}

M.PROMPT = 'New task: '
local namespace = vim.api.nvim_create_namespace('taskline_preview')

-- The open input, or nil: { bufnr, winid, get_client, asking = a tasks/parse is unanswered }.
local input

--- The words typed so far in the open input.
local function typed()
  local line = vim.api.nvim_buf_get_lines(input.bufnr, 0, 1, false)[1] or ''
  return line:sub(1, #M.PROMPT) == M.PROMPT and line:sub(#M.PROMPT + 1) or line
end

-- Shows `text` with the highlight `group` under the input line; nil shows nothing.
local function show(text, group)
  vim.api.nvim_buf_clear_namespace(input.bufnr, namespace, 0, -1)
  if text then
    vim.api.nvim_buf_set_extmark(input.bufnr, namespace, 0, 0, { virt_lines = { { { text, group } } } })
  end
end

-- Asks the server what the words typed make, one request at a time: an answer for words
-- since changed is dropped, and the words typed meanwhile are asked for then.
local function ask()
  if not input or input.asking then
    return
  end
  local text = typed()
  local client = text:match('%S') and input.get_client()
  if not client then
    return show(nil)
  end
  local asked = input
  asked.asking = true
  client:request('tasks/parse', { text = text }, function(err, result)
    asked.asking = false
    if input ~= asked then
      return -- the input was closed
    end
    if typed() ~= text then
      return ask()
    end
    if err then
      show('✗ ' .. format.error_in_words(err), 'ErrorMsg')
    else
      show('→ ' .. format.parsed_in_words(result.task, os.time()), 'Comment')
    end
  end)
end

--- Closes the open input, if any.
function M.close()
  if not input then
    return
  end
  local closing = input
  input = nil
  vim.cmd('stopinsert')
  if vim.api.nvim_win_is_valid(closing.winid) then
    vim.api.nvim_win_close(closing.winid, true)
  end
end

--- The buffer of the open input, or nil.
function M.bufnr()
  return input and input.bufnr
end

--- Opens the input under the cursor, in insert mode. `get_client()` gives the rpc client
--- to ask (or nil); Enter closes it and calls `on_submit` with the words, Esc closes it.
function M.open(get_client, on_submit)
  M.close()
  local bufnr = vim.api.nvim_create_buf(false, true)
  vim.bo[bufnr].buftype = 'prompt'
  vim.bo[bufnr].bufhidden = 'wipe'
  vim.fn.prompt_setprompt(bufnr, M.PROMPT)
  -- Two lines: the words, and what they make below them.
  local winid = vim.api.nvim_open_win(bufnr, true, { relative = 'cursor', row = 1, col = 0, height = 2,
    width = math.max(20, vim.o.columns - 4), style = 'minimal', border = 'single' })
  input = { bufnr = bufnr, winid = winid, get_client = get_client }
  local function submit(text)
    M.close()
    on_submit(text)
  end
  -- The callback runs while Neovim adds the next prompt line: the window closes after.
  vim.fn.prompt_setcallback(bufnr, function(text)
    vim.schedule(function()
      submit(text)
    end)
  end)
  vim.fn.prompt_setinterrupt(bufnr, function()
    vim.schedule(M.close)
  end)
  vim.keymap.set('i', '<Esc>', M.close, { buffer = bufnr, nowait = true })
  vim.keymap.set('n', '<Esc>', M.close, { buffer = bufnr, nowait = true })
  vim.keymap.set('n', 'q', M.close, { buffer = bufnr, nowait = true })
  vim.keymap.set('n', '<CR>', function()
    submit(typed())
  end, { buffer = bufnr, nowait = true })
  vim.api.nvim_create_autocmd('WinLeave', { buffer = bufnr, once = true, callback = function()
    vim.schedule(M.close)
  end })
  vim.api.nvim_buf_attach(bufnr, false, { on_lines = function()
    vim.schedule(ask) -- not from within on_lines, where the buffer may not be changed
  end })
  vim.cmd('startinsert!')
end

return M
