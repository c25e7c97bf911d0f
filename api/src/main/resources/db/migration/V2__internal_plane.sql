-- What cluster-workers report through /internal: the pod behind each session and its GPU usage.

alter table sessions
    add column pod_phase    text,
    add column pod_ip       text,
    add column reported_at  timestamptz;

-- GPU usage samples per session, for idle reaping and the session page. Append-only; old rows are
-- pruned by time.
create table session_usage (
    id               bigserial primary key,
    session_id       gshare_id not null references sessions (id) on delete cascade,
    cluster_id       gshare_id not null,
    gpu_uuid         text,
    gpu_util_percent numeric(5, 2) check (gpu_util_percent between 0 and 100),
    memory_used_mib  bigint check (memory_used_mib >= 0),
    sampled_at       timestamptz not null,
    received_at      timestamptz not null default now()
);
create index session_usage_session_idx on session_usage (session_id, sampled_at desc);

-- Lookups the authentication path makes on every request.
create index api_tokens_live_idx on api_tokens (id) where revoked_at is null;
