// @ts-check
/**
 * Recovery as a person meets it, against the real engine ($ASKD_BIN): a flow with an answer and
 * a typed draft, its engine killed with SIGKILL, is offered by the next engine (what it asked,
 * when, how far it got, that text was typed); "Later" keeps it offered; a new flow that gets its
 * id is a new flow; Resume brings it back where it was (the draft, the tab) and finishing it
 * gives the exact result; Discard… drops it only once confirmed. Then the same in the activated
 * extension (`vscode` stubbed): the notification, its three buttons, the quick pick of
 * `askd: Recover Unfinished Flow…`.
 */
"use strict";

const assert = require("node:assert/strict");
const childProcess = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { test, beforeEach, after } = require("node:test");
const stub = require("./vscode-stub.js");
const extension = require("../../out/extension.js");
const { Engine } = require("../../out/engine.js");
const recovery = require("../../out/recovery.js");

const ASKD_BIN = process.env["ASKD_BIN"] ?? "";
const extensionRoot = path.resolve(__dirname, "..", "..");

/** Two questions: the first answered before the kill, the second's own answer half typed. */
const RELEASE = {
  title: "Release",
  questions: [
    {
      id: "scope",
      label: "Scope",
      prompt: "How much should the next release cover?",
      options: [
        { value: "patch", label: "Patch" },
        { value: "minor", label: "Minor" },
      ],
    },
    {
      id: "name",
      label: "Name",
      prompt: "What is it called?",
      options: [{ value: "spring", label: "Spring" }],
    },
  ],
};

/** The draft typed in the second question's own answer before the kill. */
const DRAFT = "Autumn ed";

/** The result once the draft is finished (`ition`), saved and the flow submitted. */
const FINISHED = {
  content: [{ type: "text", text: "Scope: Minor\nName: Autumn edition" }],
  details: {
    title: "Release",
    cancelled: false,
    mode: "submit",
    questions: [
      { id: "scope", label: "Scope", prompt: "How much should the next release cover?", type: "single" },
      { id: "name", label: "Name", prompt: "What is it called?", type: "single" },
    ],
    answers: {
      scope: { values: ["minor"], labels: ["Minor"], indices: [2] },
      name: { values: ["Autumn edition"], labels: ["Autumn edition"], indices: [], customText: "Autumn edition" },
    },
  },
};

/** @type {Array<{ dispose(): void }>} */
let subscriptions = [];
/** @type {Engine[]} */
let engines = [];

beforeEach(() => {
  for (const subscription of subscriptions.splice(0)) subscription.dispose();
  for (const engine of engines.splice(0)) engine.dispose();
  stub.reset();
  process.env["XDG_STATE_HOME"] = fs.mkdtempSync(path.join(os.tmpdir(), "askd-vscode-state-"));
});

after(() => {
  for (const subscription of subscriptions.splice(0)) subscription.dispose();
  for (const engine of engines.splice(0)) engine.dispose();
});

/** An engine of the state folder of the test, initialised as the extension does. */
async function startEngine() {
  /** @type {childProcess.ChildProcess | undefined} */
  let child;
  const engine = new Engine(ASKD_BIN, (command, args) => {
    child = childProcess.spawn(command, args);
    return child;
  });
  engines.push(engine);
  await engine.initialize({ name: "askd-vscode", version: "0.1.0" }, 10000);
  return { engine, kill: () => child?.kill("SIGKILL") };
}

/**
 * Opens `session` on a new engine, answers Minor, types {@link DRAFT} in the second question's
 * own answer, and kills the engine with SIGKILL, as a crash would.
 *
 * @param {string} session
 */
async function leaveUnfinished(session) {
  const { engine, kill } = await startEngine();
  await engine.request("open", { session, payload: RELEASE, asker: { name: "release-helper", folder: "/home/dev/work/shop" } });
  await engine.request("keys", { session, keys: "2" });
  const step = await engine.request("keys", { session, keys: "2" });
  assert.deepEqual(step.view.editor?.target, { kind: "custom", questionId: "name" });
  await engine.request("insert", { session, text: DRAFT });
  const exited = new Promise((resolve) => engine.onExit(resolve));
  kill();
  await exited;
}

/** The parts of an offer that do not depend on the clock. */
function timeless(/** @type {any} */ offer) {
  const { openedAt, savedAt, ageMs, ...rest } = offer;
  assert.equal(typeof openedAt, "number");
  assert.ok(savedAt >= openedAt, "saved after it opened");
  assert.ok(ageMs >= 0 && ageMs < 60000, `saved a moment ago (${ageMs} ms)`);
  return rest;
}

