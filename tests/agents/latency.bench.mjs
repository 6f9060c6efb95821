// How long a question takes from an agent's tool call reaching askd to the question drawn in a
// person's browser page attached to the hub: p50, p99 and the maximum over N questions, per
// entry point. A benchmark, not a test: it prints its figures beside the target (p99 under
// 100 ms) and checks only that every question was drawn and answered.
//
// Run from tests/agents, after .ci/agents-install and a build of askd (release for figures):
//
//   ASKD_BIN=target/release/askd node latency.bench.mjs [questions] [--look form|terminal] [--settle MS] [entry point…]
//
// The entry points are `"hook claude"` and `mcp` (all of them when none is named); 200 questions
// each by default. `--settle MS` leaves the freshly loaded page MS milliseconds after it shows
// that no question waits, before the call (0 by default): a page just loaded is still busy, and
// a question that arrives then waits for it, while a person's page is open before an agent asks.
//
// One hub (`askd hub --no-browser`, its discovery file and state in folders of its own) and one
// headless Chromium (Debian's /usr/bin/chromium, or $CHROMIUM) showing the page the hub serves,
// attached as a person's client. For each question: the page is loaded afresh and shows that
// no question waits; the entry point is handed a Claude Code `AskUserQuestion` call whose
// question text is its own; the page notes when its flow first shows that text (a
// MutationObserver) and the animation frame after; a second client of the hub (a WebSocket
// client, not attached) notes when the hub announced the flow (and the flow's `openedAt`, the
// hub's own time stamp, in whole milliseconds), then answers it so that the entry point ends
// with the answer. Both sides read the same clock: `performance.timeOrigin +
// performance.now()`, milliseconds since the Unix epoch.
//
// An entry point is a function of ENTRY_POINTS: given the hub and the call, it hands the call
// to askd the way the agent does and answers `{ sentAt, ended }`: `hook claude` (a process per
// call, as Claude Code runs a hook) and `mcp` (one `askd mcp` server for every call, as an agent
// keeps the MCP servers it started).

/* global window, document, MutationObserver, requestAnimationFrame */

import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { jsonLines } from "./lib/agents.mjs";
import { Person } from "./lib/person.mjs";
import { askdBin, removeTemps, start, stopAll, tempDir, until } from "./lib/proc.mjs";
import { claudeQuestions, shellQuote } from "./lib/seams-run.mjs";

const TARGET_P99_MS = 100;
const WARM_UP = 5;

/** Now, in milliseconds since the Unix epoch (fractional), as the page reads it too. */
const now = () => performance.timeOrigin + performance.now();

/** The Claude Code tool call of question `index`: the tests' question, with a text of its own. */
function claudeCall(index, cwd) {
  const [question] = claudeQuestions.questions;
  return {
    session_id: "7b0c1d2e-0000-4000-8000-00000000bench",
    transcript_path: path.join(cwd, "transcript.jsonl"),
    cwd,
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: "AskUserQuestion",
    tool_input: { questions: [{ ...question, question: `Which database should we use? (#${index})` }] },
    tool_use_id: `toolu_bench_${index}`,
  };
}

/** The `askd mcp` server of the `mcp` entry point: started on its first call, then kept. */
let mcpServer = null;

/**
 * `askd mcp` started in `cwd` against `hub`, and initialized as an agent does (`initialize`,
 * then `notifications/initialized`). Resolves with `request(method, params)`, which writes a
 * JSON-RPC request on its stdin and resolves with the reply's result.
 */
