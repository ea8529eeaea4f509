#!/usr/bin/env python3
"""The load's stored attribution against a re-derivation by walking the tree.

    check_attr.py PROFDB WORK_DIR DIR...

The nesting pass (loader/postpass.c) stores, for every operator call, what
encloses it (_slice_tree.ctx_id -> _attr_ctx, _attr_ctx_op,
_attr_ctx_shape), each module / annotation range's path (_attr_path,
_attr_range), the FLOP-counted calls (_attr_flop), the host time per
(operator, shapes, types) (_attr_shape) and the marker slices
(_attr_marker); the report only adds these up.  For every trace under the
DIRs (snapshots are skipped) this re-derives each figure the way the report
did before, by walking _slice_tree upwards with recursive SQL over all GPU
work (no step scope), and checks they are equal:
  - device self / total time per operator name, and per name and shapes
  - per module / annotation path: calls, host time, device time (by launching
    operator, and by launching runtime call: the report's rule)
  - the source frame of every launching operator (lowest frame_rank(),
    innermost)
  - per FLOP-counted call: device time below it, whether it is outermost
  - host calls / total / self time per (name, Input Dims)
  - the marker slices
Exits 77 (skipped) when no DIR exists.
"""
import os
import subprocess
import sys

GPU = """(SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))"""
CPU_OP = """(SELECT kind FROM _kind WHERE name = 'cpu_op')"""

LAUNCH = f"""
launch AS (
  SELECT l.op_id, sum(g.dur) AS gpu, t.ctx_id, t.flop_id
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id
  JOIN _slice s ON s.id = l.op_id AND s.kind = {CPU_OP}
  LEFT JOIN _slice_tree t ON t.id = l.op_id
  WHERE g.kind IN {GPU} AND g.dur IS NOT NULL GROUP BY l.op_id
), up(op_id, anc_id, d) AS (
  SELECT op_id, op_id, 0 FROM launch
  UNION ALL
  SELECT up.op_id, t.parent_id, up.d + 1 FROM up JOIN _slice_tree t ON t.id = up.anc_id
  WHERE t.parent_id IS NOT NULL
)"""

