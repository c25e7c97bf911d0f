-- gShare control-plane state. Postgres is the source of truth: Temporal holds running operations,
-- and the embedded dev server forgets them on restart, so everything a user or the ledger needs
-- to survive lives here. Invariants are carried by constraints, not by application code alone.
--
-- Ids are prefixed text ("usr_", "clu_", "ses_", ...) made by the application; they appear in
-- workflow ids, task-queue names and Kubernetes labels, hence the shared check below.

create domain gshare_id as text
    check (value ~ '^[a-z0-9][a-z0-9_-]{0,62}$');

-- Updated-at maintenance for mutable rows.
create function gshare_touch_updated_at() returns trigger language plpgsql as $$
begin
    new.updated_at := now();
    return new;
end $$;

-------------------------------------------------------------------------------
-- Identity
-------------------------------------------------------------------------------

-- A team (tenant) is what node pools and policies hang on.
create table teams (
    id          gshare_id primary key,
    name        text not null unique check (length(name) between 1 and 100),
    created_at  timestamptz not null default now()
);

create table users (
    id            gshare_id primary key,
    email         text not null check (position('@' in email) > 1),
    display_name  text,
    role          text not null default 'user' check (role in ('super_admin', 'admin', 'user')),
    team_id       gshare_id references teams (id) on delete set null,
    disabled      boolean not null default false,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));
create index users_team_idx on users (team_id);
create trigger users_touch before update on users for each row execute function gshare_touch_updated_at();

-- API tokens are signed JWTs; the row records the jti so a token can be revoked and listed.
create table api_tokens (
    id            gshare_id primary key,            -- the token's jti
    user_id       gshare_id not null references users (id) on delete cascade,
    name          text not null default 'default',
    created_at    timestamptz not null default now(),
    expires_at    timestamptz,
    revoked_at    timestamptz,
    last_used_at  timestamptz,
    check (expires_at is null or expires_at > created_at)
);
create index api_tokens_user_idx on api_tokens (user_id);

-------------------------------------------------------------------------------
-- Credits: accounts and an append-only ledger
-------------------------------------------------------------------------------

-- An account belongs to a user or to a team. Its balance is maintained only by the ledger trigger
-- below, inside the same transaction as the entry, so it can never disagree with sum(ledger).
create table credit_accounts (
    id          gshare_id primary key,
    user_id     gshare_id unique references users (id) on delete restrict,
    team_id     gshare_id unique references teams (id) on delete restrict,
    balance     numeric(20, 6) not null default 0,
    created_at  timestamptz not null default now(),
    check ((user_id is null) <> (team_id is null))
);

-- Amounts are signed credits: grants and refunds positive, charges negative. Every entry carries an
-- idempotency key, e.g. 'charge:ses_x:2026-12-02T10:05Z' for one minute bucket of one session, so a
-- retried activity or a doubled sweep writes nothing twice.
create table credit_ledger (
    id               bigserial primary key,
    account_id       gshare_id not null references credit_accounts (id) on delete restrict,
    amount           numeric(20, 6) not null check (amount <> 0),
    kind             text not null check (kind in ('grant', 'charge', 'settlement', 'refund', 'adjustment')),
    idempotency_key  text not null unique check (length(idempotency_key) between 1 and 200),
    session_id       gshare_id,                       -- no FK: ledger history outlives everything
    bucket_start     timestamptz,                     -- the minute a charge covers
    description      text,
    created_by       gshare_id,                       -- the admin for grants; null for the system
    created_at       timestamptz not null default now(),
    check (kind <> 'charge' or (session_id is not null and bucket_start is not null and amount < 0)),
    check (kind <> 'grant' or amount > 0)
);
create index credit_ledger_account_idx on credit_ledger (account_id, created_at desc);
create index credit_ledger_session_idx on credit_ledger (session_id) where session_id is not null;

create function credit_ledger_apply() returns trigger language plpgsql as $$
begin
    update credit_accounts set balance = balance + new.amount where id = new.account_id;
    return new;
end $$;
create trigger credit_ledger_apply after insert on credit_ledger
    for each row execute function credit_ledger_apply();

create function credit_ledger_append_only() returns trigger language plpgsql as $$
begin
    raise exception 'credit_ledger is append-only: % is not allowed (book a correcting entry instead)', tg_op
        using errcode = 'raise_exception';
