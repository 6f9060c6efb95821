// The whole flow of tests/fixtures/flow.json answered by keyboard in a ready page, checked
// screen by screen against `askd play`. It needs only a page that shows a fresh session of that
// payload in a `.askd-flow` element (mountFlow's), so it serves the page of the bridge harness
// and, later, the page askd serves itself.

import assert from "node:assert/strict";
import { join } from "node:path";
import { play, playSteps } from "./engine.mjs";
import { WEB_ROOT } from "./browser.mjs";

/** The payload `runFlow` answers. */
export const FLOW_PAYLOAD = join(WEB_ROOT, "tests", "fixtures", "flow.json");

/** The result `runFlow` leads to: the `ask_user` tool output, exactly. */
export const FLOW_RESULT = {
  content: [
    {
      type: "text",
      text:
        "Scope: Minor\nScope / Minor note: Only if the docs are ready\n" +
        "Checks: Unit tests, Docs build, café ünï\n名前: 日本語 テスト仮名",
    },
  ],
  details: {
    title: "Release plan",
    cancelled: false,
    mode: "submit",
    questions: [
      {
        id: "scope",
        label: "Scope",
        prompt: "How much should the next release cover?",
        type: "single",
      },
      {
        id: "checks",
        label: "Checks",
        prompt: "Which checks must pass before it ships?",
        type: "multi",
      },
      { id: "name", label: "名前", prompt: "What should the release be called?", type: "single" },
    ],
    answers: {
      scope: {
        values: ["minor"],
        labels: ["Minor"],
        indices: [2],
        optionNotes: { minor: "Only if the docs are ready" },
      },
      checks: {
        values: ["unit", "docs", "café ünï"],
        labels: ["Unit tests", "Docs build", "café ünï"],
        indices: [1, 3],
        customText: "café ünï",
      },
      name: {
        values: ["日本語 テスト仮名"],
        labels: ["日本語 テスト仮名"],
        indices: [],
        customText: "日本語 テスト仮名",
      },
    },
  },
};

/**
 * The lines the page's flow shows, each as its spans `{ text, style }` (the style read back
 * from the span's `askd-<style>` class).
 *
 * @param {import("playwright-core").Page} page
 * @returns {Promise<Array<Array<{ text: string, style: string }>>>}
 */
export function pageSpans(page) {
  return page.$$eval(".askd-flow .askd-screen > .askd-line", (lines) =>
    lines.map((line) =>
      [...line.children].map((span) => ({
        text: span.textContent,
        style: span.className.replace(/^askd-/, ""),
      })),
    ),
  );
}

/**
 * Waits until the page's flow shows the lines of text given (each with its trailing spaces
 * removed, as `askd play` prints them), and fails with the difference if it does not within a
 * few seconds.
 *
 * @param {import("playwright-core").Page} page
 * @param {string[]} expected
 * @param {string} what what led there, for the failure message
 */
export async function waitForScreen(page, expected, what) {
  const matched = await page
    .waitForFunction(
      (lines) => {
        const shown = [...document.querySelectorAll(".askd-flow .askd-screen > .askd-line")].map(
          (line) => line.textContent.trimEnd(),
        );
        return shown.length === lines.length && shown.every((line, i) => line === lines[i]);
      },
      expected,
      { timeout: 5000, polling: 20 },
    )
    .then(
      () => true,
      () => false,
    );
  if (!matched) {
    const shown = await page.$$eval(".askd-flow .askd-screen > .askd-line", (lines) =>
      lines.map((line) => line.textContent.trimEnd()),
    );
    assert.deepEqual(shown, expected, `the screen after ${what}`);
  }
}

/**
 * Checks that the page shows what `askd play` shows after a key script, at the page's columns:
 * the text of every line (as play prints it) and then every span, text and style, exactly (as
 * play's JSON Steps carry them).
 *
 * @param {import("playwright-core").Page} page
 * @param {string} script the key script so far, in Vim notation
 * @param {number} columns
 */
export async function checkAgainstPlay(page, script, columns) {
  const what = script === "" ? "opening" : `keys ${JSON.stringify(script)}`;
  await waitForScreen(page, play(FLOW_PAYLOAD, script, columns).screens.at(-1), what);
  const steps = playSteps(FLOW_PAYLOAD, script, columns);
  assert.deepEqual(await pageSpans(page), steps.at(-1).view.lines, `the spans after ${what}`);
}

/**
 * Puts text on the clipboard and pastes it with Ctrl+V, as a person would; where the page may
 * not use the clipboard (not a secure context), dispatches the paste event a real paste fires.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} text
 */
