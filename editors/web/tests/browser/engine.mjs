// The engine for the browser tests: `$ASKD_BIN` spawned on its standard input and output
// (newline-delimited JSON-RPC), and `askd play` for the screens a key script leads to.

import { spawn, execFileSync } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * The askd binary the tests run, from `ASKD_BIN`.
 *
 * @returns {string}
 */
export function askdBin() {
  const bin = process.env.ASKD_BIN;
  if (!bin) throw new Error("ASKD_BIN must name the askd binary to test against");
  return bin;
}

/** One askd process speaking JSON-RPC on its pipes. */
export class Engine {
  /** @param {string} bin */
  constructor(bin) {
    // No state directory: every test starts from an empty session table.
    this.child = spawn(bin, ["serve", "--no-state"], { stdio: ["pipe", "pipe", "inherit"] });
    this.pending = new Map();
    this.nextId = 1;
    this.exited = new Promise((resolve) => this.child.on("exit", resolve));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const message = JSON.parse(line);
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) return;
      this.pending.delete(message.id);
      waiting(message);
    });
  }

  /**
   * Sends a request and answers its whole response message (`{ result }` or `{ error }`).
   *
   * @param {string} method
   * @param {object} [params]
   * @returns {Promise<{ result?: any, error?: { code: number, message: string, data?: any } }>}
   */
  call(method, params) {
    const id = this.nextId++;
    const message = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  /**
   * Sends a request and answers its result, throwing on an error response.
   *
   * @param {string} method
   * @param {object} [params]
   */
  async request(method, params) {
    const reply = await this.call(method, params);
    if (reply.error) throw new Error(`${method}: ${reply.error.message} (${reply.error.code})`);
    return reply.result;
  }

  /** Ends the process by closing its input, and waits for it. */
  async close() {
    this.child.stdin.end();
    await this.exited;
  }
}

/** The heading `askd play` prints before each screen and before the result. */
const PLAY_HEADING = /^── (open|after .*|typed ".*"|result) ──$/;

/**
 * The screens `askd play` prints for a payload and a key script, each as its lines of text, and
 * the result it prints.
 *
 * @param {string} payloadPath
 * @param {string} keys a key script in Vim notation
 * @param {number} width
 * @returns {{ screens: string[][], result: any }}
 */
export function play(payloadPath, keys, width) {
  const output = execFileSync(
    askdBin(),
    ["play", payloadPath, "--keys", keys, "--width", String(width)],
    { encoding: "utf8" },
  );
  const lines = output.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const screens = [];
  let resultLines = null;
  for (const line of lines) {
    const heading = PLAY_HEADING.exec(line);
    if (heading && heading[1] === "result") resultLines = [];
    else if (heading) screens.push([]);
    else if (resultLines !== null) resultLines.push(line);
    else screens.at(-1).push(line);
  }
  return { screens, result: JSON.parse(resultLines.join("\n")) };
}

/**
 * The Steps `askd play --format json` prints for a payload and a key script.
 *
 * @param {string} payloadPath
 * @param {string} keys
 * @param {number} width
 * @returns {object[]}
 */
export function playSteps(payloadPath, keys, width) {
  const output = execFileSync(
    askdBin(),
    ["play", payloadPath, "--keys", keys, "--width", String(width), "--format", "json"],
    { encoding: "utf8" },
  );
  return output.trim().split("\n").map((line) => JSON.parse(line));
}
