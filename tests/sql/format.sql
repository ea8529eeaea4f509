-- profdb_fmt_bytes, profdb_fmt_ns, profdb_version, profdb_display_name
SELECT 'fmt_bytes_01', profdb_fmt_bytes(0);
SELECT 'fmt_bytes_02', profdb_fmt_bytes(1023);
SELECT 'fmt_bytes_03', profdb_fmt_bytes(1024);
SELECT 'fmt_bytes_04', profdb_fmt_bytes(1536);
SELECT 'fmt_bytes_05', profdb_fmt_bytes(85029158912);
SELECT 'fmt_bytes_06', profdb_fmt_bytes(-1048576);
SELECT 'fmt_bytes_07', profdb_fmt_bytes(1152921504606846976);
SELECT 'fmt_bytes_08', profdb_fmt_bytes(NULL) IS NULL;
SELECT 'fmt_bytes_09', profdb_fmt_bytes('2048');
SELECT 'fmt_bytes_10', profdb_fmt_bytes('abc');
SELECT 'fmt_bytes_11', profdb_fmt_bytes(x'00');
SELECT 'fmt_bytes_12', profdb_fmt_bytes(1e300 * 1e300);
SELECT 'fmt_ns_01', profdb_fmt_ns(0);
SELECT 'fmt_ns_02', profdb_fmt_ns(999);
SELECT 'fmt_ns_03', profdb_fmt_ns(1000);
SELECT 'fmt_ns_04', profdb_fmt_ns(12340);
SELECT 'fmt_ns_05', profdb_fmt_ns(1500000);
SELECT 'fmt_ns_06', profdb_fmt_ns(2500000000);
SELECT 'fmt_ns_07', profdb_fmt_ns(-4200);
SELECT 'fmt_ns_08', profdb_fmt_ns(NULL) IS NULL;
SELECT 'fmt_ns_09', profdb_fmt_ns('soon');
SELECT 'fmt_ns_10', profdb_fmt_ns();
SELECT 'version_01', profdb_version() GLOB '[0-9]*.[0-9]*.[0-9]*';
SELECT 'version_02', profdb_version(1);
-- frame_rank: user code 0, installed packages 1, PyTorch 2, not Python 3
SELECT 'frame_01', frame_rank('/home/u/train.py'), frame_rank('C:\work\train.py');
SELECT 'frame_02', frame_rank('/usr/lib/python3/dist-packages/transformers/x.py'),
  frame_rank('C:\r\.venv\Lib\site-packages\transformers\m.py'), frame_rank('<frozen runpy>'),
  frame_rank('/usr/lib/python3.11/runpy.py');
SELECT 'frame_03', frame_rank('/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py'),
  frame_rank('C:\r\.venv\lib\site-packages\torch\storage.py'), frame_rank('torch/_tensor.py');
SELECT 'frame_04', frame_rank(NULL), frame_rank('libc10.so'), frame_rank('');
-- kernel_base: no return type, template arguments or parameter list
SELECT 'base_01', kernel_base('void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)');
SELECT 'base_02', kernel_base('ampere_sgemm_128x64_tn'), kernel_base(NULL) IS NULL;
SELECT 'base_03', kernel_base('void at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>(x)');
SELECT 'base_04', kernel_base('ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)');
-- profdb_display_name: short names unchanged, long ones cut at a character
-- boundary with their length and hash (distinct after the cut, same in any
-- database)
SELECT 'display_01', profdb_display_name('aten::mm');
SELECT 'display_02', profdb_display_name(NULL) IS NULL;
SELECT 'display_03', profdb_display_name(replace(hex(zeroblob(32768)), '00', 'ab')) = replace(hex(zeroblob(32768)), '00', 'ab');
SELECT 'display_04', length(CAST(profdb_display_name(replace(hex(zeroblob(70000)), '00', 'x')) AS BLOB)),
  substr(profdb_display_name(replace(hex(zeroblob(70000)), '00', 'x')), 65536);
SELECT 'display_05', profdb_display_name('a' || replace(hex(zeroblob(70000)), '00', 'x'))
  <> profdb_display_name('b' || replace(hex(zeroblob(70000)), '00', 'x'));
SELECT 'display_06', substr(profdb_display_name('a' || replace(hex(zeroblob(32800)), '00', 'é')), 32767, 4);
SELECT 'display_07', typeof(profdb_display_name(42));
