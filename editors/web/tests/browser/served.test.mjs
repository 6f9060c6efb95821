// askd's listener and `askd web` with the page it serves, in a real Chromium: a whole flow
// answered in the page that `askd web` printed the address of, checked screen by screen against
// `askd play` and ending in the result askd prints; two pages on one flow; an `ask` sent on
// askd's stdin answered in a page.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUTPUT, launch, pageLines } from "./browser.mjs";
import { play } from "./engine.mjs";
import { FLOW_PAYLOAD, FLOW_RESULT, pressCharacter, runFlow, waitForScreen } from "./flow.mjs";
import { Served, startWeb } from "./served.mjs";

const lunch = {
  title: "Lunch",
  questions: [
    {
      id: "food",
      prompt: "What for lunch?",
      options: [
        { value: "soup", label: "Soup" },
        { value: "salad", label: "Salad" },
      ],
    },
  ],
};
let chromium;

before(async () => {
  mkdirSync(OUTPUT, { recursive: true });
  chromium = await launch();
});

after(async () => {
  await chromium?.close();
});

/** The page's status line, or `null` while it is hidden. */
function statusLine(page) {
  return page.$eval("#status", (element) => (element.hidden ? null : element.textContent));
}

test("askd web: the page it prints answers the whole flow, and askd prints the result", async () => {
  const web = await startWeb(FLOW_PAYLOAD);
  const page = await chromium.context.newPage();
  try {
    const address = new URL(web.page);
    assert.equal(address.hostname, "127.0.0.1");
    assert.equal(address.searchParams.get("session"), "web");
    assert.match(address.searchParams.get("token"), /^[0-9a-f]{64}$/);
    // The terminal look, whose screens are askd play's line for line.
    await page.goto(`${web.page}&look=terminal`);
    await page.waitForSelector(".askd-flow .askd-line");
    await page.screenshot({ path: join(OUTPUT, "web-open.png") });
    const { columns, script, result } = await runFlow(page);
    assert.deepEqual(result, FLOW_RESULT);
    // askd prints the same result, and ends as a submitted flow does.
    const { status, stdout } = await web.done;
    assert.equal(status, 0);
    assert.equal(stdout, `${JSON.stringify(FLOW_RESULT)}\n`);
    // The page keeps the last screen and the result once askd has gone.
    await page.waitForFunction(() => !document.getElementById("status").hidden);
    assert.equal(
      await statusLine(page),
      "This flow is complete, and askd has closed the connection (1001: the flow is complete).",
    );
    assert.deepEqual(
      (await pageLines(page)).map((line) => line.trimEnd()),
      play(FLOW_PAYLOAD, script, columns).screens.at(-1),
    );
    await page.screenshot({ path: join(OUTPUT, "web-done.png"), fullPage: true });
  } finally {
    await page.close();
    web.kill();
  }
});

test("askd web: a flow cancelled in the page ends askd with status 1", async () => {
  const web = await startWeb(FLOW_PAYLOAD);
  const page = await chromium.context.newPage();
  try {
    await page.goto(web.page);
    await page.waitForSelector(".askd-flow .askd-row");
    await page.locator(".askd-flow").focus();
    await page.keyboard.press("Escape");
    const { status, stdout } = await web.done;
    assert.equal(status, 1);
    const result = JSON.parse(stdout);
    assert.equal(result.details.cancelled, true);
    await page.waitForSelector('.askd-flow[data-status="done"]');
  } finally {
    await page.close();
    web.kill();
  }
});

test("two pages on one flow show the same screens as either presses keys", async () => {
  const served = await Served.start();
  const [left, right] = [await chromium.context.newPage(), await chromium.context.newPage()];
  try {
    await served.request("open", { session: "shared", payload: lunch });
    for (const page of [left, right]) {
      await page.goto(`${served.page}&session=shared&look=terminal`);
      await page.waitForSelector(".askd-flow .askd-line");
    }
    const columns = Number(await left.getAttribute(".askd-flow", "data-columns"));
    assert.equal(Number(await right.getAttribute(".askd-flow", "data-columns")), columns);
    const lunchPath = join(OUTPUT, "lunch.json");
    writeFileSync(lunchPath, JSON.stringify(lunch));
    let script = "";
    for (const [page, key, keys] of [
      [left, "ArrowDown", "<Down>"],
      [right, "ArrowDown", "<Down>"],
      [left, "n", "n"],
      [left, "ü", "ü"],
      [right, "Enter", "<CR>"],
    ]) {
      await page.locator(".askd-flow").focus();
      if (key.length === 1 && key > "\u007f") {
        await pressCharacter(await page.context().newCDPSession(page), key);
      } else {
        await page.keyboard.press(key);
      }
      script += keys;
      const expected = play(lunchPath, script, columns).screens.at(-1);
      await waitForScreen(left, expected, `${keys} (the left page)`);
      await waitForScreen(right, expected, `${keys} (the right page)`);
    }
    await left.screenshot({ path: join(OUTPUT, "shared-left.png") });
    await right.locator(".askd-flow").focus();
    await right.keyboard.press("Enter");
    for (const page of [left, right]) {
      await page.waitForSelector('.askd-flow[data-status="done"] .askd-result-json', {
        state: "attached",
      });
    }
    const result = await served.request("getResult", { session: "shared" });
    assert.deepEqual(result, play(lunchPath, `${script}<CR>`, columns).result);
    assert.deepEqual(
      JSON.parse(await left.locator(".askd-result-json").textContent()),
      result,
    );
  } finally {
    await left.close();
    await right.close();
    await served.close();
  }
});

test("an ask sent on askd's stdin is answered in the page and resolves on stdin", async () => {
  const served = await Served.start();
  const page = await chromium.context.newPage();
  try {
    const asked = served.call("ask", { session: "call-9", payload: lunch }, "ask-1");
    await page.goto(served.page);
    await page.waitForSelector(".askd-flow .askd-row");
    assert.equal(new URL(page.url()).searchParams.get("session"), "call-9");
    await page.locator(".askd-flow").focus();
    await page.keyboard.press("2");
    await page.keyboard.press("Enter");
    const reply = await asked;
    assert.deepEqual(reply.result, {
      content: [{ type: "text", text: "Q1: Salad" }],
      details: {
        title: "Lunch",
        cancelled: false,
        mode: "submit",
        questions: [{ id: "food", label: "Q1", prompt: "What for lunch?", type: "single" }],
        answers: { food: { values: ["salad"], labels: ["Salad"], indices: [2] } },
      },
    });
    await page.waitForSelector('.askd-flow[data-status="done"]');
  } finally {
    await page.close();
    await served.close();
  }
});
