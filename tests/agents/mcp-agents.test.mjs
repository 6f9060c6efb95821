// `askd mcp` in the real agents: `claude -p` and Claude Code's TUI, `codex exec` and Codex's
// TUI, `opencode serve` and `opencode run`, and `gemini -p` each run with askd's MCP server, the
// scripted model calls its `ask` tool, a person attached to the hub answers, and the model's next
// request carries the answer as the agent hands an MCP tool's result to its model.
import assert from "node:assert/strict";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import {
  MODEL,
  runClaudePrint,
  runCodexExec,
  runGeminiPrint,
  runOpencodeRun,
  startClaudeTui,
  startCodexTui,
  startOpencodeServe,
} from "./lib/agents.mjs";
import { offeredTools, startModelServer, toolResults } from "./lib/model-server.mjs";
import { Person, startListener } from "./lib/person.mjs";
import { askdBin, removeTemps, stopAll } from "./lib/proc.mjs";
import { DATABASE, claudeQuestions } from "./lib/seams-run.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

/** askd's MCP server as an agent's settings name it, pointed at `listener`'s hub. */
function askdServer(listener) {
  return { name: "askd", command: askdBin(), args: ["mcp"], env: { ...listener.env, ASKD_NO_BROWSER: "1" } };
}

/** The text of the tool's answer, as `askd mcp` writes it. */
const ANSWER = `The user answered:\n"${DATABASE}" → SQLite`;
/** Its structured content. */
const STRUCTURED = { status: "answered", answers: { [DATABASE]: "SQLite" } };

/** A listener (the hub) with a person attached who answers the next flow with SQLite. */
async function personWhoPicksSqlite() {
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const answered = (async () => {
    const flow = await person.nextFlow({ timeoutMs: 120_000 });
    assert.equal(flow.view.dialect, "claude");
    assert.match(await person.screen(flow.session), /Which database should we use\?/);
    await person.press(flow.session, ["2"]);
    const done = await person.press(flow.session, ["1"]);
    assert.equal(done.status, "done");
    return flow;
  })();
  return { listener, answered };
}

test("claude -p + askd mcp: the person's answer reaches the model", async (t) => {
  const model = await startModelServer({
    script: [{ tool: { name: "mcp__askd__ask", arguments: claudeQuestions } }, { text: "SQLite it is." }],
  });
  t.after(() => model.close());
  const { listener, answered } = await personWhoPicksSqlite();
  const [result, flow] = await Promise.all([
    runClaudePrint({ model, prompt: "Ask me which database to use.", mcpServers: [askdServer(listener)], allowedTools: ["mcp__askd__ask"] }),
    answered,
  ]);
  assert.equal(result.code, 0, `claude failed: ${result.stdout}\n${result.stderr}`);
  assert.equal(result.stdout.trim(), "SQLite it is.");
  assert.deepEqual(flow.asker, { name: "Claude Code", folder: path.join(result.home, "work") });
  assert.ok(offeredTools(model.turns()[0]).includes("mcp__askd__ask"));
  // Claude Code hands the model an MCP tool's structured content, when it has some.
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), [JSON.stringify(STRUCTURED)]);
});

test("Claude Code's TUI + askd mcp: the person's answer reaches the model", async (t) => {
  const model = await startModelServer({
    script: [{ tool: { name: "mcp__askd__ask", arguments: claudeQuestions } }, { text: "SQLite it is." }],
  });
  t.after(() => model.close());
  const { listener, answered } = await personWhoPicksSqlite();
  const { tmux, home } = await startClaudeTui({ model, mcpServers: [askdServer(listener)], allowedTools: ["mcp__askd__ask"] });
  // The TUI connects its MCP servers while it takes input, and a prompt given on the command
  // line may go out before askd's tool is known: the person first looks at /mcp, as one would.
  await tmux.waitFor("❯", { timeoutMs: 60_000 });
  tmux.type("/mcp");
  await tmux.waitFor("Manage MCP servers");
  tmux.send("Enter");
  await tmux.waitFor("✔ askd   1 tool", { timeoutMs: 60_000 });
  tmux.send("Escape");
  await tmux.waitFor((screen) => !screen.includes("MCP servers"));
  tmux.type("Ask me which database to use.");
  tmux.send("Enter");
  const flow = await answered;
  assert.deepEqual(flow.asker, { name: "Claude Code", folder: path.join(home, "work") });
  const screen = await tmux.waitFor("● SQLite it is.", { timeoutMs: 60_000 });
  tmux.keep("mcp-claude-tui-answered");
  assert.match(screen, /❯ Ask me which database to use\.\n\n +Called askd\n\n● SQLite it is\./);
  const turns = model.turns();
  assert.ok(offeredTools(turns[0]).includes("mcp__askd__ask"));
  assert.deepEqual(toolResults(await model.waitForTurn(1)).map((r) => r.text), [JSON.stringify(STRUCTURED)]);
});

