// askd's pi extension (editors/pi) in the real pi: the model calls `ask_user`, a person answers
// in pi's own terminal (keys typed into pi's TUI in tmux) or, in pi's RPC mode, in a client
// attached to askd's hub (a WebSocket client), and the model's next request carries the
// contract's result for those keys: the same in both modes. Without UI (`pi -p`) and for an
// invalid payload, the result is the contract's too. The expected texts are the contract's
// (pi-ask's wording).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { runPiPrint, startPiRpc, startPiTui } from "./lib/agents.mjs";
import { startModelServer, toolResults } from "./lib/model-server.mjs";
import { Person, startListener } from "./lib/person.mjs";
import { askdBin, REPO_DIR, removeTemps, stopAll, tempDir, until } from "./lib/proc.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

const extension = path.join(REPO_DIR, "editors", "pi", "index.ts");

const payload = {
  title: "Setup",
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
    {
      id: "extras",
      label: "Extras",
      prompt: "Which extras?",
      type: "multi",
      options: [
        { value: "auth", label: "Auth" },
        { value: "cache", label: "Cache" },
        { value: "queue", label: "Queue" },
      ],
    },
  ],
};

const questions = [
  { id: "db", label: "DB", prompt: "Which database?", type: "single" },
  { id: "extras", label: "Extras", prompt: "Which extras?", type: "multi" },
];

/** What the model reads, and pi keeps, once the person answered SQLite, Auth + Queue and a note. */
const answeredText = "DB: SQLite\nExtras: Auth, Queue\nExtras note: only if cheap";
const answeredDetails = {
  title: "Setup",
  cancelled: false,
  mode: "submit",
  questions,
  answers: {
    db: { values: ["sqlite"], labels: ["SQLite"], indices: [2] },
    extras: { values: ["auth", "queue"], labels: ["Auth", "Queue"], indices: [1, 3], note: "only if cheap" },
  },
};
/** The same, once the person cancelled with Esc. */
const cancelledDetails = { title: "Setup", cancelled: true, cancelReason: "user", mode: "submit", questions, answers: {} };

function script(args = payload) {
  return [{ tool: { name: "ask_user", arguments: args } }, { text: "Thanks." }];
}

/** The `ask_user` tool results pi kept in its session files: `{ content, details }` each. */
function sessionToolResults(sessionDir) {
  const results = [];
  for (const file of fs.readdirSync(sessionDir, { recursive: true })) {
    if (!String(file).endsWith(".jsonl")) continue;
    for (const line of fs.readFileSync(path.join(sessionDir, String(file)), "utf8").split("\n")) {
      if (!line.trim()) continue;
      const entry = JSON.parse(line);
      const message = entry.message;
      if (message?.role === "toolResult" && message.toolName === "ask_user") results.push({ content: message.content, details: message.details });
    }
  }
  return results;
}

/** pi's TUI with the extension, the prompt typed and the flow drawn inline. */
async function piAsking(model) {
  const sessionDir = tempDir("pi-sessions");
  const { tmux } = await startPiTui({ model, extensions: [extension], env: { ASKD_BIN: askdBin() }, sessionDir });
  await tmux.waitFor(/scripted/, { what: "pi's editor" });
  tmux.type("Set the project up.");
  tmux.send("Enter");
  const screen = await tmux.waitFor("Which database?", { what: "the first question drawn inline" });
  return { tmux, sessionDir, screen };
}

test("pi TUI: keys typed into pi's terminal answer the flow, and the model reads the contract's result", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const { tmux, sessionDir, screen } = await piAsking(model);
  tmux.keep("pi-extension-first-question");
  // askd's own screen, inline under the tool call: the title, the tabs, the rows, the hints.
  assert.match(screen, / Setup\n/);
  assert.match(screen, /\[□ DB\] {2}□ Extras {3}✓ Submit/);
  assert.match(screen, /❯ 1\. ○ Postgres/);
  assert.match(screen, /esc cancel · ctrl\+c dismiss/);

  tmux.send("Down");
  tmux.send("Enter");
  await tmux.waitFor("Which extras?");
  tmux.type("1");
  tmux.type("3");
  tmux.type("N");
  await tmux.waitFor("Question note", { what: "the question-note editor" });
  tmux.type("only if cheap");
  tmux.send("Escape");
  // A person sees the editor close before pressing on (Esc and Tab at once read as Alt+Tab).
  await tmux.waitFor((s) => !s.includes("╭─ Question note") && s.includes("only if cheap"), { what: "the note saved" });
  tmux.send("Tab");
  const review = await tmux.waitFor("Review your answers");
  tmux.keep("pi-extension-review");
  assert.match(review, / DB → SQLite\n Extras\n {3}→ Auth\n {3}→ Queue\n {3}note: only if cheap\n/);
  tmux.send("Enter");
  await tmux.waitFor("Thanks.");
  tmux.keep("pi-extension-answered");

  assert.deepEqual(
    toolResults(model.turns()[1]).map((r) => [r.id, r.text]),
    [["call_1", answeredText]],
  );
  assert.deepEqual(sessionToolResults(sessionDir), [{ content: [{ type: "text", text: answeredText }], details: answeredDetails }]);
});

