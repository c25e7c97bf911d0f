-- One-time codes that carry a browser's sign-in to the gshare CLI's loopback listener (gshare login): bound to one
-- user and the CLI's PKCE challenge (S256), valid for a minute, redeemed once for an API token. Only the code's
-- SHA-256 is kept.
create table cli_sign_in_codes (
    code_hash      text primary key,
    user_id        gshare_id not null references users (id) on delete cascade,
    code_challenge text not null check (code_challenge ~ '^[A-Za-z0-9_-]{43}$'),
    created_at     timestamptz not null default now(),
    expires_at     timestamptz not null,
    redeemed_at    timestamptz,
    check (expires_at > created_at)
);
create index cli_sign_in_codes_expires_idx on cli_sign_in_codes (expires_at);
