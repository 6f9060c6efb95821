// The hub: the one long-lived askd where a person's clients (the browser page, Neovim, VS Code,
// `askd ask --attach`) show the questions of every agent. pi's RPC mode has no screen of its own
// for a flow, so there the question goes to the hub. Found through its discovery file in the
// user's runtime directory; started (detached) when none runs.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { AskdConnection, askdCommand, type ToolResult, type Transport } from "./askd.ts";

interface Discovery {
  pid: number;
  url: string;
  token: string;
}

/** `$XDG_RUNTIME_DIR/askd`, else `${TMPDIR:-/tmp}/askd-<uid>/askd`. */
export function runtimeDir(): string {
  const xdg = process.env.XDG_RUNTIME_DIR;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "askd");
  const uid = process.getuid?.() ?? 0;
  return path.join(process.env.TMPDIR || os.tmpdir(), `askd-${uid}`, "askd");
}

/**
 * The discovery file when it is one to trust: a regular file of this user's, readable by them
 * alone, naming a live process. Any other file is not used (a hub that starts replaces it), as
 * askd's own clients do; a directory that is not this user's alone is refused.
 */
function readDiscovery(): Discovery | null {
  const dir = runtimeDir();
  const uid = process.getuid?.();
  let dirStat: fs.Stats;
  try {
    dirStat = fs.statSync(dir);
  } catch {
    return null;
  }
  if (uid !== undefined && dirStat.uid !== uid) {
    throw new Error(`${dir} is not used: it belongs to user ${dirStat.uid}, not to this user (${uid})`);
  }
  if ((dirStat.mode & 0o077) !== 0) {
    throw new Error(`${dir} is not used: others may use it (mode 0${(dirStat.mode & 0o777).toString(8)}); it must be 0700`);
  }
  const file = path.join(dir, "hub.json");
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return null;
  }
  if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) return null;
  let discovery: Discovery;
  try {
    discovery = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
  if (typeof discovery.url !== "string" || typeof discovery.token !== "string" || !Number.isInteger(discovery.pid)) return null;
  try {
    process.kill(discovery.pid, 0);
  } catch {
    return null;
  }
  return discovery;
}

/** The hub's discovery, starting `askd hub` (detached) when none runs. */
async function findOrStartHub(): Promise<Discovery> {
  const found = readDiscovery();
  if (found) return found;
  const child = spawn(askdCommand(), ["hub", "--idle-exit", "600"], { detached: true, stdio: "ignore" });
  const failed = new Promise<never>((_, reject) => {
    child.once("error", (error) => reject(new Error(`could not start ${askdCommand()} hub (${error.message}); install askd or set ASKD_BIN`)));
    // Status 3: another hub registered first, and its file is about to be there.
    child.once("exit", (code) => {
      if (code !== 0 && code !== 3) reject(new Error(`askd hub could not start (status ${code}); askd hub --status says why`));
    });
  });
  child.unref();
  const deadline = Date.now() + 10_000;
  const wait = (async () => {
    for (;;) {
      const discovery = readDiscovery();
      if (discovery) return discovery;
      if (Date.now() > deadline) throw new Error(`askd hub did not start within 10 s (no ${path.join(runtimeDir(), "hub.json")})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return Promise.race([wait, failed]);
}

/** The WebSocket endpoint of a hub whose discovery names its base address. */
function endpoint(url: string): string {
  return url.endsWith("/rpc") ? url : `${url.replace(/\/$/, "")}/rpc`;
}

async function connect(discovery: Discovery): Promise<AskdConnection> {
  const socket = new WebSocket(endpoint(discovery.url), { headers: { authorization: `Bearer ${discovery.token}` } });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const transport: Transport = {
    send: (line) => socket.send(line),
    onMessage: (listener) => socket.on("message", (data) => listener(data.toString())),
    onClose: (listener) => socket.on("close", (code, reason) => listener(`the hub closed the connection (${code}${reason.length ? ` ${reason}` : ""})`)),
    close: () => socket.close(),
  };
  const connection = new AskdConnection(transport);
  await connection.request("initialize", { clientInfo: { name: "pi", version: "0.1.0" } });
  return connection;
}

/**
 * Opens the `ask_user` payload in the hub, in the pi dialect, and resolves with its result once
 * a person answers it in one of the hub's clients. An abort of `signal` withdraws the question
 * (the result then says so).
 */
export async function askThroughHub(payload: unknown, session: string, cwd: string, signal: AbortSignal | undefined): Promise<ToolResult> {
  const hub = await connect(await findOrStartHub());
  try {
    const id = hub.nextId();
    const asked = hub.request<ToolResult>("ask", { payload, dialect: "pi", session, cwd, asker: { name: "pi", folder: cwd } });
    const abort = () => hub.notify("$/cancelRequest", { id });
    signal?.addEventListener("abort", abort, { once: true });
    try {
      return await asked;
    } finally {
      signal?.removeEventListener("abort", abort);
      await hub.request("close", { session }).catch(() => undefined);
    }
  } finally {
    hub.close();
  }
}
