// @ts-check
/**
 * Attached to the hub: where its discovery file is, the order and names of the flows waiting,
 * the words the person is told, and, against a real `askd hub`, attaching as a person's client,
 * hearing flows another client opens, answering one in a panel without closing the opener's
 * session, leaving one unanswered, and the hub going away.
 */
"use strict";

const assert = require("node:assert/strict");
const childProcess = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { test } = require("node:test");
const { Engine } = require("../../out/engine.js");
const { runFlow } = require("../../out/flow.js");
const hub = require("../../out/hub.js");
const attention = require("../../out/attention.js");

const ASKD_BIN = process.env["ASKD_BIN"] ?? "";

test("the discovery file: $XDG_RUNTIME_DIR/askd/hub.json, else ${TMPDIR:-/tmp}/askd-<uid>/askd/hub.json", () => {
  assert.equal(hub.hubDiscoveryFile({ XDG_RUNTIME_DIR: "/run/user/1000" }, 1000), "/run/user/1000/askd/hub.json");
  assert.equal(hub.hubDiscoveryFile({ XDG_RUNTIME_DIR: "", TMPDIR: "/var/tmp" }, 1000), "/var/tmp/askd-1000/askd/hub.json");
  assert.equal(hub.hubDiscoveryFile({ XDG_RUNTIME_DIR: "run", TMPDIR: "tmp" }, 7), "/tmp/askd-7/askd/hub.json");
  assert.equal(hub.hubDiscoveryFile({}, 0), "/tmp/askd-0/askd/hub.json");
});

test("flows waiting: open ones only, oldest first, those without a time after; named with who asked", () => {
  const entries = [
    { session: "c", status: "open" },
    { session: "b", status: "open", openedAt: 20 },
    { session: "done", status: "done", openedAt: 1 },
    { session: "recovered", status: "recovered", openedAt: 2 },
    { session: "a", status: "open", openedAt: 10 },
  ];
  assert.deepEqual(
    hub.waitingOrder(entries).map((/** @type {any} */ entry) => entry.session),
    ["a", "b", "c"],
  );
  assert.equal(
    hub.sessionLabel({ session: "s", status: "open", title: "Release", asker: { name: "claude-code", folder: "/home/dev/work/shop" } }),
    "Release — claude-code in …/work/shop",
  );
  assert.equal(hub.sessionLabel({ session: "s", status: "open", asker: { name: "codex" } }), "s — codex");
  assert.equal(hub.sessionLabel({ session: "s", status: "open", title: "T", asker: { folder: "/src" } }), "T — in /src");
  assert.equal(hub.sessionLabel({ session: "s", status: "open", title: "" }), "s");
});

test("what the person is told: the status bar's count, the arrival, the ones still waiting", () => {
  assert.equal(attention.waitingText(0), "");
  assert.equal(attention.waitingText(3), "$(bell-dot) askd: 3 waiting");
  const older = { session: "a", label: "Release — codex", openedAt: 1, where: "hub" };
  const newer = { session: "b", label: "Deploy", openedAt: 2, where: "local" };
  assert.equal(
    attention.waitingTooltip([older, newer]),
    "2 questions waiting for your answer (click to answer the oldest):\n• Release — codex\n• Deploy",
  );
  assert.equal(attention.waitingTooltip([newer]), "1 question waiting for your answer (click to answer the oldest):\n• Deploy");
  assert.equal(attention.arrivalMessage(newer, 1), "askd: a question is waiting: Deploy");
  assert.equal(attention.arrivalMessage(older, 2), "askd: a question is waiting: Release — codex (2 waiting)");
  assert.equal(attention.attachedMessage(1), "askd: 1 question is waiting in the hub");
  assert.equal(attention.attachedMessage(2), "askd: 2 questions are waiting in the hub");
  assert.equal(attention.stillWaitingMessage(1), "askd: 1 more question is waiting");
  assert.equal(attention.stillWaitingMessage(4), "askd: 4 more questions are waiting");
  const tie = { session: "c", label: "Tie", openedAt: 1, where: "local" };
  assert.deepEqual(
    attention.answerOrder([newer, older, tie]).map((/** @type {any} */ question) => question.session),
    ["c", "a", "b"],
  );
});

