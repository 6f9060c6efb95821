// askd's answers type-checked (`tsc --noEmit`, strict) against the types the agents ship:
// Claude Code's `PermissionResult` (@anthropic-ai/claude-agent-sdk's sdk.d.ts) and the tool
// input of sdk-tools.d.ts, codex's `generate-ts` output, and @opencode-ai/sdk's v2 types: every
// result of every ending, and every request askd asks whose type the package describes.
//
// Example requests: Claude Code's documented AskUserQuestion example (the Agent SDK's
// "Handle approvals and user input" page, as protocol/dialects.md quotes it), codex's and
// opencode's documented examples of protocol/dialects.md, and edge cases each agent accepts.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { askd, endings, generated, modules, packageFile, temporary } from "./lib.mjs";

let engine;
before(() => {
  engine = askd();
});
after(() => engine.close());

const claudeInput = {
  questions: [
    {
      question: "Which database should we use?",
      header: "Database",
      options: [
        { label: "Postgres (Recommended)", description: "Full SQL, runs as a server", preview: "DATABASE_URL=postgres://localhost/app" },
        { label: "SQLite", description: "A single file, no server" },
      ],
      multiSelect: false,
    },
    {
      question: "Which features do you want to enable?",
      header: "Features",
      options: [
        { label: "Auth", description: "Login and sessions" },
        { label: "Logging", description: "Structured logs" },
        { label: "Metrics", description: "Prometheus endpoint" },
      ],
      multiSelect: true,
    },
  ],
  metadata: { source: "remember" },
};
const claudeEmpty = {
  questions: [{ question: "", header: "", options: [{ label: "", description: "" }, { label: "B", description: "" }], multiSelect: false }],
};
const codexRequest = {
  threadId: "thr_1",
  turnId: "turn_1",
  itemId: "call_abc",
  isBlocking: false,
  autoResolutionMs: 60000,
  questions: [
    { id: "db", header: "Database", question: "Which?", isOther: true, isSecret: false, options: [{ label: "A", description: "" }] },
    { id: "db", header: "", question: "", isOther: false, isSecret: true, options: null },
  ],
};
const opencodeRequest = {
  id: "que_01J",
  sessionID: "ses_01J",
  questions: [
    { question: "Which database should we use?", header: "Database", options: [{ label: "Postgres", description: "" }, { label: "Postgres", description: "" }] },
    { question: "Which features?", header: "Features", multiple: true, options: [{ label: "Auth", description: "" }] },
    { question: "Nothing?", header: "None", custom: false, options: [] },
  ],
  tool: { messageID: "msg_01J", callID: "toolu_01" },
};

test("every result of every ending has the type the agent's package declares", async () => {
  const lines = [
    'import type { PermissionResult } from "@anthropic-ai/claude-agent-sdk";',
    'import type { AskUserQuestionInput } from "@anthropic-ai/claude-agent-sdk/sdk-tools";',
    'import type { QuestionRequest, QuestionReplyData } from "@opencode-ai/sdk/v2";',
    'import type { ToolRequestUserInputParams } from "./codex/v2/ToolRequestUserInputParams";',
    'import type { ToolRequestUserInputResponse } from "./codex/v2/ToolRequestUserInputResponse";',
    "type Reply = NonNullable<QuestionReplyData[\"body\"]>;",
    "type Rejected = { rejected: true };",
  ];
  let n = 0;
  const declare = (type, value) => lines.push(`export const v${++n}: ${type} = ${JSON.stringify(value)};`);
  for (const [input, keys] of [
    [claudeInput, "NUse the existing cluster<CR><Space><Tab>12<Down><Down><Down>Audit trail<CR>1"],
    [claudeEmpty, "11"],
  ]) {
    declare("AskUserQuestionInput", input);
    for (const result of Object.values(await endings(engine, "claude", input, keys))) {
      declare("PermissionResult", result);
    }
  }
  declare("ToolRequestUserInputParams", codexRequest);
  for (const result of Object.values(await endings(engine, "codex", codexRequest, "1s3cret<CR>1"))) {
    declare("ToolRequestUserInputResponse", result);
  }
  declare("QuestionRequest", opencodeRequest);
  const opencode = await endings(engine, "opencode", opencodeRequest, "2<Down>Audit<CR><Tab>1");
  for (const [ending, result] of Object.entries(opencode)) {
    declare(ending === "submit" ? "Reply" : "Rejected", result);
  }
  assert.deepEqual(opencode.submit, { answers: [["Postgres"], ["Audit"], []] });

  const dir = temporary("tsc");
  symlinkSync(modules, join(dir, "node_modules"));
  mkdirSync(join(dir, "codex"));
  cpSync(generated("generate-ts"), join(dir, "codex"), { recursive: true });
  writeFileSync(join(dir, "check.ts"), lines.join("\n") + "\n");
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", skipLibCheck: true, types: [] },
      files: ["check.ts"],
    }),
  );
  const tsc = spawnSync(process.execPath, [packageFile("typescript", "bin/tsc"), "-p", dir], { encoding: "utf8" });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  assert.ok(n > 25, `${n} values checked`);
});
