// An askd process on pipes for the dialects' tests of tests/agents: `call(method, params)`
// resolves with the whole reply. No state on disk, so no flow of another run is resumed.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { askdBin } from "./proc.mjs";

export function askdCall() {
  const child = spawn(askdBin(), ["--no-state"], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map();
  let lastId = 0;
  createInterface({ input: child.stdout }).on("line", (line) => {
    const reply = JSON.parse(line);
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  return {
    call(method, params) {
      const id = ++lastId;
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
      return new Promise((done) => waiting.set(id, done));
    },
    close() {
      child.stdin.end();
      child.kill();
    },
  };
}
