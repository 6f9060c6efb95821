#!/usr/bin/env node
// An engine whose output goes away while it lives on: it closes its stdout at once and exits
// only when its stdin ends (as a hub relay does for a moment when its hub is killed).
"use strict";
require("node:fs").closeSync(1);
process.stdin.on("data", () => undefined);
process.stdin.on("end", () => process.exit(0));
