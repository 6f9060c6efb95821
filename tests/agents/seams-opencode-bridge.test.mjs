// `askd bridge opencode` with the real `opencode serve`: the question the model asks through
// opencode's `question` tool reaches a person attached to the hub, and their answer (or
// dismissal) reaches the model; another client answering first closes askd's flow; a
// password-protected server; a server restarted while the bridge watches.
import assert from "node:assert/strict";
import { after, afterEach, test } from "node:test";
import { startModelServer, toolResults } from "./lib/model-server.mjs";
import { Person, startListener } from "./lib/person.mjs";
import { removeTemps, stopAll, until } from "./lib/proc.mjs";
import { DATABASE, freePort, opencodeQuestions, startBridge, startOpencodeAt } from "./lib/seams-run.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

/** The scripted model: the question tool call (`times` times, one per turn asked), then a text. */
function questionModel(times = 1) {
  const script = [];
  for (let i = 0; i < times; i++) script.push({ tool: { name: "question", arguments: opencodeQuestions } });
  script.push({ text: "Done." });
  return startModelServer({ script });
}

/** What opencode's `question` tool tells the model of an answer. */
function answeredText(answer) {
  return `User has answered your questions: "${DATABASE}"="${answer}". You can now continue with the user's answers in mind.`;
}

/** Waits until `person` has been told that `session` closed. */
function closedFor(person, session) {
  return until(() => person.notifications.some((n) => n.method === "session/closed" && n.params.session === session), {
    timeoutMs: 30_000,
    what: `askd's flow ${session} to close`,
  });
}

/** Answers the opencode flow on the person's screen with option `row` (1-based). */
async function answerOnScreen(person, session, row) {
  const step = await person.press(session, [String(row)]);
  if (step.status === "open") {
    // The review tab: 1 submits.
    const done = await person.press(session, ["1"]);
    assert.equal(done.status, "done");
  }
}

test("bridge: a person attached to the hub answers the question opencode asks, and the model reads the answer", async (t) => {
  const model = await questionModel();
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const opencode = await startOpencodeAt({ model, port: await freePort() });
  const bridge = await startBridge({ listener, url: opencode.url });
  await opencode.prompt("Ask me which database to use.");

  const flow = await person.nextFlow();
  assert.match(flow.session, /^que_/);
  assert.deepEqual(flow.asker, { name: "opencode", folder: opencode.work });
  assert.equal(flow.view.dialect, "opencode");
  const screen = await person.screen(flow.session);
  assert.match(screen, new RegExp(DATABASE.replace("?", "\\?")));
  assert.match(screen, /Postgres/);
  await answerOnScreen(person, flow.session, 2);

  const next = await model.waitForTurn(1);
  assert.deepEqual(
    toolResults(next).map((r) => r.text),
    [answeredText("SQLite")],
  );
  await until(() => bridge.err().includes(`question ${flow.session} answered`), { what: "the bridge to say so" });
  await closedFor(person, flow.session);
});

test("bridge: a person who dismisses the question rejects it in opencode", async (t) => {
  const model = await questionModel();
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const opencode = await startOpencodeAt({ model, port: await freePort() });
  const bridge = await startBridge({ listener, url: opencode.url });
  const session = await opencode.prompt("Ask me which database to use.");

  const flow = await person.nextFlow();
  await person.press(flow.session, ["escape"]);
  await until(() => bridge.err().includes(`question ${flow.session} dismissed`), { what: "the bridge to reject it" });
  // opencode ends the tool call with its own error for a dismissal.
  const part = await until(
    async () => {
      const messages = await opencode.api("GET", `/session/${session.id}/message`);
      const parts = messages.flatMap((m) => m.parts).filter((p) => p.type === "tool" && p.tool === "question");
      return parts.find((p) => p.state.status === "error");
    },
    { what: "the question tool to fail" },
  );
  assert.equal(part.state.error, "The user dismissed this question");
});

