// README "Use askd with your agent": each snippet is run exactly as written (taken from
// README.md), the way a reader would, and then the real agent asks a question that a person
// answers; the model's next request carries the answer in the agent's own shape.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { MODEL, claudeEnv, claudeHome, opencodeConfig, piEnv, runClaudePrint, runCodexExec, runGeminiPrint, startClaudeTui, startOpencodeServe, startPiTui } from "./lib/agents.mjs";
import { startModelServer, toolResults } from "./lib/model-server.mjs";
import { Person, startListener } from "./lib/person.mjs";
import { askdBin, BIN_DIR, offlineEnv, REPO_DIR, removeTemps, run, start, stopAll, tempDir, until, writeFile } from "./lib/proc.mjs";
import { snippet } from "./lib/readme.mjs";
import { claudeQuestions, DATABASE, freePort, opencodeQuestions } from "./lib/seams-run.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

/** A folder holding only `askd`, for the PATH of a reader who installed it. */
function askdOnPath() {
  const dir = tempDir("askd-bin");
  fs.symlinkSync(askdBin(), path.join(dir, "askd"));
  return dir;
}

/** A copy of the parts of the repository a snippet uses, as a reader's clone has them. */
function clone(parts) {
  const dir = tempDir("clone");
  for (const part of parts) {
    fs.cpSync(path.join(REPO_DIR, part), path.join(dir, part), {
      recursive: true,
      filter: (source) => !source.split(path.sep).includes("node_modules"),
    });
  }
  return dir;
}

/** Runs a snippet with bash in `cwd`, failing with its output when it fails. */
async function runSnippet(name, { cwd, env }) {
  const text = snippet(name);
  const result = await run("bash", ["-euo", "pipefail", "-c", text], { cwd, env, timeoutMs: 120_000, name: `snippet ${name}` });
  assert.equal(result.code, 0, `the README's ${name} snippet failed:\n${text}\n${result.stdout}\n${result.stderr}`);
  return result;
}

test("README pi: the extension installed as written answers ask_user in pi's terminal", async (t) => {
  const model = await startModelServer({
    script: [
      {
        tool: {
          name: "ask_user",
          arguments: {
            questions: [
              {
                id: "db",
                label: "DB",
                prompt: "Which database?",
                options: [
                  { value: "pg", label: "Postgres" },
                  { value: "sqlite", label: "SQLite" },
                ],
              },
            ],
          },
        },
      },
      { text: "Thanks." },
    ],
  });
  t.after(() => model.close());
  const home = tempDir("pi-home");
  const repo = clone(["editors/pi"]);
  const PATH = [BIN_DIR, askdOnPath(), process.env.PATH].join(path.delimiter);
  // npm installs the extension's dependency from the cache the agents' install filled.
  await runSnippet("pi", { cwd: repo, env: piEnv(home, { PATH, npm_config_cache: path.join(os.homedir(), ".npm") }) });
  assert.ok(fs.existsSync(path.join(repo, "editors", "pi", "node_modules", "ws", "package.json")), "npm installed ws");
  assert.ok(!fs.existsSync(path.join(repo, "editors", "pi", "node_modules", "@mariozechner")), "pi's own packages stay pi's");

  // pi started plainly, with no -e: the installed package brings the tool.
  const { tmux } = await startPiTui({ model, home, env: { PATH } });
  await tmux.waitFor(/scripted/, { what: "pi's editor" });
  tmux.type("Pick a database.");
  tmux.send("Enter");
  await tmux.waitFor("Which database?");
  tmux.send("Down");
  tmux.send("Enter");
  await tmux.waitFor("Review your answers");
  tmux.send("Enter");
  await tmux.waitFor("Thanks.");
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), ["DB: SQLite"]);
});

