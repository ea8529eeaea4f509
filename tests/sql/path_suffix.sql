-- path_common_suffix: trailing path components two file names share
-- (matching allocation sources across checkouts, queries/diff/lib/20_memory.sql)
SELECT 'ps_01', path_common_suffix('/home/u/FlexGen/flexgen/pytorch_backend.py', '/home/u/origin_git_Flex/flexgen/pytorch_backend.py');
SELECT 'ps_02', path_common_suffix('/a/b/x.py', '/a/b/x.py');
SELECT 'ps_03', path_common_suffix('x.py', '/src/x.py');
SELECT 'ps_04', path_common_suffix('/src/ax.py', '/src/x.py');
SELECT 'ps_05', path_common_suffix('/src/a/x.py', '/src/a/y.py');
SELECT 'ps_06', path_common_suffix('C:\work\pkg\x.py', '/home/u/pkg/x.py');
SELECT 'ps_07', path_common_suffix('/u/pkg//x.py', '/v/pkg/x.py');
SELECT 'ps_08', path_common_suffix('/u/mypkg/x.py', '/v/pkg/x.py');
SELECT 'ps_09', quote(path_common_suffix(NULL, '/x.py')), quote(path_common_suffix('/x.py', NULL));
SELECT 'ps_10', path_common_suffix('', ''), path_common_suffix('/', '/');
