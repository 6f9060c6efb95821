// The harness with Gemini CLI: `gemini -p` reaches the scripted model (Gemini
// streamGenerateContent), calls a tool of the test's MCP server, and the next request carries
// what the tool answered.
import assert from "node:assert/strict";
import path from "node:path";
import { after, test } from "node:test";
import { runGeminiPrint } from "./lib/agents.mjs";
import { offeredTools, startModelServer, toolResults } from "./lib/model-server.mjs";
import { AGENTS_DIR, removeTemps, stopAll } from "./lib/proc.mjs";

after(async () => {
  await stopAll();
  removeTemps();
});

const remember = { name: "remember", command: process.execPath, args: [path.join(AGENTS_DIR, "fixtures", "remember-mcp.mjs")] };

test("gemini -p: an MCP tool call reaches the server and its result reaches the model", async () => {
  const model = await startModelServer({
    script: [{ tool: { name: "mcp_remember_remember", arguments: { word: "saffron" } } }, { text: "The word is saffron." }],
  });
  try {
    const result = await runGeminiPrint({ model, prompt: "Remember a word.", mcpServers: [remember] });
    assert.equal(result.code, 0, `gemini failed: ${result.stdout}\n${result.stderr}`);
    assert.equal(result.stdout.trim(), "The word is saffron.");
    const [first, second] = model.turns();
    assert.equal(first.api, "gemini");
    assert.ok(offeredTools(first).includes("mcp_remember_remember"), `offered: ${offeredTools(first)}`);
    // Gemini CLI hands an MCP tool's text to the model wrapped as untrusted context.
    assert.deepEqual(
      toolResults(second).map((r) => [r.name, JSON.parse(r.text)]),
      [["mcp_remember_remember", { output: "<untrusted_context>\nRemembered the word saffron.\n</untrusted_context>" }]],
    );
    assert.equal(model.turns().length, 2);
  } finally {
    await model.close();
  }
});