export async function paste(page, text) {
  const origin = new URL(page.url()).origin;
  const real = await page.evaluate(() => window.isSecureContext && !!navigator.clipboard);
  if (real) {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    await page.evaluate((value) => navigator.clipboard.writeText(value), text);
    await page.keyboard.press("Control+V");
    return;
  }
  await page.evaluate((value) => {
    const data = new DataTransfer();
    data.setData("text/plain", value);
    const event = new ClipboardEvent("paste", {
      clipboardData: data,
      bubbles: true,
      cancelable: true,
    });
    document.activeElement.dispatchEvent(event);
  }, text);
}

/**
 * Presses the key of a character that a US layout lacks, as a layout that has it sends it: a
 * keydown whose `key` is the character, then its keyup.
 *
 * @param {import("playwright-core").CDPSession} cdp
 * @param {string} char
 */
export async function pressCharacter(cdp, char) {
  await cdp.send("Input.dispatchKeyEvent", {
    type: "keyDown",
    key: char,
    text: char,
    unmodifiedText: char,
  });
  await cdp.send("Input.dispatchKeyEvent", { type: "keyUp", key: char });
}

/**
 * Answers the flow of {@link FLOW_PAYLOAD} by keyboard in a page that shows a fresh session of
 * it: tabs back and forth, an option note typed, a single and a multi question, "Type your
 * own" with non-ASCII text typed by key, typed without key events, pasted with Ctrl+V and
 * composed by an input method (CDP `Input.imeSetComposition`, then `Input.insertText`), the
 * review, and Submit. After every action the page must show exactly what `askd play` shows for
 * the same keys at the page's columns; at the end it must show the result JSON.
 *
 * @param {import("playwright-core").Page} page
 * @returns {Promise<{ columns: number, script: string, result: object }>}
 */
export async function runFlow(page) {
  const flow = page.locator(".askd-flow");
  const columns = Number(await flow.getAttribute("data-columns"));
  assert.ok(columns >= 20, `the flow's columns (${columns})`);
  await flow.focus();
  let script = "";
  await checkAgainstPlay(page, script, columns);

  /**
   * Does something in the page, then checks the page against play after the same keys.
   *
   * @param {string} keys what play is given for it
   * @param {() => Promise<void>} action
   */
  async function step(keys, action) {
    await action();
    script += keys;
    await checkAgainstPlay(page, script, columns);
  }
  const press = (key, keys) => step(keys, () => page.keyboard.press(key));
  const cdp = await page.context().newCDPSession(page);

  await press("Tab", "<Tab>");
  await press("Shift+Tab", "<S-Tab>");
  await press("ArrowDown", "<Down>");
  await press("n", "n");
  await step("Only if the docs are ready", () =>
    page.keyboard.type("Only if the docs are ready"),
  );
  await press("Enter", "<CR>");
  await press("2", "2");
  await press("Space", "<Space>");
  await press("ArrowDown", "<Down>");
  await press("ArrowDown", "<Down>");
  await press("Space", "<Space>");
  await press("ArrowDown", "<Down>");
  // Non-ASCII text: "é" and "ü" as key presses of their own, "ï" as text without a key event.
  await step("café ünï", async () => {
    await page.keyboard.type("caf");
    await pressCharacter(cdp, "é");
    await page.keyboard.type(" ");
    await pressCharacter(cdp, "ü");
    await page.keyboard.type("n");
    await page.keyboard.insertText("ï");
  });
  await press("Enter", "<CR>");
  await press("2", "2");
  await step("日本語 テスト", () => paste(page, "日本語 テスト"));

  // While the input method composes, nothing reaches askd.
  await cdp.send("Input.imeSetComposition", { text: "かな", selectionStart: 2, selectionEnd: 2 });
  await checkAgainstPlay(page, script, columns);
  await step("仮名", () => cdp.send("Input.insertText", { text: "仮名" }));
  await cdp.detach();

  await press("Enter", "<CR>");
  await press("ArrowDown", "<Down>");
  await press("ArrowUp", "<Up>");
  await press("Enter", "<CR>");

  await page.waitForSelector('.askd-flow[data-status="done"] .askd-result-json', {
    state: "attached",
  });
  const result = JSON.parse(await page.locator(".askd-result-json").textContent());
  assert.deepEqual(result, FLOW_RESULT, "the result the page shows");
  assert.deepEqual(play(FLOW_PAYLOAD, script, columns).result, FLOW_RESULT, "play's result");
  return { columns, script, result };
}
