-- op_flops(): each operator kind against FLOPs computed by hand
-- (2 per multiply-add); the expected column is the hand value.
.mode list
WITH v(kind, name, dims, concrete, expected) AS (VALUES
  -- 2*64*128*256
  ('mm', 'aten::mm', '[[64,128],[128,256]]', NULL, 4194304),
  ('addmm', 'aten::addmm', '[[256],[64,128],[128,256],[],[]]', '["","","","1","1"]', 4194304),
  -- 2*8*32*64*16
  ('bmm', 'aten::bmm', '[[8,32,64],[8,64,16]]', NULL, 524288),
  ('baddbmm', 'aten::baddbmm', '[[8,32,16],[8,32,64],[8,64,16],[],[]]', NULL, 524288),
  -- 2*4*32*64*16; a 1-D left side is one row: 2*64*16; batch 2 x 3 broadcast: 2*6*32*64*8
  ('matmul', 'aten::matmul', '[[4,32,64],[64,16]]', NULL, 262144),
  ('matmul 1-D', 'aten::matmul', '[[64],[64,16]]', NULL, 2048),
  ('matmul broadcast', 'aten::matmul', '[[2,1,32,64],[3,64,8]]', NULL, 196608),
  -- 2*(4*10)*128*256
  ('linear', 'aten::linear', '[[4,10,128],[256,128],[256]]', NULL, 2621440),
  -- out 16x16 ((32+2-2-1)/2+1): 2*2*16*256*3*9
  ('conv2d stride 2', 'aten::convolution', '[[2,3,32,32],[16,3,3,3],[16],[],[],[],[],[],[]]',
   '["","","","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1"]', 442368),
  -- groups 4: W holds 2 input channels; out 8x8: 2*1*8*64*2*9
  ('conv2d groups', 'aten::convolution', '[[1,8,10,10],[8,2,3,3],[],[],[],[],[],[],[]]',
   '["","","","[1, 1]","[0, 0]","[1, 1]","False","[0, 0]","4"]', 18432),
  -- transposed: W[4,6,3,3], every input position to 6*9 outputs: 2*1*4*25*6*9
  ('conv transposed', 'aten::convolution', '[[1,4,5,5],[4,6,3,3],[],[],[],[],[],[],[]]',
   '["","","","[2, 2]","[1, 1]","[1, 1]","True","[1, 1]","1"]', 10800),
  -- conv1d, out 100: 2*2*8*100*4*5
  ('conv1d', 'aten::convolution', '[[2,4,100],[8,4,5],[],[],[],[],[],[],[]]',
   '["","","","[1]","[2]","[1]","False","[0]","1"]', 64000),
  -- backward: the forward's FLOPs for grad_input and for grad_weight
  ('conv backward', 'aten::convolution_backward',
   '[[2,16,16,16],[2,3,32,32],[16,3,3,3],[],[],[],[],[],[],[],[]]',
   '["","","","[16]","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1","[True, True, False]"]', 884736),
  ('conv backward weight only', 'aten::convolution_backward',
   '[[2,16,16,16],[2,3,32,32],[16,3,3,3],[],[],[],[],[],[],[],[]]',
   '["","","","[16]","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1","[False, True, False]"]', 442368),
  -- 2*8*128*256*64 + 2*8*128*256*32
  ('sdpa', 'aten::scaled_dot_product_attention',
   '[[2,4,128,64],[2,4,256,64],[2,4,256,32],[],[]]', NULL, 50331648),
  ('not counted', 'aten::add', '[[64,128],[64,128]]', NULL, NULL),
  ('shapes do not fit', 'aten::mm', '[[2,3],[4,5]]', NULL, NULL),
  ('conv without concrete inputs', 'aten::convolution', '[[2,3,32,32],[16,3,3,3]]', NULL, NULL),
  ('not a shape list', 'aten::mm', 'abc', NULL, NULL),
  ('NULL dims', 'aten::mm', NULL, NULL, NULL),
  -- absurd shapes give NULL, never an overflow: 2*(2^31-1)^3 > 2^63; a dim beyond 2^31; negative
  ('too many FLOPs', 'aten::mm', '[[2147483647,2147483647],[2147483647,2147483647]]', NULL, NULL),
  ('dim beyond 2^31', 'aten::mm', '[[99999999999,2],[2,3]]', NULL, NULL),
  ('negative dim', 'aten::mm', '[[-2,3],[3,4]]', NULL, NULL),
  -- a TensorList argument (nested lists) is skipped, the others still read
  ('nested list skipped', 'aten::addmm', '[[[1,2],[3]],[64,128],[128,256]]', NULL, 4194304)
)
SELECT kind, op_flops(name, dims, concrete) AS flops, op_flops(name, dims, concrete) IS expected AS ok
FROM v;
-- op_elements(): every tensor operand once and the result once, by hand
WITH v(kind, name, dims, expected) AS (VALUES
  -- 64*128 + 128*256 + 64*256
  ('mm elements', 'aten::mm', '[[64,128],[128,256]]', 57344),
  -- the bias (256) counts, the scalars do not
  ('addmm elements', 'aten::addmm', '[[256],[64,128],[128,256],[],[]]', 57600),
  -- K=64: 64*2048*64 twice + 64*2048*2048
  ('bmm elements', 'aten::bmm', '[[64,2048,64],[64,64,2048]]', 285212672),
  -- 40*128 + 256*128 + 256 + 40*256
  ('linear elements', 'aten::linear', '[[4,10,128],[256,128],[256]]', 48384),
  ('matmul 1-D elements', 'aten::matmul', '[[64],[64,16]]', 1104),
  ('conv not counted', 'aten::convolution', '[[2,3,32,32],[16,3,3,3]]', NULL),
  ('add not counted', 'aten::add', '[[64,128],[64,128]]', NULL),
  ('elements shapes do not fit', 'aten::mm', '[[2,3],[4,5]]', NULL)
)
SELECT kind, op_elements(name, dims) AS elements, op_elements(name, dims) IS expected AS ok
FROM v;
