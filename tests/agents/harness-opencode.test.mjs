// The harness with opencode: `opencode serve` reaches the scripted model (OpenAI Chat
// Completions through its openai-compatible provider), calls a tool of the test's MCP server,
// and the next request carries what the tool answered.
import assert from "node:assert/strict";
import path from "node:path";
import { after, test } from "node:test";
import { MODEL, startOpencodeServe } from "./lib/agents.mjs";
import { offeredTools, startModelServer, toolResults } from "./lib/model-server.mjs";
import { AGENTS_DIR, removeTemps, stopAll } from "./lib/proc.mjs";

after(async () => {
  await stopAll();
  removeTemps();
});

const remember = { name: "remember", command: process.execPath, args: [path.join(AGENTS_DIR, "fixtures", "remember-mcp.mjs")] };

test("opencode serve: an MCP tool call reaches the server and its result reaches the model", async () => {
  const model = await startModelServer({
    script: [{ tool: { name: "remember_remember", arguments: { word: "saffron" } } }, { text: "The word is saffron." }],
  });
  try {
    const opencode = await startOpencodeServe({ model, mcpServers: [remember] });
    const session = await opencode.client.session.create({}, { throwOnError: true });
    const reply = await opencode.client.session.prompt(
      { sessionID: session.data.id, model: { providerID: "scripted", modelID: MODEL }, parts: [{ type: "text", text: "Remember a word." }] },
      { throwOnError: true },
    );
    const text = reply.data.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
    assert.equal(text, "The word is saffron.");
    const [first, second] = model.turns();
    assert.equal(first.api, "chat");
    assert.ok(offeredTools(first).includes("remember_remember"), `offered: ${offeredTools(first)}`);
    assert.deepEqual(
      toolResults(second).map((r) => [r.id, r.text]),
      [["call_1", "Remembered the word saffron."]],
    );
    assert.equal(model.turns().length, 2);
  } finally {
    await model.close();
  }
});
