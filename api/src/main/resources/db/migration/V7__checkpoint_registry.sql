-- Where a cluster's lossless pauses push their checkpoint images (its LAN registry), e.g.
-- 10.10.0.191:5000/gshare-checkpoints. Without it a checkpoint cannot leave its node, so pauses are cold.
alter table clusters add column checkpoint_registry text
    check (checkpoint_registry ~ '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*$');
