-- The last Xid a card's dcgm-exporter reported (0: none since its driver loaded; null: never reported). The exporter's
-- gauge holds a code until the driver reloads, so gShare acts on a change of it: a card an admin uncordoned after the
-- repair is not cordoned again by the same stale code, and a new fault (or the same code after a clear) still is.
alter table gpu_devices add column last_xid integer check (last_xid >= 0);
