// The harness with Claude Code: `claude -p` and the interactive TUI (in tmux) reach the scripted
// model (Anthropic Messages), call a tool of the test's MCP server, and the next request carries
// what the tool answered.
import assert from "node:assert/strict";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { runClaudePrint, startClaudeTui } from "./lib/agents.mjs";
import { offeredTools, startModelServer, toolResults } from "./lib/model-server.mjs";
import { AGENTS_DIR, removeTemps, stopAll } from "./lib/proc.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

const remember = { name: "remember", command: process.execPath, args: [path.join(AGENTS_DIR, "fixtures", "remember-mcp.mjs")] };

test("claude -p: an MCP tool call reaches the server and its result reaches the model", async () => {
  const model = await startModelServer({
    script: [{ tool: { name: "mcp__remember__remember", arguments: { word: "saffron" } } }, { text: "The word is saffron." }],
  });
  try {
    const result = await runClaudePrint({
      model,
      prompt: "Remember a word.",
      mcpServers: [remember],
      allowedTools: ["mcp__remember__remember"],
    });
    assert.equal(result.code, 0, `claude failed: ${result.stdout}\n${result.stderr}`);
    assert.equal(result.stdout.trim(), "The word is saffron.");
    const [first, second] = model.turns();
    assert.equal(first.api, "anthropic");
    assert.ok(offeredTools(first).includes("mcp__remember__remember"), `offered: ${offeredTools(first)}`);
    assert.deepEqual(
      toolResults(second).map((r) => [r.id, r.text]),
      [["toolu_1", "Remembered the word saffron."]],
    );
    assert.equal(model.turns().length, 2);
  } finally {
    await model.close();
  }
});

test("claude TUI: a prompt given at start gets the MCP tool called and its result to the model", async (t) => {
  const model = await startModelServer({
    script: [{ tool: { name: "mcp__remember__remember", arguments: { word: "saffron" } } }, { text: "The word is saffron." }],
  });
  t.after(() => model.close());
  const { tmux } = await startClaudeTui({
    model,
    prompt: "Remember a word.",
    mcpServers: [remember],
    allowedTools: ["mcp__remember__remember"],
  });
  const screen = await tmux.waitFor("● The word is saffron.");
  tmux.keep("harness-claude-tui");
  assert.match(screen, /❯ Remember a word\./);
  const [, second] = model.turns();
  assert.deepEqual(
    toolResults(second).map((r) => [r.id, r.text]),
    [["toolu_1", "Remembered the word saffron."]],
  );
  assert.equal(model.turns().length, 2);
});
