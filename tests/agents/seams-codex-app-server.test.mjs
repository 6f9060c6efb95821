// The Codex app-server example (editors/examples/codex-app-server/client.mjs) with the real
// `codex app-server`: Codex's `request_user_input` and an MCP server's elicitation, forwarded
// by Codex to its client, are asked in the hub and answered by a person attached to it; the
// model's next request carries the answers in Codex's own shapes.
import assert from "node:assert/strict";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { DUMMY_KEY, codexConfig } from "./lib/agents.mjs";
import { startModelServer, toolResults } from "./lib/model-server.mjs";
import { Person, startListener } from "./lib/person.mjs";
import { REPO_DIR, agentBin, askdBin, offlineEnv, removeTemps, start, stopAll, tempDir, writeFile } from "./lib/proc.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

const CLIENT = path.join(REPO_DIR, "editors", "examples", "codex-app-server", "client.mjs");
const deployer = { name: "deployer", command: process.execPath, args: [path.join(REPO_DIR, "tests", "agents", "lib", "seams-elicit-mcp.mjs")] };

/** Runs the example client with a Codex pointed at `model`, as a hub client of `listener`. */
function startExample({ model, listener, mcpServers = [], prompt }) {
  const home = tempDir("seams-codex");
  const codexHome = path.join(home, ".codex");
  writeFile(
    path.join(codexHome, "config.toml"),
    codexConfig({ model, mcpServers, extra: "[features]\ndefault_mode_request_user_input = true\n" }),
  );
  const work = path.join(home, "work");
  writeFile(path.join(work, "README.md"), "A folder for a scripted agent run.\n");
  const env = offlineEnv(home, { CODEX_HOME: codexHome, ASKD_TESTS_MODEL_KEY: DUMMY_KEY, RUST_LOG: "error", ...listener.env });
  const args = ["--experimental-websocket", CLIENT, "--codex", agentBin("codex"), "--askd", askdBin(), "--cwd", work, prompt];
  return { proc: start(process.execPath, args, { cwd: work, env, name: "codex-example" }), work };
}

test("codex app-server example: request_user_input is answered in the hub, and the model reads the answer", async (t) => {
  const questions = [
    {
      id: "database",
      header: "Database",
      question: "Which database should we use?",
      options: [
        { label: "Postgres", description: "Full SQL, runs as a server" },
        { label: "SQLite", description: "A single file, no server" },
      ],
    },
  ];
  const model = await startModelServer({
    script: [{ tool: { name: "request_user_input", arguments: { questions } } }, { text: "SQLite it is." }],
  });
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const { proc, work } = startExample({ model, listener, prompt: "Ask me which database to use." });

  const flow = await person.nextFlow();
  assert.equal(flow.view.dialect, "codex");
  assert.deepEqual(flow.asker, { name: "Codex", folder: work });
  assert.match(await person.screen(flow.session), /Which database should we use\?/);
  await person.press(flow.session, ["2"]);
  const done = await person.press(flow.session, ["1"]);
  assert.equal(done.status, "done");

  const { code } = await proc.exited;
  assert.equal(code, 0, proc.err());
  assert.equal(proc.out(), "SQLite it is.\n");
  assert.deepEqual(
    toolResults(model.turns()[1]).map((r) => [r.id, JSON.parse(r.text)]),
    [["call_1", { answers: { database: { answers: ["SQLite"] } } }]],
  );
});

test("codex app-server example: an MCP server's elicitation is answered in the hub, and the model reads the answer", async (t) => {
  const model = await startModelServer({
    script: [{ tool: { namespace: "mcp__deployer", name: "deploy", arguments: {} } }, { text: "Deployed." }],
  });
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const { proc } = startExample({ model, listener, mcpServers: [deployer], prompt: "Deploy the app." });

  const flow = await person.nextFlow();
  assert.equal(flow.view.dialect, "mcp");
  assert.equal(flow.view.requester, "deployer");
  const screen = await person.screen(flow.session);
  assert.match(screen, /Where should the app be deployed\?/);
  assert.match(screen, /Virginia/);
  await person.press(flow.session, ["2"]);
  const done = await person.press(flow.session, ["1"]);
  assert.equal(done.status, "done");
  assert.deepEqual(done.result, { action: "accept", content: { region: "us-east-1" } });

  const { code } = await proc.exited;
  assert.equal(code, 0, proc.err());
  assert.equal(proc.out(), "Deployed.\n");
  const results = toolResults(model.turns()[1]);
  assert.equal(results.length, 1);
  assert.match(results[0].text, /^Wall time: \d+\.\d+ seconds\nOutput:Elicitation: \{"action":"accept","content":\{"region":"us-east-1"\}\}$/);
});
