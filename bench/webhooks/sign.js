#!/usr/bin/env node
// Prints the X-Hub-Signature-256 value GitHub would send for a body:
//   node bench/webhooks/sign.js SECRET BODY_FILE   ->   sha256=<hex hmac>
// wrk's Lua has no HMAC; the benchmark body is fixed, so its signature is too.
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");

const [secret, file] = process.argv.slice(2);
if (!secret || !file) {
  console.error("usage: sign.js SECRET BODY_FILE");
  process.exit(2);
}
const body = fs.readFileSync(file);
const hex = crypto.createHmac("sha256", secret).update(body).digest("hex");
process.stdout.write(`sha256=${hex}\n`);