/** Resolves when `check()` is truthy, polling; rejects after `ms`. */
async function until(/** @type {string} */ what, /** @type {() => unknown} */ check, ms = 15000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A panel whose page the test plays: it loads at 60 columns and records what it receives. */
function playedPanel() {
  /** @type {Array<(message: unknown) => void>} */
  const listeners = [];
  /** @type {Array<() => void>} */
  const closers = [];
  /** @type {any[]} */
  const received = [];
  const state = { closed: false };
  return {
    received,
    state,
    /** @param {unknown} message */
    send(message) {
      for (const listener of listeners) setImmediate(() => listener(message));
    },
    closeByPerson() {
      for (const closer of closers) closer();
    },
    panel: {
      post: (/** @type {unknown} */ message) => received.push(message),
      onMessage(/** @type {(message: unknown) => void} */ listener) {
        listeners.push(listener);
        setImmediate(() => listener({ kind: "ready", columns: 60 }));
        return { dispose: () => undefined };
      },
      onClosed(/** @type {() => void} */ listener) {
        closers.push(listener);
        return { dispose: () => closers.splice(closers.indexOf(listener), 1) };
      },
      close: () => {
        state.closed = true;
      },
    },
  };
}

const RELEASE = {
  title: "Release",
  questions: [
    { id: "scope", label: "Scope", prompt: "Scope?", options: [{ value: "patch", label: "Patch" }, { value: "minor", label: "Minor" }] },
  ],
};

test("attached to a real hub: flows another client opens arrive, one is answered in a panel, one is left waiting, and the hub going away empties the list", async () => {
  const runtime = fs.mkdtempSync(path.join(os.tmpdir(), "askd-vscode-hub-"));
  fs.chmodSync(runtime, 0o700);
  // A hub of the test's own: its discovery file and its state directory (no flow recovered
  // from an earlier run) in folders made for it.
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: path.join(runtime, "state"), ASKD_NO_BROWSER: "1" };
  const spawn = (/** @type {string} */ command, /** @type {readonly string[]} */ args) => childProcess.spawn(command, args, { env });
  /** @type {string[]} */
  const log = [];
  const attachment = new hub.HubAttachment({
    locate: () => ASKD_BIN,
    discoveryFile: hub.hubDiscoveryFile(env, process.getuid?.() ?? 0),
    stat: (/** @type {string} */ file) => (fs.existsSync(file) ? { mtimeMs: fs.statSync(file).mtimeMs } : undefined),
    hubRuns: (/** @type {string} */ enginePath) => hub.hubRunsByStatus(enginePath, env),
    connect: (/** @type {string} */ enginePath) => new Engine(enginePath, spawn, ["hub", "--pipe"]),
    client: { name: "askd-vscode", version: "0.1.0" },
    pollMs: 50,
    log: (/** @type {string} */ line) => log.push(line),
  });
  /** @type {string[]} */
  const arrived = [];
  attachment.onDidArrive((/** @type {any} */ entry) => arrived.push(entry.session));
  const server = childProcess.spawn(ASKD_BIN, ["hub"], { env, stdio: "ignore" });
  // The agent connects once the hub is there (a `--pipe` that found none would start one).
  await until("the hub's discovery file", () => fs.existsSync(hub.hubDiscoveryFile(env, process.getuid?.() ?? 0)));
  const agent = new Engine(ASKD_BIN, spawn, ["hub", "--pipe"]);
  try {
    attachment.start();
    await until("the attachment", () => attachment.engine !== undefined);
    await agent.initialize({ name: "e2e-agent", version: "1" }, 10000);
    assert.equal((await agent.request("hub/status", undefined)).attached, 1);

    const answer = agent.request("ask", { payload: RELEASE, session: "release", asker: { name: "claude-code" } });
    await agent.request("open", { payload: { ...RELEASE, title: "Later" }, session: "later" });
    await until("two flows waiting", () => attachment.waiting.length === 2).catch((error) => {
      throw new Error(`${error.message}: ${JSON.stringify([...attachment.sessions.values()])} ${log.join("; ")}`);
    });
    assert.deepEqual(arrived, ["release", "later"]);
    assert.deepEqual(
      attachment.waiting.map((/** @type {any} */ entry) => [entry.session, entry.title, entry.asker?.name, typeof entry.openedAt]),
      [
        ["release", "Release", "claude-code", "number"],
        ["later", "Later", "e2e-agent", "number"],
      ],
    );

    // Answered in a panel: shown at the panel's width, in the look asked for, without the
    // keyboard; the answer reaches the asker and the session stays the opener's.
    const page = playedPanel();
    /** @type {Array<[string, any]>} */
    const calls = [];
    const engine = /** @type {any} */ (attachment.engine);
    const flowEngine = {
      request: (/** @type {string} */ method, /** @type {any} */ params) => {
        calls.push([method, params]);
        return engine.request(method, params);
      },
      onExit: (/** @type {any} */ listener) => engine.onExit(listener),
      onSessionChanged: (/** @type {any} */ listener) => engine.onSessionChanged(listener),
      onNotification: (/** @type {string} */ method, /** @type {any} */ listener) => engine.onNotification(method, listener),
    };
    const outcome = runFlow({
      engine: flowEngine,
      attachTo: "release",
      openPanel: () => page.panel,
      look: "form",
      focus: false,
      token: undefined,
      readyWaitMs: 10000,
      warn: () => undefined,
    });
    await until("the start", () => page.received.some((message) => message.kind === "start"));
    const start = page.received.find((message) => message.kind === "start");
    assert.deepEqual([start.step.session, start.step.status, start.stepWidth, start.look, start.focus], ["release", "open", 60, "form", false]);
    page.send({ kind: "request", id: 1, method: "keys", params: { keys: "2" } });
    await until("the review", () => page.received.some((message) => message.id === 1));
    page.send({ kind: "request", id: 2, method: "key", params: { key: "1" } });
    const done = await outcome;
    const expected = {
      content: [{ type: "text", text: "Scope: Minor" }],
      details: {
        title: "Release",
        cancelled: false,
        mode: "submit",
        questions: [{ id: "scope", label: "Scope", prompt: "Scope?", type: "single" }],
        answers: { scope: { values: ["minor"], labels: ["Minor"], indices: [2] } },
      },
    };
    assert.deepEqual(done.result, expected);
    assert.deepEqual(await answer, expected);
    assert.ok(page.state.closed, "the panel closed");
    assert.deepEqual(
      calls.map(([method]) => method),
      ["subscribe", "getView", "keys", "key"],
    );
    assert.deepEqual(calls[0][1], { session: "release", width: 60 });
    // The hub does not tell this connection of its own answer: the flow's end is recorded.
    assert.equal(attachment.waiting.length, 2);
    attachment.ended("release");
    assert.deepEqual(attachment.waiting.map((/** @type {any} */ entry) => entry.session), ["later"]);

    // Closed by the person without an answer: the question still waits, for another client.
    const second = playedPanel();
    const left = runFlow({
      engine: flowEngine,
      attachTo: "later",
      openPanel: () => second.panel,
      look: "terminal",
      focus: true,
      token: undefined,
      readyWaitMs: 10000,
      warn: () => undefined,
    });
    await until("the second start", () => second.received.some((message) => message.kind === "start"));
    second.closeByPerson();
    assert.deepEqual(await left, { session: "later", result: undefined, transcript: undefined, outcome: null, left: "closed" });
    assert.equal((await agent.request("getView", { session: "later" })).status, "open");
    assert.deepEqual(attachment.waiting.map((/** @type {any} */ entry) => entry.session), ["later"]);

    // The hub goes away: nothing waits any longer, and the attachment watches for the next.
    server.kill("SIGTERM");
    await until("the list to empty", () => attachment.waiting.length === 0 && attachment.engine === undefined);
    assert.ok(log.some((line) => line.startsWith("hub: detached: ")), log.join("\n"));
  } finally {
    attachment.stop();
    agent.dispose();
    server.kill("SIGTERM");
    // Whatever hub runs in the test's folder is stopped too.
    try {
      childProcess.execFileSync(ASKD_BIN, ["hub", "--stop"], { env, stdio: "ignore" });
    } catch {
      // None runs.
    }
  }
});
