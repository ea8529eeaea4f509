-- Export table cpu_op: PyTorch operators of a rank with their nesting, by
-- time.
-- Parameters: :trace_id, :base, :last, :run, :rank.
-- Output:
--   run              STRING  run
--   rank             INT64   rank
--   event_id         INT64   the rank's local event id
--   name             STRING  operator name, e.g. 'aten::mm'
--   pid              INT64   process
--   tid              INT64   thread
--   ts               INT64   start (ns, the rank's clock)
--   dur              INT64   duration (ns)
--   self_dur         INT64   dur minus direct children (ns)
--   depth            INT64   nesting depth on the thread (0 = top)
--   parent_id        INT64   enclosing slice's local event id, NULL at the top
--   step             INT64   ProfilerStep number, NULL outside steps
--   external_id      INT64   args 'External id' (GPU work launched by it refers to it)
--   seq_num          INT64   args 'Sequence number' (autograd)
--   fwd_tid          INT64   args 'Fwd thread id' (autograd)
--   input_dims       STRING  args 'Input Dims' as JSON (record_shapes=True)
--   input_types      STRING  args 'Input type' as JSON
--   concrete_inputs  STRING  args 'Concrete Inputs' as JSON
--   args             STRING  remaining args as JSON
SELECT :run AS run, :rank AS rank, event_id - :base AS event_id, name, pid, tid, ts, dur,
  self_dur, depth, parent_id - :base AS parent_id, step, external_id, seq_num, fwd_tid,
  input_dims, input_types, concrete_inputs, args
FROM cpu_op
WHERE trace_id = :trace_id AND event_id > :base AND event_id <= :last
ORDER BY ts, event_id;
