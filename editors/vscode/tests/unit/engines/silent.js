#!/usr/bin/env node
// An engine that never answers: it reads its input and says nothing.
"use strict";
process.stdin.resume();
