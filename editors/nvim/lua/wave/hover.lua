--- `K` in wave buffers: the server's hover in a float with a border (unless 'winborder' says
--- otherwise) and its markdown tables drawn as aligned columns. Neovim 0.11 draws hover floats
--- without a border by default and shows a table's `| a | b |` and `|---|` lines as they are.

local M = {}

--- `text` of a table cell as it would read rendered: no `code` ticks, no **bold** stars.
local function plain(text)
  return vim.trim((text:gsub('\\|', '|'):gsub('`', ''):gsub('%*%*', '')))
end

--- The cells of a table row `| a | b |` (an escaped `\|` stays in its cell).
local function cells(row)
  local body = vim.trim(row):gsub('^|', ''):gsub('|$', '')
  local out, cell = {}, ''
  local i = 1
  while i <= #body do
    local c = body:sub(i, i)
    if c == '\\' and body:sub(i + 1, i + 1) == '|' then
      cell, i = cell .. '\\|', i + 2
    elseif c == '|' then
      out[#out + 1], cell, i = plain(cell), '', i + 1
    else
      cell, i = cell .. c, i + 1
    end
  end
  out[#out + 1] = plain(cell)
  return out
end

local function is_rule(row)
  for _, cell in ipairs(row) do
    if not cell:match('^:?%-+:?$') then
      return false
    end
  end
  return true
end

--- One markdown table (its `|` lines) as a fenced block of aligned columns, the header ruled.
local function aligned(rows)
  local parsed, widths, ruled = {}, {}, false
  for _, line in ipairs(rows) do
    local row = cells(line)
    if #parsed == 1 and is_rule(row) then
      ruled = true
    else
      parsed[#parsed + 1] = row
      for i, cell in ipairs(row) do
        widths[i] = math.max(widths[i] or 0, vim.fn.strdisplaywidth(cell))
      end
    end
  end
  local out = { '```text' }
  for n, row in ipairs(parsed) do
    local padded = {}
    for i, cell in ipairs(row) do
      padded[i] = cell .. string.rep(' ', widths[i] - vim.fn.strdisplaywidth(cell))
    end
    out[#out + 1] = (table.concat(padded, '  '):gsub('%s+$', ''))
    if n == 1 and ruled then
      local rule = {}
      for i, width in ipairs(widths) do
        rule[i] = string.rep('─', width)
      end
      out[#out + 1] = table.concat(rule, '  ')
    end
  end
  out[#out + 1] = '```'
  return out
end

--- Markdown `lines` with every table (outside code blocks) turned into aligned columns.
function M.tables(lines)
  local out, table_rows, fenced = {}, {}, false
  local function flush()
    if #table_rows > 0 then
      vim.list_extend(out, aligned(table_rows))
      table_rows = {}
    end
  end
  for _, line in ipairs(lines) do
    if line:match('^%s*```') then
      flush()
      fenced = not fenced
      out[#out + 1] = line
    elseif not fenced and line:match('^%s*|.*|%s*$') then
      table_rows[#table_rows + 1] = line
    else
      flush()
      out[#out + 1] = line
    end
  end
  flush()
  return out
end

--- The hover at the cursor of the current window, in a bordered float.
function M.hover()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'wave' })[1]
  if not client then
    return vim.lsp.buf.hover()
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  client:request('textDocument/hover', params, function(err, result)
    if err or not (result and result.contents) then
      return
    end
    local lines = M.tables(vim.lsp.util.convert_input_to_markdown_lines(result.contents))
    if vim.tbl_isempty(lines) then
      return
    end
    vim.lsp.util.open_floating_preview(lines, 'markdown', {
      border = vim.o.winborder == '' and 'rounded' or nil,
      focus_id = 'textDocument/hover',
    })
  end, bufnr)
end

--- Map `K` in `bufnr` (the wave client's on_attach).
function M.attach(bufnr)
  vim.keymap.set('n', 'K', M.hover, { buffer = bufnr,
    desc = 'wave-lsp: hover in a bordered float, tables aligned (wave.hover)' })
end

return M
