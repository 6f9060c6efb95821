// The page askd serves (index.html, app.js), loaded from askd's own listener in a real
// Chromium: `askd serve --listen`, with flows opened, changed and closed on its stdin as an
// agent would. The token, one flow or a list of flows, notifications, a connection that drops,
// and the requests the page sends, read from its real WebSocket frames.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OUTPUT, launch } from "./browser.mjs";
import { FLOW_PAYLOAD, runFlow } from "./flow.mjs";
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

/** The names on the buttons of the list of flows. */
function listedFlows(page) {
  return page.$$eval(".askd-session", (buttons) => buttons.map((button) => button.textContent));
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

test("the only open flow is shown at once and answered over the socket", async () => {
  await withPage(
    withToken(),
    (served) => served.request("open", { session: "call-1", payload }),
    async (page, served, sent) => {
      await page.waitForSelector(".askd-flow .askd-line");
      const columns = Number(await page.getAttribute(".askd-flow", "data-columns"));
      const mainColumns = sent()[0].params.capabilities.width;
      assert.deepEqual(sent().slice(0, 3), [
        {
          method: "initialize",
          params: {
            clientInfo: { name: "askd-web", version: "0.1.0" },
            capabilities: { width: mainColumns },
          },
        },
        { method: "subscribe", params: {} },
        { method: "sessions", params: undefined },
      ]);
      // The flow asks askd for Steps at its own columns, then draws the view at them.
      const widths = columns === mainColumns ? [] : [{ method: "initialize", params: { capabilities: { width: columns } } }];
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

test("several flows are listed, kept up to date, and one is shown when picked", async () => {
  await withPage(
    withToken(),
    async (served) => {
      await served.request("open", { session: "call-1", payload });
      await served.request("open", { session: "call-2", payload: other });
    },
    async (page, served) => {
      await page.waitForSelector(".askd-session");
      assert.deepEqual(await listedFlows(page), [
        "Release plan waiting for an answer",
        "Lunch waiting for an answer",
      ]);
      await served.request("open", { session: "call-3", payload: { questions: other.questions } });
      await page.waitForFunction(() => document.querySelectorAll(".askd-session").length === 3);
      assert.deepEqual((await listedFlows(page)).at(-1), "call-3 waiting for an answer");
      await served.request("keys", { session: "call-2", keys: "<Esc>" });
      await page.waitForFunction(() => document.body.textContent.includes("Lunch done"));
      await served.request("close", { session: "call-3" });
      await page.waitForFunction(() => document.querySelectorAll(".askd-session").length === 2);
      await page.screenshot({ path: join(OUTPUT, "app-list.png") });

      await page.click('.askd-session[data-session="call-1"]');
      await page.waitForSelector(".askd-flow .askd-line");
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-1");
      const firstLine = await page.$eval(
        ".askd-flow .askd-line:nth-child(2)",
        (line) => line.textContent,
      );
      assert.equal(firstLine, " Release plan");
      // A change made elsewhere arrives as a notification.
      await served.request("keys", { session: "call-1", keys: "<Down>" });
      await page.waitForFunction(() =>
        document.querySelector(".askd-flow").textContent.includes("❯ 2."),
      );
      // A flow answered here is listed as done.
      await page.keyboard.press("Escape");
      await page.waitForSelector('.askd-flow[data-status="done"]');
      await page.click(".askd-page-back");
      await page.waitForSelector(".askd-session");
      assert.equal(new URL(page.url()).searchParams.get("session"), null);
      assert.deepEqual(await listedFlows(page), ["Release plan done", "Lunch done"]);
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
      await page.waitForSelector(".askd-flow .askd-line");
      assert.equal(await statusLine(page), null);
      const title = await page.$eval(
        ".askd-flow .askd-line:nth-child(2)",
        (line) => line.textContent,
      );
      assert.equal(title, " Lunch");
    },
  );
});

test("a connection that drops is said so", async () => {
  await withPage(
    withToken(),
    (served) => served.request("open", { session: "call-1", payload }),
    async (page, served) => {
      await page.waitForSelector(".askd-flow .askd-line");
      await served.close();
      await page.waitForFunction(() =>
        document.getElementById("status").textContent.includes("closed"),
      );
      assert.equal(
        await statusLine(page),
        "The connection to askd closed (1001: askd stopped). Reload the page to connect again.",
      );
      assert.equal(await page.$(".askd-flow"), null);
    },
  );
});

test("the one flow waiting for an answer is shown, flows already done aside", async () => {
  await withPage(
    withToken(),
    async (served) => {
      await served.request("open", { session: "call-1", payload: other });
      await served.request("keys", { session: "call-1", keys: "<Esc>" });
      await served.request("open", { session: "call-2", payload });
    },
    async (page) => {
      await page.waitForSelector(".askd-flow .askd-line");
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-2");
      assert.equal(await page.isVisible(".askd-page-back"), true);
      await page.click(".askd-page-back");
      await page.waitForSelector(".askd-session");
      assert.deepEqual(await listedFlows(page), [
        "Lunch done",
        "Release plan waiting for an answer",
      ]);
    },
  );
});
