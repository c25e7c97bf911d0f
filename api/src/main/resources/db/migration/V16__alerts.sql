-- Admin alerts that reach someone: each is a row from when it fires until it is resolved (one row per outage),
-- delivered to the Alertmanager-compatible webhook from this table as an outbox: a delivery is retried with
-- backoff until the receiver took the alert's current status (firing, then resolved), and never sent twice for it.
create table alerts (
    id               bigserial primary key,
    name             text not null,                 -- alertname, e.g. NodeOffline
    fingerprint      text not null,                 -- name and object: the same alert across its outages
    severity         text not null,
    object_kind      text not null,
    object_id        text not null,
    cluster_id       text,
    summary          text not null,
    status           text not null default 'firing' check (status in ('firing', 'resolved')),
    starts_at        timestamptz not null default now(),
    ends_at          timestamptz,
    delivered_status text,                          -- the status the receiver last took; null: nothing yet
    attempts         integer not null default 0,    -- failed deliveries of the current status
    next_attempt_at  timestamptz not null default now(),
    last_error       text
);
-- One open (firing) row per alert: raising it again during the outage is a no-op.
create unique index alerts_one_firing on alerts (fingerprint) where status = 'firing';
create index alerts_undelivered on alerts (next_attempt_at) where delivered_status is distinct from status;
create index alerts_by_start on alerts (starts_at desc);
