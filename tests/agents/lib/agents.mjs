// A launcher per agent, in each of its seam modes, offline: each runs the real agent in a
// temporary HOME whose configuration points it at a scripted model (lib/model-server.mjs) and at
// the MCP servers a test names. Nothing here answers a question: the tests do, the way a person
// or a host would.
//
// An MCP server is `{ name, command, args?, env? }`. Every launcher takes `{ model, cwd?,
// mcpServers?, env?, log? }` and returns what its mode has: a finished run's output, a process to
// talk to, or a terminal in tmux (lib/tmux.mjs).

import fs from "node:fs";
import path from "node:path";
import { agentBin, offlineEnv, run, start, tempDir, until, writeFile } from "./proc.mjs";
import { Tmux } from "./tmux.mjs";

/** The model name every agent is configured with. */
export const MODEL = "scripted";
/** The dummy key every agent is given. */
export const DUMMY_KEY = "sk-askd-tests-0000000000000000000000000000";

/** A work folder for the agent, inside its home, with a file so it is not empty. */
function workFolder(home, cwd) {
  if (cwd) return cwd;
  const dir = path.join(home, "work");
  writeFile(path.join(dir, "README.md"), "A folder for a scripted agent run.\n");
  return dir;
}

// ---------------------------------------------------------------------------------------------
// pi

/** A HOME for pi pointed at the model (`home` given: that folder, keeping what it holds). */
function piHome({ model, home = tempDir("pi") }) {
  writeFile(path.join(home, ".pi", "agent", "models.json"), {
    providers: {
      scripted: {
        baseUrl: `${model.url}/v1`,
        api: "openai-completions",
        apiKey: DUMMY_KEY,
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: MODEL, name: "Scripted model", reasoning: false, input: ["text"], contextWindow: 128000, maxTokens: 4096 }],
      },
    },
  });
  const settingsFile = path.join(home, ".pi", "agent", "settings.json");
  const settings = fs.existsSync(settingsFile) ? JSON.parse(fs.readFileSync(settingsFile, "utf8")) : {};
  writeFile(settingsFile, { ...settings, defaultProvider: "scripted", defaultModel: MODEL, quietStartup: true });
  return home;
}

