#!/usr/bin/env node
// The benchmark peer: what Probot wraps. A bare Node HTTP server with
// @octokit/webhooks' createNodeMiddleware, which verifies X-Hub-Signature-256
// against the secret, parses the JSON body and emits the event to a no-op
// handler. No persistence, no dedup of X-GitHub-Delivery.
//
//   PEER_PORT=3000 WEBHOOK_SECRET=s3cret [WEBHOOK_PATH=/api/github/webhooks] node bench/webhooks/peer.js
//
// Resolves @octokit/webhooks from .tools/node (scripts/install-deps.sh npm)
// unless NODE_TOOLS_DIR points elsewhere.
"use strict";

const http = require("node:http");
const path = require("node:path");
const { pathToFileURL } = require("node:url");

const port = Number(process.env.PEER_PORT || 3000);
const secret = process.env.WEBHOOK_SECRET;
const webhookPath = process.env.WEBHOOK_PATH || "/api/github/webhooks";
const toolsNode =
  process.env.NODE_TOOLS_DIR || path.resolve(__dirname, "../../.tools/node");

if (!secret) {
  console.error("peer: WEBHOOK_SECRET is required");
  process.exit(2);
}

async function main() {
  const entry = path.join(toolsNode, "node_modules/@octokit/webhooks/dist-bundle/index.js");
  const { Webhooks, createNodeMiddleware } = await import(pathToFileURL(entry).href);
  const webhooks = new Webhooks({ secret });
  let received = 0;
  webhooks.onAny(() => {
    received += 1;
  });
  webhooks.onError((error) => {
    console.error(`peer: handler error: ${error.message}`);
  });
  const middleware = createNodeMiddleware(webhooks, { path: webhookPath });
  const server = http.createServer(async (req, res) => {
    if (await middleware(req, res)) return;
    res.writeHead(404).end("not found\n");
  });
  server.keepAliveTimeout = 30_000;
  server.listen(port, "127.0.0.1", () => {
    console.log(`peer: @octokit/webhooks listening on http://127.0.0.1:${port}${webhookPath}`);
  });
  const stop = () => {
    console.log(`peer: ${received} events verified and handled`);
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error) => {
  console.error(`peer: ${error.stack || error}`);
  process.exit(1);
});
