--- Indentation of WAVE source: directives and labels at column 0, instructions one
--- 'shiftwidth' in, one more level inside each structured block (if/else/endif, loop/endloop).
--- Which mnemonics open, continue and close a block comes from the generated `wave.isa`.

local isa = require('wave.isa')

local M = {}

--- The code of a line without its comment, trimmed.
local function code_of(text)
  return vim.trim((text:gsub('[;#].*$', '')))
end

--- What a line of code is: 'blank', 'directive' (with its name), or an instruction line with the
--- block role of its mnemonic ('open', 'middle', 'close' or nil) and whether a label starts it.
local function classify(text)
  local code = code_of(text)
  if code == '' then
    return { kind = 'blank' }
  end
  local directive = code:match('^%.([%w_]*)')
  if directive then
    return { kind = 'directive', name = directive }
  end
  local labelled = false
  local rest = code:match('^[^%s:@%.]+%s*:%s*(.*)$')
  if rest then
    labelled, code = true, rest
  end
  code = code:gsub('^@%s*!?%s*[%w_%%%.]+%s*', '')
  local mnemonic = code:match('^[%w_]+')
  local role
  if mnemonic and isa.block_openers[mnemonic] then
    role = 'open'
  elseif mnemonic and isa.block_middles[mnemonic] then
    role = 'middle'
  elseif mnemonic and isa.block_closers[mnemonic] then
    role = 'close'
  end
  return { kind = (code == '' and 'label' or 'instruction'), labelled = labelled, role = role }
end

--- The indent of line `lnum` (1-based) of the current buffer.
function M.indentexpr(lnum)
  local sw = vim.fn.shiftwidth()
  local current = classify(vim.fn.getline(lnum))
  if current.kind == 'directive' or current.labelled then
    return 0
  end
  local levels = 0 -- blocks opened (or closed, negative) on labelled lines skipped on the way
  local base
  local prev = lnum - 1
  while prev > 0 do
    local line = classify(vim.fn.getline(prev))
    if line.kind == 'directive' then
      base = line.name == 'end' and 0 or sw
      break
    elseif line.kind == 'instruction' and not line.labelled then
      base = vim.fn.indent(prev)
      if line.role == 'open' or line.role == 'middle' then
        base = base + sw
      end
      break
    elseif line.kind == 'instruction' then
      levels = levels + (line.role == 'open' and 1 or line.role == 'close' and -1 or 0)
    end
    prev = prev - 1
  end
  if base == nil then
    return 0
  end
  if current.kind == 'blank' and base == 0 then
    return 0 -- a comment outside any kernel
  end
  local indent = base + levels * sw
  if current.role == 'middle' or current.role == 'close' then
    indent = indent - sw
  end
  return math.max(indent, current.kind == 'blank' and 0 or sw)
end

--- 'indentkeys' for WAVE: re-indent when a directive starts, a label's `:` or a block keyword
--- is typed.
function M.indentkeys()
  local keys = { '0.', '!^F', 'o', 'O', '<:>' }
  for _, set in ipairs({ isa.block_middles, isa.block_closers }) do
    for word in pairs(set) do
      keys[#keys + 1] = '=' .. word
    end
  end
  table.sort(keys)
  return table.concat(keys, ',')
end

return M
