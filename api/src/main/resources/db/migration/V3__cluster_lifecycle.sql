-- Cluster attach/detach, long operations, and node liveness alerts.

alter table clusters drop constraint clusters_status_check;
alter table clusters add constraint clusters_status_check check (status in
    ('pending', 'attaching', 'connected', 'degraded', 'unreachable', 'detaching', 'detached', 'failed'));
alter table clusters add column detached_at timestamptz;
-- A detached cluster keeps its row (sessions point at it) but frees its name.
alter table clusters drop constraint clusters_name_key;
create unique index clusters_name_live on clusters (name) where status <> 'detached';

-- Where each long operation (a workflow) stands once its execution is gone; while it runs, the
-- workflow's progress query is the source.
create table operations (
    id          text primary key,                  -- the workflow id, e.g. cluster-attach-clu_x
    kind        text not null,                     -- cluster.attach, cluster.detach, ...
    object_id   text,
    status      text not null check (status in ('running', 'completed', 'failed')),
    steps       jsonb not null default '[]'::jsonb,
    error       text,
    created_by  text,
    started_at  timestamptz not null default now(),
    ended_at    timestamptz
);
create index operations_object_idx on operations (object_id, started_at desc);

alter table nodes
    add column capacity            jsonb not null default '{}'::jsonb,
    add column removed_at          timestamptz,     -- no longer in the cluster's inventory; history kept
    add column offline_alerted_at  timestamptz;     -- when the stale-heartbeat alert was raised
create index nodes_last_seen_idx on nodes (last_seen_at) where removed_at is null;