# Each query returns the number of mismatching rows, then the rows compared.
CHECKS = {
    "device time per operator": f"""
WITH RECURSIVE {LAUNCH},
old AS (
  SELECT name_id, sum(CASE WHEN is_self THEN gpu ELSE 0 END) AS self, sum(gpu) AS total
  FROM (SELECT s.name_id, up.op_id, max(up.d = 0) AS is_self
        FROM up JOIN _slice s ON s.id = up.anc_id AND s.kind = {CPU_OP} GROUP BY 1, 2)
  JOIN launch USING (op_id) GROUP BY name_id
), new AS (
  SELECT name_id, sum(self) AS self, sum(total) AS total FROM (
    SELECT c.name_id, CASE WHEN c.is_self THEN x.gpu ELSE 0 END AS self, x.gpu AS total
    FROM (SELECT ctx_id, sum(gpu) AS gpu FROM launch WHERE ctx_id IS NOT NULL GROUP BY 1) x
    JOIN _attr_ctx_op c USING (ctx_id)
    UNION ALL
    SELECT s.name_id, gpu, gpu FROM launch JOIN _slice s ON s.id = op_id WHERE ctx_id IS NULL)
  GROUP BY name_id
)
SELECT (SELECT count(*) FROM old FULL JOIN new USING (name_id)
        WHERE old.self IS NOT new.self OR old.total IS NOT new.total), (SELECT count(*) FROM old)
""",
    "device time per operator and shapes": f"""
WITH RECURSIVE {LAUNCH},
old AS (
  SELECT name_id, input_dims, sum(CASE WHEN is_self THEN gpu ELSE 0 END) AS self,
    sum(gpu) AS total
  FROM (SELECT s.name_id, s.input_dims, up.op_id, max(up.d = 0) AS is_self
        FROM up JOIN _slice s ON s.id = up.anc_id AND s.kind = {CPU_OP}
        WHERE s.input_dims IS NOT NULL GROUP BY 1, 2, 3)
  JOIN launch USING (op_id) GROUP BY name_id, input_dims
), new AS (
  SELECT c.name_id, c.input_dims, sum(CASE WHEN c.is_self THEN x.gpu ELSE 0 END) AS self,
    sum(x.gpu) AS total
  FROM (SELECT ctx_id, sum(gpu) AS gpu FROM launch WHERE ctx_id IS NOT NULL GROUP BY 1) x
  JOIN _attr_ctx_shape c USING (ctx_id) GROUP BY 1, 2
)
SELECT (SELECT count(*) FROM old FULL JOIN new USING (name_id, input_dims)
        WHERE old.self IS NOT new.self OR old.total IS NOT new.total), (SELECT count(*) FROM old)
""",
    "module and annotation paths": f"""
WITH RECURSIVE {LAUNCH},
range AS (
  SELECT s.id, CASE s.kind WHEN (SELECT kind FROM _kind WHERE name = 'python_function')
    THEN 'module' ELSE 'annotation' END AS tree,
    CASE s.kind WHEN (SELECT kind FROM _kind WHERE name = 'python_function')
    THEN substr(n.value, 12) ELSE n.value END AS name, s.dur
  FROM _slice s JOIN _string n ON n.id = s.name_id JOIN _slice_tree t ON t.id = s.id
  WHERE (s.kind = (SELECT kind FROM _kind WHERE name = 'python_function')
         AND n.value LIKE 'nn.Module: %')
     OR (s.kind = (SELECT kind FROM _kind WHERE name = 'user_annotation')
         AND n.value NOT GLOB 'ProfilerStep#*')
), rup(id, anc_id, d) AS (
  SELECT id, id, 0 FROM range
  UNION ALL
  SELECT rup.id, t.parent_id, rup.d + 1 FROM rup JOIN _slice_tree t ON t.id = rup.anc_id
  WHERE t.parent_id IS NOT NULL
), chain AS (
  SELECT rup.id, a.name FROM rup JOIN range a ON a.id = rup.anc_id
  JOIN range r ON r.id = rup.id AND r.tree = a.tree ORDER BY rup.id, rup.d DESC
), call AS (
  SELECT r.id, r.tree, c.path, r.dur FROM range r
  JOIN (SELECT id, group_concat(name, ' > ') AS path FROM chain GROUP BY id) c USING (id)
), old AS (
  SELECT c.tree, c.path, count(*) AS calls, sum(c.dur) AS host,
    (SELECT sum(l.gpu) FROM (SELECT DISTINCT u.op_id FROM call k JOIN up u ON u.anc_id = k.id
                             WHERE k.tree = c.tree AND k.path = c.path) o
     JOIN launch l USING (op_id)) AS gpu
  FROM call c GROUP BY c.tree, c.path
), pup(ctx_id, path_id) AS (
  SELECT id, module_path_id FROM _attr_ctx WHERE module_path_id IS NOT NULL
  UNION ALL
  SELECT id, annotation_path_id FROM _attr_ctx WHERE annotation_path_id IS NOT NULL
  UNION ALL
  SELECT pup.ctx_id, p.parent_id FROM pup JOIN _attr_path p ON p.id = pup.path_id
  WHERE p.parent_id IS NOT NULL
), new AS (
  SELECT p.tree, p.path, sum(r.calls) AS calls, sum(r.total_dur) AS host,
    (SELECT sum(x.gpu) FROM pup JOIN _attr_path q ON q.id = pup.path_id
     JOIN (SELECT ctx_id, sum(gpu) AS gpu FROM launch GROUP BY 1) x USING (ctx_id)
     WHERE q.tree = p.tree AND q.path = p.path) AS gpu
  FROM _attr_range r JOIN _attr_path p ON p.id = r.path_id GROUP BY p.tree, p.path
)
SELECT (SELECT count(*) FROM old FULL JOIN new USING (tree, path)
        WHERE old.calls IS NOT new.calls OR old.host IS NOT new.host
           OR old.gpu IS NOT new.gpu), (SELECT count(*) FROM old)
""",
    "module and annotation paths by launching call": f"""
WITH RECURSIVE work AS (
  -- each activity's anchor: its launching runtime call (when nested), else its cpu_op
  SELECT coalesce(CASE WHEN t.id IS NOT NULL THEN l.launch_id END,
                  CASE WHEN o.kind = {CPU_OP} THEN l.op_id END) AS anchor, g.dur
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id LEFT JOIN _slice_tree t ON t.id = l.launch_id
  LEFT JOIN _slice o ON o.id = l.op_id
  WHERE g.kind IN {GPU} AND g.dur IS NOT NULL
), anchor AS (
  SELECT anchor AS id, sum(dur) AS gpu FROM work WHERE anchor IS NOT NULL GROUP BY 1
), aup(id, anc_id) AS (
  SELECT id, id FROM anchor
  UNION ALL
  SELECT aup.id, t.parent_id FROM aup JOIN _slice_tree t ON t.id = aup.anc_id
  WHERE t.parent_id IS NOT NULL
), range AS (
  SELECT s.id, CASE s.kind WHEN (SELECT kind FROM _kind WHERE name = 'python_function')
    THEN 'module' ELSE 'annotation' END AS tree,
    CASE s.kind WHEN (SELECT kind FROM _kind WHERE name = 'python_function')
    THEN substr(n.value, 12) ELSE n.value END AS name
  FROM _slice s JOIN _string n ON n.id = s.name_id JOIN _slice_tree t ON t.id = s.id
  WHERE (s.kind = (SELECT kind FROM _kind WHERE name = 'python_function')
         AND n.value LIKE 'nn.Module: %')
     OR (s.kind = (SELECT kind FROM _kind WHERE name = 'user_annotation')
         AND n.value NOT GLOB 'ProfilerStep#*')
), rup(id, anc_id, d) AS (
  SELECT id, id, 0 FROM range
  UNION ALL
  SELECT rup.id, t.parent_id, rup.d + 1 FROM rup JOIN _slice_tree t ON t.id = rup.anc_id
  WHERE t.parent_id IS NOT NULL
), chain AS (
  SELECT rup.id, a.name FROM rup JOIN range a ON a.id = rup.anc_id
  JOIN range r ON r.id = rup.id AND r.tree = a.tree ORDER BY rup.id, rup.d DESC
), call AS (
  SELECT r.id, r.tree, c.path FROM range r
  JOIN (SELECT id, group_concat(name, ' > ') AS path FROM chain GROUP BY id) c USING (id)
), old AS (
  SELECT c.tree, c.path,
    (SELECT sum(a.gpu) FROM (SELECT DISTINCT u.id FROM call k JOIN aup u ON u.anc_id = k.id
                             WHERE k.tree = c.tree AND k.path = c.path) x
     JOIN anchor a USING (id)) AS gpu
  FROM call c GROUP BY c.tree, c.path
), pup(ctx_id, path_id) AS (
  SELECT id, module_path_id FROM _attr_ctx WHERE module_path_id IS NOT NULL
  UNION ALL
  SELECT id, annotation_path_id FROM _attr_ctx WHERE annotation_path_id IS NOT NULL
  UNION ALL
  SELECT pup.ctx_id, p.parent_id FROM pup JOIN _attr_path p ON p.id = pup.path_id
  WHERE p.parent_id IS NOT NULL
), lctx AS (
  SELECT coalesce(r.ctx_id, o.ctx_id) AS ctx_id, sum(g.dur) AS gpu
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id LEFT JOIN _slice_tree r ON r.id = l.launch_id
  LEFT JOIN _slice_tree o ON o.id = l.op_id
  WHERE g.kind IN {GPU} AND g.dur IS NOT NULL GROUP BY 1
), new AS (
  SELECT p.tree, p.path,
    (SELECT sum(x.gpu) FROM pup JOIN _attr_path q ON q.id = pup.path_id
     JOIN lctx x USING (ctx_id) WHERE q.tree = p.tree AND q.path = p.path) AS gpu
  FROM _attr_path p GROUP BY p.tree, p.path
)
SELECT (SELECT count(*) FROM old FULL JOIN new USING (tree, path) WHERE old.gpu IS NOT new.gpu),
  (SELECT count(*) FROM old)
""",
    "source frame per launching operator": f"""
WITH RECURSIVE {LAUNCH},
old AS (
  SELECT up.op_id, s.name_id AS src,
    min(frame_rank(substr(n.value, 1, instr(n.value, '(') - 1)) * 1000000 + up.d) AS pick
  FROM up JOIN _slice s ON s.id = up.anc_id
    AND s.kind = (SELECT kind FROM _kind WHERE name = 'python_function')
  JOIN _string n ON n.id = s.name_id WHERE n.value GLOB '*.py([0-9]*): *'
  GROUP BY up.op_id
), new AS (
  SELECT l.op_id, c.source_id AS src FROM launch l JOIN _attr_ctx c ON c.id = l.ctx_id
  WHERE c.source_id IS NOT NULL
)
SELECT (SELECT count(*) FROM old FULL JOIN new USING (op_id) WHERE old.src IS NOT new.src),
  (SELECT count(*) FROM old)
""",
    "FLOP-counted calls": f"""
WITH RECURSIVE {LAUNCH},
counted AS (
  SELECT s.id FROM _slice s JOIN _string n ON n.id = s.name_id JOIN _slice_tree t ON t.id = s.id
  WHERE s.kind = {CPU_OP} AND s.input_dims IS NOT NULL
    AND n.value IN ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm', 'aten::matmul',
                    'aten::linear', 'aten::convolution', 'aten::convolution_backward',
                    'aten::scaled_dot_product_attention')
), cup(id, anc_id) AS (
  SELECT c.id, t.parent_id FROM counted c JOIN _slice_tree t ON t.id = c.id
  WHERE t.parent_id IS NOT NULL
  UNION ALL
  SELECT cup.id, t.parent_id FROM cup JOIN _slice_tree t ON t.id = cup.anc_id
  WHERE t.parent_id IS NOT NULL
), old AS (
  SELECT c.id, (SELECT sum(l.gpu) FROM up JOIN launch l USING (op_id) WHERE up.anc_id = c.id) AS gpu,
    c.id NOT IN (SELECT cup.id FROM cup JOIN counted x ON x.id = cup.anc_id) AS outermost
  FROM counted c
), fup(flop_id, anc_id) AS (
  SELECT DISTINCT flop_id, flop_id FROM launch WHERE flop_id IS NOT NULL
  UNION ALL
  SELECT fup.flop_id, f.parent_id FROM fup JOIN _attr_flop f ON f.id = fup.anc_id
  WHERE f.parent_id IS NOT NULL
), new AS (
  SELECT f.id, (SELECT sum(l.gpu) FROM fup JOIN launch l ON l.flop_id = fup.flop_id
                WHERE fup.anc_id = f.id) AS gpu, f.parent_id IS NULL AS outermost
  FROM _attr_flop f
)
SELECT (SELECT count(*) FROM old FULL JOIN new USING (id)
        WHERE old.gpu IS NOT new.gpu OR old.outermost IS NOT new.outermost),
  (SELECT count(*) FROM old)
""",
    "host time per operator and shapes": f"""
WITH old AS (
  SELECT s.name_id, coalesce(s.input_dims, '') AS input_dims, count(*) AS calls,
    sum(s.dur) AS total, sum(t.self_dur) AS self
  FROM _slice s JOIN _slice_tree t ON t.id = s.id WHERE s.kind = {CPU_OP}
  GROUP BY 1, 2
), new AS (
  SELECT s.name_id, coalesce(s.input_dims, '') AS input_dims, sum(a.calls) AS calls,
    sum(a.total_dur) AS total,
    sum(a.self_dur) AS self
  FROM _attr_shape a JOIN _slice s ON s.id = a.shape_id GROUP BY 1, 2
)
SELECT (SELECT count(*) FROM old FULL JOIN new USING (name_id, input_dims)
        WHERE old.calls IS NOT new.calls OR old.total IS NOT new.total
           OR old.self IS NOT new.self), (SELECT count(*) FROM old)
""",
    "marker slices": """
WITH old AS (
  SELECT s.id FROM _slice s JOIN _slice_tree t ON t.id = s.id JOIN _string n ON n.id = s.name_id
  WHERE s.kind IN (SELECT kind FROM _kind
                   WHERE name IN ('cpu_op', 'user_annotation', 'runtime', 'python_function'))
    AND (n.value IN ('cudaStreamSynchronize', 'cudaDeviceSynchronize', 'cudaEventSynchronize',
           'cudaMemcpy', 'cudaMemcpy2D', 'cudaMemcpy3D', 'cudaMemcpyPeer',
           'cudaMemcpyFromSymbol', 'cudaMemcpyToSymbol', 'cuMemcpyDtoH', 'cuMemcpyDtoH_v2',
           'cuMemcpyHtoD', 'cuMemcpyHtoD_v2',
           'hipStreamSynchronize', 'hipDeviceSynchronize', 'hipEventSynchronize',
           'hipMemcpy', 'hipMemcpyWithStream', 'hipMemcpyDtoH', 'hipMemcpyHtoD', 'hipMemcpy2D',
           'hipMemcpy3D', 'hipMemcpyPeer', 'hipMemcpyFromSymbol', 'hipMemcpyToSymbol',
           'aten::item', 'aten::_local_scalar_dense', 'aten::is_nonzero', 'aten::equal',
           'cudaFree', 'cudaFreeHost', 'hipFree', 'hipHostFree', 'hipFreeHost',
           'cudaMalloc', 'cudaMallocHost', 'cudaHostAlloc', 'cudaMallocManaged',
           'cudaMallocPitch', 'cuMemAlloc', 'cuMemAlloc_v2', 'cuMemFree', 'cuMemFree_v2',
           'hipMalloc', 'hipHostMalloc', 'hipMallocManaged', 'hipExtMallocWithFlags',
           'hipMallocPitch', 'cudaEventCreate', 'cudaEventCreateWithFlags',
           'cudaStreamCreate', 'cudaStreamCreateWithFlags',
           'cudaStreamCreateWithPriority', 'cuModuleLoad', 'cuModuleLoadData',
           'cuModuleLoadDataEx', 'cuModuleGetFunction', 'cuLibraryLoadData',
           'hipEventCreate', 'hipEventCreateWithFlags', 'hipStreamCreate',
           'hipStreamCreateWithFlags', 'hipStreamCreateWithPriority', 'hipModuleLoad',
           'hipModuleLoadData', 'hipModuleLoadDataEx', 'hipModuleGetFunction',
           'cudaOccupancyMaxActiveBlocksPerMultiprocessor',
           'cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags',
           'cudaOccupancyMaxPotentialBlockSize', 'cudaFuncGetAttributes',
           'cuOccupancyMaxActiveBlocksPerMultiprocessor', 'cuFuncGetAttribute',
           'hipOccupancyMaxActiveBlocksPerMultiprocessor', 'hipFuncGetAttributes')
      OR lower(n.value) LIKE '%checkpoint%' OR lower(n.value) LIKE '%recompute%'
      OR n.value LIKE 'autograd::engine::evaluate_function%' OR n.value GLOB '*Backward[0-9]*'
      OR n.value LIKE 'Optimizer.step#%' OR n.value LIKE 'enumerate(DataLoader)%')
)
SELECT (SELECT count(*) FROM old FULL JOIN _attr_marker m USING (id)
        WHERE old.id IS NULL OR m.id IS NULL), (SELECT count(*) FROM old)
""",
}