test("README Claude Code: the settings as written send AskUserQuestion to a person at the hub", async (t) => {
  const model = await startModelServer({ script: [{ tool: { name: "AskUserQuestion", arguments: claudeQuestions } }, { text: "Done." }] });
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  // The snippet is the whole of ~/.claude/settings.json; askd is found on the PATH.
  const settings = JSON.parse(snippet("claude-hook"));
  const PATH = [askdOnPath(), process.env.PATH].join(path.delimiter);
  const { tmux, home } = await startClaudeTui({
    model,
    prompt: "Ask me which database to use.",
    settings,
    env: { PATH, ASKD_NO_BROWSER: "1", ...listener.env },
  });
  const flow = await person.nextFlow();
  assert.deepEqual(flow.asker, { name: "Claude Code", folder: path.join(home, "work") });
  assert.equal(flow.view.dialect, "claude");
  // The snippet's 1800 seconds, less the hook's 5 (and the moments it took to start).
  const left = flow.view.deadline - flow.openedAt;
  assert.ok(left > 1_780_000 && left <= 1_795_000, `the flow's deadline is ${left} ms after it opened`);
  await person.press(flow.session, ["2"]);
  assert.equal((await person.press(flow.session, ["1"])).status, "done");
  await tmux.waitFor("Answered Claude's questions");
  assert.deepEqual(
    toolResults(await model.waitForTurn(1)).map((r) => r.text),
    [`Your questions have been answered: "${DATABASE}"="SQLite". You can now continue with these answers in mind.`],
  );
});

test("README opencode: the two commands as written bring opencode's question to a person at the hub", async (t) => {
  const model = await startModelServer({ script: [{ tool: { name: "question", arguments: opencodeQuestions } }, { text: "Done." }] });
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const home = tempDir("opencode-home");
  const work = path.join(home, "work");
  writeFile(path.join(work, "README.md"), "A folder for a scripted agent run.\n");
  writeFile(path.join(home, ".config", "opencode", "opencode.json"), opencodeConfig({ model }));
  // The snippet as written, but for its port: 4096 may be taken on a machine that runs tests
  // side by side, so a free one stands in for it (the only change).
  const port = await freePort();
  const text = snippet("opencode-bridge");
  assert.equal(text, "opencode serve --port 4096 &\naskd bridge opencode --url http://127.0.0.1:4096\n");
  const PATH = [BIN_DIR, askdOnPath(), process.env.PATH].join(path.delimiter);
  const env = offlineEnv(home, {
    PATH,
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_SHARE: "1",
    ASKD_NO_BROWSER: "1",
    ...listener.env,
  });
  const shell = start("bash", ["-euo", "pipefail", "-c", text.replaceAll("4096", String(port))], { cwd: work, env, name: "snippet opencode-bridge" });
  await until(() => shell.err().includes("askd: bridge: watching "), { timeoutMs: 90_000, what: "the bridge to watch opencode's server" });

  const url = `http://127.0.0.1:${port}`;
  const api = async (route, body) => {
    const response = await fetch(`${url}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    assert.ok(response.ok, `${route}: ${response.status}`);
    const answer = await response.text();
    return answer ? JSON.parse(answer) : null;
  };
  const session = await api("/session", {});
  await api(`/session/${session.id}/prompt_async`, { parts: [{ type: "text", text: "Ask me which database to use." }], model: { providerID: "scripted", modelID: MODEL } });

  const flow = await person.nextFlow();
  assert.deepEqual(flow.asker, { name: "opencode", folder: work });
  assert.equal(flow.view.dialect, "opencode");
  const step = await person.press(flow.session, ["2"]);
  if (step.status === "open") assert.equal((await person.press(flow.session, ["1"])).status, "done");
  assert.deepEqual(
    toolResults(await model.waitForTurn(1)).map((r) => r.text),
    [`User has answered your questions: "${DATABASE}"="SQLite". You can now continue with the user's answers in mind.`],
  );
});

// ---------------------------------------------------------------------------------------------
// askd mcp, registered with each agent as the README says

/** The answer `askd mcp` gives when the person picks SQLite: its text and structured content. */
const MCP_TEXT = `The user answered:\n"${DATABASE}" → SQLite`;
const MCP_STRUCTURED = JSON.stringify({ status: "answered", answers: { [DATABASE]: "SQLite" } });

/**
 * A hub (the listener) with a person attached who picks SQLite in the next flow, and the
 * environment of a reader's agent that finds that hub (its runtime and state directories, and
 * `askd` on the PATH).
 */
async function mcpReader() {
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const answered = (async () => {
    const flow = await person.nextFlow({ timeoutMs: 120_000 });
    await person.press(flow.session, ["2"]);
    const done = await person.press(flow.session, ["1"]);
    assert.equal(done.status, "done");
    return flow;
  })();
  const PATH = [BIN_DIR, askdOnPath(), process.env.PATH].join(path.delimiter);
  return { answered, env: { PATH, ...listener.env } };
}

/** The scripted model of the MCP snippets: the agent's name of askd's tool, then a text. */
function mcpModel(tool) {
  return startModelServer({ script: [{ tool: { ...tool, arguments: claudeQuestions } }, { text: "SQLite it is." }] });
}

test("README Claude Code MCP: `claude mcp add` as written gets claude -p asking through askd mcp", async (t) => {
  const model = await mcpModel({ name: "mcp__askd__ask" });
  t.after(() => model.close());
  const { answered, env } = await mcpReader();
  const { home } = claudeHome({});
  await runSnippet("claude-mcp", { cwd: home, env: claudeEnv(home, model, env) });
  const [result, flow] = await Promise.all([
    runClaudePrint({ model, home, prompt: "Ask me which database to use.", mcpServers: null, allowedTools: ["mcp__askd__ask"], env }),
    answered,
  ]);
  assert.equal(result.code, 0, `claude failed: ${result.stdout}\n${result.stderr}`);
  assert.equal(flow.asker.name, "Claude Code");
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), [MCP_STRUCTURED]);
});

