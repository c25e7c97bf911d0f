-- The idle reaper. Per cluster, where its worker reads GPU activity: a Prometheus that scrapes the DCGM
-- exporter (takes priority) or HAMi's vGPU monitor. Neither set: idle reaping is off for the cluster.
alter table clusters
    add column prometheus_url   text check (prometheus_url is null or prometheus_url ~ '^https?://'),
    add column hami_monitor_url text check (hami_monitor_url is null or hami_monitor_url ~ '^https?://');

-- Per running session, what the reaper last learned: since when its GPUs showed no activity (null while
-- active or unknown), from which source (dcgm | hami), when they were last active, the warning shown and when
-- the pause will come. Written by the idle-reaper sweep only.
alter table sessions
    add column idle_since       timestamptz,
    add column idle_source      text check (idle_source is null or idle_source in ('dcgm', 'hami')),
    add column last_activity_at timestamptz,
    add column idle_warning     text,
    add column idle_pause_at    timestamptz;

-- A policy may give fractional sessions (a slice of a card) their own idle timeout; null: the same as
-- idle_timeout_minutes.
alter table policies
    add column idle_timeout_minutes_fractional integer check (idle_timeout_minutes_fractional > 0);

-- What the worker measured: when the GPU last ran a kernel for the session (HAMi), and the source.
alter table session_usage
    add column last_kernel_at timestamptz,
    add column source         text check (source is null or source in ('dcgm', 'hami'));
create index session_usage_activity_idx on session_usage (session_id, sampled_at desc) where source is not null;
