// @ts-check
/**
 * The test fixture: another extension using askd the two ways the README documents, the
 * exported API and the askd.ask command. Every result it receives, and every flow the askd
 * extension reports finished, is written as JSON into the workspace's results/ folder for the
 * tests to read.
 */
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const vscode = require("vscode");

/** A plan review in the dsh dialect, asked through the API. */
const PLAN_REVIEW = {
  questions: [
    {
      id: "plan",
      header: "Plan",
      question: "Approve the plan?",
      detail: "1. Add the table\n2. Migrate",
      options: [{ label: "Revise" }, { label: "Approve" }],
      intent: { kind: "plan-review", approve: "Approve" },
    },
    { id: "note", question: "Anything to add?" },
  ],
};

/** One pi question, asked through the askd.ask command, withdrawn and timed out through the API. */
const PROCEED = {
  title: "Fixture",
  questions: [
    {
      id: "go",
      label: "Proceed",
      prompt: "Proceed with the migration?",
      options: [
        { value: "yes", label: "Yes" },
        { value: "later", label: "Later" },
      ],
    },
  ],
};

/** How long the question asked with a timeout waits for an answer. */
const TIMEOUT_MS = 3000;

/** The timeout of the question whose countdown the tests read: an hour. */
const LONG_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * Writes `value` as `results/<name>.json` in the workspace: into a temporary file renamed into
 * place, so that a test that sees the file reads it whole.
 */
function record(name, value) {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder === undefined) return;
  const results = path.join(folder.uri.fsPath, "results");
  fs.mkdirSync(results, { recursive: true });
  const file = path.join(results, `${name}.json`);
  fs.writeFileSync(`${file}.partial`, JSON.stringify(value, null, 2));
  fs.renameSync(`${file}.partial`, file);
}

/** Records how a promised result settled. */
function settle(name, promise) {
  promise.then(
    (result) => record(name, { result }),
    (error) => record(name, { error: error instanceof Error ? error.message : String(error) }),
  );
}

/**
 * Applies the user settings in the workspace's `fixture-settings.json` (`{ "<key>": value }`),
 * then records `results/settings-applied.json`. (Code-server does not pick up a settings.json
 * rewritten on disk while it runs.)
 */
async function applySettings() {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder === undefined) return;
  const file = path.join(folder.uri.fsPath, "fixture-settings.json");
  const settings = JSON.parse(fs.readFileSync(file, "utf8"));
  for (const [key, value] of Object.entries(settings)) {
    await vscode.workspace.getConfiguration().update(key, value, vscode.ConfigurationTarget.Global);
  }
  record("settings-applied", settings);
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  const askd = vscode.extensions.getExtension("askd.askd-vscode");
  if (askd === undefined) throw new Error("the askd extension is not installed");
  const api = await askd.activate();
  let finished = 0;
  /** @type {vscode.CancellationTokenSource | undefined} */
  let withdrawable;

  context.subscriptions.push(
    api.onDidFinishAsk((/** @type {unknown} */ report) => {
      finished += 1;
      record(`finished-${finished}`, report);
    }),
    vscode.commands.registerCommand("askdFixture.askWithApi", () => {
      settle("api", api.ask(PLAN_REVIEW, { dialect: "dsh", session: "fixture-plan" }));
    }),
    vscode.commands.registerCommand("askdFixture.askWithCommand", () => {
      settle("command", Promise.resolve(vscode.commands.executeCommand("askd.ask", PROCEED, { session: "fixture-command" })));
    }),
    vscode.commands.registerCommand("askdFixture.askToWithdraw", () => {
      withdrawable = new vscode.CancellationTokenSource();
      settle("withdrawn", api.ask(PROCEED, { session: "fixture-withdrawn", token: withdrawable.token }));
    }),
    vscode.commands.registerCommand("askdFixture.withdraw", () => withdrawable?.cancel()),
    vscode.commands.registerCommand("askdFixture.askWithTimeout", () => {
      settle("timed-out", api.ask(PROCEED, { session: "fixture-timeout", timeoutMs: TIMEOUT_MS }));
    }),
    vscode.commands.registerCommand("askdFixture.askWithLongTimeout", () => {
      settle("long-timeout", api.ask(PROCEED, { session: "fixture-long-timeout", timeoutMs: LONG_TIMEOUT_MS }));
    }),
    vscode.commands.registerCommand("askdFixture.applySettings", applySettings),
  );

  // A question that arrives while the person works, with no command run: the tests write
  // `ask-<name>.json` (`{ payload, options }`) into the workspace, and the fixture asks it
  // through the API at once, recording the result as `results/<name>.json`.
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder !== undefined) {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, "ask-*.json"));
    watcher.onDidCreate((uri) => {
      const name = path.basename(uri.fsPath, ".json").slice("ask-".length);
      const { payload, options } = JSON.parse(fs.readFileSync(uri.fsPath, "utf8"));
      settle(name, api.ask(payload, options ?? {}));
    });
    context.subscriptions.push(watcher);
  }

  const status = vscode.window.createStatusBarItem("askdFixture.status", vscode.StatusBarAlignment.Right, 0);
  status.text = "askd fixture";
  status.show();
  context.subscriptions.push(status);
}

module.exports = { activate };
