// The simulated person: a WebSocket client of askd's listener that waits for a flow opened by
// another connection (an asker) and answers it with keys; the asker's pending `ask` resolves
// with the result those keys make.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Person, startListener } from "./lib/person.mjs";
import { removeTemps, stopAll } from "./lib/proc.mjs";

after(async () => {
  await stopAll();
  removeTemps();
});

const payload = {
  title: "Setup",
  questions: [
    {
      id: "db",
      prompt: "Which database?",
      options: [
        { value: "pg", label: "Postgres" },
        { value: "sqlite", label: "SQLite" },
      ],
    },
  ],
};

test("a person attached to the listener answers a flow another connection asks", async () => {
  const listener = await startListener();
  const person = await Person.connect(listener);
  const asker = await Person.connect(listener, { name: "asker" });
  try {
    const asked = asker.request("ask", { payload, session: "call-1" });
    const flow = await person.nextFlow();
    assert.equal(flow.session, "call-1");
    assert.equal(flow.title, "Setup");
    const screen = await person.screen(flow.session);
    assert.match(screen, /Which database\?/);
    assert.match(screen, /❯ .*Postgres/);
    // Down to SQLite, Enter to choose it (the single question moves to the review), Enter to submit.
    await person.press(flow.session, ["down", "enter", "enter"]);
    const result = await asked;
    assert.equal(result.details.cancelled, false);
    assert.equal(result.details.mode, "submit");
    assert.deepEqual(result.details.answers, { db: { values: ["sqlite"], labels: ["SQLite"], indices: [2] } });
  } finally {
    person.close();
    asker.close();
  }
});
