// profdb mcp driven by the official Model Context Protocol SDK client
// (@modelcontextprotocol/sdk, package-lock.json here), as an agent's host
// would: initialize, list tools, load, SQL, findings, a section, a diff,
// and the refusals (a path outside --allow, a writing statement).
// Also the protocol version negotiation, over a raw stdio session.
//
//   node client.mjs PROFDB ALLOWED_DIR OUTSIDE_FILE
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync, spawnSync } from "node:child_process";
import { isDeepStrictEqual } from "node:util";
import path from "node:path";

const [profdb, allowed, outside] = process.argv.slice(2);
const failures = [];
const check = (what, ok) => { if (!ok) failures.push(what); };
const text = (r) => r.content.map((c) => c.text).join("");

const transport = new StdioClientTransport({
  command: profdb, args: ["mcp", "--allow", allowed], stderr: "inherit" });
const client = new Client({ name: "profdb-test", version: "1.0.0" });
await client.connect(transport);  // initialize + notifications/initialized
check("server name", client.getServerVersion()?.name === "profdb");
check("tools capability", client.getServerCapabilities()?.tools !== undefined);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
check(`tools: ${names}`, isDeepStrictEqual(names,
  ["diff", "findings", "list_sections", "load", "read_section", "sql"]));
check("every tool has a description and an object schema",
  tools.every((t) => t.description && t.inputSchema?.type === "object"));

const db = path.join(allowed, "run.db");
const load = await client.callTool({ name: "load", arguments: {
  inputs: [path.join(allowed, "generated_gpu_run")], db } });
check(`load: ${text(load)}`, !load.isError && text(load).includes("loaded into"));

const q = "SELECT kernel_category(name) AS category, count(*) AS n, sum(dur) AS dur_ns " +
  "FROM kernel GROUP BY 1 ORDER BY dur_ns DESC, category";
const sql = await client.callTool({ name: "sql", arguments: { db, query: q } });
check(`sql: ${text(sql)}`, !sql.isError);
const got = JSON.parse(text(sql));
const want = JSON.parse(execFileSync(profdb, ["query", db, "--json", q], { encoding: "utf8" }));
check("sql rows equal profdb query's", isDeepStrictEqual(
  got.rows, want.map((r) => [r.category, r.n, r.dur_ns])) && want.length > 1);
check("sql columns", isDeepStrictEqual(got.columns, ["category", "n", "dur_ns"]));

const cut = await client.callTool({ name: "sql", arguments: {
  db, query: "SELECT * FROM kernel", max_rows: 3 } });
const cutr = JSON.parse(text(cut));
check("max_rows cuts and says so", cutr.rows.length === 3 && cutr.truncated === true);

const slow = await client.callTool({ name: "sql", arguments: { db, timeout_ms: 200,
  query: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) " +
         "SELECT count(*) FROM c" } });
check(`timeout_ms interrupts: ${text(slow)}`, slow.isError && /timeout_ms/.test(text(slow)));

const findings = await client.callTool({ name: "findings", arguments: { db } });
check(`findings: ${text(findings).slice(0, 200)}`, !findings.isError);
const cli = JSON.parse(execFileSync(profdb, ["report", db, "--json", "-"], { encoding: "utf8" }));
check("findings equal profdb report --json's",
  isDeepStrictEqual(JSON.parse(text(findings)).findings, cli.findings) && cli.findings.length > 0);

const list = await client.callTool({ name: "list_sections", arguments: {} });
const ids = JSON.parse(text(list)).map((s) => s.id);
check("list_sections: findings and gpu_kernel_sum", ids[0] === "findings" &&
  ids.includes("gpu_kernel_sum"));
const sec = await client.callTool({ name: "read_section", arguments: {
  db, section: "gpu_kernel_sum" } });
const secj = JSON.parse(text(sec));
check("read_section equals the CLI's section", isDeepStrictEqual(secj.sections[0],
  cli.sections.find((s) => s.id === "gpu_kernel_sum")));

