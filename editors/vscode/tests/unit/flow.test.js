// @ts-check
/**
 * One flow between a panel's page (played by the test) and the real engine: what the page may
 * ask, how cancellation maps onto the engine (the asker's token → `cancel` with `abort`, the
 * person closing the panel → `cancel` with `closed`), a flow ended by the engine's timer
 * (`timeoutMs`), and how a flow fails.
 */
"use strict";

const assert = require("node:assert/strict");
const path = require("node:path");
const { test } = require("node:test");
const { Engine } = require("../../out/engine.js");
const { runFlow } = require("../../out/flow.js");

const ASKD_BIN = process.env["ASKD_BIN"] ?? "";
const PAYLOAD = {
  title: "Unit",
  questions: [{ id: "go", label: "Go", prompt: "Go ahead?", options: [{ value: "yes", label: "Yes" }, { value: "no", label: "No" }] }],
};
const QUESTIONS = [{ id: "go", label: "Go", prompt: "Go ahead?", type: "single" }];
/** The pi result of a flow cancelled with no answer, for `cancelReason`. */
function cancelled(/** @type {string} */ cancelReason, text = "User cancelled the ask flow") {
  return {
    content: [{ type: "text", text }],
    details: { title: "Unit", cancelled: true, cancelReason, mode: "submit", questions: QUESTIONS, answers: {} },
  };
}

/** The real engine behind a recorder of every request the flow sends. */
function recordedEngine(enginePath = ASKD_BIN) {
  const engine = new Engine(enginePath);
  /** @type {Array<[string, any]>} */
  const calls = [];
  return {
    engine,
    calls,
    flowEngine: {
      request: (/** @type {string} */ method, /** @type {any} */ params) => {
        calls.push([method, params]);
        return engine.request(method, params);
      },
      onExit: (/** @type {(message: string) => void} */ listener) => engine.onExit(listener),
      onSessionChanged: (/** @type {(params: unknown) => void} */ listener) => engine.onSessionChanged(listener),
    },
  };
}

/** A cancellation token the test cancels. */
function token() {
  /** @type {Array<() => void>} */
  const listeners = [];
  return {
    isCancellationRequested: false,
    onCancellationRequested(/** @type {() => void} */ listener) {
      listeners.push(listener);
      return { dispose: () => listeners.splice(listeners.indexOf(listener), 1) };
    },
    cancel() {
      this.isCancellationRequested = true;
      for (const listener of [...listeners]) listener();
    },
  };
}

/**
 * A panel whose page the test drives: `page.send(message)` posts to the flow, `page.next(kind)`
 * resolves with the next message of that kind the flow posted.
 */
function panel() {
  /** @type {Array<(message: unknown) => void>} */
  const toFlow = [];
  /** @type {Array<() => void>} */
  const onClosed = [];
  /** @type {any[]} */
  const received = [];
  /** @type {Array<{ kind: string, resolve: (message: any) => void }>} */
  const waiting = [];
  const state = { opened: 0, closed: false };
  const page = {
    state,
    received,
    send: (/** @type {unknown} */ message) => setImmediate(() => toFlow.forEach((listener) => listener(message))),
    /** @returns {Promise<any>} */
    next: (/** @type {string} */ kind) => {
      const index = received.findIndex((message) => message.kind === kind);
      if (index >= 0) return Promise.resolve(received.splice(index, 1)[0]);
      return new Promise((resolve) => waiting.push({ kind, resolve }));
    },
    closeByPerson: () => {
      state.closed = true;
      onClosed.forEach((listener) => listener());
    },
  };
  const flowPanel = {
    post(/** @type {any} */ message) {
      const index = waiting.findIndex((wait) => wait.kind === message.kind);
      if (index >= 0) waiting.splice(index, 1)[0].resolve(message);
      else received.push(message);
    },
    onMessage(/** @type {(message: unknown) => void} */ listener) {
      toFlow.push(listener);
      return { dispose: () => toFlow.splice(toFlow.indexOf(listener), 1) };
    },
    onClosed(/** @type {() => void} */ listener) {
      onClosed.push(listener);
      return { dispose: () => onClosed.splice(onClosed.indexOf(listener), 1) };
    },
    close() {
      state.closed = true;
    },
  };
  return { page, openPanel: () => ((state.opened += 1), flowPanel) };
}

