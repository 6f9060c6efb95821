// The page askd serves (index.html, app.js), loaded from askd's own listener in a real
// Chromium: `askd serve --listen`, with flows opened, changed and closed on its stdin as an
// agent would. The token, the flow shown and the waiting list, notifications, the look, a
// connection that drops and comes back, and the requests the page sends, read from its real
// WebSocket frames.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { OUTPUT, launch } from "./browser.mjs";
import { FLOW_PAYLOAD, runFlow } from "./flow.mjs";
import { axeViolations, checkFormAgainstPlay, runFormFlow } from "./form.mjs";
import { Served } from "./served.mjs";

const payload = JSON.parse(readFileSync(FLOW_PAYLOAD, "utf8"));
const other = {
  title: "Lunch",
  questions: [
    { id: "food", prompt: "What for lunch?", options: [{ value: "soup", label: "Soup" }] },
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

/**
 * Opens the page askd serves at an address of its listener, after `prepare` has opened what
 * flows it wants on askd's stdin.
 *
 * @param {(served: Served) => string} address the page's address, from the listener's
 * @param {(served: Served) => Promise<void>} prepare
 * @param {(page: import("playwright-core").Page, served: Served, sent: () => object[]) =>
 *   Promise<void>} body `sent()` answers the JSON-RPC messages the page has sent so far
 */
async function withPage(address, prepare, body) {
  const served = await Served.start();
  const page = await chromium.context.newPage();
  const frames = [];
  page.on("websocket", (socket) => {
    socket.on("framesent", (frame) => frames.push(JSON.parse(String(frame.payload))));
  });
  try {
    await prepare(served);
    await page.goto(address(served));
    await body(page, served, () => frames.map(({ method, params }) => ({ method, params })));
  } finally {
    await page.close();
    await served.close();
  }
}

/** The page's address with the listener's token and more of a query. */
const withToken = (more = "") => (served) => `${served.page}${more}`;

/** The page's status line, or `null` while it is hidden. */
function statusLine(page) {
  return page.$eval("#status", (element) => (element.hidden ? null : element.textContent));
}

/** The titles of the waiting flows listed. */
function listedFlows(page) {
  return page.$$eval(".askd-waiting-list .askd-waiting-title", (titles) => titles.map((title) => title.textContent));
}

test("without a token the page says where to find its address", async () => {
  await withPage((served) => `${served.origin}/`, async () => {}, async (page, served, sent) => {
    await page.waitForSelector("#status:not([hidden])");
    assert.equal(
      await statusLine(page),
      "This page needs its token: open the address askd printed, which ends in ?token=…",
    );
    assert.deepEqual(sent(), []);
  });
});

test("a refused token is said so", async () => {
  await withPage(
    (served) => `${served.origin}/?token=wrong`,
    async () => {},
    async (page, served, sent) => {
      await page.waitForFunction(() =>
        document.getElementById("status").textContent.includes("refused"),
      );
      assert.equal(
        await statusLine(page),
        "askd refused the connection: the token in this page's address is wrong or out of date, " +
          "or askd is no longer running.",
      );
      assert.deepEqual(sent(), []);
    },
  );
});

test("the only open flow is shown at once and answered over the socket (terminal look)", async () => {
  await withPage(
    withToken("&look=terminal"),
    (served) => served.request("open", { session: "call-1", payload }),
    async (page, served, sent) => {
      await page.waitForSelector(".askd-flow .askd-line");
      const columns = Number(await page.getAttribute(".askd-flow", "data-columns"));
      const mainColumns = sent()[0].params.capabilities.width;
      assert.deepEqual(sent().slice(0, 3), [
        {
          method: "initialize",
          params: {
            clientInfo: { name: "askd-web", version: "0.2.0" },
            capabilities: { width: mainColumns, allRows: true },
          },
        },
        { method: "subscribe", params: { attach: true } },
        { method: "sessions", params: undefined },
      ]);
      // The flow asks askd for Steps at its own columns, then draws the view at them.
      const widths =
        columns === mainColumns
          ? []
          : [{ method: "initialize", params: { capabilities: { width: columns, allRows: true } } }];
      assert.deepEqual(sent().slice(3, 4 + widths.length), [
        ...widths,
        { method: "getView", params: { session: "call-1", width: columns } },
      ]);
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-1");
      assert.equal(await statusLine(page), null);
      await page.screenshot({ path: join(OUTPUT, "app-flow.png") });
      const sentBefore = sent().length;
      const { result } = await runFlow(page);
      assert.equal(result.details.answers.scope.values[0], "minor");
      // Steps arrive at the flow's columns: no view is asked for after a key.
      const methods = new Set(sent().slice(sentBefore).map((message) => message.method));
      assert.deepEqual([...methods].sort(), ["insert", "key"]);
      assert.deepEqual(await served.request("getResult", { session: "call-1" }), result);
    },
  );
});

test("the page draws the form look by default, answered by keyboard over the socket", async () => {
  await withPage(
    withToken(),
    (served) => served.request("open", { session: "call-1", payload }),
    async (page, served) => {
      await page.waitForSelector(".askd-flow .askd-row");
      assert.equal(await page.getAttribute(".askd-flow", "data-look"), "form");
      assert.equal(await page.getAttribute("#look", "aria-pressed"), "false");
      assert.deepEqual(await axeViolations(page), []);
      const { result } = await runFormFlow(page);
      assert.deepEqual(await served.request("getResult", { session: "call-1" }), result);
      assert.deepEqual(await axeViolations(page), []);
    },
  );
});

test("the terminal look is a button away, and stays chosen", async () => {
  await withPage(
    withToken(),
    (served) => served.request("open", { session: "call-1", payload }),
    async (page) => {
      await page.waitForSelector(".askd-flow .askd-row");
      await page.keyboard.press("ArrowDown");
      await checkFormAgainstPlay(page, "<Down>");
      await page.click("#look");
      await page.waitForSelector(".askd-flow .askd-line");
      assert.equal(await page.getAttribute("#look", "aria-pressed"), "true");
      // The same flow, where it was.
      assert.ok((await page.locator(".askd-flow").textContent()).includes("❯ 2."));
      await page.reload();
      await page.waitForSelector(".askd-flow .askd-line");
      await page.click("#look");
      await page.waitForSelector(".askd-flow .askd-row");
      assert.equal(await page.evaluate(() => localStorage.getItem("askd-look")), "form");
    },
  );
});

test("waiting flows are listed oldest first; a new one never takes a half-typed answer's place", async () => {
  await withPage(
    withToken(),
    async (served) => {
      await served.request("open", { session: "call-1", payload });
      await served.request("open", { session: "call-2", payload: other });
    },
    async (page, served) => {
      // The oldest is shown, the list says how many wait and marks the one shown.
      await page.waitForSelector(".askd-flow .askd-row");
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-1");
      assert.equal(await page.textContent(".askd-waiting-heading"), "2 questions waiting, oldest first");
      assert.deepEqual(await listedFlows(page), ["Release plan", "Lunch"]);
      assert.equal(await page.getAttribute('.askd-waiting-item[data-session="call-1"]', "aria-current"), "true");
      // A half-typed note.
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("n");
      await checkFormAgainstPlay(page, "<Down>n");
      await page.keyboard.type("half");
      // A third flow arrives: it is listed and announced; the note keeps the keyboard.
      await served.request("open", { session: "call-3", payload: { questions: other.questions } });
      await page.waitForFunction(() => document.querySelectorAll(".askd-waiting-item").length === 3);
      assert.deepEqual(await listedFlows(page), ["Release plan", "Lunch", "call-3"]);
      assert.equal(
        await page.textContent(".askd-page-arrivals"),
        "A new question is waiting: call-3 (3 waiting).",
      );
      assert.equal(await page.getAttribute(".askd-page-arrivals", "role"), "status");
      assert.equal(await page.evaluate(() => document.activeElement.className), "askd-editor-text");
      await page.keyboard.type(" done");
      assert.equal(await page.inputValue(".askd-editor-text"), "half done");
      await page.screenshot({ path: join(OUTPUT, "app-waiting.png") });
      assert.deepEqual(await axeViolations(page), []);
      // Changes made elsewhere are followed.
      await served.request("keys", { session: "call-2", keys: "<Esc>" });
      await page.waitForFunction(() => document.querySelectorAll(".askd-waiting-finished .askd-waiting-item").length === 1);
      assert.equal(await page.textContent(".askd-waiting-heading"), "2 questions waiting, oldest first");
      await served.request("close", { session: "call-3" });
      await page.waitForFunction(() => document.querySelectorAll(".askd-waiting-item").length === 2);

      // The flow shown ends: the next waiting is offered, and the keyboard stays where it was.
      await served.request("open", { session: "call-4", payload: other });
      await page.keyboard.press("Escape");
      await checkFormAgainstPlay(page, "<Down>n<Esc>");
      await page.keyboard.press("Escape");
      await page.waitForSelector('.askd-flow[data-status="done"]');
      await page.waitForSelector(".askd-page-next");
      assert.equal(await page.textContent(".askd-page-next"), "Answer the next question: Lunch");
      assert.equal(await page.evaluate(() => document.activeElement.className), "askd-end");
      await page.click(".askd-page-next");
      await page.waitForSelector(".askd-flow .askd-row");
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-4");
      assert.equal(await page.textContent(".askd-form-title"), "Lunch");
      assert.equal(await page.evaluate(() => document.activeElement.className), "askd-row askd-row-active");
      assert.equal(await page.isVisible(".askd-page-next"), false);
    },
  );
});

test("the flow named in the address is shown, once it opens", async () => {
  await withPage(
    withToken("&session=call-2"),
    (served) => served.request("open", { session: "call-1", payload }),
    async (page, served) => {
      await page.waitForFunction(() => !document.getElementById("status").hidden);
      assert.equal(
        await statusLine(page),
        "No flow named “call-2” is open; this page shows it once askd opens it.",
      );
      await served.request("open", { session: "call-2", payload: other });
      await page.waitForSelector(".askd-flow .askd-row");
      assert.equal(await statusLine(page), null);
      assert.equal(await page.textContent(".askd-form-title"), "Lunch");
    },
  );
});

test("a lost connection keeps the flow on screen read-only; the page reconnects by itself", async () => {
  const folder = mkdtempSync(join(tmpdir(), "askd-web-reconnect-"));
  const tokenFile = join(folder, "token");
  let served = await Served.start(["--token-file", tokenFile]);
  const page = await chromium.context.newPage();
  try {
    await served.request("open", { session: "call-1", payload });
    await page.goto(served.page);
    await page.waitForSelector(".askd-flow .askd-row");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("n");
    await checkFormAgainstPlay(page, "<Down>n");
    await page.keyboard.type("half a note");
    const port = new URL(served.page).port;
    await served.close();
    // The screen and the draft stay, read-only; the page says it is trying again.
    await page.waitForSelector('.askd-flow[data-status="offline"]');
    assert.match(await statusLine(page), /^The connection to askd was lost\. Trying again in /);
    assert.equal(await page.inputValue(".askd-editor-text"), "half a note");
    assert.equal(await page.evaluate(() => document.querySelector(".askd-editor-text").readOnly), true);
    assert.equal(await page.getAttribute(".askd-flow", "aria-busy"), "true");
    assert.equal(await page.locator(".askd-row").count(), 4);
    await page.screenshot({ path: join(OUTPUT, "app-offline.png") });
    assert.deepEqual(await axeViolations(page), []);
    // Keys change nothing meanwhile.
    await page.click(".askd-row >> nth=0");
    await page.keyboard.press("ArrowUp");

    // askd comes back on the same address and token; the flow is opened again, as an agent
    // retrying would. The page finds it and goes on.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    served = await Served.start(["--listen", `127.0.0.1:${port}`, "--token-file", tokenFile]);
    await served.request("open", { session: "call-1", payload });
    await page.waitForSelector('.askd-flow[data-status="open"]', { timeout: 15000 });
    await checkFormAgainstPlay(page, "");
    assert.equal(await statusLine(page), null);
    await page.keyboard.press("ArrowDown");
    await checkFormAgainstPlay(page, "<Down>");
  } finally {
    await page.close();
    await served.close();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("the one flow waiting for an answer is shown, flows already done listed as finished", async () => {
  await withPage(
    withToken(),
    async (served) => {
      await served.request("open", { session: "call-1", payload: other });
      await served.request("keys", { session: "call-1", keys: "<Esc>" });
      await served.request("open", { session: "call-2", payload });
    },
    async (page) => {
      await page.waitForSelector(".askd-flow .askd-row");
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-2");
      assert.equal(await page.textContent(".askd-waiting-heading"), "1 question waiting");
      assert.deepEqual(
        await page.$$eval(".askd-waiting-finished .askd-waiting-item", (items) => items.map((i) => i.textContent)),
        // askd stamps every flow's `openedAt`.
        ["Lunch asked just now · done"],
      );
      await page.click('.askd-waiting-item[data-session="call-1"]');
      await page.waitForSelector('.askd-flow[data-status="done"]');
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-1");
      assert.equal(await page.textContent(".askd-end"), "Cancelled");
      assert.equal(await page.textContent(".askd-page-next"), "Answer the next question: Release plan");
    },
  );
});
