// The harness with pi, in its three modes: `pi -p`, the interactive TUI (in tmux) and
// `pi --mode rpc` each reach the scripted model (OpenAI Chat Completions), call the tool of a
// test extension, and the next request carries what the tool answered.
import assert from "node:assert/strict";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { runPiPrint, startPiRpc, startPiTui } from "./lib/agents.mjs";
import { offeredTools, startModelServer, toolResults } from "./lib/model-server.mjs";
import { AGENTS_DIR, removeTemps, stopAll } from "./lib/proc.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

const extension = path.join(AGENTS_DIR, "fixtures", "pi-remember.ts");
const script = () => [{ tool: { name: "remember", arguments: { word: "saffron" } } }, { text: "The word is saffron." }];

function assertRemembered(model) {
  const [first, second] = model.turns();
  assert.equal(first.api, "chat");
  assert.deepEqual(offeredTools(first), ["remember"]);
  assert.deepEqual(
    toolResults(second).map((r) => [r.id, r.text]),
    [["call_1", "Remembered the word saffron."]],
  );
  assert.equal(model.turns().length, 2);
}

test("pi -p: a tool call reaches the extension and its result reaches the model", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const result = await runPiPrint({ model, prompt: "Remember a word.", extensions: [extension] });
  assert.equal(result.code, 0, `pi failed: ${result.stderr}`);
  assert.equal(result.stdout.trim(), "The word is saffron.");
  assertRemembered(model);
});

test("pi TUI: a prompt typed into the terminal gets the tool called and its result to the model", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const { tmux } = await startPiTui({ model, extensions: [extension] });
  await tmux.waitFor(/scripted/, { what: "pi's editor with the model in its footer" });
  tmux.type("Remember a word.");
  tmux.send("Enter");
  const screen = await tmux.waitFor("The word is saffron.");
  tmux.keep("harness-pi-tui");
  assert.match(screen, /Remembered the word saffron\./);
  assertRemembered(model);
});

test("pi --mode rpc: a prompt command gets the tool called and its result to the model", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const pi = await startPiRpc({ model, extensions: [extension] });
  const response = await pi.command({ type: "prompt", message: "Remember a word." });
  assert.equal(response.success, true);
  const end = await pi.waitFor((m) => m.type === "agent_end", { what: "agent_end" });
  const last = end.messages.at(-1);
  assert.equal(last.role, "assistant");
  assert.deepEqual(last.content, [{ type: "text", text: "The word is saffron." }]);
  assertRemembered(model);
});