test("the words: how long ago, what it asked and how far it got, the notification, the confirmation", () => {
  assert.equal(recovery.ago(59999), "just now");
  assert.equal(recovery.ago(60000), "1 minute ago");
  assert.equal(recovery.ago(59 * 60000), "59 minutes ago");
  assert.equal(recovery.ago(60 * 60000), "1 hour ago");
  assert.equal(recovery.ago(49 * 3600000), "2 days ago");
  const offer = {
    session: "toolu_1",
    title: "Release",
    asker: { name: "claude-code", folder: "/home/dev/work/shop" },
    openedAt: 1000,
    savedAt: 1000 + 10 * 60000,
    ageMs: 2 * 60000,
    progress: { answered: 1, total: 2 },
    typed: true,
    where: "local",
  };
  assert.equal(recovery.offerName(offer), "Release — claude-code in …/work/shop");
  assert.equal(recovery.offerState(offer), "asked 12 minutes ago, last changed 2 minutes ago, 1 of 2 answered, text typed");
  assert.equal(
    recovery.offerState({ ...offer, savedAt: 1000, progress: { answered: 0, total: 1 }, typed: false }),
    "asked 2 minutes ago, not answered, nothing typed",
  );
  assert.equal(
    recovery.offersMessage([offer]),
    "askd: an unfinished flow was kept: Release — claude-code in …/work/shop (asked 12 minutes ago, last changed 2 minutes ago, 1 of 2 answered, text typed).",
  );
  assert.equal(
    recovery.offersMessage([offer, { ...offer, session: "b", title: undefined, asker: undefined }]),
    "askd: 2 unfinished flows were kept; the latest: Release — claude-code in …/work/shop (asked 12 minutes ago, last changed 2 minutes ago, 1 of 2 answered, text typed).",
  );
  assert.equal(
    recovery.discardQuestion(offer),
    "Discard the unfinished flow Release — claude-code in …/work/shop? What was answered and typed in it is lost.",
  );
  // Only the recovered flows of a `sessions` answer, the most recently saved first.
  assert.deepEqual(
    recovery
      .offersIn(
        [
          { session: "live", status: "open", openedAt: 1 },
          { session: "older", status: "recovered", openedAt: 1, savedAt: 5, ageMs: 9, progress: { answered: 0, total: 1 }, typed: false },
          { session: "newer", status: "recovered", openedAt: 2, savedAt: 7, ageMs: 7, progress: { answered: 1, total: 1 }, typed: true },
        ],
        "hub",
      )
      .map((/** @type {any} */ found) => [found.session, found.where]),
    [
      ["newer", "hub"],
      ["older", "hub"],
    ],
  );
});