def query(profdb, db, sql):
    out = subprocess.run([profdb, "query", db, "--csv", sql], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr.strip())
    return [int(v) for v in out.stdout.strip().splitlines()[-1].split(",")]


def main():
    profdb, work, dirs = sys.argv[1], sys.argv[2], [d for d in sys.argv[3:] if os.path.isdir(d)]
    if not dirs:
        print("no trace folder; skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    paths = sorted(os.path.join(d, f) for top in dirs for d, _, files in os.walk(top)
                   for f in files if f.endswith((".json", ".json.gz")))
    problems, checked, compared = [], 0, {k: 0 for k in CHECKS}
    for i, path in enumerate(paths):
        db = os.path.join(work, f"t{i}.db")
        if os.path.exists(db):
            os.remove(db)
        load = subprocess.run([profdb, "load", "-q", path, "-o", db], capture_output=True,
                              text=True)
        if load.returncode not in (0, 3) or not os.path.exists(db):
            continue
        if query(profdb, db, "SELECT count(*) FROM trace")[0] == 0:
            os.remove(db)
            continue  # a memory snapshot
        checked += 1
        for name, sql in CHECKS.items():
            bad, rows = query(profdb, db, sql)
            compared[name] += rows
            if bad:
                problems.append(f"{path}: {name}: {bad} of {rows} rows differ")
        os.remove(db)
    for p in problems:
        print("FAIL", p)
    print(f"{checked} traces checked; rows compared: "
          + ", ".join(f"{k} {v}" for k, v in compared.items()))
    if checked == 0:
        print("no trace loaded")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
