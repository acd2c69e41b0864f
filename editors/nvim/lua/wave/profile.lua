--- The heat view of wave-lsp's kernel profiles: extmarks on every profiled line, coloured by its
--- cost (a level 1..5 from the server, relative to the hottest line): a bar in the sign column,
--- on lines with at least 5% of the kernel's cost that share as virtual text after the line
--- (before a diagnostic's), and a line highlight on the hottest lines. Fed by the server's
--- `wave-lsp.profile` command (`:LspWaveProfile`) and its `wave-lsp/profileChanged` notification (sent after every profile, re-profiles after edits
--- included, and every clear), which replaces the buffer's heat.
---
--- b:wave_profile holds the buffer's current profiles (the command's answer per kernel).
--- Highlight groups (wave.highlight; a colour scheme or the user may set them): WaveHeat1..
--- WaveHeat5 (the bar and the share) and WaveHeatLine (the hottest lines).

local M = {}

M.ns = vim.api.nvim_create_namespace('wave_profile')

local highlight = require('wave.highlight')
local BARS = { '▁', '▃', '▄', '▆', '█' }
local HOT = #highlight.heat     -- levels at this or above get WaveHeatLine
local SHOWN_SHARE = 0.05        -- lines with at least this share of the cost say it
local PRIORITY = 100            -- below vim.diagnostic's (150): eol text in priority order

--- Draw the buffer's profiles (b:wave_profile) as extmarks, replacing the previous ones.
function M.render(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  highlight.setup()
  vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  local count = vim.api.nvim_buf_line_count(bufnr)
  for _, profile in pairs(vim.b[bufnr].wave_profile or {}) do
    for _, heat in ipairs(type(profile.heat) == 'table' and profile.heat or {}) do
      local row = heat.line - 1
      local level = math.max(1, math.min(HOT, heat.level))
      if row >= 0 and row < count then
        local group = 'WaveHeat' .. level
        local share = heat.share >= SHOWN_SHARE and {
          { string.format('%d%% of the cost', math.floor(100 * heat.share + 0.5)), group },
        } or nil
        vim.api.nvim_buf_set_extmark(bufnr, M.ns, row, 0, {
          sign_text = BARS[level],
          sign_hl_group = group,
          virt_text = share,
          virt_text_pos = share and 'eol' or nil,
          line_hl_group = level >= HOT and 'WaveHeatLine' or nil,
          priority = PRIORITY,
        })
      end
    end
  end
end

--- Keep `result` (a `wave-lsp.profile` answer) as the profile of its kernel and redraw.
function M.show(bufnr, result)
  if type(result) ~= 'table' or type(result.kernel) ~= 'string' then
    return
  end
  local profiles = vim.b[bufnr].wave_profile or {}
  profiles[result.kernel] = result
  vim.b[bufnr].wave_profile = profiles
  M.render(bufnr)
end

--- The handler of `wave-lsp/profileChanged`: the document's profiles now (none: cleared).
function M.changed(_, params)
  local bufnr = params and params.uri and vim.uri_to_bufnr(params.uri)
  if not bufnr or not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local profiles = {}
  for _, profile in ipairs(params.profiles or {}) do
    profiles[profile.kernel] = profile
  end
  vim.b[bufnr].wave_profile = profiles
  M.render(bufnr)
end

return M
