-- Rule: data_loading
-- 2. Data loading on the critical path: at most the GPU idle time during
-- enumerate(DataLoader) ranges that no call of a higher owner claims
-- (lib/38_claim.sql).
-- Reads: measure_claim, measure_floor, measure_rank_time, measure_time
WITH
ranks_dataloader AS (
  SELECT json_group_array(json_object('rank', rank, 'label', label,
    'dataloader_pct', round(dataloader_pct, 1))) AS subjects
  FROM (SELECT * FROM measure_rank_time WHERE dataloader_pct > 0 ORDER BY dataloader_pct DESC,
    rank LIMIT 3)
)
SELECT round(100.0 * cl.dataloader / t.job_step_ns, 1) AS priority, 'data_loading' AS rule,
  CASE WHEN cl.dataloader > 0.15 * t.rank_step_ns THEN 'high' ELSE 'medium' END AS confidence,
  printf('Data loading leaves the GPU idle %.0f%% of the step',
    100.0 * cl.dataloader / t.rank_step_ns) AS title,
  printf('enumerate(DataLoader) ranges leave the GPU idle %s of %s per rank step ' ||
    '(step_time_sum: data loading %s, with no GPU work nor runtime call running), outside the ' ||
      'calls other findings own.',
    profdb_fmt_ns(cl.dataloader), profdb_fmt_ns(t.rank_step_ns),
      profdb_fmt_ns(t.dataloader_ns)) AS observation,
  'The training loop waits for the next batch: too few DataLoader workers, slow ' ||
    'preprocessing, or host-to-device copies from pageable memory.' AS hypothesis,
  'Raise DataLoader num_workers, set pin_memory=True and persistent_workers=True, increase ' ||
    'prefetch_factor, and move heavy preprocessing off the critical path.' AS action,
  printf('Up to %s (%.0f%% of the job step): the GPU idle time while the loop waits for data.',
    profdb_fmt_ns(cl.dataloader), 100.0 * cl.dataloader / t.job_step_ns) AS expected_impact,
  'Re-profile: step_time.dataloader_ns under 2% of wall_ns.' AS validation,
  0 AS needs_artifact, round(100.0 * cl.dataloader / t.job_step_ns, 2) AS expected_saving_pct,
    cl.dataloader AS expected_saving_ns, NULL AS expected_saving_bytes, r.subjects AS subjects,
  json_object('sections', json_array('step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'dataloader_ns', t.dataloader_ns,
      'dataloader_idle_ns', CAST(round(cl.dataloader) AS INTEGER))) AS evidence,
        0 AS cut_may_explain
FROM measure_time t, ranks_dataloader r, measure_floor f, measure_claim cl
WHERE t.rank_step_ns > 0 AND cl.dataloader > 0.05 * t.rank_step_ns AND cl.dataloader >= f.min_ns;
