// README "Use askd with your agent": each snippet is run exactly as written (taken from
// README.md), the way a reader would, and then the real agent asks a question that a person
// answers; the model's next request carries the answer in the agent's own shape.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { piEnv, startPiTui } from "./lib/agents.mjs";
import { startModelServer, toolResults } from "./lib/model-server.mjs";
import { askdBin, BIN_DIR, REPO_DIR, removeTemps, run, stopAll, tempDir } from "./lib/proc.mjs";
import { snippet } from "./lib/readme.mjs";

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
