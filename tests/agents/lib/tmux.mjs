// A program in a real terminal: tmux on a socket of its own (never the user's server), keys typed
// with send-keys, the screen read with capture-pane and kept as text files a person can read.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { OUTPUT_DIR, onStopAll, tempDir, until } from "./proc.mjs";

let count = 0;

export class Tmux {
  /** Starts `command` (an array) in a detached session of `width`×`height`. */
  static async start({ name, command, cwd, env, width = 100, height = 40, log }) {
    const dir = tempDir(`tmux-${name}`);
    const socket = path.join(dir, "socket");
    const session = `${name}-${process.pid}-${++count}`;
    const tmux = new Tmux(socket, session, name, log);
    // The environment goes through a wrapper script: tmux's own server environment would
    // otherwise leak the caller's variables into the program.
    const script = path.join(dir, "run.sh");
    const exports = Object.entries(env ?? {})
      .map(([key, value]) => `export ${key}=${shellQuote(String(value))}`)
      .join("\n");
    fs.writeFileSync(script, `#!/bin/sh\n${exports}\ncd ${shellQuote(cwd ?? dir)}\nexec ${command.map(shellQuote).join(" ")}\n`, { mode: 0o755 });
    // Extended keys on, so that modified keys (Shift+Enter, Shift+N) reach the program as a
    // terminal that supports them sends them.
    const conf = path.join(dir, "tmux.conf");
    fs.writeFileSync(conf, "set -s extended-keys on\nset -g remain-on-exit on\nset -g history-limit 5000\n");
    tmux.exec(["-f", conf, "new-session", "-d", "-s", session, "-x", String(width), "-y", String(height), script]);
    tmux.forget = onStopAll(() => tmux.kill());
    return tmux;
  }

  constructor(socket, session, name, log) {
    this.socket = socket;
    this.session = session;
    this.name = name;
    this.log = log;
  }

  exec(args) {
    return execFileSync("tmux", ["-S", this.socket, ...args], { encoding: "utf8" });
  }

  /** The visible screen as text. */
  capture() {
    return this.exec(["capture-pane", "-p", "-t", this.session]);
  }

  /** Types keys as send-keys names them (`Enter`, `Down`, `C-c`) or literal text with `literal`. */
  send(keys, { literal = false } = {}) {
    const list = Array.isArray(keys) ? keys : [keys];
    this.exec(["send-keys", "-t", this.session, ...(literal ? ["-l"] : []), ...list]);
  }

  /** Types text as a person would: each character on its own. */
  type(text) {
    this.send(text, { literal: true });
  }

  /**
   * Waits until the screen shows `pattern` (a string, a RegExp, or a function of the screen);
   * resolves with the screen.
   */
  async waitFor(pattern, { timeoutMs = 30_000, what } = {}) {
    const test = typeof pattern === "function" ? pattern : typeof pattern === "string" ? (s) => s.includes(pattern) : (s) => pattern.test(s);
    let screen = "";
    try {
      return await until(
        () => {
          screen = this.capture();
          return test(screen) ? screen : null;
        },
        { timeoutMs, intervalMs: 100, what: what ?? `the screen to show ${pattern}` },
      );
    } catch (error) {
      error.message += `\n--- the screen of ${this.name} ---\n${screen}`;
      throw error;
    }
  }

  /** Whether the program has exited (the pane stays, remain-on-exit). */
  dead() {
    try {
      return this.exec(["display-message", "-p", "-t", this.session, "#{pane_dead}"]).trim() === "1";
    } catch {
      return true;
    }
  }

  /** Keeps the screen in tests/agents/output/<file>.txt, for a person to read. */
  keep(file) {
    const screen = this.capture();
    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
    fs.writeFileSync(path.join(OUTPUT_DIR, `${file}.txt`), screen);
    return screen;
  }

  /** Ends the session and its server (and the program in it). */
  kill() {
    this.forget?.();
    try {
      const pid = this.exec(["display-message", "-p", "-t", this.session, "#{pane_pid}"]).trim();
      if (pid) {
        try {
          process.kill(-Number(pid), "SIGKILL");
        } catch {
          try {
            process.kill(Number(pid), "SIGKILL");
          } catch {
            // Gone already.
          }
        }
      }
    } catch {
      // No session.
    }
    try {
      this.exec(["kill-server"]);
    } catch {
      // Gone already.
    }
  }
}

function shellQuote(value) {
  return `'${String(value).replaceAll("'", `'\\''`)}'`;
}
