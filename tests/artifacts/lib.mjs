// What the artifact tests share: where the agents' packages are installed, an askd process on
// pipes, and a person answering through its keys.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const root = resolve(import.meta.dirname, "../..");

/** The folder holding the agents' packages (`node_modules`), as the runner installed them. */
export const modules = process.env.ARTIFACTS_MODULES ?? join(root, "tests/artifacts/node_modules");

const require = createRequire(join(modules, "resolve.js"));

/** Imports `specifier` (a package or one of its files) from the agents' packages. */
export async function load(specifier) {
  return import(pathToFileURL(require.resolve(specifier)).href);
}

/** The path of a package's file. */
export function packageFile(name, file) {
  return join(modules, name, file);
}

/** A temporary folder, removed when the test process exits. */
export function temporary(name) {
  const dir = mkdtempSync(join(tmpdir(), `askd-artifacts-${name}-`));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the pinned codex binary's `app-server <command> --out <dir>`; returns the folder. */
export function generated(command) {
  const out = temporary(`codex-${command}`);
  const home = temporary("codex-home");
  const run = spawnSync(
    process.execPath,
    [packageFile("@openai/codex", "bin/codex.js"), "app-server", command, "--experimental", "--out", out],
    { env: { ...process.env, HOME: home, CODEX_HOME: home }, encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(`codex app-server ${command}: ${run.stderr}`);
  return out;
}

/** An askd process on pipes: `call(method, params)` resolves with the whole reply. */
export function askd() {
  const bin = process.env.ASKD_BIN ?? join(root, "target/debug/askd");
  // No state on disk: flows of one test run are never resumed by another.
  const child = spawn(bin, ["--no-state"], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map();
  let lastId = 0;
  createInterface({ input: child.stdout }).on("line", (line) => {
    const reply = JSON.parse(line);
    if (reply.id === undefined) return;
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const call = (method, params) => {
    const id = ++lastId;
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    return new Promise((done) => waiting.set(id, done));
  };
  let sessions = 0;
  return {
    call,
    /** Opens `payload` in `dialect`; resolves with the reply of `open`. */
    open: (dialect, payload, extra = {}) =>
      call("open", { session: `s${++sessions}`, dialect, payload, ...extra }),
    close: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

/** Opens `payload` and presses `keys` (Vim notation), one key at a time as a person types;
 * resolves with the last reply. */
export async function answer(engine, dialect, payload, keys, extra = {}) {
  const opened = await engine.open(dialect, payload, extra);
  if (opened.error || !keys) return opened;
  const session = opened.result.session;
  let reply = opened;
  for (const key of keys.match(/<[^>]+>|./gsu)) {
    reply = await engine.call("keys", { session, keys: key });
    if (reply.error) return reply;
  }
  return reply;
}

/** Every ending of a flow, as the keys or requests that reach it: what the dialect answers
 * for each, by name. `submitKeys` submit the flow from its opening; when they are `null`, the
 * flow is submitted as it opened, if its checks let it. */
export async function endings(engine, dialect, payload, submitKeys, extra = {}) {
  const results = {};
  if (submitKeys === null) {
    const opened = await engine.open(dialect, payload, extra);
    const reply = await engine.call("submitAnswers", { session: opened.result.session, answers: {} });
    if (!reply.error) results.submit = reply.result.result;
    await engine.call("close", { session: opened.result.session });
  }
  const done = async (name, reply) => {
    if (reply.error) throw new Error(`${name}: ${JSON.stringify(reply.error)}`);
    if (reply.result.status !== "done") {
      const v = reply.result.view;
      const where = { tab: v.activeTab, focus: v.focus, editor: v.editor, problems: v.review?.questions };
      throw new Error(`${name}: the flow is still open: ${JSON.stringify(where)}`);
    }
    results[name] = reply.result.result;
    await engine.call("close", { session: reply.result.session });
  };
  if (submitKeys !== null) await done("submit", await answer(engine, dialect, payload, submitKeys, extra));
  await done("dismissed", await answer(engine, dialect, payload, "<C-c>", extra));
  for (const reason of ["user", "abort", "closed"]) {
    // `user` is what Esc and the review's Cancel end a flow as.
    const opened = await engine.open(dialect, payload, extra);
    await done(reason, await engine.call("cancel", { session: opened.result.session, reason }));
  }
  const timed = await engine.open(dialect, payload, { timeoutMs: 1, ...extra });
  let timeout;
  for (let tries = 0; tries < 100; tries++) {
    await new Promise((r) => setTimeout(r, 20));
    timeout = await engine.call("getResult", { session: timed.result.session });
    if (timeout.error || timeout.result !== null) break;
  }
  if (timeout.error || timeout.result === null) {
    throw new Error(`timeout: no result: ${JSON.stringify(timeout)} ${JSON.stringify(timed)}`.slice(0, 600));
  }
  results.timeout = timeout.result;
  await engine.call("close", { session: timed.result.session });
  await done("no UI", await engine.open(dialect, payload, { hasUI: false, ...extra }));
  return results;
}