test("README Codex MCP: the config.toml lines as written get codex exec asking through askd mcp", async (t) => {
  const model = await mcpModel({ namespace: "mcp__askd", name: "ask" });
  t.after(() => model.close());
  const { answered, env } = await mcpReader();
  const [result, flow] = await Promise.all([
    runCodexExec({ model, prompt: "Ask me which database to use.", config: snippet("codex-mcp"), env, timeoutMs: 150_000 }),
    answered,
  ]);
  assert.equal(result.code, 0, `codex failed: ${result.stdout}\n${result.stderr}`);
  assert.equal(flow.asker.name, "Codex");
  const [output] = toolResults(model.turns()[1]);
  assert.match(output.text, /^Wall time: \d+\.\d+ seconds\nOutput:\n/);
  assert.equal(output.text.replace(/^Wall time: \d+\.\d+ seconds\nOutput:\n/, ""), MCP_STRUCTURED);
});

test("README opencode MCP: the opencode.json as written gets opencode asking through askd mcp", async (t) => {
  const model = await mcpModel({ name: "askd_ask" });
  t.after(() => model.close());
  const { answered, env } = await mcpReader();
  const opencode = await startOpencodeServe({ model, config: JSON.parse(snippet("opencode-mcp")), env });
  const session = await opencode.client.session.create({}, { throwOnError: true });
  const [, flow] = await Promise.all([
    opencode.client.session.prompt(
      { sessionID: session.data.id, model: { providerID: "scripted", modelID: MODEL }, parts: [{ type: "text", text: "Ask me which database to use." }] },
      { throwOnError: true },
    ),
    answered,
  ]);
  assert.equal(flow.asker.name, "opencode");
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), [MCP_TEXT]);
});

test("README Gemini CLI MCP: the settings.json as written gets gemini -p asking through askd mcp", async (t) => {
  const model = await mcpModel({ name: "mcp_askd_ask" });
  t.after(() => model.close());
  const { answered, env } = await mcpReader();
  const [result, flow] = await Promise.all([
    runGeminiPrint({ model, prompt: "Ask me which database to use.", settings: JSON.parse(snippet("gemini-mcp")), env, timeoutMs: 150_000 }),
    answered,
  ]);
  assert.equal(result.code, 0, `gemini failed: ${result.stdout}\n${result.stderr}`);
  assert.equal(flow.asker.name, "gemini-cli-mcp-client");
  assert.deepEqual(
    toolResults(model.turns()[1]).map((r) => JSON.parse(r.text)),
    [{ output: `<untrusted_context>\n${MCP_TEXT}\n</untrusted_context>` }],
  );
});