/** The setup of a flow on `engine` and `openPanel`, opening session `s1`. */
function setup(/** @type {any} */ flowEngine, /** @type {() => any} */ openPanel, overrides = {}) {
  return {
    engine: flowEngine,
    openPanel,
    openParams: (/** @type {number} */ columns) => ({ payload: PAYLOAD, session: "s1", width: columns }),
    token: undefined,
    readyWaitMs: 5000,
    warn: () => undefined,
    ...overrides,
  };
}

test("the page loads, keys go to the flow's own session, a done Step ends the flow and closes the session", async () => {
  const { engine, calls, flowEngine } = recordedEngine();
  const { page, openPanel } = panel();
  try {
    const outcome = runFlow(setup(flowEngine, openPanel));
    page.send({ kind: "ready", columns: 50 });
    const start = await page.next("start");
    assert.equal(start.stepWidth, 50);
    assert.equal(start.step.view.lines[0][0].text, "─".repeat(50));

    // A page cannot reach another session, nor methods beyond the flow's own.
    page.send({ kind: "request", id: 1, method: "key", params: { session: "other", key: "2" } });
    const moved = await page.next("response");
    assert.equal(moved.id, 1);
    assert.equal(moved.result.session, "s1");
    assert.equal(moved.result.view.activeTab, 1);
    page.send({ kind: "request", id: 2, method: "sessions", params: {} });
    assert.deepEqual(await page.next("response"), {
      kind: "response",
      id: 2,
      error: { code: -32601, message: "method not available to the panel: sessions" },
    });
    page.send({ kind: "request", id: 3, method: "insert", params: { text: "x" } });
    assert.deepEqual(await page.next("response"), {
      kind: "response",
      id: 3,
      error: { code: -32003, message: "askd: no editor is open", data: undefined },
    });

    page.send({ kind: "request", id: 4, method: "key", params: { key: "enter" } });
    const result = await outcome;
    assert.deepEqual(result, {
      session: "s1",
      result: {
        content: [{ type: "text", text: "Go: No" }],
        details: {
          title: "Unit",
          cancelled: false,
          mode: "submit",
          questions: QUESTIONS,
          answers: { go: { values: ["no"], labels: ["No"], indices: [2] } },
        },
      },
      transcript: { call: "ask_user 1 question(s) (Go)", result: "✓ Go: No" },
      outcome: "submit",
    });
    assert.equal((await page.next("response")).result.status, "done");
    assert.ok(page.state.closed);
    assert.deepEqual(
      calls.map(([method, params]) => [method, params.session]),
      [["open", "s1"], ["key", "s1"], ["insert", "s1"], ["key", "s1"], ["close", "s1"]],
    );
  } finally {
    engine.dispose();
  }
});

test("a resized page gives its new width with subscribe on its own session: Steps come at it, and up follows its lines", async () => {
  const { engine, calls, flowEngine } = recordedEngine();
  const { page, openPanel } = panel();
  try {
    const outcome = runFlow(setup(flowEngine, openPanel));
    page.send({ kind: "ready", columns: 60 });
    await page.next("start");
    // The page's subscribe reaches its own session only, whatever session it names.
    page.send({ kind: "request", id: 1, method: "subscribe", params: { session: "other", width: 30 } });
    const subscribed = await page.next("response");
    // `openedAt` is the time askd stamped at open: a number, compared as such.
    assert.equal(typeof subscribed.result[0].openedAt, "number");
    assert.deepEqual(subscribed, {
      kind: "response",
      id: 1,
      result: [{ session: "s1", title: "Unit", status: "open", openedAt: subscribed.result[0].openedAt }],
    });
    page.send({ kind: "request", id: 2, method: "key", params: { key: "3" } });
    const typing = await page.next("response");
    assert.equal(typing.result.view.lines[0][0].text, "─".repeat(30));
    assert.equal(typing.result.view.editor.placeholder, "Type answer...");
    // Fifty digits: one line of the answer box at 60 columns (51 wide), three at 30 (21 wide).
    const digits = "0123456789".repeat(5);
    page.send({ kind: "request", id: 3, method: "insert", params: { text: digits } });
    assert.equal((await page.next("response")).result.view.editor.cursor.byte, 50);
    page.send({ kind: "request", id: 4, method: "key", params: { key: "up" } });
    const up = await page.next("response");
    assert.deepEqual(
      { byte: up.result.view.editor.cursor.byte, line: up.result.view.editor.cursor.line, width: up.result.view.lines[0][0].text },
      { byte: 50 - 21, line: 0, width: "─".repeat(30) },
    );
    assert.deepEqual(calls, [
      ["open", { payload: PAYLOAD, session: "s1", width: 60 }],
      ["subscribe", { session: "s1", width: 30 }],
      ["key", { session: "s1", key: "3" }],
      ["insert", { session: "s1", text: digits }],
      ["key", { session: "s1", key: "up" }],
    ]);
    page.closeByPerson();
    assert.equal((await outcome).outcome, "cancelled");
  } finally {
    engine.dispose();
  }
});

