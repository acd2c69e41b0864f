--- The cursor mapping between a WAVE buffer and its `:LspWaveEmit` split, from the `map` that
--- `wave-lsp.emit` returns ([generated line, source line] pairs, 0-based), as VS Code's
--- "Show PTX/HIP/Metal/SYCL" view does:
---
---   * with the cursor on an instruction in the source, the lines generated for it are
---     highlighted (`WaveEmitLine`) in the split, which scrolls to the first of them;
---   * with the cursor on a generated line in the split, its instruction is highlighted in the
---     source (scrolled into view) and its generated lines in the split;
---   * after an edit of the source the split is emitted again (`refresh`) and the map renewed.
---
--- The mapping lives in an augroup per split, removed when the split's buffer is wiped.

local M = {}

local NS = vim.api.nvim_create_namespace('wave_emit_map')
vim.api.nvim_set_hl(0, 'WaveEmitLine', { link = 'Visual', default = true })

--- source line -> its generated lines, generated line -> its source line
local function index(map)
  local generated, origin = {}, {}
  for _, pair in ipairs(map or {}) do
    local g, s = pair[1], pair[2]
    generated[s] = generated[s] or {}
    table.insert(generated[s], g)
    origin[g] = s
  end
  return generated, origin
end

local function mark(buf, lines)
  vim.api.nvim_buf_clear_namespace(buf, NS, 0, -1)
  local count = vim.api.nvim_buf_line_count(buf)
  for _, line in ipairs(lines) do
    if line < count then
      vim.api.nvim_buf_set_extmark(buf, NS, line, 0, { line_hl_group = 'WaveEmitLine' })
    end
  end
end

--- Show 0-based `line` in `buf`'s window (if it has one) without leaving the current window.
local function reveal(buf, line)
  local win = vim.fn.bufwinid(buf)
  if win == -1 or line == nil or line >= vim.api.nvim_buf_line_count(buf) then
    return
  end
  vim.api.nvim_win_call(win, function()
    vim.api.nvim_win_set_cursor(win, { line + 1, 0 })
    local top, bottom = vim.fn.line('w0'), vim.fn.line('w$')
    if line + 1 < top or line + 1 > bottom then
      vim.cmd('normal! zz')
    end
  end)
end

--- The 0-based lines of `buf` that the mapping highlights (for tests and statuslines).
function M.highlighted(buf)
  local out = {}
  for _, extmark in ipairs(vim.api.nvim_buf_get_extmarks(buf, NS, 0, -1, {})) do
    out[#out + 1] = extmark[2]
  end
  return out
end

--- Relate `view` (the split) to `source` through `map`; `refresh(on_result)` asks the server
--- for the text again and calls `on_result({ text, map })`.
function M.link(source, view, map, refresh)
  local state = {}
  state.generated, state.origin = index(map)
  vim.b[view].wave_emit_source = source
  local group = vim.api.nvim_create_augroup('wave_emit_map_' .. view, { clear = true })

  local function from_source()
    if not vim.api.nvim_buf_is_valid(view) then
      return
    end
    local row = vim.api.nvim_win_get_cursor(0)[1] - 1
    local lines = state.generated[row] or {}
    mark(view, lines)
    vim.api.nvim_buf_clear_namespace(source, NS, 0, -1)
    reveal(view, lines[1])
  end

  local function from_view()
    if not vim.api.nvim_buf_is_valid(source) then
      return
    end
    local row = vim.api.nvim_win_get_cursor(0)[1] - 1
    local line = state.origin[row]
    mark(source, line and { line } or {})
    mark(view, line and state.generated[line] or {})
    reveal(source, line)
  end

  local pending = false
  local function after_edit()
    if pending or refresh == nil then
      return
    end
    pending = true
    vim.defer_fn(function()
      pending = false
      if not (vim.api.nvim_buf_is_valid(view) and vim.api.nvim_buf_is_valid(source)) then
        return
      end
      refresh(function(result)
        if type(result) ~= 'table' or type(result.text) ~= 'string'
            or not vim.api.nvim_buf_is_valid(view) then
          return
        end
        vim.bo[view].modifiable = true
        vim.api.nvim_buf_set_lines(view, 0, -1, false, vim.split(result.text, '\n', { plain = true }))
        vim.bo[view].modifiable = false
        vim.bo[view].modified = false
        vim.b[view].wave_emit_map = result.map
        state.generated, state.origin = index(result.map)
        vim.api.nvim_buf_clear_namespace(view, NS, 0, -1)
        vim.api.nvim_buf_clear_namespace(source, NS, 0, -1)
      end)
    end, 300)
  end

  vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI' },
    { group = group, buffer = source, callback = from_source })
  vim.api.nvim_create_autocmd('CursorMoved', { group = group, buffer = view, callback = from_view })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' },
    { group = group, buffer = source, callback = after_edit })
  vim.api.nvim_create_autocmd('BufWipeout', { group = group, buffer = view, callback = function()
    if vim.api.nvim_buf_is_valid(source) then
      vim.api.nvim_buf_clear_namespace(source, NS, 0, -1)
    end
    vim.schedule(function() pcall(vim.api.nvim_del_augroup_by_id, group) end)
  end })
end

return M
