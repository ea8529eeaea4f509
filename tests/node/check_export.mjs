// check_export.mjs — profdb export read back by an independent reader,
// DuckDB (@duckdb/node-api from npm), on the public DLRM job (8 ranks).
//
//   node check_export.mjs PROFDB PUBLIC_DATA WORK_DIR
//
// Checks (issue 25, "Done when"):
//   1. per-rank kernel counts and sum(dur) read by DuckDB equal
//      `profdb query` on the database of the eight ranks;
//   2. ts, dur and rank are integer (BIGINT) columns, in the files and as
//      hive partitions; strings are dictionary-encoded; ts has min/max
//      statistics equal to the data's;
//   3. every file's key/value metadata carries the schema version;
//   4. eight tasks (--files LIST with --index / SLURM_ARRAY_TASK_ID /
//      JOB_COMPLETION_INDEX, in a shuffled order, two at a time) write the
//      same files, byte for byte, as `profdb export DB`;
//   5. re-running a task changes nothing (same bytes, no leftovers);
//   6. exit codes: a truncated input 3 (files written), a missing input 2,
//      an index past the list 2; a rank from the file name (or its
//      folder's) is recorded;
//   7. --file-bytes / --group-rows split a table into parts with the same
//      rows; exporting again unsplit removes the stale parts.
// Exits 77 (skipped) when the public data or the npm module is missing.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [profdb, publicDir, work] = process.argv.slice(2);
const dlrm = path.join(publicDir, 'facebookresearch__param', 'dlrm_kineto');
if (!fs.existsSync(dlrm)) {
  console.log(`SKIPPED: ${dlrm} is absent`);
  process.exit(77);
}
let DuckDBInstance;
try {
  ({ DuckDBInstance } = await import('@duckdb/node-api'));
} catch (e) {
  console.log('SKIPPED: @duckdb/node-api is not installed (npm ci in tests/node)');
  process.exit(77);
}

let failures = 0;
function check(cond, what) {
  if (!cond) {
    console.error(`FAIL: ${what}`);
    failures++;
  } else console.log(`ok: ${what}`);
}

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const db = path.join(work, 'dlrm.db');
const dirDb = path.join(work, 'from_db');
const dirTasks = path.join(work, 'from_tasks');
const traces = fs.readdirSync(dlrm).filter((f) => f.endsWith('.json')).sort()
  .map((f) => path.join(dlrm, f));
check(traces.length === 8, 'the DLRM job has 8 traces');

execFileSync(profdb, ['load', dlrm, '-o', db, '-q']);
execFileSync(profdb, ['export', db, '-o', dirDb, '-q']);

// ---- 4. the job array: 8 tasks, shuffled, two at a time ----------------
const list = path.join(work, 'inputs.txt');
fs.writeFileSync(list, '# one trace a line\n' + traces.join('\n') + '\n');
function task(i, how, extra = []) {
  const env = { ...process.env };
  delete env.SLURM_ARRAY_TASK_ID;
  delete env.JOB_COMPLETION_INDEX;
  const args = ['export', '--files', list, '-o', dirTasks, '-q', ...extra];
  if (how === 'slurm') env.SLURM_ARRAY_TASK_ID = String(i);
  else if (how === 'k8s') env.JOB_COMPLETION_INDEX = String(i);
  else args.push('--index', String(i));
  return new Promise((resolve) => {
    const p = spawn(profdb, args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
    p.on('exit', (code) => resolve(code));
  });
}
const order = [5, 2, 7, 0, 3, 6, 1, 4];
const hows = ['slurm', 'k8s', 'index'];
let codes = [];
for (let k = 0; k < order.length; k += 2)
  codes = codes.concat(await Promise.all([task(order[k], hows[k % 3]),
    task(order[k + 1], hows[(k + 1) % 3])]));
check(codes.every((c) => c === 0), `every task exits 0 (${codes.join(',')})`);

// The Parquet files; the summaries of _summary/ (profdb report DIR reads
// them; they carry each load's time, so they are not byte for byte the
// same) are checked by export.report_dir; the records of _inputs/ (tasks
// only) by export.task_skip.
function listFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(path.relative(dir, path.join(e.parentPath ?? e.path, e.name)));
  return out.filter((f) => !f.startsWith('_summary/') && !f.startsWith('_inputs/')).sort();
}
const filesDb = listFiles(dirDb), filesTasks = listFiles(dirTasks);
check(filesDb.length > 8 * 5, `export DB wrote ${filesDb.length} files`);
check(JSON.stringify(filesDb) === JSON.stringify(filesTasks),
  'the tasks wrote the same file names as export DB');
