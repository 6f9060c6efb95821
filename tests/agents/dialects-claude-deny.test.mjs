// The claude dialect's denies, through the real Claude Code (the Agent SDK's query() and its
// canUseTool callback) against the scripted model: what askd answers for each ending is what
// the model then reads. A deny with `interrupt: true` (the person's cancel and dismiss) reaches
// the model as Claude Code's own rejection text, which says the person declined; the timeout,
// a withdrawn request and a closed client deny without it, and their own message reaches the
// model; a submit reaches it as Claude Code's answer text.
import assert from "node:assert/strict";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { startModelServer, toolResults } from "./lib/model-server.mjs";
import { offlineEnv, removeTemps, stopAll, tempDir, writeFile } from "./lib/proc.mjs";
import { DUMMY_KEY, MODEL } from "./lib/agents.mjs";
import { askdCall } from "./lib/dialects-askd.mjs";

afterEach(() => stopAll());
after(() => removeTemps());

const input = {
  questions: [
    {
      question: "Which database should we use?",
      header: "Database",
      options: [
        { label: "Postgres", description: "Full SQL" },
        { label: "SQLite", description: "A single file" },
      ],
      multiSelect: false,
    },
  ],
};

/** Runs one turn of Claude Code whose model asks `input` and whose canUseTool hands the question
 * to askd, ended by `end` (keys, or a `cancel` reason); resolves with what the model read. */
async function askThrough(end) {
  const { query } = await import("@anthropic-ai/claude-agent-sdk");
  const model = await startModelServer({
    script: [{ tool: { name: "AskUserQuestion", arguments: input } }, { text: "Understood." }],
  });
  const home = tempDir("claude-deny");
  writeFile(path.join(home, ".claude.json"), {
    hasCompletedOnboarding: true,
    customApiKeyResponses: { approved: [DUMMY_KEY.slice(-20)], rejected: [] },
  });
  const env = offlineEnv(home, {
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: DUMMY_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_MAX_RETRIES: "0",
  });
  const askd = askdCall();
  let answered;
  try {
    for await (const message of query({
      prompt: "Set up the project.",
      options: {
        model: MODEL,
        cwd: home,
        env,
        tools: ["AskUserQuestion"],
        settingSources: [],
        canUseTool: async (toolName, toolInput) => {
          assert.equal(toolName, "AskUserQuestion");
          const opened = await askd.call("open", {
            session: "q",
            dialect: "claude",
            payload: toolInput,
            ...(end.timeout && { timeoutMs: 50 }),
          });
          assert.equal(opened.result.status, "open");
          if (end.keys) {
            answered = (await askd.call("keys", { session: "q", keys: end.keys })).result.result;
          } else if (end.reason) {
            answered = (await askd.call("cancel", { session: "q", reason: end.reason })).result.result;
          } else {
            while (!answered) {
              await new Promise((r) => setTimeout(r, 20));
              answered = (await askd.call("getResult", { session: "q" })).result;
            }
          }
          return answered;
        },
      },
    })) {
      if (message.type === "result") break;
    }
  } finally {
    askd.close();
    await model.close();
  }
  const turns = model.turns();
  const read = turns.length > 1 ? toolResults(turns[1]).map((r) => r.text) : [];
  return { answered, read, turns: turns.length };
}

test("the person's cancel interrupts: the turn stops and the model is asked nothing more", async () => {
  const { answered, read, turns } = await askThrough({ keys: "<Esc>" });
  assert.equal(answered.interrupt, true);
  assert.deepEqual(read, []);
  assert.equal(turns, 1);
});

for (const [reason, words] of [
  ["timeout", null],
  ["abort", "The request was withdrawn before the user answered"],
  ["closed", "The question was closed before the user answered"],
]) {
  test(`an ending by ${reason} denies without interrupt, and the model reads askd's message`, async () => {
    const { answered, read } = await askThrough(reason === "timeout" ? { timeout: true } : { reason });
    assert.equal(answered.interrupt, undefined);
    assert.equal(read.length, 1, `the model was asked again: ${read}`);
    assert.ok(read[0].includes(words ?? answered.message), read[0]);
  });
}

test("a submit reaches the model as Claude Code's answer text", async () => {
  const { answered, read } = await askThrough({ keys: "21" });
  assert.equal(answered.behavior, "allow");
  assert.equal(read.length, 1);
  assert.match(read[0], /"Which database should we use\?"="SQLite"/);
});
