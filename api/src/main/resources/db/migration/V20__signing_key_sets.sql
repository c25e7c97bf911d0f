-- The signing key sets of user and internal tokens, shared by every api replica (gshare.security.key-store=database).
-- Each is a JWK set sealed with AES-256-GCM under the data key (kubeconfig.key, from the key Secret), so the database
-- alone cannot sign a token. version is bumped by every rotation: replicas reload when it changes, and a rotation
-- that lost a race to another replica's is tried again on the newer set.
create table signing_key_sets (
    name       text primary key check (name in ('user-signing', 'internal-signing')),
    sealed     bytea not null,
    version    bigint not null check (version > 0),
    updated_at timestamptz not null default now()
);
