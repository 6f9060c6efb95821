// A person at askd: a WebSocket client of askd's listener that waits for a flow to arrive and
// answers it with keys, the way someone at a client would (never through askd's stdin). Also
// starts the listener a test answers through.
//
//   const hub = await startListener();               // askd serve --listen 127.0.0.1:0
//   const person = await Person.connect(hub);
//   const flow = await person.nextFlow();            // { session, title, view }
//   await person.press(flow.session, ["down", "enter", "enter"]);

import fs from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { askdBin, start, tempDir, until } from "./proc.mjs";

/**
 * Starts `askd serve --listen 127.0.0.1:0` with a token of the test's own and a state directory
 * of its own. Resolves with `{ proc, url, page, token, stateDir, env }`: `url` is the WebSocket
 * endpoint, `env` the variables that point an askd command (a hub client) at the same runtime
 * directory. Its standard input stays open: closing it ends the listener (`proc.stop()`).
 */
export async function startListener({ args = [], env = {}, log } = {}) {
  const dir = tempDir("askd");
  const tokenFile = path.join(dir, "token");
  const token = "askd-tests-token-0123456789abcdef";
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const stateDir = path.join(dir, "state");
  const runtime = path.join(dir, "runtime");
  fs.mkdirSync(runtime, { mode: 0o700 });
  const childEnv = { ...process.env, XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: stateDir, ASKD_LOG: process.env.ASKD_LOG ?? "warn", ...env };
  const proc = start(askdBin(), ["serve", "--listen", "127.0.0.1:0", "--token-file", tokenFile, "--state-dir", stateDir, ...args], {
    env: childEnv,
    name: "askd",
    log,
  });
  const endpoint = await until(
    () => {
      const found = /WebSocket endpoint (ws:\/\/[^\s?]+)\?token=/.exec(proc.err());
      if (found) return found[1];
      if (proc.child.exitCode !== null) throw new Error(`askd serve --listen exited: ${proc.err()}`);
      return null;
    },
    { timeoutMs: 20_000, what: "askd to listen" },
  );
  const page = endpoint.replace(/^ws:/, "http:").replace(/\/rpc$/, "/");
  return { proc, url: endpoint, page, token, stateDir, env: { XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: stateDir } };
}

export class Person {
  /**
   * Connects to a listener (`{ url, token }`), introduces itself and subscribes to every flow.
   * `attach: true` subscribes as a person's client that shows arriving flows (the hub's
   * `subscribe { attach: true }`). `onNotification(message)` is called as each notification
   * arrives (a benchmark notes the time).
   */
  static async connect({ url, token }, { width = 80, attach = false, name = "askd-tests person", log, onNotification } = {}) {
    const socket = new WebSocket(`${url}?token=${encodeURIComponent(token)}`);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const person = new Person(socket, width, log, onNotification);
    await person.request("initialize", { clientInfo: { name, version: "0.1.0" }, capabilities: { width } });
    const held = await person.request("subscribe", attach ? { attach: true, width } : { width });
    for (const entry of held) person.#arrive(entry);
    return person;
  }

  #socket;
  #pending = new Map();
  #ids = 0;
  #flows = [];
  #waiters = new Set();
  #log;
  #onNotification;

  constructor(socket, width, log, onNotification) {
    this.#socket = socket;
    this.width = width;
    this.#log = log;
    this.#onNotification = onNotification;
    /** Every notification received, in order. */
    this.notifications = [];
    socket.on("message", (data) => this.#receive(JSON.parse(data.toString("utf8"))));
    socket.on("close", () => {
      for (const { reject } of this.#pending.values()) reject(new Error("askd closed the connection"));
      this.#pending.clear();
    });
  }

  #receive(message) {
    if (this.#log) this.#log(`person <- ${JSON.stringify(message).slice(0, 300)}`);
    if (message.id !== undefined && this.#pending.has(message.id)) {
      const { resolve, reject, method } = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error) reject(Object.assign(new Error(`${method}: ${message.error.message}`), { code: message.error.code, data: message.error.data }));
      else resolve(message.result);
      return;
    }
    if (!message.method) return;
    this.#onNotification?.(message);
    this.notifications.push(message);
    if (message.method === "session/opened") this.#arrive(message.params);
    for (const waiter of [...this.#waiters]) waiter();
  }

  #arrive(entry) {
    if (entry.status !== "open" && entry.status !== "recovered") return;
    if (this.#flows.some((f) => f.session === entry.session)) return;
    this.#flows.push({ ...entry, taken: false });
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Sends a JSON-RPC request and resolves with its result (rejects with its error). */
  request(method, params) {
    const id = ++this.#ids;
    const message = { jsonrpc: "2.0", id, method, params };
    if (this.#log) this.#log(`person -> ${JSON.stringify(message).slice(0, 300)}`);
    this.#socket.send(JSON.stringify(message));
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, method }));
  }

  /**
   * Waits for the next flow that arrives (the oldest not yet taken) and resolves with
   * `{ session, title, status, ..., view }`, its view rendered at the person's width.
   */
  async nextFlow({ timeoutMs = 60_000 } = {}) {
    const flow = await new Promise((resolve, reject) => {
      const check = () => {
        const found = this.#flows.find((f) => !f.taken);
        if (!found) return;
        found.taken = true;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`no flow arrived within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
    const view = await this.request("getView", { session: flow.session, width: this.width });
    return { ...flow, view };
  }

  /** Presses keys (names as the protocol's Key notation, or one Vim-notation string). */
  press(session, keys) {
    return this.request("keys", { session, keys });
  }

  /** The screen a client draws for the session now: its rendered lines. */
  async screen(session) {
    const view = await this.request("getView", { session, width: this.width });
    return (view.lines ?? []).map((line) => (typeof line === "string" ? line : lineText(line))).join("\n");
  }

  close() {
    this.#socket.close();
  }
}

function lineText(line) {
  if (typeof line.text === "string") return line.text;
  if (Array.isArray(line.spans)) return line.spans.map((s) => s.text ?? "").join("");
  if (Array.isArray(line)) return line.map((s) => (typeof s === "string" ? s : s.text ?? "")).join("");
  return JSON.stringify(line);
}