test("codex exec + askd mcp: the person's answer reaches the model", async (t) => {
  const model = await startModelServer({
    script: [{ tool: { namespace: "mcp__askd", name: "ask", arguments: claudeQuestions } }, { text: "SQLite it is." }],
  });
  t.after(() => model.close());
  const { listener, answered } = await personWhoPicksSqlite();
  const [result, flow] = await Promise.all([
    runCodexExec({ model, prompt: "Ask me which database to use.", mcpServers: [askdServer(listener)], timeoutMs: 150_000 }),
    answered,
  ]);
  assert.equal(result.code, 0, `codex failed: ${result.stdout}\n${result.stderr}`);
  assert.equal(result.stdout.trim(), "SQLite it is.");
  assert.deepEqual(flow.asker, { name: "Codex", folder: path.join(result.home, "work") });
  assert.ok(offeredTools(model.turns()[0]).includes("mcp__askd/ask"), `offered: ${offeredTools(model.turns()[0])}`);
  const results = toolResults(model.turns()[1]);
  assert.equal(results.length, 1);
  // Codex hands the model an MCP tool's structured content, after the call's wall time.
  assert.match(results[0].text, /^Wall time: \d+\.\d+ seconds\nOutput:\n/);
  assert.equal(results[0].text.replace(/^Wall time: \d+\.\d+ seconds\nOutput:\n/, ""), JSON.stringify(STRUCTURED));
});

test("Codex's TUI + askd mcp: the person's answer reaches the model", async (t) => {
  const model = await startModelServer({
    script: [{ tool: { namespace: "mcp__askd", name: "ask", arguments: claudeQuestions } }, { text: "SQLite it is." }],
  });
  t.after(() => model.close());
  const { listener, answered } = await personWhoPicksSqlite();
  const { tmux, work } = await startCodexTui({ model, prompt: "Ask me which database to use.", mcpServers: [askdServer(listener)] });
  const flow = await answered;
  assert.deepEqual(flow.asker, { name: "Codex", folder: work });
  const screen = await tmux.waitFor("• SQLite it is.", { timeoutMs: 60_000 });
  tmux.keep("mcp-codex-tui-answered");
  // The TUI shows the tool's text.
  assert.match(screen, /• Called askd\.ask\n +└ The user answered:\n +"Which database should we use\?" → SQLite\n/);
  assert.ok(offeredTools(model.turns()[0]).includes("mcp__askd/ask"), `offered: ${offeredTools(model.turns()[0])}`);
  const results = toolResults(await model.waitForTurn(1));
  assert.equal(results.length, 1);
  assert.match(results[0].text, /^Wall time: \d+\.\d+ seconds\nOutput:\n/);
  assert.equal(results[0].text.replace(/^Wall time: \d+\.\d+ seconds\nOutput:\n/, ""), JSON.stringify(STRUCTURED));
});

test("opencode serve + askd mcp: the person's answer reaches the model", async (t) => {
  const model = await startModelServer({
    script: [{ tool: { name: "askd_ask", arguments: claudeQuestions } }, { text: "SQLite it is." }],
  });
  t.after(() => model.close());
  const { listener, answered } = await personWhoPicksSqlite();
  const opencode = await startOpencodeServe({ model, mcpServers: [askdServer(listener)] });
  const session = await opencode.client.session.create({}, { throwOnError: true });
  const [reply, flow] = await Promise.all([
    opencode.client.session.prompt(
      { sessionID: session.data.id, model: { providerID: "scripted", modelID: MODEL }, parts: [{ type: "text", text: "Ask me which database to use." }] },
      { throwOnError: true },
    ),
    answered,
  ]);
  const text = reply.data.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
  assert.equal(text, "SQLite it is.");
  assert.equal(flow.asker.name, "opencode");
  const turns = model.turns();
  assert.ok(offeredTools(turns[0]).includes("askd_ask"), `offered: ${offeredTools(turns[0])}`);
  assert.deepEqual(toolResults(turns[1]).map((r) => r.text), [ANSWER]);
});

test("opencode run + askd mcp: the person's answer reaches the model", async (t) => {
  const model = await startModelServer({
    script: [{ tool: { name: "askd_ask", arguments: claudeQuestions } }, { text: "SQLite it is." }],
  });
  t.after(() => model.close());
  const { listener, answered } = await personWhoPicksSqlite();
  const [result, flow] = await Promise.all([
    runOpencodeRun({ model, prompt: "Ask me which database to use.", mcpServers: [askdServer(listener)], timeoutMs: 150_000 }),
    answered,
  ]);
  assert.equal(result.code, 0, `opencode failed: ${result.stdout}\n${result.stderr}`);
  assert.equal(result.stdout, "SQLite it is.\n");
  assert.deepEqual(flow.asker, { name: "opencode", folder: path.join(result.home, "work") });
  const turns = model.turns();
  assert.ok(offeredTools(turns[0]).includes("askd_ask"), `offered: ${offeredTools(turns[0])}`);
  assert.deepEqual(toolResults(turns[1]).map((r) => r.text), [ANSWER]);
});

test("gemini -p + askd mcp: the person's answer reaches the model", async (t) => {
  const model = await startModelServer({
    script: [{ tool: { name: "mcp_askd_ask", arguments: claudeQuestions } }, { text: "SQLite it is." }],
  });
  t.after(() => model.close());
  const { listener, answered } = await personWhoPicksSqlite();
  const [result, flow] = await Promise.all([
    runGeminiPrint({ model, prompt: "Ask me which database to use.", mcpServers: [askdServer(listener)], timeoutMs: 150_000 }),
    answered,
  ]);
  assert.equal(result.code, 0, `gemini failed: ${result.stdout}\n${result.stderr}`);
  assert.equal(result.stdout.trim(), "SQLite it is.");
  assert.equal(flow.asker.name, "gemini-cli-mcp-client");
  assert.ok(offeredTools(model.turns()[0]).includes("mcp_askd_ask"));
  assert.deepEqual(
    toolResults(model.turns()[1]).map((r) => [r.name, JSON.parse(r.text)]),
    [["mcp_askd_ask", { output: `<untrusted_context>\n${ANSWER}\n</untrusted_context>` }]],
  );
});
