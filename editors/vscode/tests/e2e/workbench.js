// @ts-check
/**
 * What the end-to-end tests of the workbench share beyond harness.js: VS Code started with both
 * extensions for one test, the question panel's flow and its keyboard, the screen lines of the
 * terminal look, the notifications, the results the fixture records, screenshots, settings
 * changed while VS Code runs, pastes, and the engine's request and reply logs.
 */
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const h = require("./harness.js");

const ASKD_BIN = process.env["ASKD_BIN"] ?? "";

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
 * Clicks the link `link` in the notification whose text is `text` (a waiting question's
 * Answer).
 *
 * @param {import("playwright-core").Page} page
 * @param {string} text
 * @param {string} link
 */
async function clickNotificationLink(page, text, link) {
  const toast = page.locator(".notifications-toasts .notification-list-item", {
    has: page.locator(".notification-list-item-message", { hasText: text }),
  });
  await toast.first().locator(".notification-list-item-message a", { hasText: link }).click();
}

/**
 * Waits until no notification with exactly `text` is shown.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} text
 */
async function waitForNoNotification(page, text) {
  /** @type {string[]} */
  let last = [];
  try {
    await h.waitFor(`the notification ${JSON.stringify(text)} to go`, async () => {
      last = await notifications(page);
      return !last.includes(text);
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

module.exports = {
  ASKD_BIN,
  FOCUS_KEY,
  withVsCode,
  openFlow,
  waitForKeyboard,
  screenLines,
  waitForLine,
  readResult,
  notifications,
  waitForNotification,
  clickNotificationButton,
  clickNotificationLink,
  waitForNoNotification,
  waitForPanelClosed,
  screenshot,
  applySettings,
  pasteInto,
  framedMessages,
};
