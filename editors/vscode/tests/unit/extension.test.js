// @ts-check
/**
 * The extension as VS Code activates it, with `vscode` stubbed (tests/unit/vscode-stub.js) and
 * the question panel's page played by the test: the API and the commands, the params the
 * engine receives, the words shown for a missing or dying engine, and a new engine on the next
 * ask.
 */
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { test, beforeEach, after } = require("node:test");
const stub = require("./vscode-stub.js");
const extension = require("../../out/extension.js");
const { contentSecurityPolicy, panelHtml } = require("../../out/panel.js");

const ASKD_BIN = process.env["ASKD_BIN"] ?? "";
const extensionRoot = path.resolve(__dirname, "..", "..");
const PAYLOAD = {
  title: "Unit",
  questions: [{ id: "go", label: "Go", prompt: "Go ahead?", options: [{ value: "yes", label: "Yes" }, { value: "no", label: "No" }] }],
};
const QUESTIONS = [{ id: "go", label: "Go", prompt: "Go ahead?", type: "single" }];
const ANSWERED_NO = {
  content: [{ type: "text", text: "Go: No" }],
  details: {
    title: "Unit",
    cancelled: false,
    mode: "submit",
    questions: QUESTIONS,
    answers: { go: { values: ["no"], labels: ["No"], indices: [2] } },
  },
};

/** @type {Array<{ dispose(): void }>} */
let subscriptions = [];

beforeEach(() => {
  for (const subscription of subscriptions.splice(0)) subscription.dispose();
  stub.reset();
  // Each test with a state folder of its own: no flow an earlier test left open is offered.
  process.env["XDG_STATE_HOME"] = fs.mkdtempSync(path.join(os.tmpdir(), "askd-vscode-state-"));
});

// The engine the last activation started ends with it.
after(() => {
  for (const subscription of subscriptions.splice(0)) subscription.dispose();
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
 * Makes every new panel's page load at `columns` and, once the flow starts, send `keys`
 * (a Vim-notation script) as one `keys` request. `onStart(page)` runs first, if given.
 */
function pageTyping(/** @type {string} */ keys, columns = 70, /** @type {(page: any) => void} */ onStart = () => undefined) {
  stub.onPanel = (page) => {
    page.onMessage((/** @type {any} */ message) => {
      if (message.kind === "start") {
        onStart(page);
        if (keys !== "") page.send({ kind: "request", id: 1, method: "keys", params: { session: message.step.session, keys } });
      }
    });
    page.send({ kind: "ready", columns });
  };
}

test("activate registers the commands and returns the API", () => {
  const api = activate();
  assert.deepEqual([...stub.commands.keys()].sort(), [
    "askd.answer",
    "askd.ask",
    "askd.askFromFile",
    "askd.demo",
    "askd.focusQuestion",
    "askd.keepKeyInFlow",
    "askd.recover",
  ]);
  assert.equal(api.apiVersion, 1);
  assert.equal(typeof api.ask, "function");
  assert.equal(typeof api.onDidFinishAsk, "function");
  assert.equal(/** @type {any} */ (api.demoPayload).title, "askd demo");
});

test("the API: options and settings reach the engine's open; the result comes back exactly", async () => {
  const record = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "askd-vscode-")), "input");
  process.env["ASKD_RECORD_FILE"] = record;
  stub.settings = {
    "askd.path": path.join(__dirname, "engines", "recording.js"),
    "askd.keymap": { "main.toggle": ["x"] },
    "askd.behaviour.confirmDismissWhenDirty": true,
  };
  stub.workspaceFolders = [{ uri: stub.vscode.Uri.file("/projects/project") }];
  /** @type {unknown[]} */
  const whileOpen = [];
  pageTyping("2<CR>", 70, (page) => {
    const waiting = stub.statusItems.get("askd.waiting");
    whileOpen.push({ start: page.received[0].focus, look: page.received[0].look, item: waiting.visible && waiting.text });
  });
  const api = activate();
  /** @type {unknown[]} */
  const finished = [];
  api.onDidFinishAsk((/** @type {unknown} */ report) => finished.push(report));
  const result = await api.ask(PAYLOAD, {
    session: "toolu_01",
    dialect: "pi",
    keymapPreset: "vim",
    behaviour: { profile: "pi-0.9" },
    timeoutMs: 60000,
    asker: { name: "release-helper" },
    mcp: { requester: { name: "deploy-server" } },
    claude: { previewFormat: "html" },
    allRows: true,
  });
  assert.deepEqual(result, ANSWERED_NO);
  assert.deepEqual(finished, [
    {
      session: "toolu_01",
      result: ANSWERED_NO,
      transcript: { call: "ask_user 1 question(s) (Go)", result: "✓ Go: No" },
      outcome: "submit",
      source: "api",
    },
  ]);
  const open = fs
    .readFileSync(record, "utf8")
    .split(/Content-Length: \d+\r\n\r\n/)
    .filter((body) => body !== "")
    .map((body) => JSON.parse(body))
    .find((message) => message.method === "open");
  assert.deepEqual(open.params, {
    payload: PAYLOAD,
    session: "toolu_01",
    width: 70,
    dialect: "pi",
    cwd: "/projects/project",
    keymap: { "main.toggle": ["x"] },
    keymapPreset: "vim",
    behaviour: { confirmDismissWhenDirty: true, profile: "pi-0.9" },
    timeoutMs: 60000,
    asker: { name: "release-helper" },
    mcp: { requester: { name: "deploy-server" } },
    claude: { previewFormat: "html" },
    allRows: true,
  });
  assert.equal(stub.panels.length, 1);
  assert.equal(stub.panels[0].viewType, "askd.flow");
  assert.equal(stub.panels[0].title, "Unit");
  // Beside the editor, the keyboard left where it was; counted and announced meanwhile.
  assert.deepEqual(stub.panels[0].showOptions, { viewColumn: stub.vscode.ViewColumn.Beside, preserveFocus: true });
  assert.deepEqual(whileOpen, [{ start: false, look: "form", item: "$(bell-dot) askd: 1 waiting" }]);
  assert.ok(stub.panels[0].disposed, "the panel closed");
  assert.equal(stub.statusItems.get("askd.waiting").visible, false);
  assert.deepEqual(stub.output.slice(0, 1), ["api: session toolu_01 ended (submit)"]);
  assert.deepEqual(JSON.parse(stub.output.slice(1).join("\n")), ANSWERED_NO);
  // Announced in a notification with an Answer link to the question, closed once it was answered.
  const announced = 'askd: a question is waiting: Unit [Answer](command:askd.answer?%5B%22toolu_01%22%5D)';
  assert.deepEqual(stub.shown, [{ kind: "progress", text: announced }]);
  assert.deepEqual(
    stub.notices.map((/** @type {any} */ notice) => ({ cancellable: notice.cancellable, closed: notice.closed })),
    [{ cancellable: true, closed: true }],
  );
});