test("the real engine: a killed flow is offered, kept after Later, never mixed into a new flow of its id, resumed where it was, and discarded", async () => {
  await leaveUnfinished("vscode-1");

  // The next engine offers it: what it asked, who asked, how far it got, that text was typed.
  const second = await startEngine();
  const offers = await recovery.listOffers(second.engine, "local");
  assert.deepEqual(offers.map(timeless), [
    {
      session: "vscode-1",
      title: "Release",
      asker: { name: "release-helper", folder: "/home/dev/work/shop" },
      progress: { answered: 1, total: 2 },
      typed: true,
      where: "local",
    },
  ]);
  const offer = offers[0];

  // Later: nothing is done; the engine after the next still offers it, as it was saved.
  second.engine.dispose();
  await new Promise((resolve) => second.engine.onExit(resolve));
  const third = await startEngine();
  const again = await recovery.listOffers(third.engine, "local");
  assert.deepEqual(again.map((/** @type {any} */ found) => [found.session, found.savedAt]), [["vscode-1", offer.savedAt]]);

  // A new flow that gets its id is a new flow: nothing answered, no draft; the offer stays.
  const fresh = await third.engine.request("open", { session: "vscode-1", payload: RELEASE });
  assert.equal(fresh.view.activeTab, 0);
  assert.equal(fresh.view.editor, null);
  assert.deepEqual(fresh.view.progress, { answered: 0, total: 2 });
  assert.deepEqual(
    (await recovery.listOffers(third.engine, "local")).map((/** @type {any} */ found) => found.session),
    ["vscode-1"],
  );

  // Resume: under another id while its own is in use, exactly where it was.
  const id = await recovery.resumeOffer(third.engine, again[0], undefined);
  assert.equal(id, "vscode-1-resumed");
  const view = await third.engine.request("getView", { session: id });
  assert.equal(view.activeTab, 1);
  assert.deepEqual(view.editor.target, { kind: "custom", questionId: "name" });
  assert.equal(view.editor.text, DRAFT);
  assert.deepEqual(view.progress, { answered: 1, total: 2 });
  assert.deepEqual(await recovery.listOffers(third.engine, "local"), []);
  await third.engine.request("insert", { session: id, text: "ition" });
  await third.engine.request("keys", { session: id, keys: "<CR>" });
  const done = await third.engine.request("keys", { session: id, keys: "1" });
  assert.equal(done.status, "done");
  assert.deepEqual(done.result, FINISHED);

  // Discard: another killed flow, dropped with its files; a second discard finds nothing.
  await leaveUnfinished("vscode-2");
  const fourth = await startEngine();
  const [doomed] = await recovery.listOffers(fourth.engine, "local");
  assert.equal(doomed.session, "vscode-2");
  // Its files: a request file and a flow log of its own, among those of the flows still open.
  const stateFiles = () =>
    fs
      .readdirSync(path.join(process.env["XDG_STATE_HOME"] ?? "", "askd"), { recursive: true })
      .map(String)
      .filter((file) => file.endsWith(".request.json") || file.endsWith(".flow.log"));
  const before = stateFiles();
  assert.equal(await recovery.discardOffer(fourth.engine, doomed), true);
  assert.deepEqual(await recovery.listOffers(fourth.engine, "local"), []);
  assert.equal(await recovery.discardOffer(fourth.engine, doomed), false);
  assert.equal(stateFiles().length, before.length - 2);
});

/** Activates the extension as VS Code would, and returns its API. */
function activate() {
  subscriptions = [];
  return extension.activate(
    /** @type {any} */ ({
      subscriptions,
      extensionPath: extensionRoot,
      extensionUri: stub.vscode.Uri.file(extensionRoot),
      extension: { packageJSON: { version: "0.1.0" } },
    }),
  );
}

/**
 * Makes every new panel's page load at 70 columns and record each `start`; `onStart(page,
 * step)` runs then.
 *
 * @param {(page: any, step: any) => void} onStart
 */
function pageOnStart(onStart) {
  stub.onPanel = (page) => {
    page.onMessage((/** @type {any} */ message) => {
      if (message.kind === "start") onStart(page, message.step);
    });
    page.send({ kind: "ready", columns: 70 });
  };
}

