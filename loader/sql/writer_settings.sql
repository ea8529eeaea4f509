-- writer_settings.sql — how a load writes its temporary database: nothing
-- journaled or synced (the rename of the finished file is the commit, see
-- load.c), the file held exclusively, a 32 MiB page cache, sort spills to
-- a file.  bench/floor.c writes its floor database with the same settings.
PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
PRAGMA locking_mode=EXCLUSIVE;
PRAGMA cache_size=-32768;
PRAGMA temp_store=FILE;