export function piEnv(home, env) {
  return offlineEnv(home, { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0", ...env });
}

function piArgs({ extensions = [], noTools = true, sessionDir, args = [] }) {
  // A session is kept only where a test reads it (the tool results' details are there).
  const out = ["--provider", "scripted", "--model", MODEL, ...(sessionDir ? ["--session-dir", sessionDir] : ["--no-session"])];
  // Only the tools under test, so that the model's request is small and stable.
  if (noTools) out.push("--no-builtin-tools");
  for (const extension of extensions) out.push("-e", extension);
  return [...out, ...args];
}

/** `pi -p PROMPT`: one turn, printed; resolves with `{ code, stdout, stderr, home }`. */
export async function runPiPrint({ model, prompt, extensions, cwd, env, args, sessionDir, home: given, timeoutMs = 90_000, log }) {
  const home = piHome({ model, home: given });
  const result = await run(agentBin("pi"), [...piArgs({ extensions, args, sessionDir }), "-p", prompt], {
    cwd: workFolder(home, cwd),
    env: piEnv(home, env),
    timeoutMs,
    name: "pi",
    log,
  });
  return { ...result, home };
}

/** `pi` in its interactive TUI, in tmux; `prompt` is typed in once it is up when given. */
export async function startPiTui({ model, extensions, cwd, env, args, sessionDir, home: given, width = 100, height = 40, log }) {
  const home = piHome({ model, home: given });
  const tmux = await Tmux.start({
    name: "pi",
    command: [agentBin("pi"), ...piArgs({ extensions, args, sessionDir })],
    cwd: workFolder(home, cwd),
    env: piEnv(home, env),
    width,
    height,
    log,
  });
  return { tmux, home };
}

/**
 * `pi --mode rpc`: JSON lines on stdio. Resolves with `{ proc, send(command), events, waitFor }`:
 * `send` writes a command and resolves with its response; `events` holds everything pi wrote.
 */
export async function startPiRpc({ model, extensions, cwd, env, args, sessionDir, home: given, log }) {
  const home = piHome({ model, home: given });
  const proc = start(agentBin("pi"), [...piArgs({ extensions, args, sessionDir }), "--mode", "rpc"], {
    cwd: workFolder(home, cwd),
    env: piEnv(home, env),
    name: "pi-rpc",
    log,
  });
  return { ...jsonLines(proc, log), home };
}

// ---------------------------------------------------------------------------------------------
// JSON lines on a process's stdio (pi's RPC mode, codex app-server)

function jsonLines(proc, log) {
  const messages = [];
  const waiters = new Set();
  proc.onLine((line) => {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      if (log) log(`${proc.name} (not JSON): ${line}`);
      return;
    }
    if (log) log(`${proc.name} -> ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`);
    messages.push(message);
    for (const waiter of [...waiters]) waiter();
  });
  let ids = 0;
  const api = {
    proc,
    messages,
    write(message) {
      const line = JSON.stringify(message);
      if (log) log(`${proc.name} <- ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`);
      proc.child.stdin.write(`${line}\n`);
    },
    /** Resolves with the first message (from `from` on) for which `test` holds. */
    waitFor(test, { timeoutMs = 60_000, what = "a message", from = 0 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.slice(from).find(test);
          if (found) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${proc.name}: waited ${timeoutMs} ms for ${what}; stderr: ${proc.err().slice(-2000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
        proc.exited.then(() => {
          if (!waiters.has(check)) return;
          check();
          if (!waiters.has(check)) return;
          clearTimeout(timer);
          waiters.delete(check);
          reject(new Error(`${proc.name} exited while waiting for ${what}; stderr: ${proc.err().slice(-2000)}`));
        });
      });
    },
    /** pi RPC: a command `{ type, ... }` answered by `{ type: "response", id }`. */
    async command(body, options) {
      const id = `req-${++ids}`;
      api.write({ id, ...body });
      return api.waitFor((m) => m.type === "response" && m.id === id, { what: `the response to ${body.type}`, ...options });
    },
    /** JSON-RPC request (codex app-server). */
    async request(method, params, options) {
      const id = ++ids;
      api.write({ id, method, params });
      const reply = await api.waitFor((m) => m.id === id && ("result" in m || "error" in m) && !("method" in m), { what: `the reply to ${method}`, ...options });
      if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
      return reply.result;
    },
    notify(method, params) {
      api.write(params === undefined ? { method } : { method, params });
    },
    respond(id, result) {
      api.write({ id, result });
    },
  };
  return api;
}

export { jsonLines };

// ---------------------------------------------------------------------------------------------
// Claude Code

export function claudeHome({ cwd, settings, home = tempDir("claude") }) {
  const work = workFolder(home, cwd);
  writeFile(path.join(home, ".claude.json"), {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: "2.1.332",
    theme: "dark",
    bypassPermissionsModeAccepted: true,
    customApiKeyResponses: { approved: [DUMMY_KEY.slice(-20)], rejected: [] },
    projects: { [work]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
  });
  writeFile(path.join(home, ".claude", "settings.json"), settings ?? {});
  return { home, work };
}

export function claudeEnv(home, model, env) {
  return offlineEnv(home, {
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: DUMMY_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_ENABLE_TELEMETRY: "0",
    CLAUDE_CODE_MAX_RETRIES: "0",
    // MCP tools offered whole in every request, not behind a tool search.
    ENABLE_TOOL_SEARCH: "false",
    ...env,
  });
}

function claudeMcpConfig(home, mcpServers = []) {
  const servers = {};
  for (const server of mcpServers) {
    servers[server.name] = { type: "stdio", command: server.command, args: server.args ?? [], env: server.env ?? {} };
  }
  return writeFile(path.join(home, "mcp.json"), { mcpServers: servers });
}

function claudeArgs({ home, mcpServers, allowedTools = [], tools, args = [] }) {
  // `mcpServers: null`: the MCP servers of Claude Code's own settings (`claude mcp add`).
  const out = ["--model", MODEL];
  if (mcpServers !== null) out.push("--mcp-config", claudeMcpConfig(home, mcpServers), "--strict-mcp-config");
  if (allowedTools.length) out.push("--allowedTools", allowedTools.join(","));
  if (tools) out.push("--tools", tools.join(","));
  return [...out, ...args];
}

/**
 * `claude -p PROMPT`: one run, printed; resolves with `{ code, stdout, stderr, home }`. `home`
 * is a HOME prepared by `claudeHome` (e.g. after `claude mcp add`); a fresh one by default.
 */
export async function runClaudePrint({ model, prompt, cwd, mcpServers, allowedTools, tools, settings, env, args, home: given, timeoutMs = 90_000, log }) {
  const { home, work } = given ? { home: given, work: workFolder(given, cwd) } : claudeHome({ cwd, settings });
  const result = await run(agentBin("claude"), [...claudeArgs({ home, mcpServers, allowedTools, tools, args }), "-p", prompt], {
    cwd: work,
    env: claudeEnv(home, model, env),
    timeoutMs,
    name: "claude",
    log,
  });
  return { ...result, home };
}

/**
 * `claude` in its interactive TUI, in tmux, started with `prompt` (after `--`, so that `--tools`
 * does not swallow it). `settings` become ~/.claude/settings.json (hooks go there).
 */
export async function startClaudeTui({ model, prompt, cwd, mcpServers, allowedTools, tools, settings, env, args, width = 110, height = 45, log }) {
  const { home, work } = claudeHome({ cwd, settings });
  const command = [agentBin("claude"), ...claudeArgs({ home, mcpServers, allowedTools, tools, args })];
  if (prompt !== undefined) command.push("--", prompt);
  const tmux = await Tmux.start({ name: "claude", command, cwd: work, env: claudeEnv(home, model, env), width, height, log });
  return { tmux, home };
}

// ---------------------------------------------------------------------------------------------
// Codex

function tomlString(value) {
  return JSON.stringify(String(value));
}

function tomlValue(value) {
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  if (value && typeof value === "object") {
    return `{ ${Object.entries(value).map(([k, v]) => `${tomlString(k)} = ${tomlValue(v)}`).join(", ")} }`;
  }
  return tomlString(value);
}

/** The config.toml of a Codex pointed at the scripted model, with `extra` lines appended. */
export function codexConfig({ model, mcpServers = [], extra = "" }) {
  const lines = [
    `model = ${tomlString(MODEL)}`,
    `model_provider = "scripted"`,
    `check_for_update_on_startup = false`,
    `approval_policy = "never"`,
    `sandbox_mode = "read-only"`,
    "",
    "[model_providers.scripted]",
    `name = "Scripted model"`,
    `base_url = ${tomlString(`${model.url}/v1`)}`,
    `wire_api = "responses"`,
    `env_key = "ASKD_TESTS_MODEL_KEY"`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "stream_idle_timeout_ms = 60000",
    "",
    "[analytics]",
    "enabled = false",
    "",
  ];
  for (const server of mcpServers) {
    lines.push(`[mcp_servers.${server.name}]`, `command = ${tomlString(server.command)}`, `args = ${tomlValue(server.args ?? [])}`);
    if (server.env) lines.push(`env = ${tomlValue(server.env)}`);
    // A tool of a server the test names runs without asking (Codex asks otherwise, and in
    // `exec` with approval "never" that refuses the call); `required` makes Codex wait for the
    // server before the first request, which otherwise may go out without its tools.
    const codexOptions = { default_tools_approval_mode: "approve", required: true, ...(server.codex ?? {}) };
    for (const [key, value] of Object.entries(codexOptions)) lines.push(`${key} = ${tomlValue(value)}`);
    lines.push("");
  }
  return `${lines.join("\n")}\n${extra}`;
}

function codexHome({ model, mcpServers, config }) {
  const home = tempDir("codex");
  const codexDir = path.join(home, ".codex");
  writeFile(path.join(codexDir, "config.toml"), codexConfig({ model, mcpServers, extra: config }));
  return { home, codexDir };
}

function codexEnv(home, codexDir, env) {
  return offlineEnv(home, { CODEX_HOME: codexDir, ASKD_TESTS_MODEL_KEY: DUMMY_KEY, RUST_LOG: "error", ...env });
}

/** `codex exec PROMPT`: one run; resolves with `{ code, stdout, stderr, home }`. */
export async function runCodexExec({ model, prompt, cwd, mcpServers, config, env, args = [], timeoutMs = 90_000, log }) {
  const { home, codexDir } = codexHome({ model, mcpServers, config });
  const work = workFolder(home, cwd);
  const result = await run(agentBin("codex"), ["exec", "--skip-git-repo-check", "--color", "never", ...args, prompt], {
    cwd: work,
    env: codexEnv(home, codexDir, env),
    timeoutMs,
    name: "codex",
    log,
  });
  return { ...result, home };
}

/** `codex` in its interactive TUI, in tmux, started with `prompt`. */
export async function startCodexTui({ model, prompt, cwd, mcpServers, config, env, args = [], width = 110, height = 45, log }) {
  const { home, codexDir } = codexHome({ model, mcpServers, config });
  const work = workFolder(home, cwd);
  const command = [agentBin("codex"), ...args];
  if (prompt !== undefined) command.push(prompt);
  const tmux = await Tmux.start({ name: "codex", command, cwd: work, env: codexEnv(home, codexDir, env), width, height, log });
  return { tmux, home, work };
}

/**
 * `codex app-server`: JSON-RPC on stdio, initialized. Resolves with the JSON-lines client
 * (`request`, `respond`, `waitFor`, `messages`) and the work folder.
 */
export async function startCodexAppServer({ model, cwd, mcpServers, config, env, log }) {
  const { home, codexDir } = codexHome({ model, mcpServers, config });
  const work = workFolder(home, cwd);
  const proc = start(agentBin("codex"), ["app-server"], { cwd: work, env: codexEnv(home, codexDir, env), name: "codex-app-server", log });
  const client = jsonLines(proc, log);
  await client.request("initialize", { clientInfo: { name: "askd-tests", title: "askd tests", version: "0.1.0" }, capabilities: { experimentalApi: true } });
  client.notify("initialized");
  return { ...client, home, work };
}

// ---------------------------------------------------------------------------------------------
// opencode

/** The opencode.json of an opencode pointed at the scripted model, merged with `extra`. */
export function opencodeConfig({ model, mcpServers = [], extra = {} }) {
  const mcp = {};
  for (const server of mcpServers) {
    mcp[server.name] = { type: "local", command: [server.command, ...(server.args ?? [])], environment: server.env ?? {}, enabled: true };
  }
  return {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    model: `scripted/${MODEL}`,
    small_model: `scripted/${MODEL}`,
    provider: {
      scripted: {
        npm: "@ai-sdk/openai-compatible",
        name: "Scripted model",
        options: { baseURL: `${model.url}/v1`, apiKey: DUMMY_KEY },
        models: { [MODEL]: { name: "Scripted model", tool_call: true, limit: { context: 128000, output: 4096 } } },
      },
    },
    mcp,
    ...extra,
  };
}

function opencodeEnv(home, env) {
  return offlineEnv(home, {
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_SHARE: "1",
    ...env,
  });
}

/** A HOME for opencode pointed at the model and at `mcpServers`, with its work folder. */
function opencodeHome({ model, cwd, mcpServers, config }) {
  const home = tempDir("opencode");
  const work = workFolder(home, cwd);
  writeFile(path.join(home, ".config", "opencode", "opencode.json"), opencodeConfig({ model, mcpServers, extra: config }));
  return { home, work };
}

/** `opencode run PROMPT`: one turn, printed; resolves with `{ code, stdout, stderr, home }`. */
export async function runOpencodeRun({ model, prompt, cwd, mcpServers, config, env, args = [], timeoutMs = 120_000, log }) {
  const { home, work } = opencodeHome({ model, cwd, mcpServers, config });
  const result = await run(agentBin("opencode"), ["run", "--model", `scripted/${MODEL}`, ...args, prompt], {
    cwd: work,
    env: opencodeEnv(home, env),
    timeoutMs,
    name: "opencode-run",
    log,
  });
  return { ...result, home };
}

/**
 * `opencode serve` on 127.0.0.1 and a port of its own choosing. Resolves with `{ proc, url,
 * client, work, home }`: `client` is the v2 client of `@opencode-ai/sdk` for the work folder.
 * `password` protects the server (basic auth, user `opencode`).
 */
export async function startOpencodeServe({ model, cwd, mcpServers, config, env, password, log }) {
  const { home, work } = opencodeHome({ model, cwd, mcpServers, config });
  const extraEnv = password ? { OPENCODE_SERVER_PASSWORD: password, ...env } : env;
  const proc = start(agentBin("opencode"), ["serve", "--hostname", "127.0.0.1", "--port", "0", "--print-logs", "--log-level", process.env.ASKD_TESTS_OPENCODE_LOG ?? "WARN"], {
    cwd: work,
    env: opencodeEnv(home, extraEnv),
    name: "opencode",
    log,
  });
  const url = await until(
    () => {
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(proc.out() + proc.err());
      if (found) return found[1];
      if (proc.child.exitCode !== null) throw new Error(`opencode serve exited: ${proc.err()}`);
      return null;
    },
    { timeoutMs: 60_000, what: "opencode serve to listen" },
  );
  const { createOpencodeClient } = await import("@opencode-ai/sdk/v2/client");
  const headers = password ? { authorization: `Basic ${Buffer.from(`opencode:${password}`).toString("base64")}` } : undefined;
  const client = createOpencodeClient({ baseUrl: url, directory: work, headers });
  return { proc, url, client, work, home };
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI

/** The settings.json of a Gemini CLI pointed at the scripted model, merged with `extra`. */
export function geminiSettings({ mcpServers = [], extra = {} }) {
  const servers = {};
  for (const server of mcpServers) {
    servers[server.name] = { command: server.command, args: server.args ?? [], env: server.env ?? {}, trust: true, ...(server.gemini ?? {}) };
  }
  return {
    security: { auth: { selectedType: "gemini-api-key" } },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    mcpServers: servers,
    ...extra,
  };
}

function geminiEnv(home, model, env) {
  return offlineEnv(home, {
    GEMINI_API_KEY: DUMMY_KEY,
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_NO_RELAUNCH: "true",
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    ...env,
  });
}

/** `gemini -p PROMPT`: one run; resolves with `{ code, stdout, stderr, home }`. */
export async function runGeminiPrint({ model, prompt, cwd, mcpServers, settings, env, args = [], timeoutMs = 90_000, log }) {
  const home = tempDir("gemini");
  const work = workFolder(home, cwd);
  writeFile(path.join(home, ".gemini", "settings.json"), geminiSettings({ mcpServers, extra: settings }));
  const result = await run(agentBin("gemini"), ["-m", GEMINI_MODEL, ...args, "-p", prompt], {
    cwd: work,
    env: geminiEnv(home, model, env),
    timeoutMs,
    name: "gemini",
    log,
  });
  return { ...result, home };
}

/** Gemini CLI is given a model name it knows, so that its own per-model settings apply. */
export const GEMINI_MODEL = "gemini-2.5-flash";