/** Waits until `check` is true (the extension works on its own time). */
async function until(/** @type {string} */ what, /** @type {() => boolean} */ check) {
  for (let waited = 0; waited < 10000; waited += 10) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The notification of the offer {@link leaveUnfinished} leaves, as the extension words it. */
function offerNotice(/** @type {string} */ text) {
  return /^askd: an unfinished flow was kept: Release — release-helper in …\/work\/shop \(asked just now, 1 of 2 answered, text typed\)\.$/.test(
    text,
  );
}

test("the extension: the engine it starts names the unfinished flow; Resume opens it where it was, and finishing gives the exact result", async () => {
  await leaveUnfinished("vscode-1");
  stub.settings = { "askd.path": ASKD_BIN };
  stub.choose = (text, buttons) => (offerNotice(text) ? "Resume" : undefined);
  /** @type {any[]} */
  const starts = [];
  pageOnStart((page, step) => {
    starts.push(step);
    // The person finishes the draft, saves it and submits.
    page.send({ kind: "request", id: 1, method: "insert", params: { text: "ition" } });
    page.send({ kind: "request", id: 2, method: "keys", params: { keys: "<CR>" } });
    page.send({ kind: "request", id: 3, method: "keys", params: { keys: "1" } });
  });
  const api = activate();
  /** @type {any[]} */
  const finished = [];
  api.onDidFinishAsk((/** @type {any} */ report) => finished.push(report));
  await until("the flow to finish", () => finished.length === 1);

  const notice = stub.shown[0];
  assert.equal(notice.kind, "info");
  assert.ok(offerNotice(notice.text), notice.text);
  assert.deepEqual(stub.buttons.get(notice.text), ["Resume", "Discard…", "Later"]);
  // The panel opened with the keyboard, at the draft: the second tab, its own answer's editor.
  assert.equal(stub.panels.length, 1);
  assert.equal(stub.panels[0].title, "Release");
  assert.deepEqual(stub.panels[0].showOptions, { viewColumn: stub.vscode.ViewColumn.Beside, preserveFocus: false });
  assert.equal(starts[0].session, "vscode-1");
  assert.equal(starts[0].view.activeTab, 1);
  assert.equal(starts[0].view.editor.text, DRAFT);
  assert.deepEqual(finished, [
    {
      session: "vscode-1",
      result: FINISHED,
      transcript: { call: "ask_user 2 question(s) (Scope, Name)", result: "✓ Scope: Minor\n✓ Name: (wrote) Autumn edition" },
      outcome: "submit",
      source: "recovered",
    },
  ]);
  await until("the panel to close", () => stub.panels[0].disposed);
  assert.deepEqual(stub.output.slice(0, 1), ["recovered: session vscode-1 ended (submit)"]);
  // Nothing is offered any more, and a new flow of the window takes the next id.
  const engine = (await startEngine()).engine;
  assert.deepEqual(await recovery.listOffers(engine, "local"), []);
});

test("the extension: Later keeps it; the quick pick names it; its trash button asks first, and discards only when confirmed", async () => {
  await leaveUnfinished("vscode-1");
  stub.settings = { "askd.path": ASKD_BIN };
  stub.choose = (text) => (offerNotice(text) ? "Later" : undefined);
  activate();
  await until("the notification", () => stub.shown.some((shown) => offerNotice(shown.text)));

  // Later: nothing happens. The quick pick names it: what it asked, when, how far, typed.
  stub.onQuickPick = (pick) => pick.hide();
  await stub.vscode.commands.executeCommand("askd.recover");
  assert.equal(stub.quickPicks.length, 1);
  const pick = stub.quickPicks[0];
  assert.equal(pick.title, "askd: Recover Unfinished Flow");
  assert.deepEqual(
    pick.items.map((/** @type {any} */ item) => ({
      label: item.label,
      detail: item.detail,
      buttons: item.buttons.map((/** @type {any} */ button) => [button.iconPath.id, button.tooltip]),
    })),
    [
      {
        label: "Release — release-helper in …/work/shop",
        detail: "asked just now, 1 of 2 answered, text typed",
        buttons: [["trash", "Discard…"]],
      },
    ],
  );

  // Its trash button, not confirmed: kept.
  stub.onQuickPick = (shown) => shown.pressButton(0);
  await stub.vscode.commands.executeCommand("askd.recover");
  const question = "Discard the unfinished flow Release — release-helper in …/work/shop? What was answered and typed in it is lost.";
  assert.deepEqual(stub.shown.slice(1), [{ kind: "warning", text: question, modal: true }]);
  assert.deepEqual(stub.buttons.get(question), ["Discard"]);

  // Confirmed: discarded, and said so; nothing is left to recover.
  stub.choose = (_text, buttons) => (buttons.includes("Discard") ? "Discard" : undefined);
  await stub.vscode.commands.executeCommand("askd.recover");
  assert.deepEqual(stub.shown.slice(2), [
    { kind: "warning", text: question, modal: true },
    { kind: "info", text: "askd: discarded Release — release-helper in …/work/shop." },
  ]);
  await stub.vscode.commands.executeCommand("askd.recover");
  assert.deepEqual(stub.shown.at(-1), { kind: "info", text: "askd: no unfinished flow to recover." });
  assert.equal(stub.panels.length, 0);
  // The notification named it once.
  assert.equal(stub.shown.filter((shown) => offerNotice(shown.text)).length, 1);
});

test("the extension: the notification's Discard… asks first, then drops the flow", async () => {
  await leaveUnfinished("vscode-1");
  stub.settings = { "askd.path": ASKD_BIN };
  stub.choose = (text, buttons) => (offerNotice(text) ? "Discard…" : buttons.includes("Discard") ? "Discard" : undefined);
  activate();
  await until("the discard", () => stub.shown.length === 3);
  assert.deepEqual(stub.shown.slice(1), [
    {
      kind: "warning",
      text: "Discard the unfinished flow Release — release-helper in …/work/shop? What was answered and typed in it is lost.",
      modal: true,
    },
    { kind: "info", text: "askd: discarded Release — release-helper in …/work/shop." },
  ]);
  const engine = (await startEngine()).engine;
  assert.deepEqual(await recovery.listOffers(engine, "local"), []);
});