end $$;
create trigger credit_ledger_no_update before update or delete on credit_ledger
    for each row execute function credit_ledger_append_only();
create trigger credit_ledger_no_truncate before truncate on credit_ledger
    for each statement execute function credit_ledger_append_only();

-- Nobody writes a balance by hand.
create function credit_accounts_guard_balance() returns trigger language plpgsql as $$
begin
    if new.balance is distinct from old.balance and pg_trigger_depth() < 2 then
        raise exception 'credit_accounts.balance changes only through credit_ledger';
    end if;
    return new;
end $$;
create trigger credit_accounts_guard_balance before update on credit_accounts
    for each row execute function credit_accounts_guard_balance();

-------------------------------------------------------------------------------
-- Policies
-------------------------------------------------------------------------------

-- One row per team, plus the default (team_id null) that applies to users without a team policy.
create table policies (
    id                       gshare_id primary key,
    team_id                  gshare_id unique references teams (id) on delete cascade,
    max_concurrent_sessions  integer check (max_concurrent_sessions >= 0),
    max_runtime_minutes      integer check (max_runtime_minutes > 0),
    max_runtime_action       text not null default 'pause' check (max_runtime_action in ('pause', 'terminate')),
    idle_timeout_minutes     integer check (idle_timeout_minutes > 0),
    overflow                 text not null default 'shared_pool' check (overflow in ('none', 'shared_pool')),
    placement                text not null default 'binpack' check (placement in ('binpack', 'spread')),
    min_balance_to_start     numeric(20, 6) not null default 0 check (min_balance_to_start >= 0),
    created_at               timestamptz not null default now(),
    updated_at               timestamptz not null default now()
);
create unique index policies_one_default on policies ((team_id is null)) where team_id is null;
create trigger policies_touch before update on policies for each row execute function gshare_touch_updated_at();

-------------------------------------------------------------------------------
-- Clusters, nodes, GPUs, node pools
-------------------------------------------------------------------------------

