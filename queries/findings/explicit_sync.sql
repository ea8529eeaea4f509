-- Rule: explicit_sync
-- 4f. Explicit synchronize calls outside any operator (lib/38_claim.sql,
-- 'explicit'): a torch.cuda.synchronize() / event.synchronize() in the
-- loop, often the benchmark harness's.  Removing them saves at most the
-- GPU idle time during them.
-- Reads: measure_claim, measure_floor, measure_time, report_sync_class, report_sync_sourced
SELECT round(100.0 * cl.explicit / t.job_step_ns, 1) AS priority, 'explicit_sync' AS rule,
  'medium' AS confidence,
  printf('Explicit synchronize calls leave the GPU idle %.1f%% of the job step',
    100.0 * cl.explicit / t.rank_step_ns) AS title,
  printf('Synchronize calls outside any operator (%s) leave the GPU idle %s of %s per rank step.',
    (SELECT group_concat(printf('%s x%d', name, n), ', ') FROM (
       SELECT name, count(DISTINCT event_id) AS n FROM report_sync_class WHERE class = 'explicit'
       GROUP BY name ORDER BY n DESC, name LIMIT 3)),
    profdb_fmt_ns(cl.explicit), profdb_fmt_ns(t.rank_step_ns)) AS observation,
  'An explicit synchronize (e.g. the benchmark harness''s torch.cuda.synchronize(), or ' ||
    'event.synchronize()) waits for all queued GPU work, so the CPU cannot queue the next ' ||
      'work ahead; no operator of the model makes it.' AS hypothesis,
  'An explicit synchronize (e.g. the benchmark harness''s torch.cuda.synchronize()): remove ' ||
    'it from the timed loop, or ignore this time if it is only the harness measuring the step ' ||
      '(subjects: where it is called).' AS action,
  printf('Up to %s (%.1f%% of the job step): the GPU idle time during those calls.',
    profdb_fmt_ns(cl.explicit), 100.0 * cl.explicit / t.job_step_ns) AS expected_impact,
  'Re-profile: sync_sum without cudaDeviceSynchronize / hipDeviceSynchronize in the steps.' AS
    validation,
  0 AS needs_artifact, round(100.0 * cl.explicit / t.job_step_ns, 2) AS expected_saving_pct,
    cl.explicit AS expected_saving_ns, NULL AS expected_saving_bytes,
  -- subjects: the three (source, call) pairs blocked longest over the
  -- analysed spans, ties by source, then call (the total only ranks them:
  -- it adds ranks and steps, so it is no figure of the finding)
  (SELECT json_group_array(json_object('source', source, 'call', name))
   FROM (SELECT coalesce(y.source, '(no Python stack)') AS source, c.name, sum(c.b - c.a) AS ns
         FROM report_sync_class c LEFT JOIN report_sync_sourced y USING (event_id)
         WHERE c.class = 'explicit' GROUP BY 1, 2 ORDER BY ns DESC, source,
           c.name LIMIT 3)) AS subjects,
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'explicit_sync_idle_ns', CAST(round(cl.explicit) AS INTEGER))) AS evidence,
        1 AS cut_may_explain
FROM measure_claim cl, measure_time t, measure_floor f
WHERE t.rank_step_ns > 0 AND t.job_step_ns > 0 AND cl.explicit >= f.min_pct / 100 * t.job_step_ns
  AND cl.explicit >= f.min_ns;