test("askd: Demo shows the result in the output channel and a notification", async () => {
  stub.settings = { "askd.path": ASKD_BIN };
  pageTyping("2<Down><Space>nx<CR><CR>1<CR>", 90);
  activate();
  const result = await stub.vscode.commands.executeCommand("askd.demo");
  assert.deepEqual(/** @type {any} */ (result).content, [
    { type: "text", text: "Editor: Neovim\nLanguages: Rust\nLanguages / Rust note: x\nLayout: Side by side" },
  ]);
  assert.deepEqual(stub.shown, [
    { kind: "info", text: "askd: Editor: Neovim; Languages: Rust; Languages / Rust note: x; Layout: Side by side" },
  ]);
  assert.equal(stub.output[0], "demo: session vscode-1 ended (submit)");
  assert.equal(stub.panels[0].title, "askd demo");
  // The person ran the command: the panel takes the keyboard.
  assert.deepEqual(stub.panels[0].showOptions, { viewColumn: stub.vscode.ViewColumn.Beside, preserveFocus: false });
  assert.equal(stub.panels[0].received[0].focus, true);
});

test("the askd.ask command returns the result, and an invalid payload's result is returned as it is", async () => {
  stub.settings = { "askd.path": ASKD_BIN };
  pageTyping("2<CR>");
  activate();
  assert.deepEqual(await stub.vscode.commands.executeCommand("askd.ask", PAYLOAD, { session: "c1" }), ANSWERED_NO);
  const invalid = /** @type {any} */ (await stub.vscode.commands.executeCommand("askd.ask", { questions: [] }));
  assert.equal(invalid.details.error.kind, "invalid_input");
  assert.equal(invalid.details.cancelled, true);
});

test("a missing engine: the ask fails with the places tried, shown as an error with Open Settings, and no panel opens", async () => {
  const missing = path.join(os.tmpdir(), "askd-vscode-no-such-folder", "askd");
  stub.settings = { "askd.path": missing };
  stub.choose = (_text, buttons) => buttons[0];
  const api = activate();
  const message = `askd: the engine "${missing}" set in askd.path was not found or is not executable.`;
  await assert.rejects(api.ask(PAYLOAD), { message });
  assert.deepEqual(stub.shown, [{ kind: "error", text: message }]);
  assert.deepEqual(stub.buttons.get(message), ["Open Settings"]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(stub.ran, [["workbench.action.openSettings", "askd.path"]]);
  assert.equal(stub.panels.length, 0);
  assert.equal(await stub.vscode.commands.executeCommand("askd.demo"), undefined);
  assert.deepEqual(stub.shown[1], { kind: "error", text: message });
});

test("an engine that dies mid-flow fails the ask with its last stderr lines; the next ask starts it again", async () => {
  const wrapper = path.resolve(__dirname, "..", "e2e", "engine-with-pid.sh");
  const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "askd-vscode-")), "pid");
  process.env["ASKD_TEST_ENGINE"] = ASKD_BIN;
  process.env["ASKD_TEST_PID_FILE"] = pidFile;
  stub.settings = { "askd.path": wrapper };
  pageTyping("", 70, () => process.kill(Number(fs.readFileSync(pidFile, "utf8")), "SIGKILL"));
  const api = activate();
  const message = `askd: the engine "${wrapper}" was killed by SIGKILL. Its last stderr lines:\ntest engine: starting ${ASKD_BIN}`;
  await assert.rejects(api.ask(PAYLOAD), { message });
  assert.deepEqual(stub.shown, [
    { kind: "progress", text: "askd: a question is waiting: Unit [Answer](command:askd.answer?%5B%22vscode-1%22%5D)" },
    { kind: "error", text: message },
  ]);
  assert.deepEqual(stub.buttons.get(message), []);
  assert.ok(stub.panels[0].disposed, "the panel closed");
  const first = fs.readFileSync(pidFile, "utf8");

  pageTyping("2<CR>");
  assert.deepEqual(await api.ask(PAYLOAD), ANSWERED_NO);
  assert.notEqual(fs.readFileSync(pidFile, "utf8"), first);
});

