-- Node drain (node-drain-<nodeId>): placement skips a draining or drained node from the moment the drain
-- starts, not only once the cluster's next inventory report says it is unschedulable. Inventory reports
-- never write these columns; an uncordon clears them.
alter table nodes
    add column drain_state      text check (drain_state in ('draining', 'drained')),
    add column drain_reason     text,
    add column drain_started_at timestamptz;
