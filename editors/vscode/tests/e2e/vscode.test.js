// @ts-check
/**
 * End-to-end tests in a real VS Code (code-server 4.100.3) driven in headless Chromium: the
 * packaged extension and the packaged fixture extension are installed, flows are answered with
 * the keyboard inside the question panel's webview, and the exact results are read from what
 * the fixture records (`results/*.json` in the workspace) and from the notifications.
 *
 * Needs ASKD_BIN (the engine) and what tests/run.sh installs and packages.
 */
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
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
    settings: { "askd.path": ASKD_BIN, ...(options.settings ?? {}) },
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
 * The flow element of the open question panel, once it shows a screen.
 *
 * @param {import("playwright-core").Page} page
 */
async function openFlow(page) {
  const flow = h.panelFrame(page).locator("#askd-flow");
  await flow.locator(".askd-screen .askd-line").first().waitFor({ timeout: 30000 });
  return flow;
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
        call: "ask_user 3 questions (Editor, Languages, Layout)",
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