async function startMcpServer(hub, cwd) {
  const proc = start(askdBin(), ["mcp"], { cwd, env: hub.clientEnv, name: "askd mcp" });
  const lines = jsonLines(proc);
  let ids = 0;
  const request = async (method, params) => {
    const id = ++ids;
    lines.write({ jsonrpc: "2.0", id, method, params });
    const reply = await lines.waitFor((m) => m.id === id, { timeoutMs: 600_000, what: `the reply to ${method}` });
    if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
    return reply.result;
  };
  await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "askd-latency-bench", version: "1.0.0" } });
  lines.write({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { request };
}

/**
 * The entry points, each as an agent reaches it. Each takes `{ hub, index, cwd }` and answers
 * `{ sentAt, ended }`: the time the call reached askd and a promise of what the agent got back
 * (`{ ok, said }`). The flow is the first the hub announces after the call.
 */
const ENTRY_POINTS = {
  /**
   * `askd hook claude`: Claude Code runs the hook command through the shell for each call, with
   * the call on stdin. The time starts as the shell is spawned.
   */
  async "hook claude"({ hub, index, cwd }) {
    const call = claudeCall(index, cwd);
    const command = `${shellQuote(askdBin())} hook claude --timeout 600`;
    const sentAt = now();
    const hook = start("/bin/sh", ["-c", command], { env: hub.clientEnv, name: "hook" });
    hook.child.stdin.end(JSON.stringify(call));
    const ended = hook.exited.then(({ code }) => ({
      ok: code === 0 && hook.out().includes('"permissionDecision":"allow"'),
      said: `status ${code}, stdout ${hook.out().trim()}, stderr ${hook.err().trim()}`,
    }));
    return { sentAt, ended };
  },

  /**
   * `askd mcp`: the agent started the server once (before the first call, not measured) and
   * sends each call to its `ask` tool as a `tools/call` request on its stdin. The time starts as
   * the request is written; the hub is reached on the first call (a warm-up one) and the
   * connection kept for the next ones.
   */
  async mcp({ hub, index, cwd }) {
    mcpServer ??= await startMcpServer(hub, cwd);
    const { tool_input: questions } = claudeCall(index, cwd);
    const sentAt = now();
    const ended = mcpServer.request("tools/call", { name: "ask", arguments: questions }).then(
      (result) => ({ ok: result.structuredContent?.status === "answered", said: JSON.stringify(result) }),
      (error) => ({ ok: false, said: error.message }),
    );
    return { sentAt, ended };
  },
};

/** `askd hub --no-browser` in a runtime and state folder of its own; resolves with its file. */
async function startHub() {
  const dir = tempDir("bench-hub");
  const runtime = path.join(dir, "runtime");
  fs.mkdirSync(runtime, { mode: 0o700 });
  const clientEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    LANG: "C.UTF-8",
    XDG_RUNTIME_DIR: runtime,
    XDG_STATE_HOME: path.join(dir, "state"),
    ASKD_NO_BROWSER: "1",
  };
  const proc = start(askdBin(), ["hub", "--no-browser"], { env: clientEnv, name: "hub" });
  const file = path.join(runtime, "askd", "hub.json");
  const discovery = await until(
    () => {
      if (proc.child.exitCode !== null) throw new Error(`askd hub exited: ${proc.err()}`);
      try {
        return JSON.parse(fs.readFileSync(file, "utf8"));
      } catch {
        return null;
      }
    },
    { timeoutMs: 20_000, what: "the hub's discovery file" },
  );
  return { proc, clientEnv, url: discovery.url, token: discovery.token, page: `${discovery.page}?token=${discovery.token}` };
}