test("bridge: another client answering first closes askd's flow, and its answer reaches the model", async (t) => {
  const model = await questionModel();
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const opencode = await startOpencodeAt({ model, port: await freePort() });
  const bridge = await startBridge({ listener, url: opencode.url });
  await opencode.prompt("Ask me which database to use.");

  const flow = await person.nextFlow();
  // opencode's own interface answers through the server's API, as its TUI does.
  await opencode.api("POST", `/question/${flow.session}/reply`, { answers: [["Postgres"]] });
  await closedFor(person, flow.session);
  assert.match(bridge.err(), new RegExp(`question ${flow.session} was replied by another client`));
  const next = await model.waitForTurn(1);
  assert.deepEqual(
    toolResults(next).map((r) => r.text),
    [answeredText("Postgres")],
  );
});

test("bridge: a password-protected server is watched with opencode's own variables", async (t) => {
  const model = await questionModel();
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const opencode = await startOpencodeAt({ model, port: await freePort(), password: "s3cret pass" });

  const refused = await startBridge({ listener, url: opencode.url, wait: false });
  const { code } = await refused.exited;
  assert.equal(code, 1);
  assert.equal(
    refused.err().trim(),
    `askd: bridge: ${opencode.url}/global/event refused the request (401): the server has a password: set OPENCODE_SERVER_PASSWORD (and OPENCODE_SERVER_USERNAME when the user name is not \`opencode\`) as for the server`,
  );

  await startBridge({ listener, url: opencode.url, env: { OPENCODE_SERVER_PASSWORD: "s3cret pass" } });
  await opencode.prompt("Ask me which database to use.");
  const flow = await person.nextFlow();
  await answerOnScreen(person, flow.session, 1);
  const next = await model.waitForTurn(1);
  assert.deepEqual(
    toolResults(next).map((r) => r.text),
    [answeredText("Postgres")],
  );
});

test("bridge: a server restarted mid-watch: the lost question's flow closes, and the next question arrives", async (t) => {
  const model = await questionModel(2);
  t.after(() => model.close());
  const listener = await startListener();
  const person = await Person.connect(listener, { attach: true });
  const opencode = await startOpencodeAt({ model, port: await freePort() });
  const bridge = await startBridge({ listener, url: opencode.url });
  await opencode.prompt("Ask me which database to use.");
  const lost = await person.nextFlow();

  await opencode.restart();
  await closedFor(person, lost.session);
  await until(() => bridge.err().split("askd: bridge: watching ").length === 3, { timeoutMs: 60_000, what: "the bridge to watch again" });

  await opencode.prompt("Ask me again.");
  const flow = await person.nextFlow();
  assert.notEqual(flow.session, lost.session);
  await answerOnScreen(person, flow.session, 2);
  const next = await model.waitForTurn(2);
  assert.deepEqual(
    toolResults(next).map((r) => r.text),
    [answeredText("SQLite")],
  );
});

test("bridge: with nobody attached, the bridge says where the question waits, and a person who comes later answers it", async (t) => {
  const model = await questionModel();
  t.after(() => model.close());
  const listener = await startListener({ env: { ASKD_NO_BROWSER: "1" } });
  const opencode = await startOpencodeAt({ model, port: await freePort() });
  const bridge = await startBridge({ listener, url: opencode.url });
  await opencode.prompt("Ask me which database to use.");
  const said = await until(() => /askd: bridge: answer the question at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+&session=(que_\w+))\n/.exec(bridge.err()), {
    what: "the bridge to say where the question waits",
  });
  assert.ok(said[1].startsWith(listener.page), `${said[1]} is the hub's page`);

  const person = await Person.connect(listener, { attach: true });
  const flow = await person.nextFlow();
  assert.equal(flow.session, said[2]);
  await answerOnScreen(person, flow.session, 2);
  const next = await model.waitForTurn(1);
  assert.deepEqual(
    toolResults(next).map((r) => r.text),
    [answeredText("SQLite")],
  );
});
