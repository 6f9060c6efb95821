// Processes, temporary folders and paths shared by the harness. Every process starts in a
// process group of its own and is remembered, so that `stopAll()` (call it in `after`) ends it
// and everything it spawned; every folder comes from `tempDir()` and goes with `removeTemps()`.

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
/** tests/agents */
export const AGENTS_DIR = path.dirname(here);
/** The repository's root. */
export const REPO_DIR = path.resolve(AGENTS_DIR, "../..");
/** The installed agents' executables. */
export const BIN_DIR = path.join(AGENTS_DIR, "node_modules", ".bin");
/** Where a test leaves what a person would look at (screens, logs). */
export const OUTPUT_DIR = path.join(AGENTS_DIR, "output");

/** The askd binary under test: $ASKD_BIN, else the debug build. */
export function askdBin() {
  const bin = process.env.ASKD_BIN ? path.resolve(REPO_DIR, process.env.ASKD_BIN) : path.join(REPO_DIR, "target", "debug", "askd");
  if (!fs.existsSync(bin)) throw new Error(`no askd binary at ${bin}: build it (cargo build) or set ASKD_BIN`);
  return bin;
}

/** The path of an installed agent's executable (`claude`, `codex`, `opencode`, `gemini`, `pi`). */
export function agentBin(name) {
  const bin = path.join(BIN_DIR, name);
  if (!fs.existsSync(bin)) throw new Error(`${name} is not installed: run .ci/agents-install`);
  return bin;
}

const temps = new Set();

/** A fresh folder under the system's temporary directory, removed by `removeTemps()`. */
export function tempDir(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `askd-agents-${name}-`));
  temps.add(dir);
  return dir;
}

export function removeTemps() {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
  temps.clear();
}

/** Writes a file, making its folder; objects are written as JSON. */
export function writeFile(file, content) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`);
  return file;
}

/**
 * The environment of an agent that runs offline in `home`: its own HOME and XDG folders, no
 * proxies, nothing that reaches out (each agent's own switches are added by its launcher).
 */
export function offlineEnv(home, extra = {}) {
  const env = {
    PATH: process.env.PATH,
    LANG: "C.UTF-8",
    TERM: process.env.TERM && process.env.TERM !== "dumb" ? process.env.TERM : "xterm-256color",
    HOME: home,
    USER: os.userInfo().username,
    TMPDIR: os.tmpdir(),
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_RUNTIME_DIR: path.join(home, ".runtime"),
    NO_PROXY: "127.0.0.1,localhost,::1",
    no_proxy: "127.0.0.1,localhost,::1",
    DO_NOT_TRACK: "1",
    CI: "1",
    NO_UPDATE_NOTIFIER: "1",
    npm_config_update_notifier: "false",
    npm_config_offline: "true",
  };
  fs.mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  return { ...env, ...extra };
}

const running = new Set();

/**
 * Starts a process in a group of its own; its output is kept (`out()`, `err()`) and may be
 * followed line by line. `exited` resolves with `{ code, signal }`.
 */
export function start(command, args, { cwd, env, stdin = "pipe", name = path.basename(command), log } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: [stdin, "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  const lineListeners = new Set();
  const exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      running.delete(handle);
      resolve({ code, signal });
    });
    child.on("error", (error) => {
      running.delete(handle);
      stderr += `\n${name}: ${error.message}`;
      resolve({ code: -1, signal: null, error });
    });
  });
  let partial = "";
  child.stdout.on("data", (chunk) => {
    const text = chunk.toString("utf8");
    stdout += text;
    partial += text;
    let at;
    while ((at = partial.indexOf("\n")) >= 0) {
      const line = partial.slice(0, at);
      partial = partial.slice(at + 1);
      for (const listener of lineListeners) listener(line);
    }
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk.toString("utf8");
    if (log) log(`${name}: ${chunk.toString("utf8").trimEnd()}`);
  });
  const handle = {
    child,
    name,
    exited,
    out: () => stdout,
    err: () => stderr,
    onLine(listener) {
      lineListeners.add(listener);
      return () => lineListeners.delete(listener);
    },
    /** Ends the process group: TERM, then KILL after a grace period. */
    async stop(graceMs = 3000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      killGroup(child.pid, "SIGTERM");
      const timer = setTimeout(() => killGroup(child.pid, "SIGKILL"), graceMs);
      const result = await exited;
      clearTimeout(timer);
      killGroup(child.pid, "SIGKILL");
      return result;
    },
  };
  running.add(handle);
  return handle;
}

/** Runs a process to its end (or kills it after `timeoutMs`), resolving with its output. */
export async function run(command, args, { timeoutMs = 120_000, input, ...options } = {}) {
  const handle = start(command, args, options);
  if (input !== undefined) handle.child.stdin.end(input);
  else handle.child.stdin?.end();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    handle.stop(1000);
  }, timeoutMs);
  const { code, signal } = await handle.exited;
  clearTimeout(timer);
  return { code, signal, timedOut, stdout: handle.out(), stderr: handle.err() };
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

const cleanups = new Set();

/** Registers something `stopAll()` ends too (a tmux server); returns a function to forget it. */
export function onStopAll(cleanup) {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** Ends every process the harness started and is still running, and every registered thing. */
export async function stopAll() {
  for (const cleanup of [...cleanups]) {
    cleanups.delete(cleanup);
    try {
      await cleanup();
    } catch {
      // Ending what is already gone.
    }
  }
  await Promise.all([...running].map((handle) => handle.stop(2000)));
}

/** Waits until `probe()` gives a truthy value (polled), or fails naming `what`. */
export async function until(probe, { timeoutMs = 30_000, intervalMs = 50, what = "a condition" } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
