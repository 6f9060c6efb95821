// The form look in a ready page: what it shows read back as a digest (tabs, prompt, rows with
// their states, the editor's text, the review's actions, where the keyboard is) and compared
// with the digest of the view `askd play` answers for the same keys; the whole flow of
// tests/fixtures/flow.json answered by keyboard; and axe-core's checks.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { playSteps } from "./engine.mjs";
import { FLOW_PAYLOAD, FLOW_RESULT, paste, pressCharacter } from "./flow.mjs";

/**
 * What a view says a form must show: the tabs (label, selected), the prompt, the rows (label,
 * checked, active), the open editor's text, the review's actions (label, active), the status,
 * and where the keyboard goes (the active row, the editor or the active action).
 *
 * @param {any} view
 */
export function viewDigest(view) {
  const question = view.question;
  let focus = null;
  if (view.status === "open") {
    if (view.editor != null) focus = "editor";
    else if (view.review != null) focus = `action:${view.review.actions.find((a) => a.active).label}`;
    else if (question != null) focus = `row:${question.rows.find((r) => r.active).label}`;
  }
  return {
    status: view.status,
    tabs: view.tabs.map((tab) => [tab.label, tab.active]),
    prompt: question?.prompt ?? null,
    rows: question ? question.rows.map((row) => [row.label, row.selected, row.active]) : null,
    editor: view.editor ? view.editor.text : null,
    actions: view.review ? view.review.actions.map((action) => [action.label, action.active]) : null,
    focus,
  };
}

/**
 * The digest of what the page's form shows (see {@link viewDigest}).
 *
 * @param {import("playwright-core").Page} page
 */
export function pageDigest(page) {
  return page.evaluate(() => {
    const flow = document.querySelector(".askd-flow");
    const shown = (element) => element !== null && element.offsetParent !== null;
    const question = flow.querySelector(".askd-question");
    const editor = flow.querySelector(".askd-editor");
    const review = flow.querySelector(".askd-review");
    const active = document.activeElement;
    let focus = null;
    if (flow.dataset.status === "open") {
      if (active?.classList.contains("askd-editor-text")) focus = "editor";
      else if (active?.classList.contains("askd-action")) focus = `action:${active.textContent}`;
      else if (active?.classList.contains("askd-row")) {
        focus = `row:${active.querySelector(".askd-row-name").textContent}`;
      } else focus = `other:${active?.tagName}.${active?.className}`;
    }
    return {
      status: flow.dataset.status,
      tabs: [...flow.querySelectorAll(".askd-tab")].map((tab) => [
        tab.querySelector(".askd-tab-label").textContent,
        tab.getAttribute("aria-selected") === "true",
      ]),
      prompt: shown(question) ? question.querySelector(".askd-prompt").textContent : null,
      rows: shown(question)
        ? [...question.querySelectorAll(".askd-row")].map((row) => [
            row.querySelector(".askd-row-name").textContent,
            row.getAttribute("aria-checked") === "true",
            row.classList.contains("askd-row-active"),
          ])
        : null,
      editor: shown(editor) ? editor.querySelector("textarea").value : null,
      actions: shown(review)
        ? [...review.querySelectorAll(".askd-action")].map((action) => [
            action.textContent,
            action.classList.contains("askd-action-active"),
          ])
        : null,
      focus,
    };
  });
}

/**
 * Waits until the page's form shows a view's digest, and fails with the difference if it does
 * not within a few seconds.
 *
 * @param {import("playwright-core").Page} page
 * @param {ReturnType<typeof viewDigest>} expected
 * @param {string} what what led there, for the failure message
 * @param {{ ignoreFocus?: boolean }} [options] `ignoreFocus`: where the keyboard is does not
 *   matter (after a click, it may rest where the pointer was)
 */
export async function waitForDigest(page, expected, what, options = {}) {
  const deadline = Date.now() + 5000;
  const read = async () => {
    const digest = await pageDigest(page);
    if (options.ignoreFocus) digest.focus = expected.focus;
    return digest;
  };
  let shown = await read();
  while (Date.now() < deadline) {
    try {
      assert.deepEqual(shown, expected);
      return;
    } catch {
      await page.waitForTimeout(20);
      shown = await read();
    }
  }
  assert.deepEqual(shown, expected, `the form after ${what}`);
}

