// The harness with Codex: `codex exec` reaches the scripted model (OpenAI Responses), calls a
// tool of the test's MCP server (inside its namespace, as Codex offers MCP tools), and the next
// request carries what the tool answered; `codex app-server` hands its own ask tool,
// `request_user_input`, to its client, and the client's answer reaches the model.
import assert from "node:assert/strict";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { runCodexExec, startCodexAppServer } from "./lib/agents.mjs";
import { offeredTools, startModelServer, toolResults } from "./lib/model-server.mjs";
import { AGENTS_DIR, removeTemps, stopAll } from "./lib/proc.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

const remember = { name: "remember", command: process.execPath, args: [path.join(AGENTS_DIR, "fixtures", "remember-mcp.mjs")] };

test("codex exec: an MCP tool call reaches the server and its result reaches the model", async () => {
  const model = await startModelServer({
    script: [
      { tool: { namespace: "mcp__remember", name: "remember", arguments: { word: "saffron" } } },
      { text: "The word is saffron." },
    ],
  });
  try {
    const result = await runCodexExec({ model, prompt: "Remember a word.", mcpServers: [remember] });
    assert.equal(result.code, 0, `codex failed: ${result.stdout}\n${result.stderr}`);
    assert.equal(result.stdout.trim(), "The word is saffron.");
    const [first, second] = model.turns();
    assert.equal(first.api, "responses");
    assert.ok(offeredTools(first).includes("mcp__remember/remember"), `offered: ${offeredTools(first)}`);
    // Codex hands an MCP tool's text to the model after the call's wall time.
    const results = toolResults(second);
    assert.equal(results.length, 1);
    assert.equal(results[0].id, "call_1");
    assert.match(results[0].text, /^Wall time: \d+\.\d+ seconds\nOutput:Remembered the word saffron\.$/);
    assert.equal(model.turns().length, 2);
  } finally {
    await model.close();
  }
});

test("codex app-server: request_user_input reaches the client and its answer reaches the model", async (t) => {
  const questions = [
    {
      id: "color",
      header: "Color",
      question: "Which color?",
      options: [
        { label: "Red", description: "Warm" },
        { label: "Blue", description: "Cool" },
      ],
    },
  ];
  const model = await startModelServer({
    script: [{ tool: { name: "request_user_input", arguments: { questions } } }, { text: "Blue it is." }],
  });
  t.after(() => model.close());
  // Codex refuses the tool in Default mode unless this feature is on.
  const codex = await startCodexAppServer({ model, config: "[features]\ndefault_mode_request_user_input = true\n" });
  const { thread } = await codex.request("thread/start", { cwd: codex.work });
  await codex.request("turn/start", { threadId: thread.id, input: [{ type: "text", text: "Ask me." }] });
  const asked = await codex.waitFor((m) => m.method === "item/tool/requestUserInput", { what: "item/tool/requestUserInput" });
  assert.equal(asked.params.itemId, "call_1");
  assert.deepEqual(asked.params.questions, [{ ...questions[0], isOther: true, isSecret: false }]);
  codex.respond(asked.id, { answers: { color: { answers: ["Blue"] } } });
  const done = await codex.waitFor((m) => m.method === "turn/completed", { what: "turn/completed" });
  assert.equal(done.params.turn.items.at(-1).text, "Blue it is.");
  assert.ok(offeredTools(model.turns()[0]).includes("request_user_input"));
  assert.deepEqual(
    toolResults(model.turns()[1]).map((r) => [r.id, JSON.parse(r.text)]),
    [["call_1", { answers: { color: { answers: ["Blue"] } } }]],
  );
});
