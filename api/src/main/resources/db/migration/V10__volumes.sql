-- Volumes and storage pools (the operator guide's "볼륨 및 스토리지").

-- Volume quotas, per user and per team; null: no limit.
alter table policies
    add column volume_quota_gb          integer check (volume_quota_gb >= 0),
    add column volume_quota_count       integer check (volume_quota_count >= 0),
    add column team_volume_quota_gb     integer check (team_volume_quota_gb >= 0),
    add column team_volume_quota_count  integer check (team_volume_quota_count >= 0);

-- A deleted volume is 'deleting' while its reclaim workflow waits out the grace period (a restore
-- brings it back), then 'reclaimed' once its claims are gone on every cluster; the row stays as history.
alter table volumes drop constraint volumes_status_check;
alter table volumes add constraint volumes_status_check
    check (status in ('pending', 'available', 'in_use', 'expanding', 'deleting', 'deleted', 'reclaimed'));
alter table volumes
    add column reclaim_after  timestamptz,
    add column reclaimed_at   timestamptz;

-- Expansion: the owner asks, an admin approves or rejects, the volume sync applies an approved size
-- to every claim of the volume, and it is 'applied' once every claim's capacity reaches it.
create table volume_expansions (
    id            gshare_id primary key,
    volume_id     gshare_id not null references volumes (id) on delete cascade,
    requested_by  gshare_id not null references users (id),
    size_gb       integer not null check (size_gb > 0),
    status        text not null default 'requested' check (status in ('requested', 'approved', 'rejected', 'applied')),
    reason        text,
    decided_by    gshare_id references users (id),
    decided_at    timestamptz,
    applied_at    timestamptz,
    created_at    timestamptz not null default now()
);
create unique index volume_expansions_one_open on volume_expansions (volume_id) where status in ('requested', 'approved');

-- What each cluster's worker last reported of each StorageClass a pool names (the volume sync): whether
-- it exists there (a pool whose class is missing on a cluster is not ready there, and placement never
-- puts a session with its volume there), whether it allows expansion, and the capacity sources.
create table storage_pool_cluster_status (
    pool_id                gshare_id not null references storage_pools (id) on delete cascade,
    cluster_id             gshare_id not null references clusters (id) on delete cascade,
    storage_class_present  boolean not null,
    allows_expansion       boolean,
    csi_capacity_bytes     bigint check (csi_capacity_bytes >= 0),    -- CSIStorageCapacity of the class, summed
    node_disk_bytes        bigint check (node_disk_bytes >= 0),       -- the storage node's ephemeral-storage
    reported_at            timestamptz not null default now(),
    primary key (pool_id, cluster_id)
);

alter table volume_claims
    add column requested_bytes  bigint check (requested_bytes >= 0),
    add column used_bytes       bigint check (used_bytes >= 0),
    add column created_at       timestamptz not null default now();
