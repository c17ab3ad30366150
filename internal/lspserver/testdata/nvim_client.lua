-- Drives cardscan lsp from Neovim's built-in client (0.7 and later):
-- opens CARD, records the diagnostics published for it, applies the code
-- action titled ACTION and records the diagnostics after it, and writes
-- both and the buffer's text as JSON to OUT. The action is asked for at
-- the diagnostic coded CODE or, when CODE is empty (an action on the whole
-- card, such as a migration), at the card's first character. Every wait
-- is bounded.
local server, card, action, out = os.getenv('SERVER'), os.getenv('CARD'), os.getenv('ACTION'), os.getenv('OUT')
local published = {}
local function fail(msg)
  local f = io.open(out, 'w'); f:write(vim.fn.json_encode({error = msg})); f:close()
  vim.cmd('qa!')
end
local client_id = vim.lsp.start_client({
  name = 'cardscan',
  cmd = {server, 'lsp', '--profile', os.getenv('PROFILE')},
  root_dir = vim.fn.fnamemodify(card, ':h'),
  handlers = {
    ['textDocument/publishDiagnostics'] = function(_, result)
      table.insert(published, result.diagnostics)
    end,
  },
})
if not client_id then fail('the client did not start') return end
vim.cmd('edit ' .. vim.fn.fnameescape(card))
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client_id)
if not vim.wait(5000, function() return #published >= 1 end, 10) then fail('no diagnostics within 5s') return end
local first = published[#published]
local client = vim.lsp.get_client_by_id(client_id)
local code = os.getenv('CODE') or ''
local range, context = {start = {line = 0, character = 0}, ['end'] = {line = 0, character = 0}}, {diagnostics = {}}
if code ~= '' then
  local target
  for _, d in ipairs(first) do
    if d.code == code then target = d end
  end
  if not target then fail('no ' .. code .. ' diagnostic') return end
  range, context = target.range, {diagnostics = {target}}
end
local resp = client.request_sync('textDocument/codeAction', {
  textDocument = {uri = vim.uri_from_bufnr(buf)},
  range = range,
  context = context,
}, 5000, buf)
if not resp or resp.err then fail('codeAction failed: ' .. vim.inspect(resp)) return end
local applied
for _, a in ipairs(resp.result or {}) do
  if a.title == action then
    vim.lsp.util.apply_workspace_edit(a.edit, 'utf-16')
    applied = a.title
  end
end
if not applied then fail('no action ' .. action .. ' in ' .. vim.inspect(resp.result)) return end
local seen = #published
if not vim.wait(5000, function() return #published > seen end, 10) then fail('no diagnostics after the edit within 5s') return end
local f = io.open(out, 'w')
f:write(vim.fn.json_encode({first = first, after = published[#published], applied = applied,
  text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')}))
f:close()
vim.lsp.stop_client(client_id)
vim.cmd('qa!')