test("askd: Ask from File… reads the file it is given; a file that is not JSON is an error", async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "askd-vscode-"));
  fs.writeFileSync(path.join(folder, "good.json"), JSON.stringify(PAYLOAD));
  fs.writeFileSync(path.join(folder, "bad.json"), "[1,");
  stub.settings = { "askd.path": ASKD_BIN };
  stub.workspaceFolders = [{ uri: stub.vscode.Uri.file(folder) }];
  pageTyping("2<CR>");
  activate();
  const askFromFile = /** @type {(uri?: unknown) => Promise<unknown>} */ (stub.commands.get("askd.askFromFile"));
  assert.deepEqual(await askFromFile(stub.vscode.Uri.file(path.join(folder, "good.json"))), ANSWERED_NO);
  assert.deepEqual(stub.shown, [{ kind: "info", text: "askd: Go: No" }]);
  assert.equal(await askFromFile(stub.vscode.Uri.file(path.join(folder, "bad.json"))), undefined);
  assert.deepEqual(stub.shown[1], {
    kind: "error",
    text: "askd: bad.json is not valid JSON: Unexpected end of JSON input",
  });
  assert.equal(stub.panels.length, 1);
});

test("the panel's page: a strict Content-Security-Policy, nonce'd scripts only", () => {
  assert.equal(
    contentSecurityPolicy("https://resources.example", "n0nce"),
    "default-src 'none'; style-src https://resources.example; font-src https://resources.example; script-src 'nonce-n0nce'; connect-src 'none'; form-action 'none'; base-uri 'none'",
  );
  const html = panelHtml("https://resources.example", "n0nce", "Plan <b>", (file) => `https://resources.example/${file}`);
  assert.deepEqual(html.match(/<script[^>]*>/g), [
    '<script type="module" nonce="n0nce" src="https://resources.example/panel.js">',
  ]);
  assert.deepEqual(html.match(/<link[^>]*>/g), [
    '<link rel="stylesheet" href="https://resources.example/askd.css">',
    '<link rel="stylesheet" href="https://resources.example/theme.css">',
  ]);
  assert.ok(html.includes("<title>Plan &#60;b&#62;</title>"));
  assert.ok(!/https?:\/\/(?!resources\.example)/.test(html), "nothing remote");
});

test("notification summaries and panel titles", () => {
  assert.equal(extension.summarise({ content: [{ type: "text", text: "A: 1\n\nB: 2\n" }] }), "A: 1; B: 2");
  assert.equal(extension.summarise({ answer: { answers: [{ id: "a", selected: ["X"] }] } }), '{"answers":[{"id":"a","selected":["X"]}]}');
  assert.equal(
    extension.summarise({ error: { name: "UserQuestionError", code: "ASK_CANCELLED", message: "The user cancelled" } }),
    "The user cancelled",
  );
  assert.equal(extension.summarise(null), "null");
  assert.equal(extension.panelTitle({ title: "Release" }), "Release");
  assert.equal(extension.panelTitle({ title: "  " }), "askd");
  assert.equal(extension.panelTitle(null), "askd");
});

test("the web renderer is packaged unchanged, with every module it imports", () => {
  const web = path.resolve(extensionRoot, "..", "web");
  for (const file of ["askd-view.js", "askd-form.js", "askd-wide.js", "askd.css"]) {
    assert.ok(
      fs.readFileSync(path.join(extensionRoot, "media", file)).equals(fs.readFileSync(path.join(web, file))),
      `media/${file} is editors/web/${file}`,
    );
  }
  const html = panelHtml("x", "n", "t", (file) => file);
  for (const file of ["askd.css", "theme.css", "panel.js"]) {
    assert.ok(html.includes(`"${file}"`), file);
    assert.ok(fs.existsSync(path.join(extensionRoot, "media", file)), `media/${file}`);
  }
});