test("pi TUI: an answer typed in the inline editor reaches the model as custom text", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const { tmux, sessionDir } = await piAsking(model);
  tmux.send("Down");
  tmux.send("Down");
  await tmux.waitFor("Your answer", { what: "the custom answer's editor" });
  tmux.type("MariaDB");
  await tmux.waitFor("│ MariaDB");
  tmux.keep("pi-extension-typing");
  tmux.send("Enter");
  await tmux.waitFor("Which extras?");
  tmux.type("2");
  tmux.send("Tab");
  await tmux.waitFor("Review your answers");
  tmux.send("Enter");
  await tmux.waitFor("Thanks.");

  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), ["DB: MariaDB\nExtras: Cache"]);
  assert.deepEqual(sessionToolResults(sessionDir)[0].details.answers, {
    db: { values: ["MariaDB"], labels: ["MariaDB"], indices: [], customText: "MariaDB" },
    extras: { values: ["cache"], labels: ["Cache"], indices: [2] },
  });
});

test("pi TUI: Esc cancels the flow, and the model reads that the person cancelled", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const { tmux, sessionDir } = await piAsking(model);
  tmux.send("Escape");
  await tmux.waitFor("Thanks.");
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), ["User cancelled the ask flow"]);
  assert.deepEqual(sessionToolResults(sessionDir)[0].details, cancelledDetails);
});

test("pi TUI: Ctrl+C in an open editor dismisses the whole flow at once", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const { tmux, sessionDir } = await piAsking(model);
  tmux.send("Down");
  tmux.send("Down");
  await tmux.waitFor("Your answer");
  tmux.type("half a thought");
  await tmux.waitFor("│ half a thought");
  tmux.send("C-c");
  await tmux.waitFor("Thanks.");
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), ["User cancelled the ask flow"]);
  const { details } = sessionToolResults(sessionDir)[0];
  assert.equal(details.cancelled, true);
  assert.equal(details.cancelReason, "dismissed");
  assert.deepEqual(details.answers, {});
});

/**
 * pi in RPC mode (the mode editor front ends drive) with the extension, pointed at a hub of the
 * test's own with a person's client attached; the prompt sent and the flow arrived at the person.
 */
async function piRpcAsking(model) {
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const sessionDir = tempDir("pi-sessions");
  const pi = await startPiRpc({ model, extensions: [extension], env: { ASKD_BIN: askdBin(), ...listener.env }, sessionDir });
  const response = await pi.command({ type: "prompt", message: "Set the project up." });
  assert.equal(response.success, true, JSON.stringify(response));
  const flow = await person.nextFlow();
  return { pi, person, flow, sessionDir };
}

test("pi --mode rpc: a person at the hub answers, and the model reads what the same keys give in pi's TUI", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const { pi, person, flow, sessionDir } = await piRpcAsking(model);
  // The flow is the tool call's, in the pi dialect, and says who asked from where.
  assert.equal(flow.session, "call_1");
  assert.deepEqual(flow.asker, { name: "pi", folder: path.join(pi.home, "work") });
  assert.equal(flow.view.dialect, "pi");
  assert.equal(flow.view.title, "Setup");
  assert.match(await person.screen(flow.session), /Which database\?/);

  // The keys the TUI test types into pi's terminal, pressed in the person's client.
  await person.press(flow.session, ["down", "enter"]);
  assert.match(await person.screen(flow.session), /Which extras\?/);
  await person.press(flow.session, ["1", "3", "N"]);
  await person.request("insert", { session: flow.session, text: "only if cheap" });
  await person.press(flow.session, ["escape", "tab"]);
  assert.match(await person.screen(flow.session), /Review your answers/);
  const done = await person.press(flow.session, ["enter"]);
  assert.equal(done.status, "done");

  const end = await pi.waitFor((m) => m.type === "agent_end", { what: "agent_end" });
  assert.deepEqual(end.messages.at(-1).content, [{ type: "text", text: "Thanks." }]);
  assert.deepEqual(
    toolResults(model.turns()[1]).map((r) => [r.id, r.text]),
    [["call_1", answeredText]],
  );
  assert.deepEqual(sessionToolResults(sessionDir), [{ content: [{ type: "text", text: answeredText }], details: answeredDetails }]);
  // The extension closed its flow in the hub once answered.
  await until(() => person.notifications.some((n) => n.method === "session/closed" && n.params.session === "call_1"), {
    what: "the flow closed in the hub",
  });
});

test("pi --mode rpc: a person who cancels at the hub, and the model reads that they cancelled", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const { pi, person, flow, sessionDir } = await piRpcAsking(model);
  const done = await person.press(flow.session, ["escape"]);
  assert.equal(done.status, "done");
  await pi.waitFor((m) => m.type === "agent_end", { what: "agent_end" });
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), ["User cancelled the ask flow"]);
  assert.deepEqual(sessionToolResults(sessionDir)[0].details, cancelledDetails);
});

