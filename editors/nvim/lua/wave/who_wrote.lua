--- `:LspWaveWhoWrote [THREAD | ADDRESS]`: who wrote a value of the kernel's run
--- (`wave-lsp.whoWrote`). With the cursor on a register or predicate (r4, p0): who wrote its
--- value in THREAD (a global id, as --lanes counts; default 0) at the cursor's line; elsewhere:
--- who wrote the device memory word at ADDRESS (decimal or 0x-hex) after the run. The cursor
--- goes to the writer's line, the answer is echoed (`line 9, thread 19, step 5: iadd r5, r4,
--- r6 ← r4 from line 8, r6 from --set-reg 6:1000`) and kept in b:wave_who_wrote.

local M = {}

--- A whole number as typed: decimal or 0x-hex; nil otherwise.
local function whole(text)
  local n = text:match('^0[xX]%x+$') and tonumber(text:sub(3), 16) or
    (text:match('^%d+$') and tonumber(text) or nil)
  return n
end

--- The `wave-lsp.whoWrote` target for the cursor and the command's argument, or nil and why.
function M.target(bufnr, arg)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local text = vim.api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ''
  local register
  for start, word, finish in text:gmatch('()([rp]%d+)()') do
    local before = start > 1 and text:sub(start - 1, start - 1) or ' '
    local after = text:sub(finish, finish)
    if col + 1 >= start and col + 1 <= finish and not before:match('[%w_]')
        and not after:match('[%w_]') then
      register = word
    end
  end
  if register then
    local lane = arg == '' and 0 or whole(arg)
    if lane == nil then
      return nil, 'LspWaveWhoWrote takes a thread id on a register, got ' .. arg
    end
    return { register = register, lane = lane, line = row - 1 }
  end
  local address = whole(arg)
  if address == nil then
    return nil, 'put the cursor on a register, or give a device address: LspWaveWhoWrote 0x40'
  end
  return { address = address }
end

local function whence(writer)
  if type(writer.line) == 'number' then
    return 'line ' .. (writer.line + 1)
  end
  return writer.input or 'outside the run'
end

--- The answer in one line (lines 1-based, as the editor shows them).
function M.summary(result)
  if type(result.line) ~= 'number' then
    return ('the value %s came from %s'):format(tostring(result.value), result.input or '?')
  end
  local inputs = {}
  for _, input in ipairs(result.inputs or {}) do
    inputs[#inputs + 1] = input.operand .. ' from ' .. whence(input.writer)
  end
  return ('line %d, thread %d, step %d: %s'):format(result.line + 1, result.lane, result.step,
    result.instruction) .. (#inputs > 0 and (' ← ' .. table.concat(inputs, ', ')) or '')
end

--- Show an answer: keep it, move the cursor to the writer's line and echo the summary.
function M.show(bufnr, result)
  if type(result) ~= 'table' or result.ok == false then
    return -- the server said why in a message
  end
  vim.b[bufnr].wave_who_wrote = result
  if type(result.line) == 'number' and vim.api.nvim_get_current_buf() == bufnr then
    vim.api.nvim_win_set_cursor(0, { result.line + 1, 0 })
  end
  require('wave.messages').notify('wave-lsp: ' .. M.summary(result), vim.log.levels.INFO)
end

return M