test("the asker's token aborts the flow: cancel with reason abort, the page is told, the panel closes", async () => {
  const { engine, calls, flowEngine } = recordedEngine();
  const { page, openPanel } = panel();
  const asker = token();
  try {
    const outcome = runFlow(setup(flowEngine, openPanel, { token: asker }));
    page.send({ kind: "ready", columns: 60 });
    await page.next("start");
    asker.cancel();
    assert.deepEqual(await outcome, {
      session: "s1",
      result: cancelled("aborted"),
      transcript: { call: "ask_user 1 question(s) (Go)", result: "Cancelled (withdrawn by the asker)" },
      outcome: "aborted",
    });
    const told = await page.next("notification");
    assert.equal(told.method, "session/changed");
    assert.equal(told.params.view.outcome, "aborted");
    assert.ok(page.state.closed);
    assert.deepEqual(calls.map(([method]) => method), ["open", "cancel", "close"]);
    assert.deepEqual(calls[1][1], { session: "s1", reason: "abort" });
  } finally {
    engine.dispose();
  }
});

test("a token cancelled before the ask: no panel, the session opened and aborted at once", async () => {
  const { engine, calls, flowEngine } = recordedEngine();
  const { page, openPanel } = panel();
  const asker = token();
  asker.cancel();
  try {
    const outcome = await runFlow(setup(flowEngine, openPanel, { token: asker }));
    assert.equal(outcome.outcome, "aborted");
    assert.deepEqual(outcome.result, cancelled("aborted"));
    assert.deepEqual(outcome.transcript, { call: "ask_user 1 question(s) (Go)", result: "Cancelled (withdrawn by the asker)" });
    assert.equal(page.state.opened, 0);
    assert.deepEqual(calls, [
      ["open", { payload: PAYLOAD, session: "s1", width: 80 }],
      ["cancel", { session: "s1", reason: "abort" }],
      ["close", { session: "s1" }],
    ]);
  } finally {
    engine.dispose();
  }
});

test("the person closing the panel ends the flow: cancel with reason closed", async () => {
  const { engine, calls, flowEngine } = recordedEngine();
  const { page, openPanel } = panel();
  try {
    const outcome = runFlow(setup(flowEngine, openPanel));
    page.send({ kind: "ready", columns: 60 });
    await page.next("start");
    page.closeByPerson();
    assert.deepEqual(await outcome, {
      session: "s1",
      result: cancelled("closed"),
      transcript: { call: "ask_user 1 question(s) (Go)", result: "Cancelled (closed)" },
      outcome: "cancelled",
    });
    assert.deepEqual(calls, [
      ["open", { payload: PAYLOAD, session: "s1", width: 60 }],
      ["cancel", { session: "s1", reason: "closed" }],
      ["close", { session: "s1" }],
    ]);
  } finally {
    engine.dispose();
  }
});

test("a flow asked with timeoutMs ends by itself: the engine's timer cancels it, the page is told, the panel closes", async () => {
  const { engine, calls, flowEngine } = recordedEngine();
  const { page, openPanel } = panel();
  const openParams = (/** @type {number} */ columns) => ({ payload: PAYLOAD, session: "s1", width: columns, timeoutMs: 300 });
  try {
    const outcome = runFlow(setup(flowEngine, openPanel, { openParams }));
    page.send({ kind: "ready", columns: 60 });
    const start = await page.next("start");
    assert.equal(start.step.status, "open");
    assert.equal(typeof start.step.view.deadline, "number");
    assert.equal(start.step.view.cancelReason, null);
    assert.deepEqual(await outcome, {
      session: "s1",
      result: cancelled("timeout", "The ask flow timed out before the user answered"),
      transcript: { call: "ask_user 1 question(s) (Go)", result: "Cancelled (timed out)" },
      outcome: "cancelled",
    });
    const told = await page.next("notification");
    assert.equal(told.method, "session/changed");
    assert.equal(told.params.status, "done");
    assert.equal(told.params.view.cancelReason, "timeout");
    assert.equal(told.params.view.deadline, null);
    assert.deepEqual(
      told.params.view.lines.map((/** @type {Array<{ text: string }>} */ line) => line.map((span) => span.text).join("")),
      ["─".repeat(60), " Unit", " [□ Go]  ✓ Submit ", "", " ✗ Cancelled (timed out)", "─".repeat(60)],
    );
    assert.ok(page.state.closed);
    assert.deepEqual(calls, [
      ["subscribe", { session: "s1" }],
      ["open", { payload: PAYLOAD, session: "s1", width: 60, timeoutMs: 300 }],
      ["close", { session: "s1" }],
    ]);
  } finally {
    engine.dispose();
  }
});

