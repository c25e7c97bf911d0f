-- A complete inventory report names every node of its cluster, so one stamp per cluster tells when
-- each of them was last reported: a quiet tick then writes one row, not one per node.
alter table clusters add column inventory_at timestamptz;
comment on column nodes.last_seen_at is 'when the row was first or last changed by a report; liveness uses clusters.inventory_at';
