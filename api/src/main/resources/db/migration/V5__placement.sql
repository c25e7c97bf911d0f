-- Placement: the database itself refuses to allocate a GPU beyond its capacity, whoever writes the
-- allocation and however many transactions race. The GPU's row is locked for the check, so two
-- concurrent inserts on one card serialize; on different cards they do not wait for each other.

create function allocations_within_capacity() returns trigger language plpgsql as $$
declare
    device        gpu_devices%rowtype;
    live_count    integer;
    live_whole    integer;
    live_mem      bigint;
    live_cores    integer;
begin
    if new.released_at is not null then
        return new;
    end if;
    select * into device from gpu_devices where uuid = new.gpu_uuid for update;
    if not found then
        raise exception 'allocation on unknown GPU %', new.gpu_uuid using errcode = 'check_violation';
    end if;
    if not device.healthy or device.cordoned then
        raise exception 'GPU % is unhealthy or cordoned', new.gpu_uuid using errcode = 'check_violation';
    end if;
    select count(*), count(*) filter (where gpumem_mib is null),
           coalesce(sum(gpumem_mib), 0), coalesce(sum(gpucores_percent), 0)
      into live_count, live_whole, live_mem, live_cores
      from allocations
     where gpu_uuid = new.gpu_uuid and released_at is null and id <> new.id;
    if new.gpumem_mib is null then
        -- A whole GPU: nobody else may hold any part of it.
        if live_count > 0 then
            raise exception 'GPU % is already allocated', new.gpu_uuid using errcode = 'check_violation';
        end if;
    else
        if live_whole > 0
           or live_count + 1 > device.split_count
           or live_mem + new.gpumem_mib > device.memory_mib
           or live_cores + coalesce(new.gpucores_percent, 0) > device.cores_percent then
            raise exception 'GPU % has no room for % MiB / % %% more', new.gpu_uuid, new.gpumem_mib, new.gpucores_percent
                using errcode = 'check_violation';
        end if;
    end if;
    return new;
end $$;

create trigger allocations_within_capacity before insert or update of released_at, gpumem_mib, gpucores_percent, gpu_uuid
    on allocations for each row execute function allocations_within_capacity();

-- Which node pool a team owns is looked up on every placement.
create index node_pools_team_idx on node_pools (team_id);
create index nodes_cluster_pool_idx on nodes (cluster_id, pool_id) where removed_at is null;