/**
 * Checks that the page's form shows what `askd play`'s view shows after a key script.
 *
 * @param {import("playwright-core").Page} page
 * @param {string} script the key script so far, in Vim notation
 * @param {string} [payloadPath] the payload played (the flow fixture unless given)
 * @param {{ ignoreFocus?: boolean }} [options] as {@link waitForDigest} takes them
 */
export async function checkFormAgainstPlay(page, script, payloadPath = FLOW_PAYLOAD, options = {}) {
  const view = playSteps(payloadPath, script, 80).at(-1).view;
  const what = script === "" ? "opening" : `keys ${JSON.stringify(script)}`;
  await waitForDigest(page, viewDigest(view), what, options);
}

/**
 * Answers the flow of {@link FLOW_PAYLOAD} by keyboard in a page that shows a fresh session of it
 * in the form look, with the keys of `runFlow` (flow.mjs): tabs, an option note typed, a single
 * and a multi question, "Type your own" with non-ASCII text typed by key, typed without key
 * events, pasted with Ctrl+V and composed by an input method, the review and Submit. Text goes
 * into the form's text area, where the browser edits it. After every action the form must show
 * what `askd play`'s view shows for the same keys; at the end, the result.
 *
 * @param {import("playwright-core").Page} page
 * @returns {Promise<{ script: string, result: object, composing: string }>}
 */
export async function runFormFlow(page) {
  let script = "";
  await checkFormAgainstPlay(page, script);
  const step = async (keys, action) => {
    await action();
    script += keys;
    await checkFormAgainstPlay(page, script);
  };
  const press = (key, keys) => step(keys, () => page.keyboard.press(key));
  const cdp = await page.context().newCDPSession(page);

  await press("Tab", "<Tab>");
  await press("Shift+Tab", "<S-Tab>");
  await press("ArrowDown", "<Down>");
  await press("n", "n");
  await step("Only if the docs are ready", () => page.keyboard.type("Only if the docs are ready"));
  await press("Enter", "<CR>");
  await press("2", "2");
  await press("Space", "<Space>");
  await press("ArrowDown", "<Down>");
  await press("ArrowDown", "<Down>");
  await press("Space", "<Space>");
  await press("ArrowDown", "<Down>");
  // The first character on "Type your own" opens its editor, which then has the keyboard.
  await press("c", "c");
  await step("afé ünï", async () => {
    await page.keyboard.type("af");
    await pressCharacter(cdp, "é");
    await page.keyboard.type(" ");
    await pressCharacter(cdp, "ü");
    await page.keyboard.type("n");
    await page.keyboard.insertText("ï");
  });
  await press("Enter", "<CR>");
  await press("2", "2");
  await step("日本語 テスト", () => paste(page, "日本語 テスト"));

  // An input method's composition shows in the text area, where it is typed.
  await cdp.send("Input.imeSetComposition", { text: "かな", selectionStart: 2, selectionEnd: 2 });
  const composing = await page.locator(".askd-editor-text").inputValue();
  await step("仮名", () => cdp.send("Input.insertText", { text: "仮名" }));
  await cdp.detach();

  await press("Enter", "<CR>");
  await press("ArrowDown", "<Down>");
  await press("ArrowUp", "<Up>");
  await press("Enter", "<CR>");
  await page.waitForSelector('.askd-flow[data-status="done"] .askd-result-json', { state: "attached" });
  const result = JSON.parse(await page.locator(".askd-result-json").textContent());
  assert.deepEqual(result, FLOW_RESULT, "the result the page shows");
  return { script, result, composing };
}

const require = createRequire(import.meta.url);
/** axe-core's script, evaluated in the page (a page's Content-Security-Policy does not apply). */
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/**
 * Runs axe-core on the page against WCAG 2.0, 2.1 and 2.2, levels A and AA, and answers each
 * violation as `rule: target (summary)`.
 *
 * @param {import("playwright-core").Page} page
 * @returns {Promise<string[]>}
 */
export async function axeViolations(page) {
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const results = await window.axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] },
      resultTypes: ["violations"],
    });
    return results.violations.flatMap((violation) =>
      violation.nodes.map(
        (node) => `${violation.id}: ${node.target.join(" ")} (${node.failureSummary.split("\n").join(" ")})`,
      ),
    );
  });
  return violations;
}