const differing = filesDb.filter((f) => !fs.existsSync(path.join(dirTasks, f)) ||
  !fs.readFileSync(path.join(dirDb, f)).equals(fs.readFileSync(path.join(dirTasks, f))));
check(differing.length === 0, `and the same bytes (${differing.slice(0, 3).join(' ')})`);
check(filesDb.every((f) => /^[a-z_]+\/run=[A-Za-z0-9._+-]+\/rank=(0|[1-9][0-9]*)\/part-0000\.parquet$/.test(f)),
  'paths are <table>/run=<run>/rank=<rank>/part-0000.parquet, ranks unpadded');

check(fs.readdirSync(path.join(dirTasks, '_inputs', 'trace', 'run=ws8-1')).length === 8,
  'the tasks wrote one record of each rank in _inputs/');

// ---- 5. a task run again changes nothing --------------------------------
// (skipped: the dataset holds its input; with --force: rewritten, to the
// same bytes; tests/export/check_task_skip.py tests the skipping)
const before = new Map(filesTasks.map((f) => [f, fs.readFileSync(path.join(dirTasks, f))]));
for (const extra of [[], ['--force']]) {
  const again = await task(3, 'index', extra);
  const after = listFiles(dirTasks);
  check(again === 0, `the re-run task ${extra.join(' ')} exits 0`);
  check(JSON.stringify(after) === JSON.stringify(filesTasks), 're-running leaves the same files (no temporaries)');
  check(after.every((f) => before.get(f).equals(fs.readFileSync(path.join(dirTasks, f)))),
    're-running leaves the same bytes');
}

// ---- 1-3. DuckDB reads the dataset ----------------------------------------
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
async function rows(sql) {
  return (await con.runAndReadAll(sql)).getRowObjectsJson();
}
const glob = (t) => `read_parquet('${dirTasks}/${t}/*/*/*.parquet', hive_partitioning = true)`;
const duck = await rows(`SELECT rank, count(*) AS n, sum(dur) AS total FROM ${glob('kernel')}
  GROUP BY rank ORDER BY rank`);
const ref = JSON.parse(execFileSync(profdb, ['query', db, '--json',
  'SELECT t.rank AS rank, count(*) AS n, sum(k.dur) AS total FROM kernel k ' +
  'JOIN trace t USING (trace_id) GROUP BY t.rank ORDER BY t.rank']).toString())
  .flat();
check(duck.length === 8 && ref.length === 8, 'kernels of 8 ranks on both sides');
check(duck.every((r, i) => Number(r.rank) === ref[i].rank && Number(r.n) === ref[i].n &&
  BigInt(r.total) === BigInt(ref[i].total)),
  `per-rank kernel count and sum(dur) equal profdb query (${duck.map((r) => r.n).join(',')})`);
const ops = await rows(`SELECT count(*) AS n FROM ${glob('cpu_op')}`);
const opsRef = JSON.parse(execFileSync(profdb, ['query', db, '--json',
  'SELECT count(*) AS n FROM cpu_op']).toString()).flat();
check(Number(ops[0].n) === opsRef[0].n, `cpu_op rows equal (${ops[0].n})`);
const nested = await rows(`SELECT count(*) AS n FROM ${glob('cpu_op')} c
  JOIN ${glob('cpu_op')} p ON p.rank = c.rank AND p.event_id = c.parent_id
  WHERE c.ts < p.ts OR c.ts + c.dur > p.ts + p.dur`);
check(Number(nested[0].n) === 0, 'parent_id joins within a rank and encloses the child');

