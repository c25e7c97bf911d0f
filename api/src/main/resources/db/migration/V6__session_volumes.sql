-- A volume serves one unfinished session at a time: its claim is ReadWriteOnce, its files have one
-- writer, and a paused session keeps it for its resume. Concurrent creates meet here, not in a read.
create unique index sessions_one_unfinished_per_volume on sessions (volume_id)
    where volume_id is not null and state not in ('terminated', 'failed');