test("pi --mode rpc: a discovery file others may read is not used, and the hub the extension starts replaces it", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const dir = tempDir("pi-rpc-hub");
  const runtime = path.join(dir, "runtime");
  const askdDir = path.join(runtime, "askd");
  fs.mkdirSync(askdDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(runtime, 0o700);
  fs.chmodSync(askdDir, 0o700);
  // A file naming a live process (this test's) and a hub that is not there, readable by others.
  const file = path.join(askdDir, "hub.json");
  const planted = { pid: process.pid, url: "ws://127.0.0.1:9/rpc", page: "http://127.0.0.1:9/", token: "planted-token-0123456789", version: "0", protocolVersion: 1, startedAt: 0 };
  fs.writeFileSync(file, JSON.stringify(planted), { mode: 0o644 });
  fs.chmodSync(file, 0o644);
  const env = { ASKD_BIN: askdBin(), ASKD_NO_BROWSER: "1", XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: path.join(dir, "state") };
  const sessionDir = tempDir("pi-sessions");
  const pi = await startPiRpc({ model, extensions: [extension], env, sessionDir });
  assert.equal((await pi.command({ type: "prompt", message: "Set the project up." })).success, true);

  // The extension started a hub, which replaced the file with its own, readable by this user alone.
  const hub = await until(
    () => {
      try {
        const found = JSON.parse(fs.readFileSync(file, "utf8"));
        return found.pid !== process.pid && (fs.statSync(file).mode & 0o777) === 0o600 ? found : null;
      } catch {
        return null;
      }
    },
    { what: "the hub the extension started to replace the discovery file" },
  );
  t.after(() => {
    try {
      process.kill(hub.pid, "SIGTERM");
    } catch {
      // Gone already.
    }
  });
  const person = await Person.connect({ url: hub.url, token: hub.token }, { attach: true });
  const flow = await person.nextFlow();
  assert.equal(flow.session, "call_1");
  await person.press(flow.session, ["escape"]);
  await pi.waitFor((m) => m.type === "agent_end", { what: "agent_end" });
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), ["User cancelled the ask flow"]);
  assert.deepEqual(sessionToolResults(sessionDir)[0].details, cancelledDetails);
});

test("pi --mode rpc: a hub directory others may use is refused, and the model reads why", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const dir = tempDir("pi-rpc-hub");
  const runtime = path.join(dir, "runtime");
  const askdDir = path.join(runtime, "askd");
  fs.mkdirSync(askdDir, { recursive: true });
  fs.chmodSync(askdDir, 0o755);
  const env = { ASKD_BIN: askdBin(), ASKD_NO_BROWSER: "1", XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: path.join(dir, "state") };
  const pi = await startPiRpc({ model, extensions: [extension], env });
  assert.equal((await pi.command({ type: "prompt", message: "Set the project up." })).success, true);
  await pi.waitFor((m) => m.type === "agent_end", { what: "agent_end" });
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), [`${askdDir} is not used: others may use it (mode 0755); it must be 0700`]);
  assert.ok(!fs.existsSync(path.join(askdDir, "hub.json")), "no hub started there");
});

test("pi -p: without UI the model reads the questions to ask by hand", async (t) => {
  const model = await startModelServer({ script: script() });
  t.after(() => model.close());
  const sessionDir = tempDir("pi-sessions");
  const result = await runPiPrint({ model, prompt: "Set the project up.", extensions: [extension], env: { ASKD_BIN: askdBin() }, sessionDir });
  assert.equal(result.code, 0, result.stderr);
  const text = [
    "Needs user input: ask_user requires interactive UI.",
    "Run same tool call in interactive session, or ask user these questions manually:",
    "1. DB: Which database?",
    "   - Postgres [pg]",
    "   - SQLite [sqlite]",
    "   - Type your own [custom]",
    "2. Extras: Which extras?",
    "   - Auth [auth]",
    "   - Cache [cache]",
    "   - Queue [queue]",
    "   - Type your own [custom]",
    "details.questions contains normalized pending questions. details.answers stays empty until user responds.",
  ].join("\n");
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), [text]);
  assert.deepEqual(sessionToolResults(sessionDir)[0].details, {
    title: "Setup",
    cancelled: true,
    cancelReason: "no_ui",
    mode: "submit",
    questions,
    answers: {},
  });
});

test("pi -p: an invalid payload reaches the model as the contract's invalid_input result", async (t) => {
  const model = await startModelServer({ script: script({ questions: [{ id: "", prompt: "Which?", options: [] }] }) });
  t.after(() => model.close());
  const sessionDir = tempDir("pi-sessions");
  const result = await runPiPrint({ model, prompt: "Ask me.", extensions: [extension], env: { ASKD_BIN: askdBin() }, sessionDir });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(toolResults(model.turns()[1]).map((r) => r.text), [
    "Invalid ask_user payload:\n- questions[0].id: Question 1: id is required\n- questions[0].options: Question 1: at least one option is required",
  ]);
  assert.deepEqual(sessionToolResults(sessionDir)[0].details.error, {
    kind: "invalid_input",
    issues: [
      { path: "questions[0].id", message: "Question 1: id is required" },
      { path: "questions[0].options", message: "Question 1: at least one option is required" },
    ],
  });
});
