// The benchmark's TypeScript SDK baseline: a minimal stdio MCP server on the
// official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// bench/package-lock.json), written the way a user would write the
// benchmark's tools by hand: zod input schemas, fetch (keep-alive by default
// in Node 18+) and execFile. The tools are those of bench/baselines/gosdk.
//
// Run: node bench/baselines/ts/server.mjs [--tools N]   (after npm ci in bench/)
import { execFile } from "node:child_process";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
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

await server.connect(new StdioServerTransport());
