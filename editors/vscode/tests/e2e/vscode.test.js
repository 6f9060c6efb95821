// @ts-check
/**
 * End-to-end tests in a real VS Code (code-server 4.100.3) driven in headless Chromium: the
 * packaged extension and the packaged fixture extension are installed, flows are answered with
 * the keyboard inside the question panel's webview, and the exact results are read from what
 * the fixture records (`results/*.json` in the workspace) and from the notifications: askd:
 * Demo, and another extension asking through the API and the askd.ask command. The other files
 * of tests/e2e/ hold the panel's own tests, the failures and the attention tests; each file
 * runs within the runner's time limit on its own.
 *
 * Needs ASKD_BIN (the engine) and what tests/run.sh installs and packages.
 */
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { test } = require("node:test");
const h = require("./harness.js");
const {
  withVsCode,
  openFlow,
  waitForLine,
  readResult,
  waitForNotification,
  waitForPanelClosed,
  screenshot,
  pasteInto,
} = require("./workbench.js");

/** The fields every demo result shares: the payload's questions as the engine normalised them. */
const DEMO_QUESTIONS = [
  { id: "editor", label: "Editor", prompt: "Which editor do you use most?", type: "single" },
  { id: "languages", label: "Languages", prompt: "Which languages do you write this week?", type: "multi" },
  { id: "layout", label: "Layout", prompt: "Which window layout do you prefer?", type: "preview" },
];

test("askd: Demo is answered by keyboard in the panel and reports the exact result", async () => {
  await withVsCode("demo", { settings: { "workbench.colorTheme": "Default Dark Modern" } }, async ({ page, vs }) => {
    await h.runCommand(page, "askd: Demo");
    const flow = await openFlow(page);
    await waitForLine(flow, " [□ Editor]  □ Languages   □ Layout   ✓ Submit");
    await waitForLine(flow, " ❯ 1. ○ VS Code (recommended)");

    // An option note on Neovim, typed key by key.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("n");
    await page.keyboard.type("Only for quick edits");
    await waitForLine(flow, /^   ╭─ Note on Neovim ─+╮$/);
    await waitForLine(flow, /^   │ Only for quick edits +│$/);
    await screenshot(page, "dark-note");
    await page.keyboard.press("Enter");
    await waitForLine(flow, " [□ Editor✎]  □ Languages   □ Layout   ✓ Submit");
    await waitForLine(flow, "        ✎ Only for quick edits");

    // Select Neovim (advances), go back and forth between tabs.
    await page.keyboard.press("2");
    await waitForLine(flow, "  ■ Editor✎  [□ Languages]  □ Layout   ✓ Submit");
    await page.keyboard.press("Shift+Tab");
    await waitForLine(flow, " [■ Editor✎]  □ Languages   □ Layout   ✓ Submit");
    await page.keyboard.press("Tab");
    await waitForLine(flow, "  ■ Editor✎  [□ Languages]  □ Layout   ✓ Submit");

    // Multi: TypeScript and Python, then "Type your own" with a pasted answer.
    await page.keyboard.press("1");
    await page.keyboard.press("3");
    await waitForLine(flow, " ❯ 3. [x] Python");
    await page.keyboard.press("4");
    await waitForLine(flow, /^   │ Type answer\.\.\. +│$/);
    await pasteInto(flow, "Lua");
    await waitForLine(flow, /^   │ Lua +│$/);
    await page.keyboard.press("Enter");

    // Preview: Stacked, which advances to the review tab.
    await waitForLine(flow, "  ■ Editor✎   ■ Languages  [□ Layout]  ✓ Submit");
    await page.keyboard.press("2");
    await waitForLine(flow, "  ■ Editor✎   ■ Languages   ■ Layout  [✓ Submit]");
    await waitForLine(flow, " Review your answers");
    await waitForLine(flow, " ❯ 1. Submit");
    await screenshot(page, "dark-review");
    await page.keyboard.press("Enter");

    const finished = await readResult(vs.workspace, "finished-1");
    assert.deepEqual(finished, {
      session: "vscode-1",
      result: {
        content: [
          {
            type: "text",
            text: "Editor: Neovim\nEditor / Neovim note: Only for quick edits\nLanguages: TypeScript, Python, Lua\nLayout: Stacked",
          },
        ],
        details: {
          title: "askd demo",
          cancelled: false,
          mode: "submit",
          questions: DEMO_QUESTIONS,
          answers: {
            editor: { values: ["nvim"], labels: ["Neovim"], indices: [2], optionNotes: { nvim: "Only for quick edits" } },
            languages: { values: ["ts", "python", "Lua"], labels: ["TypeScript", "Python", "Lua"], indices: [1, 3], customText: "Lua" },
            layout: { values: ["stack"], labels: ["Stacked"], indices: [2] },
          },
        },
      },
      transcript: {
        call: "ask_user 3 question(s) (Editor, Languages, Layout)",
        result: "✓ Editor: Neovim\n  Neovim note: Only for quick edits\n✓ Languages: TypeScript, Python, Lua\n✓ Layout: Stacked",
      },
      outcome: "submit",
      source: "demo",
    });
    await waitForPanelClosed(page);
    await waitForNotification(
      page,
      "askd: Editor: Neovim; Editor / Neovim note: Only for quick edits; Languages: TypeScript, Python, Lua; Layout: Stacked",
    );
    await screenshot(page, "dark-done");
  });
});

