-- Deleting a node (DELETE /api/v1/nodes/{id}) looks for its unreleased allocations, and the foreign key's
-- "on delete set null" finds every allocation that names it; both by node, so neither scans the table.
create index allocations_node_idx on allocations (node_id) where node_id is not null;
