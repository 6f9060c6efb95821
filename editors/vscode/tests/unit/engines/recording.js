#!/usr/bin/env node
// The real engine ($ASKD_BIN) behind a recorder: everything the extension writes is appended,
// byte for byte, to $ASKD_RECORD_FILE, and the engine's output is passed back unchanged.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const engine = spawn(process.env.ASKD_BIN ?? "", process.argv.slice(2), { stdio: ["pipe", "inherit", "inherit"] });
process.stdin.on("data", (chunk) => {
  fs.appendFileSync(process.env.ASKD_RECORD_FILE ?? "", chunk);
  engine.stdin.write(chunk);
});
process.stdin.on("end", () => engine.stdin.end());
engine.on("exit", (code) => process.exit(code ?? 1));
