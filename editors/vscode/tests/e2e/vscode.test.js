// @ts-check
/**
 * End-to-end tests in a real VS Code (code-server 4.100.3) driven in headless Chromium: the
 * packaged extension and the packaged fixture extension are installed, flows are answered with
 * the keyboard inside the question panel's webview, and the exact results are read from what
 * the fixture records (`results/*.json` in the workspace), from the notifications, and, for a
 * resized panel, from what went between the extension and the engine (`engine-with-log.sh`).
 *
 * Needs ASKD_BIN (the engine) and what tests/run.sh installs and packages.
 */
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const { spawn } = require("node:child_process");
const path = require("node:path");
const { test } = require("node:test");
const h = require("./harness.js");

const ASKD_BIN = process.env["ASKD_BIN"] ?? "";

/** The fields every demo result shares: the payload's questions as the engine normalised them. */
const DEMO_QUESTIONS = [
  { id: "editor", label: "Editor", prompt: "Which editor do you use most?", type: "single" },
  { id: "languages", label: "Languages", prompt: "Which languages do you write this week?", type: "multi" },
  { id: "layout", label: "Layout", prompt: "Which window layout do you prefer?", type: "preview" },
];

/**
 * Starts VS Code with both extensions, opens the workbench, and hands the page to `body`;
 * everything is ended afterwards, whatever happens.
 *
 * @param {string} name
 * @param {{ settings?: object, files?: Record<string, string>, env?: Record<string, string> }} options
 * @param {(context: { page: import("playwright-core").Page, vs: Awaited<ReturnType<typeof h.startVsCode>> }) => Promise<void>} body
 */
async function withVsCode(name, options, body) {
  const vs = await h.startVsCode(name, {
    vsix: [h.VSIX.askd, h.VSIX.fixture],
    // The tests written for the terminal look keep it; those of the form look say so.
    settings: { "askd.path": ASKD_BIN, "askd.look": "terminal", ...(options.settings ?? {}) },
    files: options.files ?? {},
    env: options.env ?? {},
  });
  const browser = await h.launchBrowser();
  let page;
  try {
    page = await h.openWorkbench(browser, vs.url);
    await body({ page, vs });
  } catch (error) {
    if (page !== undefined) {
      await page.screenshot({ path: path.join(h.screenshots, `${name}-failure.png`) }).catch(() => undefined);
    }
    throw error;
  } finally {
    await browser.close();
    vs.stop();
  }
}

/**
 * The flow element of the open question panel, once it shows a screen and has the keyboard.
 * A question another extension asks opens without the keyboard: with `focus`, the test moves
 * the keyboard to it with the key a person uses (`askd.focusQuestion`).
 *
 * @param {import("playwright-core").Page} page
 * @param {{ focus?: boolean }} [options]
 */
async function openFlow(page, options = {}) {
  const flow = h.panelFrame(page).locator("#askd-flow");
  await flow.locator(".askd-screen .askd-line").first().waitFor({ timeout: 30000 });
  if (options.focus) await page.keyboard.press(FOCUS_KEY);
  await waitForKeyboard(flow);
  return flow;
}

/** The key that moves the keyboard to the question and back (`askd.focusQuestion`). */
const FOCUS_KEY = "Control+;";

/**
 * Waits until the flow has the keyboard: the panel's page has the focus and it is inside the
 * flow, which is when the renderer draws its cursor solid. VS Code hands a webview the focus a
 * moment after its panel comes to the front; a key pressed before then goes to the workbench.
 *
 * @param {import("playwright-core").Locator} flow
 */
async function waitForKeyboard(flow) {
  await h.waitFor(
    "the flow to have the keyboard",
    () => flow.evaluate((element) => element.ownerDocument.hasFocus() && element.matches(":focus-within")),
    15000,
  );
}

/**
 * The lines of the screen the panel shows, as text (trailing spaces kept).
 *
 * @param {import("playwright-core").Locator} flow
 * @returns {Promise<string[]>}
 */