test("an invalid payload ends at once with the engine's invalid_input result", async () => {
  const { engine, flowEngine } = recordedEngine();
  const { page, openPanel } = panel();
  try {
    const outcome = runFlow(
      setup(flowEngine, openPanel, {
        openParams: (/** @type {number} */ width) => ({ payload: { questions: [{ id: "x" }] }, session: "bad", width }),
      }),
    );
    page.send({ kind: "ready", columns: 60 });
    const ended = await outcome;
    assert.equal(ended.outcome, "invalid");
    assert.deepEqual(ended.result.content, [
      {
        type: "text",
        text: "Invalid ask_user payload:\n- questions[0].prompt: Question 1: prompt is required\n- questions[0].options: Question 1: at least one option is required",
      },
    ]);
    assert.ok(page.state.closed);
    assert.equal(page.received.filter((message) => message.kind === "start").length, 0);
  } finally {
    engine.dispose();
  }
});

test("failures: a refused open, a page that never loads, a page error, an engine that dies mid-flow", async () => {
  const { engine, flowEngine } = recordedEngine();
  try {
    const refused = panel();
    const refusal = runFlow(
      setup(flowEngine, refused.openPanel, {
        openParams: (/** @type {number} */ width) => ({ payload: PAYLOAD, session: "s1", width, keymap: { "main.nope": ["x"] } }),
      }),
    );
    refused.page.send({ kind: "ready", columns: 60 });
    await assert.rejects(refusal, { message: 'askd: invalid params: keymap: unknown keymap action "main.nope"' });
    assert.ok(refused.page.state.closed);

    const silent = panel();
    await assert.rejects(runFlow(setup(flowEngine, silent.openPanel, { readyWaitMs: 50 })), {
      message: "askd: the question panel did not load within 50 ms.",
    });
    assert.ok(silent.page.state.closed);

    const broken = panel();
    const failing = runFlow(setup(flowEngine, broken.openPanel));
    broken.page.send({ kind: "error", message: "TypeError: x is undefined" });
    await assert.rejects(failing, { message: "askd: the question panel failed: TypeError: x is undefined" });
  } finally {
    engine.dispose();
  }

  const dying = recordedEngine(path.join(__dirname, "engines", "dies-on-first-message.js"));
  const gone = panel();
  const lost = runFlow(setup(dying.flowEngine, gone.openPanel));
  gone.page.send({ kind: "ready", columns: 60 });
  await assert.rejects(lost, (/** @type {Error} */ error) => {
    assert.match(error.message, /^askd: the engine ".*dies-on-first-message\.js" exited with code 3\. Its last stderr lines:\nfailure line 6\n/);
    return true;
  });
  assert.ok(gone.page.state.closed);
});

test("a key refused by a limit warns and leaves the flow open", async () => {
  const { engine, flowEngine } = recordedEngine();
  const { page, openPanel } = panel();
  /** @type {string[]} */
  const warnings = [];
  try {
    const outcome = runFlow(setup(flowEngine, openPanel, { warn: (/** @type {string} */ message) => warnings.push(message) }));
    page.send({ kind: "ready", columns: 60 });
    await page.next("start");
    page.send({ kind: "request", id: 1, method: "keys", params: { keys: "3" } });
    await page.next("response");
    page.send({ kind: "request", id: 2, method: "insert", params: { text: "x".repeat(70000) } });
    const refused = await page.next("response");
    assert.equal(refused.error.code, -32004);
    assert.deepEqual(warnings, [refused.error.message]);
    assert.match(refused.error.message, /^askd: /);
    page.send({ kind: "request", id: 3, method: "keys", params: { keys: "ok<CR>1" } });
    assert.equal((await outcome).result.details.answers.go.customText, "ok");
  } finally {
    engine.dispose();
  }
});