// the report's options (report/report_params.c): as the CLI's, in the
// schema and in effect
const props = tools.find((t) => t.name === "read_section").inputSchema.properties;
const help = execFileSync(profdb, ["report", "--help"], { encoding: "utf8" });
check("read_section takes each option profdb report --help lists",
  ["top", "scope", "include_warmup", "gpu_gb", "trace", "snapshot"].every((o) =>
    props[o] && help.includes(`  --${o.replace("_", "-")} `)));
const hta = await client.callTool({ name: "read_section", arguments: {
  db, section: "gpu_kernel_sum", scope: "hta", top: 2, include_warmup: true } });
const cliHta = JSON.parse(execFileSync(profdb, ["report", db, "--json", "-", "--scope", "hta",
  "--top", "2", "--include-warmup", "--section", "gpu_kernel_sum"], { encoding: "utf8" }));
check(`read_section with scope, top, include_warmup equals the CLI's: ${text(hta).slice(0, 200)}`,
  !hta.isError && isDeepStrictEqual(JSON.parse(text(hta)).sections, cliHta.sections) &&
  cliHta.sections[0].rows.length <= 2);
const badTop = await client.callTool({ name: "findings", arguments: { db, top: 0 } });
check(`top 0 is refused as the CLI refuses it: ${text(badTop)}`,
  badTop.isError && text(badTop).includes("top needs a whole number of rows >= 1, got '0'"));
const badScope = await client.callTool({ name: "findings", arguments: { db, scope: 7 } });
check(`a scope that is not a string is refused: ${text(badScope)}`,
  badScope.isError && text(badScope).includes("scope is a string"));

const diff = await client.callTool({ name: "diff", arguments: {
  before: db, after: db, gate: ["step_time > +5%"] } });
const d = JSON.parse(text(diff));
check(`diff: verdict and passing gate: ${text(diff).slice(0, 300)}`,
  !diff.isError && Array.isArray(d.verdict) && d.gate?.passed === true);

// refusals
const out = await client.callTool({ name: "load", arguments: { inputs: [outside], db } });
check(`a path outside --allow is refused: ${text(out)}`,
  out.isError && text(out).includes("outside the folders"));
const outdb = await client.callTool({ name: "sql", arguments: {
  db: path.join(allowed, "..", "elsewhere.db"), query: "SELECT 1" } });
check(`a database outside --allow is refused: ${text(outdb)}`, outdb.isError);
for (const w of ["DELETE FROM trace", "CREATE TABLE t(x)", "ATTACH 'x.db' AS x",
                 "PRAGMA user_version = 3", "INSERT INTO trace(trace_id) VALUES (99)"]) {
  const r = await client.callTool({ name: "sql", arguments: { db, query: w } });
  check(`a writing statement is refused: ${w}: ${text(r)}`,
    r.isError && /refused|not authorized|readonly/.test(text(r)));
}
const after = JSON.parse(execFileSync(profdb, ["query", db, "--json",
  "SELECT count(*) AS n FROM trace"], { encoding: "utf8" }));
check("the database is unchanged", after[0].n === 2);
await client.close();

// protocol version negotiation (raw JSON-RPC lines)
for (const [asked, answer] of [["2024-11-05", "2024-11-05"], ["2025-06-18", "2025-06-18"],
                               ["1999-01-01", "2025-11-25"]]) {
  const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: {
    protocolVersion: asked, capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
  const r = spawnSync(profdb, ["mcp", "--allow", allowed], {
    input: JSON.stringify(init) + "\n", encoding: "utf8" });
  const lines = r.stdout.split("\n").filter((l) => l);
  const res = lines.length === 1 ? JSON.parse(lines[0]) : null;
  check(`protocolVersion ${asked} -> ${res?.result?.protocolVersion}`,
    res?.result?.protocolVersion === answer);
}

for (const f of failures) console.log("FAIL:", f);
console.log(`mcp: ${failures.length} failure(s)`);
process.exit(failures.length ? 1 : 0);
