// @ts-check
/**
 * The engine process and the host that keeps it: requests over vscode-jsonrpc's
 * Content-Length framing to the real engine ($ASKD_BIN), the exact words when an engine cannot
 * start, never answers or dies, and a new engine on the next acquire after one died.
 */
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { test } = require("node:test");
const { AskdError, Engine, EngineHost } = require("../../out/engine.js");

const ASKD_BIN = process.env["ASKD_BIN"] ?? "";
const engines = path.join(__dirname, "engines");
const CLIENT = { name: "askd-vscode-tests", version: "0" };
const PAYLOAD = { questions: [{ id: "go", prompt: "Go?", options: [{ value: "yes", label: "Yes" }] }] };

/** Resolves once `engine` has ended, with the message describing how. */
function ended(/** @type {InstanceType<typeof Engine>} */ engine) {
  return new Promise((resolve) => engine.onExit(resolve));
}

/** A rejection's error, checked to be an AskdError. */
async function failure(/** @type {Promise<unknown>} */ promise) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AskdError, `an AskdError, not ${error}`);
    return error;
  }
  assert.fail("the promise resolved");
}

test("the real engine answers over Content-Length framing: initialize, open, key, close", async () => {
  const record = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "askd-vscode-")), "input");
  const engine = new Engine(path.join(engines, "recording.js"), (command, args) =>
    require("node:child_process").spawn(command, args, { env: { ...process.env, ASKD_RECORD_FILE: record } }),
  );
  try {
    await engine.initialize(CLIENT, 10000);
    const step = await engine.request("open", { session: "t1", payload: PAYLOAD, width: 40 });
    assert.equal(step.session, "t1");
    assert.equal(step.status, "open");
    assert.equal(step.view.lines[0][0].text, "─".repeat(40));
    const done = await engine.request("keys", { session: "t1", keys: "1<CR>" });
    assert.equal(done.status, "done");
    assert.deepEqual(done.result.content, [{ type: "text", text: "Q1: Yes" }]);
    assert.deepEqual(await engine.request("close", { session: "t1" }), { closed: true });
    const written = fs.readFileSync(record, "utf8");
    const first = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { clientInfo: CLIENT } });
    assert.ok(
      written.startsWith(`Content-Length: ${Buffer.byteLength(first)}\r\n\r\n${first}`),
      `framed: ${written.slice(0, 120)}`,
    );
  } finally {
    engine.dispose();
  }
});

test("an engine error is an AskdError with the engine's code, data and words", async () => {
  const engine = new Engine(ASKD_BIN);
  try {
    const error = await failure(engine.request("key", { session: "nope", key: "x" }));
    assert.equal(error.message, 'askd: unknown session "nope"');
    assert.equal(error.code, -32001);
    const dsh = await failure(engine.request("open", { dialect: "dsh", payload: { questions: [] } }));
    assert.equal(dsh.code, -32010);
    assert.deepEqual(dsh.data, { name: "UserQuestionError", code: "EMPTY_QUESTIONS" });
    assert.ok(engine.alive);
  } finally {
    engine.dispose();
  }
});

test("an engine that dies: its exit code and its last 20 stderr lines", async () => {
  const enginePath = path.join(engines, "dies-on-first-message.js");
  const engine = new Engine(enginePath);
  const error = await failure(engine.request("initialize", {}));
  const expected = [
    `askd: the engine "${enginePath}" exited with code 3. Its last stderr lines:`,
    ...Array.from({ length: 20 }, (_, index) => `failure line ${index + 6}`),
  ].join("\n");
  assert.equal(error.message, expected);
  assert.equal(await ended(engine), expected);
  assert.equal(engine.alive, false);
  assert.equal((await failure(engine.request("getView", { session: "s1" }))).message, expected);
});

test("an engine killed by a signal, having written nothing on stderr", async () => {
  const engine = new Engine(path.join(engines, "silent.js"));
  const pending = failure(engine.request("initialize", {}));
  const child = /** @type {any} */ (engine).child;
  child.kill("SIGKILL");
  const enginePath = path.join(engines, "silent.js");
  assert.equal(
    (await pending).message,
    `askd: the engine "${enginePath}" was killed by SIGKILL. It wrote nothing on stderr.`,
  );
});

