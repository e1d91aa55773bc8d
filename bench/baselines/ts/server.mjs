// The benchmark's TypeScript SDK baseline: a minimal stdio MCP server on the
// official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// bench/package-lock.json), written the way a user would write the
// benchmark's tools by hand: zod input schemas, fetch (keep-alive by default
// in Node 18+) and execFile. The tools are those of bench/baselines/gosdk.
//
// Run: node bench/baselines/ts/server.mjs [--tools N]   (after npm ci in bench/)
//
// --http ADDR serves the same tools over streamable HTTP at ADDR/mcp
// (host:port; port 0 picks one) with the SDK's
// StreamableHTTPServerTransport on node:http, as the SDK's examples do: a
// transport per session, found by its Mcp-Session-Id; with --stateless, a
// new server and transport for every request (sessionIdGenerator
// undefined), the SDK's stateless pattern. It writes "listening on ADDR"
// to stderr, and exits when stdin ends.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const upstream = process.env.BENCH_UPSTREAM ?? "";
let extra = 0;
const i = process.argv.indexOf("--tools");
if (i >= 0) extra = Number(process.argv[i + 1] ?? 0);

const text = (s) => ({ content: [{ type: "text", text: s }] });

async function get(path) {
  const res = await fetch(upstream + path, { signal: AbortSignal.timeout(10000) });
  const body = await res.text();
  if (!res.ok) throw new Error(`upstream returned ${res.status}`);
  return body;
}

function makeServer() {
  const server = new McpServer({ name: "ts-baseline", version: "1.0.0" });

  server.registerTool(
    "say_hello",
    { description: "Returns a friendly greeting", inputSchema: { name: z.string().describe("The name to greet") } },
    async ({ name }) => text(`hello ${name}`),
  );
  server.registerTool(
    "fetch",
    { description: "A small JSON document", inputSchema: { id: z.string() } },
    async ({ id }) => text(await get(`/small/${encodeURIComponent(id)}`)),
  );
  server.registerTool(
    "slow",
    { description: "A slow upstream", inputSchema: { id: z.string() } },
    async ({ id }) => text(await get(`/slow/${encodeURIComponent(id)}`)),
  );
  server.registerTool(
    "big",
    {
      description: "Extracts from a large document",
      inputSchema: {},
      outputSchema: {
        count: z.number().int(),
        top: z.array(z.object({ id: z.number().int(), name: z.string() })),
      },
    },
    async () => {
      const doc = JSON.parse(await get("/big"));
      const out = {
        count: doc.items.length,
        top: doc.items.filter((it) => it.score === 999).map(({ id, name }) => ({ id, name })),
      };
      return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
    },
  );
  server.registerTool(
    "echo",
    { description: "Echo input", inputSchema: { text: z.string() } },
    ({ text: t }) =>
      new Promise((resolve, reject) => {
        execFile("printf", ["%s", t], (err, stdout) => (err ? reject(err) : resolve(text(stdout))));
      }),
  );
  for (let n = 0; n < extra; n++) {
    server.registerTool(
      `tool_${n}`,
      {
        description: `Generated tool ${n}`,
        inputSchema: { name: z.string().max(100).describe("A name"), count: z.number().int().min(0).max(1000).default(1) },
      },
      async ({ name, count }) => text(`tool ${n} says hello ${name} x${count}`),
    );
  }

  return server;
}

const h = process.argv.indexOf("--http");
if (h < 0) {
  await makeServer().connect(new StdioServerTransport());
} else {
  await serveHTTP(process.argv[h + 1] ?? "127.0.0.1:0", process.argv.includes("--stateless"));
}

// readJSON reads a request's body as JSON (undefined when it is not).
async function readJSON(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

async function serveHTTP(addr, stateless) {
  const colon = addr.lastIndexOf(":");
  const host = addr.slice(0, colon) || "127.0.0.1";
  const port = Number(addr.slice(colon + 1));
  const transports = new Map();
  const httpServer = createServer(async (req, res) => {
    if (!req.url.startsWith("/mcp")) {
      res.writeHead(404).end();
      return;
    }
    const body = req.method === "POST" ? await readJSON(req) : undefined;
    if (stateless) {
      const server = makeServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    const sid = req.headers["mcp-session-id"];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport && !sid && req.method === "POST" && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await makeServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(sid ? 404 : 400, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "no valid session" } }));
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  httpServer.keepAliveTimeout = 120000;
  httpServer.listen(port, host, () => {
    const a = httpServer.address();
    process.stderr.write(`listening on ${a.address}:${a.port}\n`);
  });
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}
