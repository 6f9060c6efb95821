// @ts-check
/**
 * End-to-end test in a real VS Code of recovery as a person meets it: a flow another extension
 * asks, answered in part with a draft typed, its engine killed with SIGKILL, the window
 * reloaded; the new engine offers the flow in a notification (what it asked, when, how far it
 * got, that text was typed) with Resume, Discard… and Later; Resume opens it where the person
 * was (the second tab, the draft in its editor), and finishing it gives the exact result.
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
} = require("./workbench.js");

const RELEASE = {
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
    {
      id: "name",
      label: "Name",
      prompt: "What is it called?",
      options: [{ value: "spring", label: "Spring" }],
    },
  ],
};

test("a flow with a typed draft, its engine killed and the window reloaded, is offered; Resume opens it at the draft and finishing gives the exact result", async () => {
  const wrapper = path.join(__dirname, "engine-with-pid.sh");
  const pidFile = path.join(h.testRoot, "run", "recover-engine.pid");
  fs.rmSync(pidFile, { force: true });
  await withVsCode(
    "recover",
    { settings: { "askd.path": wrapper }, env: { ASKD_TEST_ENGINE: ASKD_BIN, ASKD_TEST_PID_FILE: pidFile } },
    async ({ page, vs }) => {
      // Another extension asks; the person answers the first question and types half of the
      // second one's own answer.
      fs.writeFileSync(path.join(vs.workspace, "ask-release.json"), JSON.stringify({ payload: RELEASE, options: { session: "release" } }));
      let flow = await openFlow(page, { focus: true });
      await waitForLine(flow, " ❯ 1. ○ Patch");
      await page.keyboard.press("2");
      await waitForLine(flow, " ❯ 1. ○ Spring");
      await page.keyboard.press("2");
      await waitForLine(flow, /^   │ Type answer\.\.\. +│$/);
      await page.keyboard.type("Autumn ed");
      // Shown once askd has it: each key is answered after its state is saved.
      await waitForLine(flow, /^   │ Autumn ed +│$/);
      await screenshot(page, "recover-typed");

      // The engine is killed, as a crash would: the ask fails, the panel closes.
      process.kill(Number(fs.readFileSync(pidFile, "utf8")), "SIGKILL");
      await waitForPanelClosed(page);
      const failed = await readResult(vs.workspace, "release");
      assert.match(failed.error, /^askd: the engine ".*" was killed by SIGKILL\./);

      // The window is reloaded: its new engine offers the flow, without taking the keyboard.
      fs.rmSync(path.join(vs.workspace, "ask-release.json"));
      await h.runCommand(page, "Developer: Reload Window");
      await page.locator("[id='askd.askd-vscode.askd.status']").waitFor({ timeout: 60000 });
      const offer = "askd: an unfinished flow was kept: Release — askd-vscode in …/recover/workspace (asked just now, 1 of 2 answered, text typed).";
      await waitForNotification(page, offer);
      const toast = page.locator(".notifications-toasts .notification-list-item", {
        has: page.locator(".notification-list-item-message", { hasText: "an unfinished flow was kept" }),
      });
      assert.deepEqual(
        (await toast.locator(".monaco-button").allInnerTexts()).map((text) => text.trim()),
        ["Resume", "Discard…", "Later"],
      );
      assert.equal(await page.locator("iframe.webview").count(), 0);
      await screenshot(page, "recover-offered");

      // Resume: the panel opens with the keyboard where the person was, the draft in its editor.
      await clickNotificationButton(page, offer, "Resume");
      flow = await openFlow(page);
      await waitForLine(flow, /^   │ Autumn ed +│$/);
      await waitForLine(flow, /^ +■ Scope +\[□ Name\] +✓ Submit$/);
      await screenshot(page, "recover-resumed");
      await page.keyboard.type("ition");
      await waitForLine(flow, /^   │ Autumn edition +│$/);
      await page.keyboard.press("Enter");
      await waitForLine(flow, " Review your answers");
      await page.keyboard.press("1");
      assert.deepEqual(await readResult(vs.workspace, "finished-1"), {
        session: "release",
        result: {
          content: [{ type: "text", text: "Scope: Minor\nName: Autumn edition" }],
          details: {
            title: "Release",
            cancelled: false,
            mode: "submit",
            questions: [
              { id: "scope", label: "Scope", prompt: "How much should the next release cover?", type: "single" },
              { id: "name", label: "Name", prompt: "What is it called?", type: "single" },
            ],
            answers: {
              scope: { values: ["minor"], labels: ["Minor"], indices: [2] },
              name: { values: ["Autumn edition"], labels: ["Autumn edition"], indices: [], customText: "Autumn edition" },
            },
          },
        },
        transcript: { call: "ask_user 2 question(s) (Scope, Name)", result: "✓ Scope: Minor\n✓ Name: (wrote) Autumn edition" },
        outcome: "submit",
        source: "recovered",
      });
      await waitForPanelClosed(page);
      await waitForNotification(page, "askd: Scope: Minor; Name: Autumn edition");

      // Nothing is offered any more.
      await h.runCommand(page, "askd: Recover Unfinished Flow…");
      await waitForNotification(page, "askd: no unfinished flow to recover.");
    },
  );
});
