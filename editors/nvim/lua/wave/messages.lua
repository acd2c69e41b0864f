--- The server's `window/showMessage` in Neovim: through `vim.notify` at the message's level, on
--- one line. Neovim's own handler echoes `LSP[wave][Info] text` followed by a newline, so every
--- message (a failed run, an assembled file, a portability report) stopped at "Press ENTER".
--- With Neovim's own `vim.notify` the line is cut to the room left in the command line (the rest
--- of a run's failure is on its code lens and diagnostics); a notification plugin that replaced
--- `vim.notify` gets the whole text.

local M = {}

local LEVELS = {
  [1] = vim.log.levels.ERROR,
  [2] = vim.log.levels.WARN,
  [3] = vim.log.levels.INFO,
  [4] = vim.log.levels.DEBUG,
}

--- Whether `vim.notify` is still Neovim's own (echoes in the command line).
local function builtin_notify()
  local info = debug.getinfo(vim.notify, 'S')
  return info ~= nil and info.source:find('vim/_editor.lua', 1, true) ~= nil
end

--- `text` on one line of at most `width` display cells ("…" where it was cut).
function M.one_line(text, width)
  text = vim.trim(text:gsub('%s*\n%s*', ' · '))
  if width < 2 or vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local chars = vim.fn.strchars(text)
  local cut = math.min(chars, width - 1)
  while cut > 0 and vim.fn.strdisplaywidth(vim.fn.strcharpart(text, 0, cut)) > width - 1 do
    cut = cut - 1
  end
  return vim.fn.strcharpart(text, 0, cut) .. '…'
end

--- Show a message of wave-lsp (`level`: a vim.log.levels value) without a hit-enter prompt.
function M.notify(text, level)
  if not vim.startswith(text, 'wave-lsp') then
    text = 'wave-lsp: ' .. text
  end
  if builtin_notify() then
    -- paths relative to the working directory (or ~), then the room left on the last line
    -- with the ruler shown (v:echospace), less one cell
    local cwd = vim.fn.getcwd() .. '/'
    text = text:gsub(vim.pesc(cwd), '')
    local home = vim.env.HOME
    if home and home ~= '' and home ~= '/' then
      text = text:gsub(vim.pesc(home .. '/'), '~/')
    end
    text = M.one_line(text, math.max(vim.v.echospace - 1, 20))
  end
  vim.notify(text, level or vim.log.levels.INFO)
end

--- The `window/showMessage` handler of the wave client.
function M.show_message(_, params)
  if params and type(params.message) == 'string' then
    M.notify(params.message, LEVELS[params.type] or vim.log.levels.INFO)
  end
  return vim.NIL
end

return M
