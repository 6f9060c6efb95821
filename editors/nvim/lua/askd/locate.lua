-- Where the plugin's askd repository is, and what the plugin finds there: the engine's build
-- and the protocol's JSON Schemas.

local M = {}

--- This file's path (the plugin is loaded from files, so the chunk name is `@<path>`).
local function this_file()
  local source = debug.getinfo(1, "S").source
  return source:sub(1, 1) == "@" and source:sub(2) or source
end

--- The plugin's folder (`editors/nvim` of the repository).
M.plugin_dir = vim.fn.fnamemodify(this_file(), ":p:h:h:h")

--- The askd repository the plugin belongs to: where it looks for the engine's build
--- (`target/release/askd`, then `target/debug/askd`) and for `protocol/schemas/`.
M.root = vim.fn.fnamemodify(M.plugin_dir, ":h:h")

--- The dialects the engine speaks, in the order its documentation lists them.
M.dialects = { "pi", "dsh", "claude", "codex", "opencode", "mcp" }

--- The engine builds looked for under `root`, in order.
function M.builds(root)
  root = root or M.root
  return { root .. "/target/release/askd", root .. "/target/debug/askd" }
end

--- The engine to run when none is configured: `askd` when it is on `PATH`, else the first
--- executable build of the repository; nil when there is none.
function M.engine(root)
  if vim.fn.executable("askd") == 1 then
    return "askd"
  end
  for _, path in ipairs(M.builds(root)) do
    if vim.fn.executable(path) == 1 then
      return path
    end
  end
  return nil
end

--- Why no engine was found, naming every place looked at.
function M.engine_missing(root)
  local builds = M.builds(root)
  return string.format(
    "askd: askd is not on PATH, and there is no %s nor %s (run `cargo build --release` in the"
      .. " repository, or set require('askd').setup{ cmd = ... })",
    builds[1],
    builds[2]
  )
end

local function is_known(dialect)
  for _, name in ipairs(M.dialects) do
    if name == dialect then
      return true
    end
  end
  return false
end

--- Replaces every local `$ref` (`#/$defs/Name`) by a copy of its definition; `depth` stops a
--- definition that refers to itself.
local function inline_refs(node, defs, depth)
  if type(node) ~= "table" then
    return node
  end
  local ref = node["$ref"]
  if type(ref) == "string" then
    local name = ref:match("^#/%$defs/(.+)$")
    if name and defs[name] ~= nil and depth < 32 then
      return inline_refs(vim.deepcopy(defs[name]), defs, depth + 1)
    end
  end
  local out = {}
  for key, value in pairs(node) do
    out[key] = inline_refs(value, defs, depth)
  end
  return out
end

--- The JSON Schema of a dialect's payload, decoded: `protocol/schemas/<dialect>-payload.json`
--- or `<dialect>-request.json` of the repository. With `opts.inline`, local references are
--- replaced by their definitions and `$schema` / `$defs` are left out, for tool-calling APIs
--- that take no references. Raises an error naming the dialect and the folder when the
--- dialect is unknown or its schema is not there.
function M.schema(dialect, opts)
  dialect = dialect or "pi"
  if not is_known(dialect) then
    error(
      string.format(
        'askd: unknown dialect "%s" (one of %s)',
        tostring(dialect),
        table.concat(M.dialects, ", ")
      ),
      0
    )
  end
  local dir = M.root .. "/protocol/schemas"
  for _, name in ipairs({ dialect .. "-payload.json", dialect .. "-request.json" }) do
    local path = dir .. "/" .. name
    if vim.fn.filereadable(path) == 1 then
      local ok, decoded = pcall(vim.json.decode, table.concat(vim.fn.readfile(path), "\n"))
      if not ok or type(decoded) ~= "table" then
        error(string.format("askd: %s is not valid JSON: %s", path, tostring(decoded)), 0)
      end
      if opts and opts.inline then
        local defs = decoded["$defs"] or {}
        decoded["$defs"] = nil
        decoded["$schema"] = nil
        decoded = inline_refs(decoded, defs, 0)
      end
      return decoded
    end
  end
  error(
    string.format(
      "askd: no JSON Schema for the %s dialect in %s"
        .. " (looked for %s-payload.json and %s-request.json)",
      dialect,
      dir,
      dialect,
      dialect
    ),
    0
  )
end

return M
