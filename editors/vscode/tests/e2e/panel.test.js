// @ts-check
/**
 * End-to-end tests in a real VS Code of the question panel itself (the terminal look): light,
 * dark and high-contrast themes, the width following the panel (and given to askd with
 * `subscribe`, read from the engine's request and reply logs), input-method text and pastes,
 * the workbench keys the flow keeps, Esc.
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
  ASKD_BIN,
  withVsCode,
  openFlow,
  waitForKeyboard,
  screenLines,
  waitForLine,
  readResult,
  waitForNotification,
  waitForPanelClosed,
  screenshot,
  applySettings,
  pasteInto,
  framedMessages,
} = require("./workbench.js");

/** The fields every demo result shares: the payload's questions as the engine normalised them. */
const DEMO_QUESTIONS = [
  { id: "editor", label: "Editor", prompt: "Which editor do you use most?", type: "single" },
  { id: "languages", label: "Languages", prompt: "Which languages do you write this week?", type: "multi" },
  { id: "layout", label: "Layout", prompt: "Which window layout do you prefer?", type: "preview" },
];

test("light and high-contrast themes; the width follows the panel; IME and paste go in through insert; Esc cancels", async () => {
  await withVsCode("themes", { settings: { "workbench.colorTheme": "Default Light Modern" } }, async ({ page, vs }) => {
    await h.runCommand(page, "askd: Demo");
    const flow = await openFlow(page);
    await waitForLine(flow, " ❯ 1. ○ VS Code (recommended)");
    await screenshot(page, "light-question");

    // The screen is as wide as the panel: its rules take every column the panel holds.
    const wide = Number(await flow.getAttribute("data-columns"));
    assert.ok(wide > 60, `the panel holds ${wide} columns`);
    // The session was opened at the width the page measured before the renderer mounted.
    assert.equal(Number(await flow.getAttribute("data-step-width")), wide);
    assert.equal((await screenLines(flow))[0], "─".repeat(wide));
    await page.setViewportSize({ width: 900, height: 800 });
    await h.waitFor("the panel to measure fewer columns", async () => Number(await flow.getAttribute("data-columns")) < wide);
    const narrow = Number(await flow.getAttribute("data-columns"));
    await waitForLine(flow, "─".repeat(narrow));
    // Keys after the resize come back at the new width too.
    await page.keyboard.press("ArrowDown");
    await waitForLine(flow, " ❯ 2. ○ Neovim");
    assert.equal((await screenLines(flow))[0], "─".repeat(narrow));

    // A question note: composed with an input method, then a paste.
    await page.keyboard.press("Shift+N");
    await waitForLine(flow, /^ │ Add a note\.\.\. +│$/);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Input.imeSetComposition", { text: "한", selectionStart: 1, selectionEnd: 1 });
    await cdp.send("Input.imeSetComposition", { text: "한글", selectionStart: 2, selectionEnd: 2 });
    await cdp.send("Input.insertText", { text: "한글" });
    await waitForLine(flow, /^ │ 한글 +│$/);
    await pasteInto(flow, " ünï");
    await waitForLine(flow, /^ │ 한글 ünï +│$/);
    // Ctrl+W deletes a word in the editor; the workbench does not also close the panel, nor
    // does Ctrl+K start a chord that would swallow the next key.
    await page.keyboard.type(" draft");
    await waitForLine(flow, /^ │ 한글 ünï draft +│$/);
    await page.keyboard.press("Control+w");
    await waitForLine(flow, /^ │ 한글 ünï  +│$/);
    await page.keyboard.press("Control+k");
    await page.keyboard.press("Backspace");
    await waitForLine(flow, /^ │ 한글 ünï +│$/);
    assert.equal(await page.locator("iframe.webview").count(), 1);
    await screenshot(page, "light-note");
    await page.keyboard.press("Enter");
    await waitForLine(flow, " [□ Editor✎]  □ Languages   □ Layout   ✓ Submit");

    // Another editor in front hides the panel and takes the keyboard; back in front, the flow
    // is as it was and gets the keyboard back without another click.
    await h.runCommand(page, "File: New Untitled Text File");
    await page.locator(".tab.active", { hasText: "Untitled-1" }).waitFor();
    await h.waitFor("the text editor to have the keyboard", async () =>
      !(await flow.evaluate((element) => element.ownerDocument.hasFocus())),
    );
    await page.locator(".tab", { hasText: "askd demo" }).click();
    await waitForLine(flow, " ✎ Note: 한글 ünï");
    await waitForKeyboard(flow);
    await page.keyboard.press("ArrowDown");
    await waitForLine(flow, " ❯ 3. ○ Helix");

    // The theme changes while the panel is open; the panel follows it.
    for (const [theme, name, type] of [
      ["Default High Contrast", "hc-dark", "hc-black"],
      ["Default High Contrast Light", "hc-light", "hc-light"],
    ]) {
      await applySettings(page, vs.workspace, { "workbench.colorTheme": theme });
      await h.waitFor(`the ${theme} theme`, async () => (await page.locator(`.monaco-workbench.${type}`).count()) === 1);
      await h.waitFor("the panel's page to take the theme", () =>
        flow.evaluate((_element, wanted) => document.body.classList.contains(wanted), name === "hc-dark" ? "vscode-high-contrast" : "vscode-high-contrast-light"),
      );
      await screenshot(page, name);
    }

    await page.keyboard.press("Escape");
    const finished = await readResult(vs.workspace, "finished-1");
    assert.deepEqual(finished, {
      session: "vscode-1",
      result: {
        content: [{ type: "text", text: "User cancelled the ask flow" }],
        details: {
          title: "askd demo",
          cancelled: true,
          cancelReason: "user",
          mode: "submit",
          questions: DEMO_QUESTIONS,
          answers: { editor: { values: [], labels: [], indices: [], note: "한글 ünï" } },
        },
      },
      transcript: { call: "ask_user 3 question(s) (Editor, Languages, Layout)", result: "Cancelled" },
      outcome: "cancelled",
      source: "demo",
    });
    await waitForPanelClosed(page);
    await waitForNotification(page, "askd: User cancelled the ask flow");
  });
});

