#!/usr/bin/env node
// Prepares GitHub's official REST spec (npm @octokit/openapi,
// generated/api.github.com.json) for Prism, so that the requests a GitHub
// client really sends are accepted.
//
//   node scripts/prism/prepare-spec.js SRC.json OUT.json
//
// What it changes (see scripts/prism/NOTES.md for why):
//  1. Every response whose content has `application/json` gets the same media
//     object also under each media type in EXTRA_JSON_MEDIA_TYPES. Prism
//     negotiates on the request's Accept header and answers 406 when no
//     response media type matches: GitHub documents
//     `Accept: application/vnd.github+json`, but its spec only lists
//     `application/json`. Done for inline responses and for the shared ones in
//     components.responses (operations $ref them).
//  2. Drops `x-webhooks` (webhook payload schemas; Prism does not serve them and
//     they only slow its start).
// Nothing else is touched: schemas, examples and required fields stay as GitHub
// publishes them, so a request Prism accepts is one GitHub's spec accepts.
"use strict";

const fs = require("fs");

const EXTRA_JSON_MEDIA_TYPES = [
  "application/vnd.github+json", // what GitHub's docs tell clients to send
  "application/vnd.github.v3+json", // the older spelling many clients still send
];

function addMediaTypes(response, stats) {
  if (!response || typeof response !== "object" || !response.content) return;
  const json = response.content["application/json"];
  if (!json) return;
  for (const mediaType of EXTRA_JSON_MEDIA_TYPES) {
    if (!response.content[mediaType]) {
      response.content[mediaType] = json;
      stats.copies += 1;
    }
  }
}

function prepare(spec) {
  const stats = { operations: 0, copies: 0 };
  const methods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
  for (const pathItem of Object.values(spec.paths || {})) {
    for (const [method, operation] of Object.entries(pathItem)) {
      if (!methods.has(method) || !operation || !operation.responses) continue;
      stats.operations += 1;
      for (const response of Object.values(operation.responses)) addMediaTypes(response, stats);
    }
  }
  for (const response of Object.values((spec.components && spec.components.responses) || {})) {
    addMediaTypes(response, stats);
  }
  delete spec["x-webhooks"];
  return stats;
}

function main() {
  const [src, out] = process.argv.slice(2);
  if (!src || !out) {
    console.error("usage: prepare-spec.js SRC.json OUT.json");
    process.exit(2);
  }
  const spec = JSON.parse(fs.readFileSync(src, "utf8"));
  const stats = prepare(spec);
  const tmp = `${out}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(spec));
  fs.renameSync(tmp, out);
  console.error(
    `prepare-spec: ${stats.operations} operations, ${stats.copies} media-type copies -> ${out}`
  );
}

if (require.main === module) main();
module.exports = { prepare, EXTRA_JSON_MEDIA_TYPES };