function screenLines(flow) {
  return flow.locator(".askd-screen .askd-line").evaluateAll((lines) => lines.map((line) => line.textContent ?? ""));
}

/**
 * Waits until the screen has a line equal to `line` (trailing spaces ignored), or matching it
 * when it is a regular expression (trailing spaces ignored too).
 *
 * @param {import("playwright-core").Locator} flow
 * @param {string | RegExp} line
 */
async function waitForLine(flow, line) {
  /** @type {string[]} */
  let last = [];
  const matches = (/** @type {string} */ shown) =>
    typeof line === "string" ? shown.trimEnd() === line : line.test(shown.trimEnd());
  try {
    await h.waitFor(`the screen line ${String(line)}`, async () => {
      last = await screenLines(flow);
      return last.some(matches);
    }, 15000);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}; the screen was:\n${last.join("\n")}`);
  }
}

/**
 * Reads `results/<name>.json` of the workspace once the fixture has written it.
 *
 * @param {string} workspace
 * @param {string} name
 */
async function readResult(workspace, name) {
  const file = path.join(workspace, "results", `${name}.json`);
  await h.waitFor(`results/${name}.json`, () => fs.existsSync(file), 20000);
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/**
 * The texts of the notifications shown.
 *
 * @param {import("playwright-core").Page} page
 */
function notifications(page) {
  return page.locator(".notifications-toasts .notification-list-item-message").allTextContents();
}

/**
 * Waits until a notification with exactly `text` is shown.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} text
 */
async function waitForNotification(page, text) {
  /** @type {string[]} */
  let last = [];
  try {
    await h.waitFor(`the notification ${JSON.stringify(text)}`, async () => {
      last = await notifications(page);
      return last.includes(text);
    }, 15000);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}; shown: ${JSON.stringify(last)}`);
  }
}

/**
 * Clicks a button of the notification whose text is `text`.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} text
 * @param {string} button
 */
async function clickNotificationButton(page, text, button) {
  const toast = page.locator(".notifications-toasts .notification-list-item", {
    has: page.locator(".notification-list-item-message", { hasText: text }),
  });
  await toast.first().locator(".monaco-button", { hasText: button }).click();
}

/**
 * Waits until no question panel is open.
 *
 * @param {import("playwright-core").Page} page
 */
async function waitForPanelClosed(page) {
  await h.waitFor("the question panel to close", async () => (await page.locator("iframe.webview").count()) === 0, 15000);
}

/**
 * Takes a screenshot of the workbench into .test/screenshots/.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} name
 */
async function screenshot(page, name) {
  fs.mkdirSync(h.screenshots, { recursive: true });
  await page.screenshot({ path: path.join(h.screenshots, `${name}.png`) });
}

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

/**
 * Changes user settings while VS Code runs, through the fixture extension (code-server does not
 * pick up a settings.json rewritten on disk), and waits until they are applied.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} workspace
 * @param {Record<string, unknown>} settings
 */
async function applySettings(page, workspace, settings) {
  const applied = path.join(workspace, "results", "settings-applied.json");
  fs.rmSync(applied, { force: true });
  fs.writeFileSync(path.join(workspace, "fixture-settings.json"), JSON.stringify(settings));
  await h.runCommand(page, "askd fixture: Apply the settings of fixture-settings.json");
  await h.waitFor("the settings to apply", () => fs.existsSync(applied));
}

/**
 * Pastes `text` into the flow, as the browser does for Ctrl+V: a paste event with the text on
 * its clipboard data.
 *
 * @param {import("playwright-core").Locator} flow
 * @param {string} text
 */
