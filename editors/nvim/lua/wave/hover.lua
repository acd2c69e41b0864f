--- `K` in wave buffers: the server's hover in a float with a border (unless 'winborder' says
--- otherwise) and its markdown tables drawn as aligned columns, the last one wrapped under
--- itself to fit the editor's width (a list where the other columns leave it no room). Neovim 0.11 draws hover floats
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

--- `text` in pieces of at most `width` cells, broken at blanks where it can be.
local function wrapped(text, width)
  local pieces, line = {}, ''
  for word in text:gmatch('%S+') do
    local candidate = line == '' and word or line .. ' ' .. word
    if vim.fn.strdisplaywidth(candidate) <= width or line == '' then
      line = candidate
    else
      pieces[#pieces + 1], line = line, word
    end
  end
  pieces[#pieces + 1] = line
  return pieces
end

--- One markdown table as a list, for a table wider than the float: `- first: second` (more
--- columns: `- first: header2 cell2 · header3 cell3 …`).
local function listed(parsed)
  local header, out = parsed[1], {}
  for n = 2, #parsed do
    local row, rest = parsed[n], {}
    for i = 2, #row do
      rest[#rest + 1] = (#header > 2 and header[i] ~= '') and (header[i] .. ' ' .. row[i]) or row[i]
    end
    out[#out + 1] = '- ' .. row[1] .. ': ' .. table.concat(rest, ' · ')
  end
  return out
end

--- One markdown table (its `|` lines) as a fenced block of aligned columns, the header ruled;
--- a column whose rule is `--:` is aligned right; the last wraps within `max_width`.
local function aligned(rows, max_width)
  local parsed, widths, right, ruled = {}, {}, {}, false
  for _, line in ipairs(rows) do
    local row = cells(line)
    if #parsed == 1 and not ruled and is_rule(row) then
      ruled = true
      for i, cell in ipairs(row) do
        right[i] = cell:match('^%-+:$') ~= nil
      end
    else
      parsed[#parsed + 1] = row
      for i, cell in ipairs(row) do
        widths[i] = math.max(widths[i] or 0, vim.fn.strdisplaywidth(cell))
      end
    end
  end
  -- the last column wraps under itself when the others leave it room enough
  local lead = 2 * (#widths - 1)
  for i = 1, #widths - 1 do
    lead = lead + widths[i]
  end
  local room = max_width - lead
  if ruled and #parsed > 1 and room < math.min(widths[#widths], 30) then
    return listed(parsed)
  end
  local out = { '```text' }
  for n, row in ipairs(parsed) do
    local padded = {}
    for i, cell in ipairs(row) do
      local pad = string.rep(' ', widths[i] - vim.fn.strdisplaywidth(cell))
      local fits = i < #row or widths[i] <= room
      padded[i] = right[i] and fits and pad .. cell or (i == #row and cell or cell .. pad)
    end
    local last = table.remove(padded)
    local head = #padded > 0 and table.concat(padded, '  ') .. '  ' or ''
    for k, piece in ipairs(wrapped(last or '', room)) do
      out[#out + 1] = ((k == 1 and head or string.rep(' ', lead)) .. piece):gsub('%s+$', '')
    end
    if n == 1 and ruled then
      local rule = {}
      for i, width in ipairs(widths) do
        rule[i] = string.rep('─', i == #widths and math.min(width, room) or width)
      end
      out[#out + 1] = table.concat(rule, '  ')
    end
  end
  out[#out + 1] = '```'
  return out
end

--- The widest a hover float may be: the editor's width less its border and a margin.
function M.max_width()
  return math.max(vim.o.columns - 4, 20)
end

--- Markdown `lines` with every table (outside code blocks) turned into aligned columns (or a
--- list where the columns would be wider than `max_width`, default M.max_width()).
function M.tables(lines, max_width)
  max_width = max_width or M.max_width()
  local out, table_rows, fenced = {}, {}, false
  local function flush()
    if #table_rows > 0 then
      vim.list_extend(out, aligned(table_rows, max_width))
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
      max_width = M.max_width(),
    })
  end, bufnr)
end

--- Map `K` in `bufnr` (the wave client's on_attach).
function M.attach(bufnr)
  vim.keymap.set('n', 'K', M.hover, { buffer = bufnr,
    desc = 'wave-lsp: hover in a bordered float, tables aligned (wave.hover)' })
end

return M