// Every value, not only totals: the rows of cpu_op and kernel compared
// field by field with the database (names and JSON text through the
// dictionary encoding, NULLs through the definition levels).
async function sameRows(duckSql, refSql, what) {
  const a = await rows(duckSql);
  const b = JSON.parse(execFileSync(profdb, ['query', db, '--json', refSql],
    { maxBuffer: 1 << 28 }).toString()).flat();
  const norm = (r) => JSON.stringify(Object.values(r).map((v) => v === null ? null : String(v)));
  const bad = a.findIndex((r, i) => i >= b.length || norm(r) !== norm(b[i]));
  check(a.length === b.length && bad < 0,
    `${what}: ${a.length} rows equal the database's, field by field` +
    (bad >= 0 ? ` (first difference at row ${bad}: ${norm(a[bad])} vs ${b[bad] && norm(b[bad])})` : ''));
}
await sameRows(`SELECT rank, name, ts, dur, self_dur, depth, step, input_dims, args
  FROM ${glob('cpu_op')} ORDER BY rank, ts, event_id`,
  `SELECT t.rank, c.name, c.ts, c.dur, c.self_dur, c.depth, c.step, c.input_dims, c.args
   FROM cpu_op c JOIN trace t USING (trace_id) ORDER BY t.rank, c.ts, c.event_id`, 'cpu_op');
await sameRows(`SELECT rank, name, device, stream, ts, dur, correlation, grid_x, registers,
  occupancy_pct FROM ${glob('kernel')} ORDER BY rank, ts, event_id`,
  `SELECT t.rank, k.name, k.device, k.stream, k.ts, k.dur, k.correlation, k.grid_x,
   k.registers, k.occupancy_pct FROM kernel k JOIN trace t USING (trace_id)
   ORDER BY t.rank, k.ts, k.event_id`, 'kernel');

for (const t of ['kernel', 'cpu_op', 'step', 'runtime']) {
  const cols = await rows(`DESCRIBE SELECT * FROM ${glob(t)}`);
  const type = Object.fromEntries(cols.map((c) => [c.column_name, c.column_type]));
  check(type.ts === 'BIGINT' && type.dur === 'BIGINT' && type.rank === 'BIGINT' &&
    type.run === 'VARCHAR', `${t}: ts, dur, rank BIGINT, run VARCHAR`);
}
const hive = await rows(`DESCRIBE SELECT * FROM read_parquet('${dirTasks}/kernel/*/*/*.parquet',
  hive_partitioning = true, union_by_name = true)`);
check(hive.find((c) => c.column_name === 'rank').column_type === 'BIGINT',
  'rank is BIGINT with hive partitioning');

const kv = await rows(`SELECT file_name, decode(key) AS k, decode(value) AS v
  FROM parquet_kv_metadata('${dirTasks}/*/*/*/*.parquet')`);
const schemaVersion = JSON.parse(execFileSync(profdb, ['query', db, '--json',
  "SELECT value FROM _profdb WHERE key = 'schema_version'"]).toString()).flat()[0].value;
const files = new Set(kv.map((r) => r.file_name));
const withVersion = kv.filter((r) => r.k === 'profdb.schema_version' &&
  String(r.v) === String(schemaVersion));
check(files.size === filesDb.filter((f) => f.endsWith('.parquet')).length &&
  withVersion.length === files.size,
  `every file's key/value metadata has profdb.schema_version = ${schemaVersion}`);
check(kv.filter((r) => r.k === 'profdb.rank_source' && r.v === 'distributedInfo').length === files.size,
  'the rank came from distributedInfo in every file');

const meta = await rows(`SELECT path_in_schema AS c, encodings, stats_min_value AS lo,
  stats_max_value AS hi, compression FROM parquet_metadata('${dirTasks}/kernel/run=*/rank=3/*.parquet')`);
const ts = meta.find((m) => m.c === 'ts');
const tsRef = await rows(`SELECT min(ts) AS lo, max(ts) AS hi FROM ${glob('kernel')} WHERE rank = 3`);
check(ts && ts.lo === String(tsRef[0].lo) && ts.hi === String(tsRef[0].hi),
  'ts has min/max statistics equal to the data');
check(meta.find((m) => m.c === 'name').encodings.includes('RLE_DICTIONARY'),
  'strings are dictionary-encoded');
check(meta.every((m) => m.compression === 'ZSTD'), 'pages are zstd-compressed');
const sorted = await rows(`SELECT count(*) AS n FROM (SELECT ts, lag(ts) OVER () AS prev
  FROM read_parquet('${dirTasks}/kernel/run=*/rank=3/*.parquet')) WHERE ts < prev`);
check(Number(sorted[0].n) === 0, 'a file is sorted by time');