/** In the page, before its scripts: notes when a flow first shows each `(#N)` question. */
function watchForQuestions() {
  window.drawn = {};
  const seen = (text) => {
    for (const [, index] of text.matchAll(/\(#(\d+)\)/g)) {
      if (window.drawn[index] !== undefined) continue;
      const at = performance.timeOrigin + performance.now();
      window.drawn[index] = { dom: at };
      requestAnimationFrame(() => {
        window.drawn[index].frame = performance.timeOrigin + performance.now();
      });
    }
  };
  new MutationObserver(() => {
    const flow = document.querySelector(".askd-page-flow-element");
    if (flow !== null) seen(flow.textContent);
  }).observe(document, { childList: true, subtree: true, characterData: true });
}

/** The value below which a share of the samples fall (nearest rank). */
function percentile(values, share) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
}

function report(label, values) {
  const ms = (value) => `${value.toFixed(1)} ms`.padStart(9);
  console.log(`  ${label.padEnd(52)} p50 ${ms(percentile(values, 0.5))}   p99 ${ms(percentile(values, 0.99))}   max ${ms(Math.max(...values))}`);
}

/** Asks `count` questions (after a warm-up) through `entry`, each drawn in `page` and answered. */
async function measure(name, entry, { hub, page, pageUrl, person, opened, count, settleMs }) {
  const cwd = tempDir("bench-work");
  const samples = [];
  for (let index = 0; index < WARM_UP + count; index += 1) {
    await page.goto(pageUrl);
    await page.waitForSelector(".askd-page-nothing");
    if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
    const known = opened.size;
    const { sentAt, ended } = await entry({ hub, index, cwd });
    const drawn = await page
      .waitForFunction((i) => window.drawn[i]?.frame, String(index), { timeout: 30_000 })
      .then(() => page.evaluate((i) => window.drawn[i], String(index)));
    await until(() => opened.size > known, { timeoutMs: 30_000, what: `the hub to announce question ${index}` });
    const session = [...opened.keys()][known];
    await person.press(session, ["2"]);
    const done = await person.press(session, ["1"]);
    if (done.status !== "done") throw new Error(`${name}: question ${index} did not end: ${JSON.stringify(done.view?.status)}`);
    const got = await ended;
    if (!got.ok) throw new Error(`${name}: question ${index} was not answered: ${got.said}`);
    const { announced, openedAt } = opened.get(session);
    if (index >= WARM_UP) samples.push({ opened: openedAt - sentAt, hub: announced - sentAt, dom: drawn.dom - sentAt, frame: drawn.frame - sentAt });
  }
  console.log(`${name} (${count} questions, after ${WARM_UP} not counted):`);
  report("call reaches askd → the hub opened the flow (openedAt)", samples.map((s) => s.opened));
  report("call reaches askd → a WebSocket client told of it", samples.map((s) => s.hub));
  report("call reaches askd → question in the page's DOM", samples.map((s) => s.dom));
  report("call reaches askd → the next animation frame", samples.map((s) => s.frame));
  const p99 = percentile(samples.map((s) => s.frame), 0.99);
  console.log(`  target: p99 to the drawn question under ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? "met" : "missed"} (${p99.toFixed(1)} ms)`);
}

async function main() {
  const args = process.argv.slice(2);
  const lookAt = args.indexOf("--look");
  const look = lookAt >= 0 ? args.splice(lookAt, 2)[1] : "form";
  const settleAt = args.indexOf("--settle");
  const settleMs = settleAt >= 0 ? Number(args.splice(settleAt, 2)[1]) : 0;
  const count = /^\d+$/.test(args[0] ?? "") ? Number(args.shift()) : 200;
  const names = args.length ? args : Object.keys(ENTRY_POINTS);
  for (const name of names) {
    if (!ENTRY_POINTS[name]) throw new Error(`no entry point ${name}: ${Object.keys(ENTRY_POINTS).join(", ")}`);
  }
  const hub = await startHub();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(watchForQuestions);
    const opened = new Map();
    const person = await Person.connect(hub, {
      name: "bench answerer",
      onNotification: (message) => {
        if (message.method === "session/opened" && !opened.has(message.params.session)) {
          opened.set(message.params.session, { announced: now(), openedAt: message.params.openedAt });
        }
      },
    });
    const pageUrl = `${hub.page}&look=${look}`;
    console.log(`askd: ${askdBin()}; Chromium ${browser.version()}; the page's ${look} look; the page left ${settleMs} ms to settle after each load`);
    for (const name of names) await measure(name, ENTRY_POINTS[name], { hub, page, pageUrl, person, opened, count, settleMs });
    person.close();
  } finally {
    await browser.close();
    await stopAll();
    removeTemps();
  }
}

await main();
