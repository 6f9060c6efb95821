// @ts-check
/**
 * End-to-end tests in a real VS Code (code-server 4.100.3) driven in headless Chromium: the
 * packaged extension and the packaged fixture extension are installed, flows are answered with
 * the keyboard inside the question panel's webview, and the exact results are read from what
 * the fixture records (`results/*.json` in the workspace), from the notifications, and, for a
 * resized panel, from what went between the extension and the engine (`engine-with-log.sh`).
 * Each file of tests/e2e/ runs within the runner's time limit on its own.
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
