// check_steps.mjs — the step table of a Parquet dataset says which steps
// profdb report analysed (issue 45): a per-step DuckDB query over
// `WHERE analysed = 1` gives the report's step_time rows (rank, step,
// wall_ns), `warmup` flags the step the report excluded as warm-up, and a
// step with no time of its own is neither.  On the shipped generated GPU
// example (2 ranks: step 1 warm-up, steps 2-3 analysed, step 4 empty).
//
//   node check_steps.mjs PROFDB SOURCE_DIR WORK_DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [profdb, source, work] = process.argv.slice(2);
let failures = 0;
function check(cond, what) {
  console.log(`${cond ? 'ok' : 'FAIL'}: ${what}`);
  if (!cond) failures++;
}
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const example = path.join(source, 'docs', 'examples', 'generated_gpu_run');
const traces = fs.readdirSync(example).filter((f) => f.includes('trace')).sort()
  .map((f) => path.join(example, f));
const ds = path.join(work, 'ds');
execFileSync(profdb, ['export', ...traces, '-o', ds, '--run', 'job', '-q']);
const json = path.join(work, 'report.json');
execFileSync(profdb, ['report', ds, '--section', 'step_time', '--json', json]);
const rep = JSON.parse(fs.readFileSync(json, 'utf8'));
const want = rep.sections.find((s) => s.id === 'step_time').rows
  .map((r) => `${r.rank}/${r.step}/${r.wall_ns}`).sort();

const con = await (await DuckDBInstance.create(':memory:')).connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
const glob = `'${ds}/step/*/*/*.parquet'`;
const got = (await q(`SELECT rank, step, span_dur FROM ${glob} WHERE analysed = 1`))
  .map((r) => `${r.rank}/${r.step}/${r.span_dur}`).sort();
check(want.length > 0 && JSON.stringify(got) === JSON.stringify(want),
  `DuckDB's analysed steps are the report's step_time rows (${got} vs ${want})`);
const flags = await q(`SELECT rank, step, warmup, analysed FROM ${glob} ORDER BY rank, step`);
const text = flags.map((r) => `${r.rank}:${r.step}:${r.warmup}${r.analysed}`).join(' ');
check(text === '0:1:10 0:2:01 0:3:01 0:4:00 1:1:10 1:2:01 1:3:01 1:4:00',
  `warm-up step 1 flagged, step 4 (empty) neither: ${text}`);
const types = await q(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${glob})
  WHERE column_name IN ('warmup', 'analysed')`);
check(types.length === 2 && types.every((t) => t.column_type === 'BIGINT'),
  `warmup and analysed are INT64: ${JSON.stringify(types)}`);
process.exit(failures ? 1 : 0);
