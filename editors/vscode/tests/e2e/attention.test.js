// @ts-check
/**
 * End-to-end tests in a real VS Code of how a person is told of questions: one asked by another
 * extension while the person types in a file (it takes no key; the focus key moves to it and
 * back; an input method's composition shows in the form; a click goes through `activate`; the
 * keyboard comes back to the file), and the flows of a real `askd hub` opened by another client
 * (counted, announced, answered through Answer one after another).
 *
 * Needs ASKD_BIN (the engine) and what tests/run.sh installs and packages.
 */
"use strict";

const assert = require("node:assert/strict");
const { execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { test } = require("node:test");
const h = require("./harness.js");
const {
  ASKD_BIN,
  FOCUS_KEY,
  withVsCode,
  waitForKeyboard,
  readResult,
  waitForNotification,
  clickNotificationButton,
  clickNotificationLink,
  waitForNoNotification,
  waitForPanelClosed,
  screenshot,
  applySettings,
  framedMessages,
} = require("./workbench.js");

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
  // The item may go between the look and the read (the count fell to nothing): not shown then.
  return (await item.innerText({ timeout: 1000 }).catch(() => "")).trim();
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
      // The notification's text ends with its Answer link.
      await waitForNotification(page, "askd: a question is waiting: Deploy Answer");
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
      if (hasActivate) {
        // The review's Submit, clicked: the review's action, as its key runs it.
        await flow.locator(".askd-actions button", { hasText: "Submit" }).click();
      } else {
        await page.keyboard.press("1");
      }
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
  // Its stderr says the hub went away when the test ends it: not shown.
  const child = spawn(askd, ["hub", "--pipe"], { env, stdio: ["pipe", "pipe", "ignore"] });
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
    // The agent connects once the hub is there (a `--pipe` that found none would start one).
    const discovery = path.join(vs.env.XDG_RUNTIME_DIR ?? "", "askd", "hub.json");
    await h.waitFor("the hub's discovery file", () => fs.existsSync(discovery));
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
      await waitForNotification(page, "askd: a question is waiting: Release — claude-code in …/work/shop Answer");
      const second = agent.request("ask", { payload: { ...release, title: "Hotfix" }, session: "agent-hotfix", asker: { name: "codex" } });
      await waitForNotification(page, "askd: a question is waiting: Hotfix — codex (2 waiting) Answer");
      await h.waitFor("two questions counted", async () => (await waitingItem(page)) === "askd: 2 waiting");
      // Nothing opened by itself.
      assert.equal(await page.locator("iframe.webview").count(), 0);
      await screenshot(page, "attach-waiting");

      // "Answer" opens the flow, with the keyboard: the person asked for it.
      await clickNotificationLink(page, "askd: a question is waiting: Release", "Answer");
      // The person went to it: its notification goes.
      await waitForNoNotification(page, "askd: a question is waiting: Release — claude-code in …/work/shop Answer");
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
      await waitForNotification(page, "askd: 1 more question is waiting Answer");
      assert.equal(await waitingItem(page), "askd: 1 waiting");
      await clickNotificationLink(page, "askd: 1 more question is waiting", "Answer");
      await waitForNoNotification(page, "askd: 1 more question is waiting Answer");
      flow = h.panelFrame(page).locator("#askd-flow");
      await h.waitFor("the Hotfix flow", async () => (await flow.locator(".askd-form-title").innerText()) === "Hotfix");
      await waitForKeyboard(flow);
      // The form in the high-contrast themes.
      for (const [theme, type] of [
        ["Default High Contrast", "hc-black"],
        ["Default High Contrast Light", "hc-light"],
      ]) {
        await applySettings(page, vs.workspace, { "workbench.colorTheme": theme });
        await h.waitFor(`the ${theme} theme`, async () => (await page.locator(`.monaco-workbench.${type}`).count()) === 1);
        await screenshot(page, `attach-${type}`);
      }
      // Back from the command palette: a click in the panel gives it the keyboard again.
      await flow.locator(".askd-form-title").click();
      await waitForKeyboard(flow);
      await page.keyboard.press("1");
      await flow.locator(".askd-review").waitFor();
      await page.keyboard.press("1");
      assert.deepEqual((await second).result, answered("Hotfix", release.questions[0], release.questions[0].options[0], 1));
      await waitForPanelClosed(page);
      await h.waitFor("nothing counted", async () => (await waitingItem(page)) === "");

      // Answered: the Hotfix notification went with its question.
      await waitForNoNotification(page, "askd: a question is waiting: Hotfix — codex (2 waiting) Answer");

      // A flow answered elsewhere (its asker withdraws it) leaves the count, and its
      // notification goes.
      const third = agent.request("ask", { payload: { ...release, title: "Later" }, session: "agent-later" });
      await h.waitFor("one question counted", async () => (await waitingItem(page)) === "askd: 1 waiting");
      const later = "askd: a question is waiting: Later — e2e-agent Answer";
      await waitForNotification(page, later);
      await screenshot(page, "attach-later-announced");
      await agent.request("cancel", { session: "agent-later", reason: "abort" });
      await third;
      await h.waitFor("nothing counted", async () => (await waitingItem(page)) === "");
      await waitForNoNotification(page, later);

      // The person can dismiss one too (its Cancel button); the question still waits.
      const fourth = agent.request("ask", { payload: { ...release, title: "Dismissed" }, session: "agent-dismissed" });
      const dismissed = "askd: a question is waiting: Dismissed — e2e-agent Answer";
      await waitForNotification(page, dismissed);
      await clickNotificationButton(page, "askd: a question is waiting: Dismissed", "Cancel");
      await waitForNoNotification(page, dismissed);
      assert.equal(await waitingItem(page), "askd: 1 waiting");
      await agent.request("cancel", { session: "agent-dismissed", reason: "abort" });
      await fourth;
      await h.waitFor("nothing counted", async () => (await waitingItem(page)) === "");
    } finally {
      agent.close();
      hub.kill("SIGTERM");
      try {
        execFileSync(ASKD_BIN, ["hub", "--stop"], { env: vs.env, stdio: "ignore" });
      } catch {
        // None runs.
      }
    }
  });
});