async function pasteInto(flow, text) {
  await flow.evaluate((element, pasted) => {
    const data = new DataTransfer();
    data.setData("text/plain", pasted);
    const target = element.querySelector(".askd-input") ?? element;
    target.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

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
 * The JSON-RPC messages of a log that engine-with-log.sh wrote, in order: each one's
 * `Content-Length` header, then that many bytes of JSON.
 *
 * @param {string} file
 * @returns {any[]}
 */
function framedMessages(file) {
  const bytes = fs.readFileSync(file);
  const messages = [];
  let at = 0;
  while (at < bytes.length) {
    const headerEnd = bytes.indexOf("\r\n\r\n", at);
    if (headerEnd < 0) break;
    const length = /Content-Length: *(\d+)/i.exec(bytes.subarray(at, headerEnd).toString("latin1"));
    if (length === null) throw new Error(`a message without Content-Length at byte ${at} of ${file}`);
    const bodyStart = headerEnd + 4;
    const bodyEnd = bodyStart + Number(length[1]);
    if (bodyEnd > bytes.length) break;
    messages.push(JSON.parse(bytes.subarray(bodyStart, bodyEnd).toString("utf8")));
    at = bodyEnd;
  }
  return messages;
}

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

test("askd: Ask from File… asks a payload chosen from the workspace", async () => {
  const files = {
    "payloads/proceed.json": JSON.stringify({
      title: "From a file",
      questions: [{ id: "go", prompt: "Go ahead?", options: [{ value: "yes", label: "Yes" }, { value: "no", label: "No" }] }],
    }),
    "payloads/broken.json": "{ not json",
  };
  await withVsCode("file", { files }, async ({ page, vs }) => {
    await h.runCommand(page, "askd: Ask from File…");
    const picker = page.locator(".quick-input-widget");
    await picker.locator(".quick-input-list .monaco-list-row", { hasText: "payloads/proceed.json" }).waitFor();
    await page.keyboard.type("proceed");
    await picker.locator(".quick-input-list .monaco-list-row", { hasText: "payloads/broken.json" }).waitFor({ state: "detached" });
    await page.keyboard.press("Enter");
    const flow = await openFlow(page);
    await waitForLine(flow, " Go ahead?");
    await page.keyboard.press("1");
    await waitForLine(flow, " ❯ 1. Submit");
    await page.keyboard.press("Enter");
    const finished = await readResult(vs.workspace, "finished-1");
    assert.deepEqual(finished.result, {
      content: [{ type: "text", text: "Q1: Yes" }],
      details: {
        title: "From a file",
        cancelled: false,
        mode: "submit",
        questions: [{ id: "go", label: "Q1", prompt: "Go ahead?", type: "single" }],
        answers: { go: { values: ["yes"], labels: ["Yes"], indices: [1] } },
      },
    });
    assert.equal(finished.source, "file");
    await waitForNotification(page, "askd: Q1: Yes");
    // Show Result opens the output channel, scrolled to its end: the last lines of the result JSON.
    await page.locator(".notifications-toasts .monaco-button", { hasText: "Show Result" }).click();
    const shown = await h.waitFor("the output channel", async () => {
      const rows = await page.locator(".part.panel .view-lines .view-line").evaluateAll((elements) =>
        elements
          .map((row) => ({ top: parseFloat(/** @type {HTMLElement} */ (row).style.top), text: (row.textContent ?? "").replace(/\u00a0/g, " ") }))
          .sort((a, b) => a.top - b.top)
          .map((row) => row.text),
      );
      while (rows.length > 0 && rows[rows.length - 1] === "") rows.pop();
      return rows.length >= 4 ? rows : undefined;
    });
    const written = ["file: session vscode-1 ended (submit)", ...JSON.stringify(finished.result, null, 2).split("\n")];
    assert.deepEqual(shown, written.slice(written.length - shown.length));

    await h.runCommand(page, "askd: Ask from File…");
    await picker.locator(".quick-input-list .monaco-list-row", { hasText: "payloads/broken.json" }).waitFor();
    await page.keyboard.type("broken");
    await picker.locator(".quick-input-list .monaco-list-row", { hasText: "payloads/proceed.json" }).waitFor({ state: "detached" });
    await page.keyboard.press("Enter");
    await waitForNotification(
      page,
      "askd: payloads/broken.json is not valid JSON: Expected property name or '}' in JSON at position 2",
    );
  });
});

test("a missing engine and a dying engine are clear errors, and the next ask starts the engine again", async () => {
  const missing = path.join(h.testRoot, "no-such-folder", "askd");
  const wrapper = path.join(__dirname, "engine-with-pid.sh");
  const pidFile = path.join(h.testRoot, "run", "engine.pid");
  await withVsCode(
    "engine",
    { settings: { "askd.path": missing }, env: { ASKD_TEST_ENGINE: ASKD_BIN, ASKD_TEST_PID_FILE: pidFile } },
    async ({ page, vs }) => {
      await h.runCommand(page, "askd: Demo");
      const notFound = `askd: the engine "${missing}" set in askd.path was not found or is not executable.`;
      await waitForNotification(page, notFound);
      assert.equal(await page.locator("iframe.webview").count(), 0);
      // Its "Open Settings" opens the settings editor at the setting to fix.
      await clickNotificationButton(page, notFound, "Open Settings");
      const setting = page.locator(".settings-editor .setting-item-contents", { hasText: "askd engine" }).first();
      await setting.waitFor({ timeout: 15000 });
      assert.match((await setting.locator(".setting-item-label").innerText()).trim(), /^Path$/);
      assert.match((await setting.locator(".setting-item-category").innerText()).trim(), /^Askd:?/i);
      await screenshot(page, "open-settings");
      await h.runCommand(page, "View: Close Editor");

      // A working engine (through a wrapper that records its process id), killed mid-flow.
      await applySettings(page, vs.workspace, { "askd.path": wrapper });
      fs.rmSync(pidFile, { force: true });
      await h.runCommand(page, "askd: Demo");
      let flow = await openFlow(page);
      await waitForLine(flow, " ❯ 1. ○ VS Code (recommended)");
      const firstPid = Number(fs.readFileSync(pidFile, "utf8"));
      process.kill(firstPid, "SIGKILL");
      await waitForPanelClosed(page);
      await waitForNotification(
        page,
        `askd: the engine "${wrapper}" was killed by SIGKILL. Its last stderr lines: test engine: starting ${ASKD_BIN}`,
      );

      // The next ask starts a new engine.
      fs.rmSync(pidFile, { force: true });
      await h.runCommand(page, "askd: Demo");
      flow = await openFlow(page);
      await waitForLine(flow, " ❯ 1. ○ VS Code (recommended)");
      const secondPid = Number(fs.readFileSync(pidFile, "utf8"));
      assert.notEqual(secondPid, firstPid);
      await page.keyboard.press("1");
      await waitForLine(flow, "  ■ Editor  [□ Languages]  □ Layout   ✓ Submit");
      await page.keyboard.press("Control+c");
      const finished = await readResult(vs.workspace, "finished-1");
      assert.equal(finished.outcome, "cancelled");
      assert.deepEqual(finished.result.details.answers, {
        editor: { values: ["vscode"], labels: ["VS Code (Recommended)"], indices: [1] },
      });
    },
  );
});

/** The question the focus test's agent asks while the person types. */
const DEPLOY = {
  title: "Deploy",
  questions: [
    {
      id: "deploy",
      label: "Deploy",
      prompt: "Deploy to production now?",
      options: [
        { value: "yes", label: "Yes" },
        { value: "no", label: "No" },
      ],
    },
  ],
};

/**
 * Opens a file of the workspace in the editor through Quick Open and waits until it has the
 * keyboard.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} name
 */
async function openFile(page, name) {
  const input = page.locator(".quick-input-widget input");
  await page.keyboard.press("Control+p");
  await input.waitFor({ timeout: 10000 });
  await input.fill(name);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor();
  await page.keyboard.press("Enter");
  await page.locator(".tab.active", { hasText: name }).waitFor();
  await waitForEditorKeyboard(page);
}

/**
 * Waits until a text editor of the workbench has the keyboard.
 *
 * @param {import("playwright-core").Page} page
 */
async function waitForEditorKeyboard(page) {
  await h.waitFor("a text editor to have the keyboard", () =>
    page.evaluate(() => document.activeElement?.closest(".monaco-editor") != null && document.hasFocus()),
  );
}

/**
 * The status-bar item that counts the questions waiting, as shown ("" while hidden).
 *
 * @param {import("playwright-core").Page} page
 */
async function waitingItem(page) {
  const item = page.locator("[id='askd.askd-vscode.askd.waiting']");
  if ((await item.count()) === 0 || !(await item.isVisible())) return "";
  return (await item.innerText()).trim();
}

/**
 * The rows of the form look: each one's label and whether it is checked.
 *
 * @param {import("playwright-core").Locator} flow
 */
function formRows(flow) {
  return flow.locator("[role=radio], [role=checkbox]").evaluateAll((rows) =>
    rows.map((row) => ({
      label: row.querySelector(".askd-row-label, .askd-label")?.firstElementChild?.textContent ?? row.textContent?.trim(),
      checked: row.getAttribute("aria-checked") === "true",
    })),
  );
}

test("a question that arrives while the person types takes nothing; the focus key moves to it and back; IME shows; clicks go through activate; focus returns where it was", async () => {
  const wrapper = path.join(__dirname, "engine-with-log.sh");
  const log = path.join(h.testRoot, "run", "focus-engine");
  await withVsCode(
    "focus",
    {
      settings: { "askd.path": wrapper, "askd.look": "form", "workbench.colorTheme": "Default Dark Modern" },
      files: { "notes.txt": "" },
      env: { ASKD_TEST_ENGINE: ASKD_BIN, ASKD_TEST_LOG: log },
    },
    async ({ page, vs }) => {
      await openFile(page, "notes.txt");
      await page.keyboard.type("Typing along. ");

      // The question arrives while the person types: keys that would answer it if it had the
      // keyboard (digits, Enter) keep going into the file.
      const typing = page.keyboard.type("Still typing 1 2 ", { delay: 40 });
      fs.writeFileSync(path.join(vs.workspace, "ask-deploy.json"), JSON.stringify({ payload: DEPLOY, options: { session: "deploy" } }));
      await typing;
      const flow = h.panelFrame(page).locator("#askd-flow");
      await flow.locator("[role=radio]").first().waitFor({ timeout: 30000 });
      await page.keyboard.type("1\n2\n");
      await page.keyboard.press("Enter");
      await waitForNotification(page, "askd: a question is waiting: Deploy");
      assert.equal(await waitingItem(page), "askd: 1 waiting");
      await waitForEditorKeyboard(page);
      assert.equal(await flow.evaluate((element) => element.ownerDocument.hasFocus()), false);
      assert.deepEqual(await formRows(flow), [
        { label: "Yes", checked: false },
        { label: "No", checked: false },
        { label: "Type your own", checked: false },
      ]);
      await page.keyboard.press("Control+s");
      await h.waitFor("notes.txt to be saved", () =>
        fs.readFileSync(path.join(vs.workspace, "notes.txt"), "utf8") === "Typing along. Still typing 1 2 1\n2\n\n",
      );
      await screenshot(page, "focus-arrived");

      // The key moves the keyboard to the question, and back to the file where it was.
      await page.keyboard.press(FOCUS_KEY);
      await waitForKeyboard(flow);
      await page.keyboard.press(FOCUS_KEY);
      await waitForEditorKeyboard(page);
      await page.keyboard.type("Back.");
      await page.keyboard.press(FOCUS_KEY);
      await waitForKeyboard(flow);

      // A note composed with an input method: the form's text area shows the composition.
      await page.keyboard.press("Shift+N");
      const textarea = flow.locator("textarea.askd-editor-text");
      await textarea.waitFor({ state: "visible" });
      await h.waitFor("the note's text area to have the keyboard", () =>
        textarea.evaluate((element) => element.ownerDocument.activeElement === element),
      );
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Input.imeSetComposition", { text: "한", selectionStart: 1, selectionEnd: 1 });
      await cdp.send("Input.imeSetComposition", { text: "한글", selectionStart: 2, selectionEnd: 2 });
      assert.equal(await textarea.inputValue(), "한글");
      await screenshot(page, "focus-ime-composing");
      await cdp.send("Input.insertText", { text: "한글" });
      assert.equal(await textarea.inputValue(), "한글");
      await page.keyboard.press("Enter");
      await textarea.waitFor({ state: "hidden" });

      // A click on a row goes to askd as `activate` with the row's target; an askd without
      // `activate` answers -32601 and the form says to use the keys instead.
      const initialized = framedMessages(`${log}.replies`).find((message) => message.result?.serverInfo !== undefined);
      const hasActivate = initialized.result.methods.includes("activate");
      await flow.locator("[role=radio]", { hasText: "Yes" }).click();
      await h.waitFor("the activate request", () =>
        framedMessages(`${log}.requests`).some(
          (message) => message.method === "activate" && JSON.stringify(message.params) === JSON.stringify({ session: "deploy", target: { row: 1 } }),
        ),
      );
      if (hasActivate) {
        // Choosing a single-choice row confirms it, as Enter does: on to the review.
        await flow.locator(".askd-review").waitFor();
      } else {
        await flow.getByText("This askd does not take clicks or taps: answer with the keys shown below.").waitFor();
        await page.keyboard.press("1");
        await flow.locator(".askd-review").waitFor();
      }
      await screenshot(page, "focus-review");
      await page.keyboard.press("1");
      assert.deepEqual(await readResult(vs.workspace, "deploy"), {
        result: {
          content: [{ type: "text", text: "Deploy: Yes\nDeploy note: 한글" }],
          details: {
            title: "Deploy",
            cancelled: false,
            mode: "submit",
            questions: [{ id: "deploy", label: "Deploy", prompt: "Deploy to production now?", type: "single" }],
            answers: { deploy: { values: ["yes"], labels: ["Yes"], indices: [1], note: "한글" } },
          },
        },
      });
      await waitForPanelClosed(page);

      // The flow is over: the keyboard is back in the file, where the person left it.
      await waitForEditorKeyboard(page);
      await page.keyboard.type("!");
      await page.keyboard.press("Control+s");
      await h.waitFor("notes.txt to be saved again", () =>
        fs.readFileSync(path.join(vs.workspace, "notes.txt"), "utf8") === "Typing along. Still typing 1 2 1\n2\n\nBack.!",
      );
      assert.equal(await waitingItem(page), "");
    },
  );
});

/**
 * A client of the hub over `askd hub --pipe`, one JSON-RPC message per line: an agent's glue.
 *
 * @param {string} askd
 * @param {NodeJS.ProcessEnv} env
 */
function hubClient(askd, env) {
  const child = spawn(askd, ["hub", "--pipe"], { env, stdio: ["pipe", "pipe", "inherit"] });
  /** @type {Map<number, (message: any) => void>} */
  const waiting = new Map();
  let id = 0;
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() === "") continue;
      const message = JSON.parse(line);
      if (typeof message.id === "number") waiting.get(message.id)?.(message);
    }
  });
  return {
    /**
     * Sends a request; resolves with the whole response (`result` or `error`).
     *
     * @param {string} method
     * @param {object} params
     * @returns {Promise<any>}
     */
    request(method, params) {
      id += 1;
      const sent = id;
      return new Promise((resolve) => {
        waiting.set(sent, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: sent, method, params })}\n`);
      });
    },
    close() {
      child.stdin.end();
    },
  };
}

/** The pi result of a one-question flow answered with one option. */
function answered(/** @type {string} */ title, /** @type {any} */ question, /** @type {any} */ option, /** @type {number} */ index) {
  return {
    content: [{ type: "text", text: `${question.label}: ${option.label}` }],
    details: {
      title,
      cancelled: false,
      mode: "submit",
      questions: [{ id: question.id, label: question.label, prompt: question.prompt, type: "single" }],
      answers: { [question.id]: { values: [option.value], labels: [option.label], indices: [index] } },
    },
  };
}

test("attached to the hub: flows another client opens there are counted, announced, answered through Answer one after another, and gone when answered elsewhere", async () => {
  const release = {
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
    ],
  };
  await withVsCode("attach", { settings: { "askd.look": "form", "workbench.colorTheme": "Default Light Modern" } }, async ({ page, vs }) => {
    const hub = spawn(ASKD_BIN, ["hub"], { env: vs.env, stdio: "ignore" });
    const agent = hubClient(ASKD_BIN, vs.env);
    try {
      await agent.request("initialize", { clientInfo: { name: "e2e-agent" } });
      // The extension finds the hub by its discovery file and attaches as a person's client.
      await h.waitFor("the extension to attach", async () => (await agent.request("hub/status", {})).result?.attached === 1, 30000);
      assert.equal(await waitingItem(page), "");

      const first = agent.request("ask", {
        payload: release,
        session: "agent-release",
        asker: { name: "claude-code", folder: "/home/dev/work/shop" },
      });
      await waitForNotification(page, "askd: a question is waiting: Release — claude-code in …/work/shop");
      const second = agent.request("ask", { payload: { ...release, title: "Hotfix" }, session: "agent-hotfix", asker: { name: "codex" } });
      await waitForNotification(page, "askd: a question is waiting: Hotfix — codex (2 waiting)");
      await h.waitFor("two questions counted", async () => (await waitingItem(page)) === "askd: 2 waiting");
      // Nothing opened by itself.
      assert.equal(await page.locator("iframe.webview").count(), 0);
      await screenshot(page, "attach-waiting");

      // "Answer" opens the flow, with the keyboard: the person asked for it.
      await clickNotificationButton(page, "askd: a question is waiting: Release", "Answer");
      let flow = h.panelFrame(page).locator("#askd-flow");
      await flow.locator("[role=radio]").first().waitFor({ timeout: 30000 });
      await waitForKeyboard(flow);
      assert.equal(await flow.locator(".askd-form-title").innerText(), "Release");
      await screenshot(page, "attach-light-question");
      await page.keyboard.press("2");
      await flow.locator(".askd-review").waitFor();
      await page.keyboard.press("1");
      const firstAnswer = await first;
      assert.deepEqual(firstAnswer.result, answered("Release", release.questions[0], release.questions[0].options[1], 2));
      await waitForPanelClosed(page);

      // The next one waits: a notification says so, and its Answer opens it.
      await waitForNotification(page, "askd: 1 more question is waiting");
      assert.equal(await waitingItem(page), "askd: 1 waiting");
      await clickNotificationButton(page, "askd: 1 more question is waiting", "Answer");
      flow = h.panelFrame(page).locator("#askd-flow");
      await h.waitFor("the Hotfix flow", async () => (await flow.locator(".askd-form-title").innerText()) === "Hotfix");
      await waitForKeyboard(flow);
      await page.keyboard.press("1");
      await flow.locator(".askd-review").waitFor();
      await page.keyboard.press("1");
      assert.deepEqual((await second).result, answered("Hotfix", release.questions[0], release.questions[0].options[0], 1));
      await waitForPanelClosed(page);
      await h.waitFor("nothing counted", async () => (await waitingItem(page)) === "");

      // A flow answered elsewhere (its asker withdraws it) leaves the count.
      const third = agent.request("ask", { payload: { ...release, title: "Later" }, session: "agent-later" });
      await h.waitFor("one question counted", async () => (await waitingItem(page)) === "askd: 1 waiting");
      await agent.request("cancel", { session: "agent-later", reason: "abort" });
      await third;
      await h.waitFor("nothing counted", async () => (await waitingItem(page)) === "");
    } finally {
      agent.close();
      hub.kill("SIGTERM");
    }
  });
});
