// askd's own WebSocket listener for the browser tests: `askd serve --listen 127.0.0.1:0` with
// JSON-RPC on its pipes beside it (another client, as an agent would be), and `askd web` on a
// payload. Each prints the page's address with its token on stderr; the tests read it there.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { askdBin } from "./engine.mjs";

/**
 * Waits for a line of a child's stderr that starts with `prefix`, and answers the rest of it.
 *
 * @param {import("node:child_process").ChildProcess} child
 * @param {string} prefix
 * @returns {Promise<string>}
 */
function stderrLine(child, prefix) {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stderr });
    let seen = "";
    lines.on("line", (line) => {
      seen += `${line}\n`;
      if (line.startsWith(prefix)) resolve(line.slice(prefix.length));
    });
    child.on("exit", (code) =>
      reject(new Error(`askd exited (${code}) before printing ${prefix}…; stderr: ${seen}`)),
    );
  });
}

/** `askd serve --listen 127.0.0.1:0`: the page's address, and JSON-RPC on its pipes. */
export class Served {
  /**
   * @param {string[]} [args] more arguments of `askd serve`
   * @returns {Promise<Served>}
   */
  static async start(args = []) {
    const served = new Served(args);
    served.page = await stderrLine(served.child, "askd: listening on ");
    return served;
  }

  /**
   * @param {string[]} args more arguments of `askd serve`; a `--listen` among them replaces
   *   `--listen 127.0.0.1:0`
   */
  constructor(args) {
    const listen = args.includes("--listen") ? [] : ["--listen", "127.0.0.1:0"];
    // `--no-hub`: a test's listener is never the user's hub (no discovery file, no browser).
    this.child = spawn(askdBin(), ["serve", "--no-state", "--no-hub", ...listen, ...args], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.pending = new Map();
    this.nextId = 1;
    /** The page's address with its token, e.g. `http://127.0.0.1:4000/?token=…`. */
    this.page = "";
    /** Notifications askd sent on its stdout, in order. */
    this.notifications = [];
    this.exited = new Promise((resolve) => this.child.on("exit", resolve));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const message = JSON.parse(line);
      if (message.id === undefined) {
        this.notifications.push(message);
        return;
      }
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) return;
      this.pending.delete(message.id);
      waiting(message);
    });
  }

  /** The listener's origin, e.g. `http://127.0.0.1:4000`. */
  get origin() {
    return new URL(this.page).origin;
  }

  /** The token askd printed. */
  get token() {
    return new URL(this.page).searchParams.get("token");
  }

  /**
   * Sends a request on stdin and answers its whole response (`{ result }` or `{ error }`).
   *
   * @param {string} method
   * @param {object} [params]
   * @param {string | number} [id] the request's id, when the test names it
   */
  call(method, params, id = this.nextId++) {
    const message = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  /**
   * Sends a request on stdin and answers its result, throwing on an error response.
   *
   * @param {string} method
   * @param {object} [params]
   */
  async request(method, params) {
    const reply = await this.call(method, params);
    if (reply.error) throw new Error(`${method}: ${reply.error.message} (${reply.error.code})`);
    return reply.result;
  }

  /** Ends askd by closing its stdin (its WebSocket connections close with 1001), and waits. */
  async close() {
    this.child.stdin.end();
    return this.exited;
  }
}

/**
 * `askd web` on a payload file: the page's address (with its token and session), and what the
 * command prints and exits with once the flow is done.
 *
 * @param {string} payloadPath
 * @param {string[]} [args] more arguments of `askd web`
 * @returns {Promise<{ page: string, done: Promise<{ status: number, stdout: string }>,
 *   kill: () => void }>}
 */
export async function startWeb(payloadPath, args = []) {
  const child = spawn(askdBin(), ["web", payloadPath, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  const done = new Promise((resolve) =>
    child.on("close", (status) => resolve({ status, stdout })),
  );
  const page = await stderrLine(child, "askd: answer the flow at ");
  return { page, done, kill: () => child.kill() };
}
