-- The volume API (storage pools, volumes, expansions) on top of V10.

-- One pool may be the default: a volume created without a pool_id goes there.
alter table storage_pools add column is_default boolean not null default false;
create unique index storage_pools_one_default on storage_pools (is_default) where is_default;

-- A pool is deleted once only reclaimed volumes (history) name it; they keep their row without it.
-- The API refuses the delete while a volume not reclaimed lives in the pool.
alter table volumes drop constraint volumes_storage_pool_id_fkey;
alter table volumes add constraint volumes_storage_pool_id_fkey
    foreign key (storage_pool_id) references storage_pools (id) on delete set null;

-- A pool's allocation (its volumes not reclaimed), a user's volumes, the admins' queue of requests.
create index volumes_pool_idx on volumes (storage_pool_id) where status <> 'reclaimed';
create index volumes_owner_idx on volumes (owner_id, created_at desc);
create index volume_expansions_status_idx on volume_expansions (status, created_at);
