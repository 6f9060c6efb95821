// The askd hub from JavaScript: find it through its discovery file (or start one), connect
// over WebSocket with its token, and ask questions in it. Node's own modules only; needs the
// global WebSocket (Node 22, or Node 20 with --experimental-websocket).
//
//   const hub = await connectHub({ name: "my-extension" });
//   const result = await hub.ask({ dialect: "codex", session: "s1", payload, asker: { folder } });
//   hub.close();

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The discovery directory: `$XDG_RUNTIME_DIR/askd` (an absolute `XDG_RUNTIME_DIR`), else
 * `${TMPDIR:-/tmp}/askd-<uid>/askd`.
 */
export function discoveryDir(env = process.env) {
  const runtime = env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : path.join(env.TMPDIR || "/tmp", `askd-${os.userInfo().uid}`);
  return path.join(runtime, "askd");
}

/**
 * The running hub's discovery file (`{ pid, url, page, token, … }`), or null when none is
 * usable: absent, not the user's own or readable by others, or its process gone.
 */
export function readHub(dir = discoveryDir()) {
  const file = path.join(dir, "hub.json");
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return null;
  }
  if (!stat.isFile() || stat.uid !== os.userInfo().uid || (stat.mode & 0o077) !== 0) return null;
  let hub;
  try {
    hub = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
  try {
    process.kill(hub.pid, 0);
  } catch {
    return null;
  }
  return hub;
}

/**
 * The running hub, or one started for the purpose (`askd hub --idle-exit 600`, detached, so
 * that it outlives this process and ends on its own once idle).
 */
export async function findOrStartHub({ askd = "askd", dir = discoveryDir(), waitMs = 10_000 } = {}) {
  const running = readHub(dir);
  if (running) return running;
  const child = spawn(askd, ["hub", "--idle-exit", "600"], { detached: true, stdio: "ignore" });
  child.unref();
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const hub = readHub(dir);
    if (hub) return hub;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no askd hub started within ${waitMs} ms (is \`${askd}\` on PATH?)`);
}

/**
 * Connects to the hub (started when none runs) as `name`, the asker of every question that
 * names none. `onUnattended(page)` is told where a question waits when no person's client was
 * attached and no browser opened it.
 */
export async function connectHub({ name, askd, onUnattended = (page) => console.error(`askd: answer the question at ${page}`) } = {}) {
  const hub = await findOrStartHub({ askd });
  const socket = new WebSocket(`${hub.url}?token=${encodeURIComponent(hub.token)}`);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error(`cannot connect to the askd hub at ${hub.url}`)), { once: true });
  });
  const waiting = new Map();
  let ids = 0;
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.method === "hub/unattended" && message.params.browser !== "opened") {
      onUnattended(message.params.page);
      return;
    }
    const reply = waiting.get(message.id);
    if (!reply) return;
    waiting.delete(message.id);
    if (message.error) reply.reject(Object.assign(new Error(message.error.message), { code: message.error.code, data: message.error.data }));
    else reply.resolve(message.result);
  });
  socket.addEventListener("close", () => {
    for (const reply of waiting.values()) reply.reject(new Error("the askd hub went away before it answered"));
    waiting.clear();
  });

  /** Calls a method of the protocol; resolves with its result, rejects with its error. */
  function request(method, params) {
    const id = ++ids;
    socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
  }

  await request("initialize", { clientInfo: { name } });
  return {
    hub,
    request,
    /** Asks a question (the params of `ask`); resolves with its result once it is answered. */
    ask: (params) => request("ask", params),
    /** Withdraws a question (it ends aborted, and its `ask` resolves). */
    abort: (session) => request("cancel", { session, reason: "abort" }).catch(() => null),
    close: () => socket.close(),
  };
}
