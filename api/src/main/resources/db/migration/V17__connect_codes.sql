-- One-time codes that carry a browser's sign-in from the console to a session's own domain (auth-signin): bound
-- to one session and one user, valid for a minute, redeemed once. Only the code's SHA-256 is kept.
create table connect_codes (
    code_hash   text primary key,
    session_id  gshare_id not null references sessions (id) on delete cascade,
    user_id     gshare_id not null references users (id) on delete cascade,
    created_at  timestamptz not null default now(),
    expires_at  timestamptz not null,
    redeemed_at timestamptz,
    check (expires_at > created_at)
);
-- The sweep of old codes goes by age.
create index connect_codes_expires_idx on connect_codes (expires_at);