/**
 * Where the renderer draws the cursor: its screen line and the columns before it on that line.
 *
 * @param {import("playwright-core").Locator} flow
 * @returns {Promise<{ line: number, column: number } | null>}
 */
function cursorCell(flow) {
  return flow.locator(".askd-screen .askd-line").evaluateAll((lines) => {
    for (const [line, element] of lines.entries()) {
      const cursor = element.querySelector(".askd-cursor");
      if (cursor === null) continue;
      const before = document.createRange();
      before.setStart(element, 0);
      before.setEndBefore(cursor);
      return { line, column: [...before.toString()].length };
    }
    return null;
  });
}

test("a resized panel gives askd its width: Steps come at it with no getView after a key, and up follows the lines drawn", async () => {
  const wrapper = path.join(__dirname, "engine-with-log.sh");
  const log = path.join(h.testRoot, "run", "resize", "engine");
  const settings = { "askd.path": wrapper, "workbench.colorTheme": "Default Dark Modern" };
  await withVsCode("resize", { settings, env: { ASKD_TEST_ENGINE: ASKD_BIN, ASKD_TEST_LOG: log } }, async ({ page }) => {
    await h.runCommand(page, "askd: Demo");
    const flow = await openFlow(page);
    await waitForLine(flow, " ❯ 1. ○ VS Code (recommended)");
    const wide = Number(await flow.getAttribute("data-columns"));
    assert.equal(Number(await flow.getAttribute("data-step-width")), wide);
    const digits = "0123456789".repeat(20);
    assert.ok(wide - 9 < digits.length, `the panel holds ${wide} columns`);

    // Type your own, with a pasted line of 200 digits: wrapped in the box at the panel's width,
    // into more lines at the narrower one.
    await page.keyboard.press("4");
    await waitForLine(flow, /^   │ Type answer\.\.\. +│$/);
    await pasteInto(flow, digits);
    // The box's inside is one column wider than its text: the last is kept for the cursor.
    await waitForLine(flow, `   │ ${digits.slice(0, wide - 9)}  │`);

    await page.setViewportSize({ width: 900, height: 800 });
    await h.waitFor("the panel to measure fewer columns", async () => Number(await flow.getAttribute("data-columns")) < wide);
    const narrow = Number(await flow.getAttribute("data-columns"));
    await waitForLine(flow, "─".repeat(narrow));
    // The answer box lays the text out in the screen's width less 9 columns, the text's first
    // column being the sixth.
    const inside = narrow - 9;
    await waitForLine(flow, `   │ ${digits.slice(0, inside)}  │`);
    const atEnd = await cursorCell(flow);
    assert.ok(atEnd !== null && atEnd.column === 5 + (digits.length % inside), `the cursor at the end is at ${JSON.stringify(atEnd)}`);
    await screenshot(page, "resized-editor");

    // Up, then down once the screen shows where up went: every request of the first is sent by
    // then, so that a getView following it would come before the second.
    await page.keyboard.press("ArrowUp");
    await h.waitFor("the cursor to move", async () => (await cursorCell(flow))?.line !== atEnd.line);
    const afterUp = await cursorCell(flow);
    await screenshot(page, "resized-editor-up");
    await page.keyboard.press("ArrowDown");
    await h.waitFor("the cursor to move back", async () => (await cursorCell(flow))?.line === atEnd.line);

    const requests = framedMessages(`${log}.requests`).filter((message) => "method" in message && "id" in message);
    const sinceInsert = requests.slice(requests.findIndex((message) => message.method === "insert") + 1);
    // The resize: askd is given the new width for the session, then draws the screen once at
    // it; each key after is answered by a Step at that width, with no getView after it.
    assert.deepEqual(
      sinceInsert.map((message) => [message.method, message.params]),
      [
        ["subscribe", { session: "vscode-1", width: narrow }],
        ["getView", { session: "vscode-1", width: narrow }],
        ["key", { session: "vscode-1", key: "up" }],
        ["key", { session: "vscode-1", key: "down" }],
      ],
    );
    const replies = new Map(
      framedMessages(`${log}.replies`)
        .filter((message) => "id" in message && !("method" in message))
        .map((message) => [message.id, message]),
    );
    const [, , upStep, downStep] = sinceInsert.map((message) => replies.get(message.id)?.result);
    /** The width of a Step's rules, its text cursor's byte and line. */
    const summary = (/** @type {any} */ step) => ({
      rule: step.view.lines[0].map((/** @type {{ text: string }} */ span) => span.text).join(""),
      byte: step.view.editor.cursor.byte,
      line: step.view.editor.cursor.line,
    });
    assert.deepEqual(summary(upStep), { rule: "─".repeat(narrow), byte: digits.length - inside, line: 0 });
    assert.deepEqual(summary(downStep), { rule: "─".repeat(narrow), byte: digits.length, line: 0 });
    // Up went to the visual line above as the panel draws it, in the same column.
    assert.deepEqual(afterUp, { line: atEnd.line - 1, column: atEnd.column });
  });
});