// ---- 6. exit codes and rank sources ---------------------------------------
function run(args) {
  try {
    execFileSync(profdb, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    return 0;
  } catch (e) {
    return e.status;
  }
}
const text = fs.readFileSync(traces[2], 'utf8');
const cut = path.join(work, 'rank_cut.json');
fs.writeFileSync(cut, text.slice(0, Math.floor(text.length * 0.6)));
const dirCut = path.join(work, 'cut');
check(run(['export', cut, '-o', dirCut, '-q']) === 3, 'a truncated trace exports with exit 3');
check(fs.existsSync(path.join(dirCut, 'kernel')) || fs.existsSync(path.join(dirCut, 'cpu_op')),
  'and its complete events are written');
check(run(['export', path.join(work, 'missing.json'), '-o', dirCut, '-q']) === 2,
  'a missing input exits 2');
check(run(['export', '--files', list, '--index', '8', '-o', dirCut, '-q']) === 2,
  'an index past the list exits 2');
const noRank = JSON.parse(text);
delete noRank.distributedInfo;
const named = path.join(work, 'host7_worker17.pt.trace.json');
fs.writeFileSync(named, JSON.stringify(noRank));
const dirNamed = path.join(work, 'named');
check(run(['export', named, '-o', dirNamed, '-q', '--run', 'job42']) === 0,
  'a trace without distributedInfo.rank but a rank in its name exits 0');
const src = await rows(`SELECT rank, rank_source, run FROM
  read_parquet('${dirNamed}/trace/*/*/*.parquet')`);
check(src.length === 1 && src[0].rank === '17' && src[0].rank_source === 'file name' &&
  src[0].run === 'job42', 'its rank 17 comes from the file name, recorded as such, run from --run');
check(fs.existsSync(path.join(dirNamed, 'kernel', 'run=job42', 'rank=17', 'part-0000.parquet')),
  'written to kernel/run=job42/rank=17/');
check(run(['export', named, '-o', dirNamed, '-q', '--run', 'a/b']) === 2,
  'a run name that is not a folder name is refused');
// Integers written as strings ("tid": "25738", Kineto 2021) are kept as
// those integers: the same tids as the job's export of that rank.
const textTid = JSON.parse(text);
for (const e of textTid.traceEvents) if (typeof e.tid === 'number') e.tid = String(e.tid);
const tidFile = path.join(work, 'text_tid.json');
fs.writeFileSync(tidFile, JSON.stringify(textTid));
const dirTid = path.join(work, 'text_tid');
check(run(['export', tidFile, '-o', dirTid, '-q']) === 0, 'string tids: exit 0, no warning');
const tids = async (dir, where) => (await rows(`SELECT count(*) AS n, count(tid) AS t,
  sum(tid) AS s FROM read_parquet('${dir}/cpu_op/*/*/*.parquet', hive_partitioning = true)
  ${where}`))[0];
const [gotTid, wantTid] = [await tids(dirTid, ''), await tids(dirTasks, 'WHERE rank = 2')];
check(gotTid.n === wantTid.n && gotTid.t === gotTid.n && gotTid.s === wantTid.s,
  `string tids are written as integers (${JSON.stringify(gotTid)} vs ${JSON.stringify(wantTid)})`);
// A rank in the name of the folder holding the file (rank_23/trace.json);
// not in the folders above it (worker5/plain/: rank 0, the default; no
// warning: a single process's rank, compared with no other).
fs.mkdirSync(path.join(work, 'rank_23'), { recursive: true });
fs.mkdirSync(path.join(work, 'worker5', 'plain'), { recursive: true });
const inFolder = path.join(work, 'rank_23', 'trace.json');
const above = path.join(work, 'worker5', 'plain', 'trace.json');
fs.writeFileSync(inFolder, JSON.stringify(noRank));
fs.writeFileSync(above, JSON.stringify(noRank));
check(run(['export', inFolder, '-o', dirNamed, '-q', '--run', 'job43']) === 0,
  'a trace with a rank in its folder\'s name exits 0');
check(fs.existsSync(path.join(dirNamed, 'kernel', 'run=job43', 'rank=23', 'part-0000.parquet')),
  'rank_23/trace.json is written to kernel/run=job43/rank=23/');
check(run(['export', above, '-o', dirNamed, '-q', '--run', 'job44']) === 0 &&
  fs.existsSync(path.join(dirNamed, 'kernel', 'run=job44', 'rank=0', 'part-0000.parquet')),
  'worker5/plain/trace.json: no rank (exit 0), rank 0: folders above its own are not read');
const fromFolders = await rows(`SELECT run, rank_source FROM
  read_parquet('${dirNamed}/trace/*/*/*.parquet', hive_partitioning = true) ORDER BY run`);
check(JSON.stringify(fromFolders.map((r) => r.rank_source)) ===
  JSON.stringify(['file name', 'folder name', 'default']),
  `rank_source: file name, folder name, default (${JSON.stringify(fromFolders)})`);

// ---- 7. past --file-bytes a table goes on in part-0001, ... ----------------
// Small row groups and a 6 kB limit split the DLRM tables into parts (the
// default is 1 GiB); the parts hold the same rows as the unsplit export.
const dirSplit = path.join(work, 'split');
check(run(['export', db, '-o', dirSplit, '-q', '--group-rows', '100', '--file-bytes', '6000']) === 0,
  'export --group-rows 100 --file-bytes 6000 exits 0');
const splitFiles = listFiles(dirSplit);
const parts = splitFiles.filter((f) => f.startsWith('cpu_op/run=ws8-1/rank=3/'));
check(parts.length > 2 && parts.every((f, k) => f.endsWith(`/part-${String(k).padStart(4, '0')}.parquet`)),
  `rank 3's CPU operators are in ${parts.length} parts numbered from part-0000`);
const tables = [...new Set(filesDb.map((f) => f.split('/')[0]))].filter((t) => !t.startsWith('_'));
const unequal = [];
for (const t of tables) {
  const d = await rows(`SELECT (SELECT count(*) FROM (SELECT * FROM read_parquet('${dirSplit}/${t}/*/*/*.parquet')
      EXCEPT ALL SELECT * FROM read_parquet('${dirDb}/${t}/*/*/*.parquet'))) +
    (SELECT count(*) FROM (SELECT * FROM read_parquet('${dirDb}/${t}/*/*/*.parquet')
      EXCEPT ALL SELECT * FROM read_parquet('${dirSplit}/${t}/*/*/*.parquet'))) AS n`);
  if (Number(d[0].n) !== 0) unequal.push(t);
}
check(unequal.length === 0, `every table (${tables.length}) has the same rows split as unsplit (${unequal})`);
const groups = await rows(`SELECT max(row_group_num_rows) AS m,
  max(row_group_id) + 1 AS g FROM parquet_metadata('${dirSplit}/cpu_op/*/*/*.parquet')`);
check(Number(groups[0].m) === 100 && Number(groups[0].g) > 1,
  'row groups hold --group-rows 100 rows at most, several to a part');
const spans = await rows(`SELECT filename AS f, min(ts) AS lo, max(ts) AS hi
  FROM read_parquet('${dirSplit}/cpu_op/run=ws8-1/rank=3/*.parquet', filename = true)
  GROUP BY filename ORDER BY filename`);
check(spans.length === parts.length && spans.every((s, k) => k === 0 || BigInt(spans[k - 1].hi) <= BigInt(s.lo)),
  'the parts follow each other in time');
const sizes = parts.map((f) => fs.statSync(path.join(dirSplit, f)).size);
check(sizes.slice(0, -1).every((b) => b >= 6000), 'every part but the last passed 6000 bytes');
const splitKv = await rows(`SELECT count(DISTINCT file_name) AS n FROM
  parquet_kv_metadata('${dirSplit}/*/*/*/*.parquet') WHERE decode(key) = 'profdb.schema_version'`);
check(Number(splitKv[0].n) === splitFiles.filter((f) => f.endsWith('.parquet')).length,
  'every part carries the schema version');
// --file-bytes 1: each row group is a part (the file's 4-byte magic alone
// does not end one).
const dirTiny = path.join(work, 'tiny');
check(run(['export', traces[3], '-o', dirTiny, '-q', '--table', 'cpu_op', '--group-rows', '100',
  '--file-bytes', '1']) === 0, 'a task with --file-bytes 1 exits 0');
const ops3 = await rows(`SELECT count(*) AS n FROM read_parquet('${dirDb}/cpu_op/*/rank=3/*.parquet')`);
const tinyParts = fs.readdirSync(path.join(dirTiny, 'cpu_op', 'run=ws8-1', 'rank=3'));
check(tinyParts.length === Math.ceil(Number(ops3[0].n) / 100),
  `and writes one part per row group of 100 rows (${tinyParts.length} for ${ops3[0].n} rows)`);
// Exported again unsplit, the stale parts and a killed run's part go away.
const killed = path.join(dirSplit, 'kernel/run=ws8-1/rank=3/.part-0042.parquet.999999999.tmp');
fs.writeFileSync(killed, 'half a part');
check(run(['export', db, '-o', dirSplit, '-q']) === 0, 'the same export without the options exits 0');
const resplit = listFiles(dirSplit);
check(JSON.stringify(resplit) === JSON.stringify(filesDb) && !fs.existsSync(killed) &&
  resplit.every((f) => fs.readFileSync(path.join(dirSplit, f)).equals(fs.readFileSync(path.join(dirDb, f)))),
  'then the folder holds export DB\'s files and bytes: the parts past part-0000 and a killed part are removed');
for (const bad of [['--group-rows', '0'], ['--group-rows', '1048577'], ['--file-bytes', '1G']])
  check(run(['export', db, '-o', dirSplit, '-q', ...bad]) === 2, `${bad.join(' ')} is refused with exit 2`);

// ---- uncompressed pages read the same ---------------------------------------
const dirPlain = path.join(work, 'plain');
check(run(['export', traces[3], '-o', dirPlain, '-q', '--compression', 'none']) === 0,
  '--compression none exits 0');
const plain = await rows(`SELECT count(*) AS n, sum(dur) AS s, count(DISTINCT name) AS names
  FROM read_parquet('${dirPlain}/kernel/*/*/*.parquet')`);
const zstd = await rows(`SELECT count(*) AS n, sum(dur) AS s, count(DISTINCT name) AS names
  FROM read_parquet('${dirTasks}/kernel/*/rank=3/*.parquet')`);
check(JSON.stringify(plain) === JSON.stringify(zstd), 'and reads as the zstd files do');
const plainMeta = await rows(`SELECT DISTINCT compression FROM
  parquet_metadata('${dirPlain}/kernel/*/*/*.parquet')`);
check(plainMeta.length === 1 && plainMeta[0].compression === 'UNCOMPRESSED',
  'its pages are UNCOMPRESSED');

// ---- a memory snapshot as a task (--rank, --run) ---------------------------
const snap = path.join(publicDir, 'Yiyi-philosophy__LLM-inference', 'oom_snapshot.json');
if (fs.existsSync(snap)) {
  const dirSnap = path.join(work, 'snap');
  const snapDb = path.join(work, 'snap.db');
  check(run(['export', snap, '-o', dirSnap, '-q', '--rank', '3', '--run', 'job42']) === 0,
    'a snapshot exports with --rank and --run, exit 0');
  execFileSync(profdb, ['load', snap, '-o', snapDb, '-q']);
  const b = await rows(`SELECT count(*) AS n, sum(size) AS s, count(DISTINCT stack_id) AS st
    FROM read_parquet('${dirSnap}/block/run=job42/rank=3/*.parquet')`);
  const bRef = JSON.parse(execFileSync(profdb, ['query', snapDb, '--json',
    'SELECT count(*) AS n, sum(size) AS s, count(DISTINCT stack_id) AS st FROM block'])
    .toString()).flat();
  check(Number(b[0].n) === bRef[0].n && BigInt(b[0].s) === BigInt(bRef[0].s) &&
    Number(b[0].st) === bRef[0].st, `snapshot blocks: count, bytes, stacks equal (${b[0].n})`);
  const orphan = await rows(`SELECT count(*) AS n
    FROM read_parquet('${dirSnap}/block/*/*/*.parquet') b WHERE b.stack_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM read_parquet('${dirSnap}/stack_frame/*/*/*.parquet') f
                    WHERE f.stack_id = b.stack_id)`);
  check(Number(orphan[0].n) === 0, 'every block stack_id has its frames in stack_frame');
  const segs = await rows(`SELECT count(*) AS n FROM read_parquet('${dirSnap}/block/*/*/*.parquet') b
    WHERE NOT EXISTS (SELECT 1 FROM read_parquet('${dirSnap}/segment/*/*/*.parquet') g
                      WHERE g.segment_id = b.segment_id AND g.address <= b.address)`);
  check(Number(segs[0].n) === 0, 'every block lies in its segment');
}

if (failures) {
  console.error(`${failures} checks failed`);
  process.exit(1);
}
console.log('all checks passed');
