// What the seams tests (askd hook claude, askd bridge opencode, the Codex app-server example)
// need beyond the harness: the hub clients started against a test's hub, an opencode server
// on a port that survives a restart, and the questions the scripted models ask.

import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { MODEL, opencodeConfig } from "./agents.mjs";
import { agentBin, askdBin, offlineEnv, start, tempDir, until, writeFile } from "./proc.mjs";

/** The question every seams test asks: one single-select question with two options. */
export const DATABASE = "Which database should we use?";

/** Claude Code's `AskUserQuestion` input of the tests. */
export const claudeQuestions = {
  questions: [
    {
      question: DATABASE,
      header: "Database",
      multiSelect: false,
      options: [
        { label: "Postgres", description: "Full SQL, runs as a server" },
        { label: "SQLite", description: "A single file, no server" },
      ],
    },
  ],
};

/** opencode's `question` tool input of the tests. */
export const opencodeQuestions = {
  questions: [
    {
      question: DATABASE,
      header: "Database",
      options: [
        { label: "Postgres", description: "Full SQL, runs as a server" },
        { label: "SQLite", description: "A single file, no server" },
      ],
    },
  ],
};

/**
 * The environment of a hub client of `listener` (what `startListener()` gives): its runtime
 * directory (where the hub's discovery file is) and state directory; no browser is opened.
 */
export function hubClientEnv(listener, extra = {}) {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: "C.UTF-8",
    ASKD_NO_BROWSER: "1",
    ...listener.env,
    ...extra,
  };
}

/**
 * A runtime directory where no hub can be found or started: its `askd/` folder may be written
 * by others, so the hub's discovery refuses it.
 */
export function refusedRuntime() {
  const runtime = tempDir("seams-refused-runtime");
  fs.mkdirSync(path.join(runtime, "askd"), { mode: 0o777 });
  fs.chmodSync(path.join(runtime, "askd"), 0o777);
  return runtime;
}

/**
 * `askd bridge opencode --url URL` against `listener`'s hub; resolves once it watches the
 * server (or at once with `wait: false`).
 */
export async function startBridge({ listener, url, env = {}, wait = true, log }) {
  const proc = start(askdBin(), ["bridge", "opencode", "--url", url], { env: hubClientEnv(listener, env), name: "bridge", log });
  if (wait) {
    await until(() => proc.err().includes("askd: bridge: watching "), { timeoutMs: 30_000, what: "the bridge to watch the server" });
  }
  return proc;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * `opencode serve` on a port of the test's choosing, so that it can be stopped and started
 * again at the same address (`restart()`), in a HOME of its own. Resolves with `{ url, work,
 * home, proc, stop, restart }`.
 */
export async function startOpencodeAt({ model, port, password, log }) {
  const home = tempDir("seams-opencode");
  const work = path.join(home, "work");
  writeFile(path.join(work, "README.md"), "A folder for a scripted agent run.\n");
  writeFile(path.join(home, ".config", "opencode", "opencode.json"), opencodeConfig({ model }));
  const env = offlineEnv(home, {
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_SHARE: "1",
    ...(password ? { OPENCODE_SERVER_PASSWORD: password } : {}),
  });
  const url = `http://127.0.0.1:${port}`;
  const server = { url, work, home, proc: null };
  server.start = async () => {
    server.proc = start(agentBin("opencode"), ["serve", "--hostname", "127.0.0.1", "--port", String(port)], {
      cwd: work,
      env,
      name: "opencode",
      log,
    });
    const proc = server.proc;
    await until(
      () => {
        if (/listening on http:\/\/127\.0\.0\.1:\d+/.test(proc.out() + proc.err())) return true;
        if (proc.child.exitCode !== null) throw new Error(`opencode serve exited: ${proc.err()}`);
        return null;
      },
      { timeoutMs: 60_000, what: "opencode serve to listen" },
    );
  };
  server.restart = async () => {
    await server.proc.stop();
    await server.start();
  };
  await server.start();
  server.headers = password ? { authorization: `Basic ${Buffer.from(`opencode:${password}`).toString("base64")}` } : {};
  /** A request to the server's HTTP API; resolves with the parsed answer. */
  server.api = async (method, route, body) => {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: { ...server.headers, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  /** Starts a turn in a new session with `prompt` (it runs on in the server). */
  server.prompt = async (prompt) => {
    const session = await server.api("POST", "/session", {});
    await server.api("POST", `/session/${session.id}/prompt_async`, {
      parts: [{ type: "text", text: prompt }],
      model: { providerID: "scripted", modelID: MODEL },
    });
    return session;
  };
  return server;
}

/** Runs `askd hook claude ARGS` with the hook input `input` on stdin. */
export function hookInput({ cwd, toolInput = claudeQuestions, toolUseId = "toolu_hook_1" }) {
  return {
    session_id: "7b0c1d2e-0000-4000-8000-000000000001",
    transcript_path: path.join(cwd, "transcript.jsonl"),
    cwd,
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: "AskUserQuestion",
    tool_input: toolInput,
    tool_use_id: toolUseId,
  };
}

/**
 * Claude Code settings that register `askd hook claude` for `AskUserQuestion`, with `timeout`
 * seconds both in Claude Code's setting and in askd's `--timeout`; the hook's stderr goes to
 * `errFile`.
 */
export function hookSettings({ timeout = 120, errFile }) {
  const command = `${shellQuote(askdBin())} hook claude --timeout ${timeout} 2>>${shellQuote(errFile)}`;
  return { hooks: { PreToolUse: [{ matcher: "AskUserQuestion", hooks: [{ type: "command", command, timeout }] }] } };
}

/** A word quoted for sh. */
export function shellQuote(word) {
  return `'${String(word).replaceAll("'", "'\\''")}'`;
}

/** The text of a file, or "" when it does not exist. */
export function readText(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
