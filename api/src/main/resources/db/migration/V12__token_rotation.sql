-- Operator-token rotation: per cluster, the last token the control plane wrote into the cluster's
-- gshare-operator-internal-jwt Secret, and the last token its worker used on /internal.
create table operator_tokens (
    cluster_id       gshare_id primary key references clusters (id),
    -- written by the attach's token step and by every rotation
    jti              text,
    issued_at        timestamptz,
    expires_at       timestamptz,
    rotated_at       timestamptz,
    -- written by the internal plane when the token a worker authenticates with changes
    seen_jti         text,
    seen_expires_at  timestamptz,
    seen_at          timestamptz
);
