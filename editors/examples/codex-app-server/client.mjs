#!/usr/bin/env node
// A `codex app-server` client, as an IDE extension is one, that hands Codex's questions to
// askd: `item/tool/requestUserInput` (Codex's own `request_user_input` tool) is asked in the
// codex dialect, `mcpServer/elicitation/request` (an MCP server's `elicitation/create`,
// forwarded by Codex) in the mcp dialect, each in the askd hub, where the person's editor,
// browser or terminal answers it; askd's result is the JSON-RPC result Codex takes.
//
//   node --experimental-websocket client.mjs [--codex PATH] [--askd PATH] [--cwd DIR] PROMPT
//
// Runs one turn of PROMPT in a new thread, prints the agent's messages, and exits when the
// turn completes. Codex's own settings (`CODEX_HOME`, its config.toml) apply: Codex offers the
// model `request_user_input` in Plan mode, or everywhere with `[features]
// default_mode_request_user_input = true`.

import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { connectHub } from "./askd-hub.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    codex: { type: "string", default: "codex" },
    askd: { type: "string", default: "askd" },
    cwd: { type: "string", default: process.cwd() },
  },
});
const prompt = positionals.join(" ");
if (!prompt) {
  console.error("usage: client.mjs [--codex PATH] [--askd PATH] [--cwd DIR] PROMPT");
  process.exit(2);
}
const cwd = path.resolve(values.cwd);

const hub = await connectHub({ name: "Codex", askd: values.askd });
const codex = spawn(values.codex, ["app-server"], { cwd, stdio: ["pipe", "pipe", "inherit"] });

// JSON-RPC with Codex on its stdio: one message per line, without the "jsonrpc" member.
const waiting = new Map();
let ids = 0;
function send(message) {
  codex.stdin.write(`${JSON.stringify(message)}\n`);
}
function request(method, params) {
  const id = ++ids;
  send({ id, method, params });
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject, method }));
}

/**
 * The `ask` params of a Codex server request, or null for a request this client does not
 * hand to askd.
 */
function question(method, params) {
  const asker = { name: "Codex", folder: cwd };
  if (method === "item/tool/requestUserInput") {
    // The params are the codex dialect's request as they come.
    return { dialect: "codex", session: `codex-${params.threadId}-${params.itemId}`, payload: params, asker, cwd };
  }
  if (method === "mcpServer/elicitation/request") {
    // Codex adds its own members (threadId, turnId, serverName) to the elicitation's params;
    // the mcp dialect takes the elicitation's as they come (a `_meta` of null, Codex's way of
    // writing none, included), and the server's name as the requester.
    const { threadId, turnId, serverName, environmentId, ...elicitation } = params;
    void turnId;
    void environmentId;
    return {
      dialect: "mcp",
      session: `codex-${threadId}-elicitation-${serverName}-${Date.now()}`,
      payload: elicitation,
      mcp: { requester: { name: serverName } },
      asker,
      cwd,
    };
  }
  return null;
}

/** Answers a request Codex sends: through askd when it is a question. */
async function answer(message) {
  const params = question(message.method, message.params);
  if (!params) {
    send({ id: message.id, error: { code: -32601, message: `${message.method} is not handled by this client` } });
    return;
  }
  try {
    send({ id: message.id, result: await hub.ask(params) });
  } catch (error) {
    // askd refused the request (an elicitation it cannot show): Codex takes an error as a
    // decline (an elicitation) or as no answers (request_user_input).
    send({ id: message.id, error: { code: error.code ?? -32603, message: error.message } });
  }
}

let finish;
const finished = new Promise((resolve) => (finish = resolve));

createInterface({ input: codex.stdout }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id !== undefined && message.method) {
    answer(message);
  } else if (message.id !== undefined) {
    const reply = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) reply?.reject(new Error(`${reply.method}: ${message.error.message}`));
    else reply?.resolve(message.result);
  } else if (message.method === "item/completed" && message.params.item.type === "agentMessage") {
    console.log(message.params.item.text);
  } else if (message.method === "turn/completed") {
    finish(message.params.turn);
  }
});
codex.on("exit", (code) => finish({ status: "failed", error: { message: `codex app-server exited (${code})` } }));

await request("initialize", { clientInfo: { name: "askd-codex-example", title: "askd example", version: "0.1.0" }, capabilities: { experimentalApi: true } });
send({ method: "initialized" });
// Codex forwards MCP elicitations only under an approval policy other than "never".
const { thread } = await request("thread/start", { cwd, approvalPolicy: "on-request" });
await request("turn/start", { threadId: thread.id, input: [{ type: "text", text: prompt }] });
const done = await finished;
codex.kill();
hub.close();
process.exitCode = done.status === "completed" ? 0 : 1;
if (done.status !== "completed") console.error(`the turn ${done.status}: ${done.error?.message ?? ""}`);