create table clusters (
    id                       gshare_id primary key,
    name                     text not null unique check (name ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
    status                   text not null default 'pending'
        check (status in ('pending', 'attaching', 'connected', 'degraded', 'unreachable', 'detaching', 'failed')),
    status_reason            text,
    kubeconfig_ciphertext    bytea,                  -- AES-GCM; never returned by the API
    session_domain           text check (session_domain ~ '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$'),
    ingress_node             text,
    storage_settings         jsonb,
    simulated                boolean not null default false,
    apiserver_version        text,
    worker_last_seen_at      timestamptz,
    created_at               timestamptz not null default now(),
    updated_at               timestamptz not null default now()
);
create trigger clusters_touch before update on clusters for each row execute function gshare_touch_updated_at();

-- Unassigned nodes form the shared pool; a pool may be dedicated to a team.
create table node_pools (
    id          gshare_id primary key,
    name        text not null unique check (length(name) between 1 and 100),
    team_id     gshare_id references teams (id) on delete set null,
    description text,
    created_at  timestamptz not null default now()
);

create table nodes (
    id            gshare_id primary key,
    cluster_id    gshare_id not null references clusters (id) on delete cascade,
    hostname      text not null,
    liveness      text not null default 'ready' check (liveness in ('ready', 'not_ready', 'offline')),
    gpu_mode      text check (gpu_mode in ('exclusive', 'fractional', 'cpu', 'storage')),
    pool_id       gshare_id references node_pools (id) on delete set null,
    schedulable   boolean not null default true,
    lossless_pause boolean not null default false,   -- gshare.io/criu=ready and gshare.io/cuda-checkpoint=ready
    labels        jsonb not null default '{}'::jsonb,
    last_seen_at  timestamptz,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now(),
    unique (cluster_id, hostname)
);
create index nodes_pool_idx on nodes (pool_id);
create trigger nodes_touch before update on nodes for each row execute function gshare_touch_updated_at();

create table gpu_devices (
    uuid          text primary key check (length(uuid) between 1 and 128),
    node_id       gshare_id not null references nodes (id) on delete cascade,
    device_index  integer not null check (device_index >= 0),
    model         text not null,                  -- NVML name, matched to offerings.gpu_model exactly
    memory_mib    bigint not null check (memory_mib > 0),
    cores_percent integer not null default 100 check (cores_percent between 1 and 100),
    split_count   integer not null default 1 check (split_count >= 1),
    healthy       boolean not null default true,
    cordoned      boolean not null default false,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now(),
    unique (node_id, device_index)
);
create index gpu_devices_model_idx on gpu_devices (model);
create trigger gpu_devices_touch before update on gpu_devices for each row execute function gshare_touch_updated_at();

-------------------------------------------------------------------------------
-- Catalogue: offerings and images
-------------------------------------------------------------------------------

create table offerings (
    id              gshare_id primary key,
    name            text not null unique check (length(name) between 1 and 100),
    gpu_model       text not null check (length(gpu_model) between 1 and 200),
    mode            text not null check (mode in ('exclusive', 'fractional')),
    gpu_count       integer check (gpu_count between 1 and 64),
    gpumem_mib      integer check (gpumem_mib > 0),
    gpucores_percent integer check (gpucores_percent between 1 and 100),
    price_per_hour  numeric(20, 6) not null check (price_per_hour >= 0),
    active          boolean not null default true,
    created_at      timestamptz not null default now(),
    updated_at      timestamptz not null default now(),
    check ((mode = 'exclusive' and gpu_count is not null and gpumem_mib is null and gpucores_percent is null)
        or (mode = 'fractional' and gpu_count is null and gpumem_mib is not null and gpucores_percent is not null))
);
create index offerings_model_idx on offerings (gpu_model) where active;
create trigger offerings_touch before update on offerings for each row execute function gshare_touch_updated_at();

create table images (
    id            gshare_id primary key,
    name          text not null unique check (length(name) between 1 and 100),
    reference     text not null check (length(reference) between 1 and 500),
    port          integer not null default 8888 check (port between 1 and 65535),
    path          text not null default '/' check (path like '/%'),
    description   text,
    active        boolean not null default true,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now()
);
create trigger images_touch before update on images for each row execute function gshare_touch_updated_at();

-------------------------------------------------------------------------------
-- Storage: pools and volumes
-------------------------------------------------------------------------------

create table storage_pools (
    id                  gshare_id primary key,
    name                text not null unique check (length(name) between 1 and 100),
    cluster_id          gshare_id references clusters (id) on delete set null,  -- where the storage server lives
    storage_class       text not null,
    scope               text not null default 'all' check (scope in ('all', 'selected')),
    capacity_source     text not null default 'csi' check (capacity_source in ('csi', 'manual', 'node_disk')),
    manual_capacity_gb  integer check (manual_capacity_gb > 0),
    created_at          timestamptz not null default now(),
    check (capacity_source <> 'manual' or manual_capacity_gb is not null)
);

-- With scope 'selected', the clusters that may mount the pool.
create table storage_pool_clusters (
    pool_id     gshare_id not null references storage_pools (id) on delete cascade,
    cluster_id  gshare_id not null references clusters (id) on delete cascade,
    primary key (pool_id, cluster_id)
);

-- A volume is owned by a user, not by a cluster; each cluster that mounts it gets its own PVC.
create table volumes (
    id                 gshare_id primary key,
    owner_id           gshare_id not null references users (id) on delete restrict,
    name               text not null check (name ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
    storage_pool_id    gshare_id references storage_pools (id) on delete restrict,
    size_gb            integer not null check (size_gb > 0),
    requested_size_gb  integer check (requested_size_gb > 0),   -- a pending expansion
    status             text not null default 'pending'
        check (status in ('pending', 'available', 'in_use', 'expanding', 'deleted', 'reclaimed')),
    used_bytes         bigint check (used_bytes >= 0),
    created_at         timestamptz not null default now(),
    updated_at         timestamptz not null default now(),
    deleted_at         timestamptz
);
create unique index volumes_owner_name_live on volumes (owner_id, name) where deleted_at is null;
create trigger volumes_touch before update on volumes for each row execute function gshare_touch_updated_at();

create table volume_claims (
    volume_id    gshare_id not null references volumes (id) on delete cascade,
    cluster_id   gshare_id not null references clusters (id) on delete cascade,
    pvc_name     text not null,
    phase        text,
    capacity_bytes bigint,
    synced_at    timestamptz,
    primary key (volume_id, cluster_id)
);

-------------------------------------------------------------------------------
-- Sessions, allocations, billing windows
-------------------------------------------------------------------------------

-- Sessions are history: they survive the deletion of their cluster, node, offering or image, keeping
-- a copy of the names and the price they ran with.
create table sessions (
    id               gshare_id primary key,
    user_id          gshare_id not null references users (id) on delete restrict,
    name             text,
    state            text not null default 'pending'
        check (state in ('pending', 'creating', 'running', 'pausing', 'paused', 'resuming',
                         'terminating', 'terminated', 'failed')),
    state_reason     text,
    cluster_id       gshare_id references clusters (id) on delete set null,
    cluster_name     text,
    node_id          gshare_id references nodes (id) on delete set null,
    node_hostname    text,
    offering_id      gshare_id references offerings (id) on delete set null,
    gpu_model        text not null,
    mode             text not null check (mode in ('exclusive', 'fractional')),
    price_per_hour   numeric(20, 6) not null check (price_per_hour >= 0),
    image_id         gshare_id references images (id) on delete set null,
    image_reference  text not null,
    volume_id        gshare_id references volumes (id) on delete set null,
    pause_kind       text check (pause_kind in ('lossless', 'cold')),
    checkpoint_image text,
    url              text,
    workflow_id      text not null unique,
    created_at       timestamptz not null default now(),
    started_at       timestamptz,
    ended_at         timestamptz,
    updated_at       timestamptz not null default now(),
    check (state not in ('terminated', 'failed') or ended_at is not null)
);
create index sessions_user_idx on sessions (user_id, created_at desc);
create index sessions_cluster_state_idx on sessions (cluster_id, state);
create index sessions_node_idx on sessions (node_id) where node_id is not null;
create index sessions_live_idx on sessions (state) where state not in ('terminated', 'failed');
create trigger sessions_touch before update on sessions for each row execute function gshare_touch_updated_at();

-- A session's hold on a GPU (or a slice of one). gpu_uuid is deliberately not a foreign key: the
-- allocation keeps naming the card after the device row is deleted with its node.
create table allocations (
    id               gshare_id primary key,
    session_id       gshare_id not null references sessions (id) on delete restrict,
    node_id          gshare_id references nodes (id) on delete set null,
    gpu_uuid         text not null,
    gpumem_mib       integer check (gpumem_mib > 0),          -- null: the whole GPU
    gpucores_percent integer check (gpucores_percent between 1 and 100),
    allocated_at     timestamptz not null default now(),
    released_at      timestamptz,
    check (released_at is null or released_at >= allocated_at)
);
create index allocations_live_gpu_idx on allocations (gpu_uuid) where released_at is null;
create index allocations_session_idx on allocations (session_id);
create unique index allocations_one_live_per_session_gpu on allocations (session_id, gpu_uuid) where released_at is null;

-- Opened when a session starts running, closed when it pauses or ends; the metering sweep charges
-- open windows minute by minute up to charged_through.
create table billing_windows (
    id               gshare_id primary key,
    session_id       gshare_id not null references sessions (id) on delete restrict,
    account_id       gshare_id not null references credit_accounts (id) on delete restrict,
    price_per_hour   numeric(20, 6) not null check (price_per_hour >= 0),
    opened_at        timestamptz not null,
    charged_through  timestamptz not null,
    closed_at        timestamptz,
    check (charged_through >= opened_at),
    check (closed_at is null or closed_at >= opened_at)
);
create unique index billing_windows_one_open on billing_windows (session_id) where closed_at is null;
create index billing_windows_open_idx on billing_windows (charged_through) where closed_at is null;

-------------------------------------------------------------------------------
-- Audit
-------------------------------------------------------------------------------

-- Repeated events (e.g. access.denied) collapse per minute on dedup_key, counting occurrences.
create table audit_events (
    id           bigserial primary key,
    occurred_at  timestamptz not null default now(),
    last_at      timestamptz not null default now(),
    occurrences  integer not null default 1 check (occurrences >= 1),
    actor        text,
    action       text not null,
    object_kind  text,
    object_id    text,
    outcome      text not null default 'success' check (outcome in ('success', 'denied', 'failure')),
    reason       text,
    details      jsonb,
    dedup_key    text unique
);
create index audit_events_time_idx on audit_events (occurred_at desc);
create index audit_events_action_idx on audit_events (action, occurred_at desc);