test("another extension asks through the API (dsh, withdrawn by its token, timed out, counted down) and through askd.ask; a closed panel", async () => {
  await withVsCode("fixture", { settings: { "workbench.colorTheme": "Default Dark Modern" } }, async ({ page, vs }) => {
    // The API, in the dsh dialect: approve the plan, type a free-text answer, submit.
    await h.runCommand(page, "askd fixture: Ask with the API");
    let flow = await openFlow(page, { focus: true });
    await waitForLine(flow, " ❯ 1. ○ Approve (approves the plan)");
    await screenshot(page, "dark-plan-review");
    await page.keyboard.press("Enter");
    await waitForLine(flow, /^   │ Type answer\.\.\. +│$/);
    await page.keyboard.type("Keep the old column");
    await waitForLine(flow, /^   │ Keep the old column +│$/);
    await page.keyboard.press("Enter");
    await waitForLine(flow, " ❯ 1. Submit");
    await page.keyboard.press("1");
    assert.deepEqual(await readResult(vs.workspace, "api"), {
      result: {
        answer: {
          answers: [
            { id: "plan", selected: ["Approve"] },
            { id: "note", selected: [], custom: "Keep the old column" },
          ],
        },
      },
    });
    await waitForPanelClosed(page);

    // The askd.ask command, in the pi dialect.
    await h.runCommand(page, "askd fixture: Ask with the askd.ask command");
    flow = await openFlow(page, { focus: true });
    await waitForLine(flow, " Proceed with the migration?");
    await page.keyboard.press("2");
    await waitForLine(flow, " ❯ 1. Submit");
    await page.keyboard.press("1");
    const proceedQuestions = [{ id: "go", label: "Proceed", prompt: "Proceed with the migration?", type: "single" }];
    assert.deepEqual(await readResult(vs.workspace, "command"), {
      result: {
        content: [{ type: "text", text: "Proceed: Later" }],
        details: {
          title: "Fixture",
          cancelled: false,
          mode: "submit",
          questions: proceedQuestions,
          answers: { go: { values: ["later"], labels: ["Later"], indices: [2] } },
        },
      },
    });
    await waitForPanelClosed(page);

    // Withdrawn by the asker while the panel is open: the flow ends as aborted.
    await h.runCommand(page, "askd fixture: Ask a question to withdraw");
    flow = await openFlow(page, { focus: true });
    await waitForLine(flow, " Proceed with the migration?");
    await h.runCommand(page, "askd fixture: Withdraw the question");
    /** The pi result of the Proceed question cancelled with no answer, for `cancelReason`. */
    const cancelled = (/** @type {string} */ cancelReason, text = "User cancelled the ask flow") => ({
      content: [{ type: "text", text }],
      details: { title: "Fixture", cancelled: true, cancelReason, mode: "submit", questions: proceedQuestions, answers: {} },
    });
    assert.deepEqual(await readResult(vs.workspace, "withdrawn"), { result: cancelled("aborted") });
    await waitForPanelClosed(page);

    // The person closes the panel: the flow ends as closed by the client.
    fs.rmSync(path.join(vs.workspace, "results", "command.json"));
    await h.runCommand(page, "askd fixture: Ask with the askd.ask command");
    flow = await openFlow(page, { focus: true });
    await waitForLine(flow, " Proceed with the migration?");
    await h.runCommand(page, "View: Close Editor");
    assert.deepEqual(await readResult(vs.workspace, "command"), { result: cancelled("closed") });
    await waitForPanelClosed(page);

    // Asked with timeoutMs and left unanswered: the engine's timer ends the flow, the panel
    // closes and the promise resolves with the timed-out result.
    await h.runCommand(page, "askd fixture: Ask a question that times out");
    assert.deepEqual(await readResult(vs.workspace, "timed-out"), {
      result: cancelled("timeout", "The ask flow timed out before the user answered"),
    });
    await waitForPanelClosed(page);

    // An hour to answer: the panel counts down above the flow (the first whole second may
    // already be past when it is read); Esc cancels it as the user's choice.
    await h.runCommand(page, "askd fixture: Ask a question with an hour to answer");
    flow = await openFlow(page, { focus: true });
    await waitForLine(flow, " Proceed with the migration?");
    const countdown = h.panelFrame(page).locator("#askd-countdown");
    assert.match(await countdown.innerText(), /^Times out in (1:00:00|59:[0-5][0-9])$/);
    assert.equal(await countdown.getAttribute("role"), "timer");
    await screenshot(page, "dark-countdown");
    await page.keyboard.press("Escape");
    assert.deepEqual(await readResult(vs.workspace, "long-timeout"), { result: cancelled("user") });
    await waitForPanelClosed(page);

    // What the askd extension reported for each, in order.
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => {
        const { session, outcome, source } = JSON.parse(
          fs.readFileSync(path.join(vs.workspace, "results", `finished-${n}.json`), "utf8"),
        );
        return { session, outcome, source };
      }),
      [
        { session: "fixture-plan", outcome: "submit", source: "api" },
        { session: "fixture-command", outcome: "submit", source: "command" },
        { session: "fixture-withdrawn", outcome: "aborted", source: "api" },
        { session: "fixture-command", outcome: "cancelled", source: "command" },
        { session: "fixture-timeout", outcome: "cancelled", source: "api" },
        { session: "fixture-long-timeout", outcome: "cancelled", source: "api" },
      ],
    );
    /** What the askd extension reported for the n-th finished flow. */
    const finished = (/** @type {number} */ n) =>
      JSON.parse(fs.readFileSync(path.join(vs.workspace, "results", `finished-${n}.json`), "utf8"));
    assert.deepEqual(finished(3), {
      session: "fixture-withdrawn",
      result: cancelled("aborted"),
      transcript: { call: "ask_user 1 question(s) (Proceed)", result: "Cancelled (withdrawn by the asker)" },
      outcome: "aborted",
      source: "api",
    });
    assert.deepEqual(finished(4), {
      session: "fixture-command",
      result: cancelled("closed"),
      transcript: { call: "ask_user 1 question(s) (Proceed)", result: "Cancelled (closed)" },
      outcome: "cancelled",
      source: "command",
    });
    assert.deepEqual(finished(5), {
      session: "fixture-timeout",
      result: cancelled("timeout", "The ask flow timed out before the user answered"),
      transcript: { call: "ask_user 1 question(s) (Proceed)", result: "Cancelled (timed out)" },
      outcome: "cancelled",
      source: "api",
    });
  });
});
