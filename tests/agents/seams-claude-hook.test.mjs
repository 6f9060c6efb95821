// `askd hook claude` with the real Claude Code TUI (in tmux): the model's AskUserQuestion call
// reaches a person attached to the hub through the PreToolUse hook, and their answer reaches
// the model in Claude Code's own words; a person who cancels denies the call; with no hub to
// reach, with nobody attached to it, or when the hook's time runs out, Claude Code's own dialog
// asks.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { startClaudeTui } from "./lib/agents.mjs";
import { startModelServer, toolResults } from "./lib/model-server.mjs";
import { Person, startListener } from "./lib/person.mjs";
import { askdBin, removeTemps, run, stopAll, tempDir, until } from "./lib/proc.mjs";
import { DATABASE, claudeQuestions, hookInput, hookSettings, hubClientEnv, readText, refusedRuntime } from "./lib/seams-run.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

/** The scripted model: AskUserQuestion, then a text. */
function askingModel() {
  return startModelServer({
    script: [{ tool: { name: "AskUserQuestion", arguments: claudeQuestions } }, { text: "Done." }],
  });
}

/** Claude Code's TUI with the hook registered, pointed at `listener`'s hub (when given). */
async function claudeWithHook({ model, listener, timeout = 120, env = {} }) {
  const errFile = path.join(tempDir("seams-hook-err"), "hook.err");
  const hubEnv = listener ? hubClientEnv(listener) : {};
  delete hubEnv.PATH;
  delete hubEnv.HOME;
  delete hubEnv.LANG;
  const { tmux, home } = await startClaudeTui({
    model,
    prompt: "Ask me which database to use.",
    settings: hookSettings({ timeout, errFile }),
    env: { ...hubEnv, ...env },
  });
  return { tmux, home, errFile };
}

test("hook: a person attached to the hub answers Claude Code's questions, and the model reads the answer", async (t) => {
  const model = await askingModel();
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const { tmux, home, errFile } = await claudeWithHook({ model, listener });

  const flow = await person.nextFlow();
  assert.equal(flow.session, "toolu_1");
  assert.deepEqual(flow.asker, { name: "Claude Code", folder: path.join(home, "work") });
  assert.equal(flow.view.dialect, "claude");
  const screen = await person.screen(flow.session);
  assert.match(screen, /Which database should we use\?/);
  assert.match(screen, /SQLite/);
  await person.press(flow.session, ["2"]);
  const done = await person.press(flow.session, ["1"]);
  assert.equal(done.status, "done");

  const tui = await tmux.waitFor("Answered Claude's questions");
  tmux.keep("seams-claude-hook-answered");
  assert.match(tui, /Which database should we use\? → SQLite/);
  const next = await model.waitForTurn(1);
  assert.deepEqual(
    toolResults(next).map((r) => r.text),
    [`Your questions have been answered: "${DATABASE}"="SQLite". You can now continue with these answers in mind.`],
  );
  assert.equal(readText(errFile), "", "the hook says nothing when it answers");
});

test("hook: a person who cancels denies the call, and the model reads why", async (t) => {
  const model = await askingModel();
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const { tmux } = await claudeWithHook({ model, listener });

  const flow = await person.nextFlow();
  await person.press(flow.session, ["escape"]);
  await tmux.waitFor("● Done.");
  tmux.keep("seams-claude-hook-cancelled");
  const next = await model.waitForTurn(1);
  const results = toolResults(next);
  assert.equal(results.length, 1);
  assert.equal(
    results[0].text,
    "PreToolUse:AskUserQuestion hook error: The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
  );
});

test("hook: with no hub to reach or start, the hook prints nothing and Claude Code's own dialog asks", async (t) => {
  const model = await askingModel();
  t.after(() => model.close());
  const { tmux, errFile } = await claudeWithHook({ model, env: { XDG_RUNTIME_DIR: refusedRuntime() } });
  const screen = await tmux.waitFor(/Enter to select/);
  tmux.keep("seams-claude-hook-no-hub");
  assert.match(screen, /Which database should we use\?/);
  assert.match(readText(errFile), /^askd hook claude: passed on to Claude Code's dialog: no hub can be reached: .* must be 0700$/m);
  // The person answers in Claude Code's own dialog.
  tmux.send(["Down", "Enter"]);
  await tmux.waitFor("● Done.");
  const next = await model.waitForTurn(1);
  assert.deepEqual(
    toolResults(next).map((r) => r.text),
    [`Your questions have been answered: "${DATABASE}"="SQLite". You can now continue with these answers in mind.`],
  );
});

test("hook: with nobody attached to the hub and no browser, Claude Code's own dialog asks at once", async (t) => {
  const model = await askingModel();
  t.after(() => model.close());
  const listener = await startListener({ env: { ASKD_NO_BROWSER: "1" } });
  const { tmux, errFile } = await claudeWithHook({ model, listener });
  const screen = await tmux.waitFor(/Enter to select/);
  tmux.keep("seams-claude-hook-unattended");
  assert.match(screen, /Which database should we use\?/);
  assert.equal(
    readText(errFile),
    "askd hook claude: passed on to Claude Code's dialog: no person's client is attached to the hub and no browser could show the question (off)\n",
  );
});

test("hook: when its time runs out, the hook withdraws the flow and Claude Code's own dialog asks", async (t) => {
  const model = await askingModel();
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  // 8 seconds in Claude Code's setting and askd's --timeout: askd gives up after 6.
  const { tmux, errFile } = await claudeWithHook({ model, listener, timeout: 8 });
  const flow = await person.nextFlow();
  await until(() => person.notifications.some((n) => n.method === "session/closed" && n.params.session === flow.session), {
    timeoutMs: 30_000,
    what: "the hook to withdraw its flow",
  });
  const screen = await tmux.waitFor(/Enter to select/);
  tmux.keep("seams-claude-hook-timed-out");
  assert.match(screen, /Which database should we use\?/);
  assert.equal(readText(errFile), "askd hook claude: passed on to Claude Code's dialog: nobody answered within 6 seconds\n");
});

test("hook: the hook run by hand prints nothing and exits 0 without a hub, and says why on stderr", async () => {
  const cwd = tempDir("seams-hook-cwd");
  const input = JSON.stringify(hookInput({ cwd }));
  const result = await run(askdBin(), ["hook", "claude"], {
    input,
    env: { PATH: process.env.PATH, HOME: cwd, XDG_RUNTIME_DIR: refusedRuntime() },
  });
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^askd hook claude: passed on to Claude Code's dialog: no hub can be reached: .* must be 0700$/m);
  // Input that is not a hook's is an error Claude Code shows and goes past (status 1, never 2).
  const bad = await run(askdBin(), ["hook", "claude"], { input: "not json", env: { PATH: process.env.PATH, HOME: cwd, XDG_RUNTIME_DIR: refusedRuntime() } });
  assert.equal(bad.code, 1);
  assert.equal(bad.stdout, "");
  assert.match(bad.stderr, /^askd hook claude: the hook input is not JSON: /);
  fs.rmSync(cwd, { recursive: true, force: true });
});
