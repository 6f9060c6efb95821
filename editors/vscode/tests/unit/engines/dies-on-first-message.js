#!/usr/bin/env node
// An engine that dies: on its first input it writes 25 numbered lines to stderr (the last one
// without a line break) and exits with code 3.
"use strict";
process.stdin.once("data", () => {
  const lines = Array.from({ length: 25 }, (_, index) => `failure line ${index + 1}`);
  process.stderr.write(lines.join("\n"), () => process.exit(3));
});
