// @ts-check
/** From the ask API's options and the askd.* settings to the params of the engine's `open`. */
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const { openParams, readSettings } = require("../../out/params.js");

const PAYLOAD = { questions: [{ id: "q", prompt: "Q?", options: [{ value: "a", label: "A" }] }] };
const DECIDED = { session: "vscode-7", width: 96, cwd: "/projects/project" };

/** The settings as VS Code answers them when the person changed nothing. */
const DEFAULTS = {
  width: 0,
  keymapPreset: "default",
  keymap: {},
  "behaviour.profile": "seed",
  "behaviour.confirmDismissWhenDirty": false,
  "behaviour.doublePressReviewShortcuts": false,
  "behaviour.autoSubmitWhenAnsweredWithoutNotes": false,
  "behaviour.presentSingleAsMulti": false,
};

/** `readSettings` over `DEFAULTS` with `changed` on top. */
function settings(/** @type {Record<string, unknown>} */ changed = {}) {
  const all = { ...DEFAULTS, ...changed };
  return readSettings((/** @type {string} */ key) => /** @type {Record<string, unknown>} */ (all)[key]);
}

test("default settings and no options: payload, session, the panel's width and the workspace folder", () => {
  assert.deepEqual(settings(), { width: 0, keymapPreset: "default", keymap: {}, behaviour: {} });
  assert.deepEqual(openParams(PAYLOAD, {}, settings(), DECIDED), {
    payload: PAYLOAD,
    session: "vscode-7",
    width: 96,
    cwd: "/projects/project",
  });
});

test("the settings: a fixed width, a keymap preset and overrides, changed behaviour flags only", () => {
  const changed = settings({
    width: 72,
    keymapPreset: "vim",
    keymap: { "main.toggle": ["x"] },
    "behaviour.profile": "pi-0.9",
    "behaviour.confirmDismissWhenDirty": true,
  });
  assert.deepEqual(openParams(PAYLOAD, {}, changed, { ...DECIDED, cwd: undefined }), {
    payload: PAYLOAD,
    session: "vscode-7",
    width: 72,
    keymap: { "main.toggle": ["x"] },
    keymapPreset: "vim",
    behaviour: { profile: "pi-0.9", confirmDismissWhenDirty: true },
  });
});

test("options win over the settings, key by key, and pass unknown values through unchanged", () => {
  const changed = settings({
    keymapPreset: "vim",
    keymap: { "main.toggle": ["x"], "main.cancel": ["q"] },
    "behaviour.doublePressReviewShortcuts": true,
  });
  const options = {
    dialect: "claude",
    session: "toolu_01",
    keymap: { "main.toggle": "t", "global.dismiss": [] },
    keymapPreset: "emacs",
    behaviour: { doublePressReviewShortcuts: false, presentSingleAsMulti: true, futureFlag: 3 },
    timeoutMs: 30000,
    cwd: "/elsewhere",
  };
  assert.deepEqual(openParams(PAYLOAD, options, changed, DECIDED), {
    payload: PAYLOAD,
    session: "toolu_01",
    width: 96,
    dialect: "claude",
    cwd: "/elsewhere",
    keymap: { "main.toggle": "t", "main.cancel": ["q"], "global.dismiss": [] },
    keymapPreset: "emacs",
    behaviour: { doublePressReviewShortcuts: false, presentSingleAsMulti: true, futureFlag: 3 },
    timeoutMs: 30000,
  });
});

test("settings of the wrong type fall back to their defaults", () => {
  assert.deepEqual(settings({ width: -4, keymapPreset: "", keymap: ["x"], "behaviour.profile": null }), {
    width: 0,
    keymapPreset: "default",
    keymap: {},
    behaviour: {},
  });
  assert.deepEqual(settings({ width: 12.5 }).width, 0);
});

test("every other open param passes through unchanged: asker, the dialects' options, params a newer engine knows; the token and focus stay in the extension", () => {
  const options = {
    dialect: "mcp",
    asker: { name: "release-helper", folder: "/projects/project" },
    mcp: { requester: { name: "deploy-server" }, protocolVersion: "2025-11-25" },
    claude: { previewFormat: "html" },
    allRows: true,
    hasUI: true,
    futureParam: { kept: [1, 2] },
    token: { isCancellationRequested: false },
    focus: true,
    width: 10,
    undefinedParam: undefined,
  };
  assert.deepEqual(openParams(PAYLOAD, options, settings(), DECIDED), {
    payload: PAYLOAD,
    session: "vscode-7",
    width: 96,
    cwd: "/projects/project",
    dialect: "mcp",
    asker: { name: "release-helper", folder: "/projects/project" },
    mcp: { requester: { name: "deploy-server" }, protocolVersion: "2025-11-25" },
    claude: { previewFormat: "html" },
    allRows: true,
    hasUI: true,
    futureParam: { kept: [1, 2] },
  });
});
