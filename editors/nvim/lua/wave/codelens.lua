--- Code lenses of wave-lsp that fit the window. Neovim 0.11 draws a line's lenses after its text
--- and cuts them at the window's edge, so at 120 columns a launch line's results (the run's
--- summary, the test's verdict, the profile's figures) fell off. Here a line's lenses stay after
--- its text where they fit; otherwise they go on virtual lines below it, indented as the line
--- and wrapped between lenses. The server shortens titles to fit one line of an editor that
--- shows lenses above the line (VS Code) and keeps the full title as the command's tooltip;
--- those full titles are what is drawn. The lenses themselves (`vim.lsp.codelens.run`, `get`)
--- stay Neovim's.
---
--- `vim.lsp.codelens.display` is wrapped once: other clients' lenses are drawn as Neovim draws
--- them.

local M = {}

local SEPARATOR = ' | '

--- The narrowest text width of the windows showing `bufnr` (the current window's otherwise).
local function text_width(bufnr)
  local width
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    local info = vim.fn.getwininfo(win)[1]
    local w = info.width - info.textoff
    width = width and math.min(width, w) or w
  end
  return width or vim.api.nvim_win_get_width(0)
end

--- The whole title of `lens`: its tooltip where the server shortened the title into it.
function M.title(lens)
  local command = lens.command
  if not command then
    return 'Unresolved lens ...'
  end
  local title = command.title:gsub('%s+', ' ')
  local tooltip = type(command.tooltip) == 'string' and command.tooltip:gsub('%s+', ' ') or nil
  local stem = title:gsub('…$', '')
  if tooltip and #tooltip > #stem and vim.startswith(tooltip, stem) then
    return tooltip
  end
  return title
end

--- Chunks of `titles` joined as Neovim joins them.
local function joined(titles)
  local chunks = {}
  for i, title in ipairs(titles) do
    if i > 1 then
      chunks[#chunks + 1] = { SEPARATOR, 'LspCodeLensSeparator' }
    end
    chunks[#chunks + 1] = { title, 'LspCodeLens' }
  end
  return chunks
end

--- `titles` as rows of chunks no wider than `width` (a wider title gets a row of its own).
local function rows_of(titles, width, indent)
  local rows, row, used = {}, nil, 0
  for _, title in ipairs(titles) do
    local w = vim.fn.strdisplaywidth(title)
    if row and used + #SEPARATOR + w > width then
      rows[#rows + 1], row = row, nil
    end
    if not row then
      row, used = { { indent, '' }, { title, 'LspCodeLens' } }, vim.fn.strdisplaywidth(indent) + w
    else
      row[#row + 1] = { SEPARATOR, 'LspCodeLensSeparator' }
      row[#row + 1] = { title, 'LspCodeLens' }
      used = used + #SEPARATOR + w
    end
  end
  rows[#rows + 1] = row
  return rows
end

--- Draw `lenses` of `bufnr` in namespace `ns`: after each line where they fit, else below it.
function M.display(lenses, bufnr, ns)
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  local by_line = {}
  for _, lens in pairs(lenses or {}) do
    local line = lens.range.start.line
    by_line[line] = by_line[line] or {}
    table.insert(by_line[line], lens)
  end
  local width = text_width(bufnr)
  local count = vim.api.nvim_buf_line_count(bufnr)
  for line, line_lenses in pairs(by_line) do
    if line < count then
      table.sort(line_lenses, function(a, b)
        return a.range.start.character < b.range.start.character
      end)
      local titles = vim.tbl_map(M.title, line_lenses)
      local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1] or ''
      local needed = vim.fn.strdisplaywidth(text) + 1
        + vim.fn.strdisplaywidth(table.concat(titles, SEPARATOR))
      if needed <= width then
        vim.api.nvim_buf_set_extmark(bufnr, ns, line, 0,
          { virt_text = joined(titles), hl_mode = 'combine' })
      else
        vim.api.nvim_buf_set_extmark(bufnr, ns, line, 0, {
          virt_lines = rows_of(titles, width, text:match('^%s*')),
          hl_mode = 'combine',
        })
      end
    end
  end
end

--- Wrap `vim.lsp.codelens.display` (once per session) so that wave-lsp's lenses fit.
function M.install()
  if M.installed then
    return
  end
  M.installed = true
  local codelens = vim.lsp.codelens
  local display = codelens.display
  codelens.display = function(lenses, bufnr, client_id)
    local client = vim.lsp.get_client_by_id(client_id)
    if not (client and client.name == 'wave' and vim.api.nvim_buf_is_loaded(bufnr)) then
      return display(lenses, bufnr, client_id)
    end
    M.display(lenses, bufnr, vim.api.nvim_create_namespace('nvim.lsp.codelens:' .. client_id))
  end
end

return M
