// The page askd serves (index.html, app.js) in a real Chromium, its socket answered by the
// stand-in listener over a real askd: the token, one flow or a list of flows, notifications,
// and a connection that drops.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ORIGIN, OUTPUT, launch } from "./browser.mjs";
import { FLOW_PAYLOAD, runFlow } from "./flow.mjs";
import { Listener } from "./listener.mjs";

const payload = JSON.parse(readFileSync(FLOW_PAYLOAD, "utf8"));
const other = {
  title: "Lunch",
  questions: [
    { id: "food", prompt: "What for lunch?", options: [{ value: "soup", label: "Soup" }] },
  ],
};
let chromium;

before(async () => {
  chromium = await launch();
});

after(async () => {
  await chromium?.close();
});

/**
 * Opens the page at an address, its socket answered by a fresh stand-in listener, after
 * `prepare` has opened what flows it wants.
 *
 * @param {string} query the address's query, e.g. "?token=t"
 * @param {(listener: Listener) => Promise<void>} prepare
 * @param {(page: import("playwright-core").Page, listener: Listener) => Promise<void>} body
 */
async function withPage(query, prepare, body) {
  const page = await chromium.context.newPage();
  const listener = new Listener(page, "secret-token");
  try {
    await listener.route();
    await prepare(listener);
    await page.goto(`${ORIGIN}/${query}`);
    await body(page, listener);
  } finally {
    await page.close();
    await listener.close();
  }
}

/** The page's status line, or `null` while it is hidden. */
function statusLine(page) {
  return page.$eval("#status", (element) => (element.hidden ? null : element.textContent));
}

/** The names on the buttons of the list of flows. */
function listedFlows(page) {
  return page.$$eval(".askd-session", (buttons) => buttons.map((button) => button.textContent));
}

test("without a token the page says where to find its address", async () => {
  await withPage("", async () => {}, async (page, listener) => {
    await page.waitForSelector("#status:not([hidden])");
    assert.equal(
      await statusLine(page),
      "This page needs its token: open the address askd printed, which ends in ?token=…",
    );
    assert.deepEqual(listener.requests, []);
  });
});

test("a refused token is said so", async () => {
  await withPage("?token=wrong", async () => {}, async (page, listener) => {
    await page.waitForFunction(() => document.getElementById("status").textContent.includes("refused"));
    assert.equal(
      await statusLine(page),
      "askd refused the connection: the token in this page's address is wrong or out of date, " +
        "or askd is no longer running.",
    );
    assert.deepEqual(listener.requests, []);
  });
});

test("the only open flow is shown at once and answered over the socket", async () => {
  await withPage(
    "?token=secret-token",
    (listener) => listener.openFlow("call-1", payload),
    async (page, listener) => {
      await page.waitForSelector(".askd-flow .askd-line");
      const columns = Number(await page.getAttribute(".askd-flow", "data-columns"));
      assert.deepEqual(listener.requests.slice(0, 4), [
        {
          method: "initialize",
          params: { clientInfo: { name: "askd-web", version: "0.1.0" }, capabilities: { width: columns } },
        },
        { method: "subscribe", params: {} },
        { method: "sessions", params: {} },
        { method: "getView", params: { session: "call-1", width: columns } },
      ]);
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-1");
      assert.equal(await statusLine(page), null);
      await page.screenshot({ path: join(OUTPUT, "app-flow.png") });
      const { result } = await runFlow(page);
      assert.equal(result.details.answers.scope.values[0], "minor");
    },
  );
});

test("several flows are listed, kept up to date, and one is shown when picked", async () => {
  await withPage(
    "?token=secret-token",
    async (listener) => {
      await listener.openFlow("call-1", payload);
      await listener.openFlow("call-2", other);
    },
    async (page, listener) => {
      await page.waitForSelector(".askd-session");
      assert.deepEqual(await listedFlows(page), [
        "Release plan waiting for an answer",
        "Lunch waiting for an answer",
      ]);
      await listener.openFlow("call-3", { questions: other.questions });
      await page.waitForFunction(() => document.querySelectorAll(".askd-session").length === 3);
      assert.deepEqual((await listedFlows(page)).at(-1), "call-3 waiting for an answer");
      await listener.pressElsewhere("call-2", "<Esc>");
      await page.waitForFunction(() => document.body.textContent.includes("Lunch done"));
      await listener.closeFlow("call-3");
      await page.waitForFunction(() => document.querySelectorAll(".askd-session").length === 2);
      await page.screenshot({ path: join(OUTPUT, "app-list.png") });

      await page.click('.askd-session[data-session="call-1"]');
      await page.waitForSelector(".askd-flow .askd-line");
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-1");
      const firstLine = await page.$eval(".askd-flow .askd-line:nth-child(2)", (line) => line.textContent);
      assert.equal(firstLine, " Release plan");
      // A change made elsewhere arrives as a notification, with its version.
      await listener.pressElsewhere("call-1", "<Down>");
      await page.waitForFunction(() => document.querySelector(".askd-flow").textContent.includes("❯ 2."));
      await page.click(".askd-page-back");
      await page.waitForSelector(".askd-session");
      assert.equal(new URL(page.url()).searchParams.get("session"), null);
    },
  );
});

test("the flow named in the address is shown, once it opens", async () => {
  await withPage(
    "?token=secret-token&session=call-2",
    (listener) => listener.openFlow("call-1", payload),
    async (page, listener) => {
      await page.waitForFunction(() => !document.getElementById("status").hidden);
      assert.equal(
        await statusLine(page),
        "No flow named “call-2” is open; this page shows it once askd opens it.",
      );
      await listener.openFlow("call-2", other);
      await page.waitForSelector(".askd-flow .askd-line");
      assert.equal(await statusLine(page), null);
      const title = await page.$eval(".askd-flow .askd-line:nth-child(2)", (line) => line.textContent);
      assert.equal(title, " Lunch");
    },
  );
});

test("a connection that drops is said so", async () => {
  await withPage(
    "?token=secret-token",
    (listener) => listener.openFlow("call-1", payload),
    async (page, listener) => {
      await page.waitForSelector(".askd-flow .askd-line");
      await listener.drop(1001, "askd stopped");
      await page.waitForFunction(() => document.getElementById("status").textContent.includes("closed"));
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
    "?token=secret-token",
    async (listener) => {
      await listener.openFlow("call-1", other);
      await listener.pressElsewhere("call-1", "<Esc>");
      await listener.openFlow("call-2", payload);
    },
    async (page) => {
      await page.waitForSelector(".askd-flow .askd-line");
      assert.equal(new URL(page.url()).searchParams.get("session"), "call-2");
      assert.equal(await page.isVisible(".askd-page-back"), true);
      await page.click(".askd-page-back");
      await page.waitForSelector(".askd-session");
      assert.deepEqual(await listedFlows(page), ["Lunch done", "Release plan waiting for an answer"]);
    },
  );
});
