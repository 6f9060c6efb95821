// `askd mcp` against the official MCP SDK's client (@modelcontextprotocol/sdk, pinned): the SDK
// starts it on stdio, lists its tool, calls it with progress (the SDK's timeout reset by each
// notification), and cancels a call (the SDK sends notifications/cancelled on abort); a person
// attached to the hub answers, and the SDK validates the structured result against the tool's
// output schema.
import assert from "node:assert/strict";
import { after, afterEach, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Person, startListener } from "./lib/person.mjs";
import { askdBin, onStopAll, removeTemps, stopAll, tempDir, until } from "./lib/proc.mjs";
import { DATABASE, claudeQuestions, hubClientEnv } from "./lib/seams-run.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

/** The SDK's client connected to `askd mcp ARGS` that uses `listener`'s hub. */
async function sdkClient(listener, args = []) {
  const cwd = tempDir("mcp-sdk-project");
  const transport = new StdioClientTransport({ command: askdBin(), args: ["mcp", ...args], cwd, env: hubClientEnv(listener), stderr: "pipe" });
  const client = new Client({ name: "askd-tests-sdk", title: "SDK host", version: "1.0.0" });
  await client.connect(transport);
  onStopAll(() => client.close());
  return { client, cwd };
}

test("MCP SDK client: tools/list gives ask with its input and output schemas", async () => {
  const listener = await startListener();
  const { client } = await sdkClient(listener);
  assert.deepEqual(client.getServerVersion(), { name: "askd", title: "askd", version: "0.1.0" });
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ["ask"],
  );
  const [tool] = tools;
  assert.deepEqual(tool.inputSchema.required, ["questions"]);
  assert.deepEqual(Object.keys(tool.inputSchema.properties.questions.items.properties), ["question", "header", "options", "multiSelect"]);
  assert.deepEqual(Object.keys(tool.inputSchema.properties.questions.items.properties.options.items.properties), ["label", "description", "preview"]);
  assert.deepEqual(tool.outputSchema.properties.status.enum, ["answered", "declined", "timedOut", "withdrawn"]);
});

test("MCP SDK client: a call reports progress while the person thinks and returns the answer", async () => {
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const { client, cwd } = await sdkClient(listener, ["--progress-every", "1"]);
  const progress = [];
  const call = client.callTool({ name: "ask", arguments: claudeQuestions }, undefined, {
    onprogress: (p) => progress.push(p),
    resetTimeoutOnProgress: true,
    timeout: 20_000,
  });
  const flow = await person.nextFlow();
  assert.deepEqual(flow.asker, { name: "SDK host", folder: cwd });
  assert.equal(flow.view.dialect, "claude");
  assert.match(await person.screen(flow.session), /Which database should we use\?/);
  await until(() => progress.length >= 2, { what: "two progress notifications" });
  assert.deepEqual(progress.slice(0, 2), [
    { progress: 0, message: "Waiting for the user to answer in askd" },
    { progress: 1, message: "Waiting for the user to answer in askd" },
  ]);
  await person.press(flow.session, ["2"]);
  const done = await person.press(flow.session, ["1"]);
  assert.equal(done.status, "done");
  const result = await call;
  assert.deepEqual(result, {
    content: [{ type: "text", text: `The user answered:\n"${DATABASE}" → SQLite` }],
    structuredContent: { status: "answered", answers: { [DATABASE]: "SQLite" } },
    isError: false,
  });
});

test("MCP SDK client: an aborted call sends notifications/cancelled and the flow ends aborted", async () => {
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const { client } = await sdkClient(listener);
  const controller = new AbortController();
  const call = client.callTool({ name: "ask", arguments: claudeQuestions }, undefined, { signal: controller.signal });
  const flow = await person.nextFlow();
  controller.abort("the host gave up");
  await assert.rejects(call, /the host gave up/);
  const changed = await until(
    () => person.notifications.find((n) => n.method === "session/changed" && n.params.session === flow.session && n.params.status === "done"),
    { what: "the flow to end" },
  );
  assert.deepEqual(changed.params.result, { behavior: "deny", message: "The request was withdrawn before the user answered" });
  // The server goes on: the next call is asked.
  const next = client.callTool({ name: "ask", arguments: claudeQuestions });
  const second = await person.nextFlow();
  assert.notEqual(second.session, flow.session);
  await person.request("cancel", { session: second.session, reason: "user" });
  const declined = await next;
  assert.equal(declined.isError, false);
  assert.equal(declined.structuredContent.status, "declined");
});

test("MCP SDK client: a malformed call is a tool error naming the field", async () => {
  const listener = await startListener();
  const { client } = await sdkClient(listener);
  const result = await client.callTool({
    name: "ask",
    arguments: { questions: [{ question: "Which?", header: "Q", options: [{ label: "Only", description: "one" }] }] },
  });
  assert.deepEqual(result, {
    content: [
      {
        type: "text",
        text: "The questions were not asked: the input of ask is malformed. Fix these fields and call it again:\n- questions[0].options: Question 1: 2 to 4 options are required (got 1)",
      },
    ],
    isError: true,
  });
});