test("an engine whose output closed before it exited: requests fail with the reason, dispose ends it quietly", async () => {
  const enginePath = path.join(engines, "closes-output.js");
  const engine = new Engine(enginePath);
  const exit = ended(engine);
  // The first request may go out before the closed output is noticed; every one fails.
  const first = await failure(engine.request("getView", { session: "s1" }));
  assert.ok(first.message.startsWith(`askd: the connection to the engine "${enginePath}" failed: `), first.message);
  const second = await failure(engine.request("getView", { session: "s1" }));
  assert.ok(second.message.startsWith(`askd: the connection to the engine "${enginePath}" failed: `), second.message);
  assert.doesNotThrow(() => engine.dispose());
  assert.equal(engine.alive, false);
  // Its stdin ended with the dispose: it exits by itself, no signal needed.
  assert.equal(await exit, `askd: the engine "${enginePath}" exited with code 0. It wrote nothing on stderr.`);
});

test("an engine that never answers initialize is reported, not waited for", async () => {
  const enginePath = path.join(engines, "silent.js");
  const engine = new Engine(enginePath);
  try {
    const error = await failure(engine.initialize(CLIENT, 300));
    assert.equal(error.message, `askd: the engine "${enginePath}" did not answer initialize within 300 ms; is it askd?`);
  } finally {
    engine.dispose();
  }
});

test("a file that cannot be executed: the operating system's reason", async () => {
  const notExecutable = path.join(engines, "..", "engine.test.js");
  const engine = new Engine(notExecutable);
  const error = await failure(engine.request("initialize", {}));
  assert.equal(error.message, `askd: the engine "${notExecutable}" could not be started: spawn ${notExecutable} EACCES`);
});

test("the host keeps one engine, starts a new one after it died, and says where it looked", async () => {
  /** @type {{ found: true, path: string } | { found: false, message: string }} */
  let location = { found: true, path: ASKD_BIN };
  /** @type {InstanceType<typeof Engine>[]} */
  const started = [];
  const host = new EngineHost({
    locate: () => location,
    start: (/** @type {string} */ enginePath) => {
      const engine = new Engine(enginePath);
      started.push(engine);
      return engine;
    },
    client: CLIENT,
    initializeWaitMs: 10000,
  });
  try {
    const [first, again] = await Promise.all([host.acquire(), host.acquire()]);
    assert.equal(first, again);
    assert.equal(started.length, 1);
    host.release(first);
    host.release(again);

    /** @type {any} */ (first).child.kill("SIGKILL");
    await ended(first);
    const second = await host.acquire();
    assert.notEqual(second, first);
    assert.equal(started.length, 2);
    assert.ok(second.alive);
    assert.equal((await second.request("sessions", undefined)).length, 0);
    host.release(second);

    location = { found: false, message: "askd: no engine found. Tried askd on PATH. Install askd on PATH or set askd.path." };
    assert.equal((await failure(host.acquire())).message, location.message);
  } finally {
    host.dispose();
  }
});

test("the host ends an engine whose path changed once its last flow gives it back", async () => {
  const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "askd-vscode-")), "askd-copy");
  fs.symlinkSync(ASKD_BIN, copy);
  let enginePath = ASKD_BIN;
  const host = new EngineHost({
    locate: () => ({ found: true, path: enginePath }),
    start: (/** @type {string} */ at) => new Engine(at),
    client: CLIENT,
    initializeWaitMs: 10000,
  });
  try {
    const old = await host.acquire();
    enginePath = copy;
    const replacement = await host.acquire();
    assert.equal(replacement.path, copy);
    assert.ok(old.alive, "the old engine still serves its flow");
    const oldEnded = ended(old);
    host.release(old);
    assert.equal(await oldEnded, `askd: the engine "${ASKD_BIN}" exited with code 0. It wrote nothing on stderr.`);
    host.release(replacement);
  } finally {
    host.dispose();
  }
});
