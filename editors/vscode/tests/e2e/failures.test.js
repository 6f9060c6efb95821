// @ts-check
/**
 * End-to-end tests in a real VS Code: a payload asked from a file of the workspace, and the
 * engine missing (its notification's Open Settings), killed mid-flow, and started again.
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
  waitForLine,
  readResult,
  waitForNotification,
  clickNotificationButton,
  waitForPanelClosed,
  screenshot,
  applySettings,
} = require("./workbench.js");

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
