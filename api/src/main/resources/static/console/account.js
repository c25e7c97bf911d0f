// What a user owns besides sessions: volumes (#/volumes: list, create, delete, restore) and credits (#/credits:
// balance and ledger entries).
"use strict";

// ---------------------------------------------------------------------------------------------------------------
// #/volumes

route(/^\/volumes\/?$/, { nav: "volumes" }, (ctx, section) => {
  pageHeading(section, "Volumes");
  const listError = alertBox("volumes-error");
  const listStatus = statusBox("volumes-status");
  const listArea = h("div", { id: "volumes-list" }, statusBox(null, "Loading volumes…"));
  append(section, [
    newVolumeForm(ctx, () => loadList()),
    h("h2", { text: state.isAdmin ? "All volumes" : "Your volumes" }),
    listError, listStatus, listArea,
  ]);

  const columns = [
    { label: "Name", cell: (v) => show(v.name) },
    { label: "Size", cell: (v) => (v.requested_size_gb && v.requested_size_gb !== v.size_gb
      ? `${fmtNumber(v.size_gb, 0)} GiB (growing to ${fmtNumber(v.requested_size_gb, 0)} GiB)` : `${fmtNumber(v.size_gb, 0)} GiB`) },
    { label: "Status", cell: (v) => h("span", { class: "volume-status", text: show(v.status) }) },
    { label: "Used", cell: (v) => fmtBytes(v.used_bytes) },
    { label: "Created", cell: (v) => fmtTime(v.created_at) },
    { label: "Reclaimed after", cell: (v) => (v.status === "deleting" ? fmtTime(v.reclaim_after) : "—") },
    { label: "Actions", cell: (v) => volumeActions(v) },
  ];
  if (state.isAdmin) columns.splice(1, 0, { label: "Owner", cell: (v) => show(v.owner_id) });

  function volumeActions(v) {
    const alert = alertBox(`volume-alert-${v.id}`);
    const buttons = [];
    if (v.status === "deleting") {
      buttons.push(h("button", { type: "button", text: "Restore", "aria-label": `Restore ${show(v.name)}`,
        onclick: (e) => act(e.currentTarget, alert, "POST", `/api/v1/volumes/${encodeURIComponent(v.id)}/restore`, `Volume ${show(v.name)} restored.`) }));
    } else if (v.status !== "reclaimed") {
      buttons.push(h("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete ${show(v.name)}`,
        onclick: (e) => act(e.currentTarget, alert, "DELETE", `/api/v1/volumes/${encodeURIComponent(v.id)}`,
          `Volume ${show(v.name)} is being deleted; it can be restored until it is reclaimed.`) }));
    }
    return h("div", { class: "row-actions" }, buttons, alert);
  }

  // A refusal is the api's words alone, e.g. 409 volume_in_use naming the session that holds it.
  function act(button, alert, method, path, done) {
    return busy(button, alert, "", async () => {
      await api(method, path);
      listStatus.textContent = done;
      loadList();
    }, { keepDisabled: true });
  }

  async function loadList() {
    setAlert(listError, "");
    try {
      const list = await api("GET", "/api/v1/volumes");
      if (!ctx.alive) return;
      const items = Array.isArray(list && list.items) ? list.items : [];
      fill(listArea, items.length ? dataTable(columns, items, {
        id: "volumes-table", caption: "Volumes, newest first",
        rowProps: (v) => ({ id: `volume-${v.id}`, "data-volume-id": v.id, "data-status": v.status || "" }),
      }) : emptyNote("No volumes yet."));
    } catch (e) {
      fill(listArea);
      setAlert(listError, `The volumes could not be listed: ${e.message}`);
    }
  }

  loadList();
});

function newVolumeForm(ctx, created) {
  const name = h("input", { id: "volume-name", name: "name", type: "text", required: true, maxlength: "63",
    autocomplete: "off", "aria-describedby": "volume-name-hint" });
  const size = h("input", { id: "volume-size", name: "size_gb", type: "number", min: "1", max: "100000", step: "1",
    required: true, value: "10" });
  const error = alertBox("new-volume-error");
  const status = statusBox("new-volume-status");
  const submit = h("button", { type: "submit", id: "create-volume", text: "Create volume" });
  const form = h("form", { id: "new-volume-form", class: "card", "aria-labelledby": "new-volume-heading", novalidate: "" },
    h("h2", { id: "new-volume-heading", text: "New volume" }),
    h("div", { class: "field" }, h("label", { for: "volume-name", text: "Name" }), name,
      h("small", { id: "volume-name-hint", text: "Lower-case letters, digits and dashes (a DNS label)." })),
    h("div", { class: "field" }, h("label", { for: "volume-size", text: "Size (GiB)" }), size));
  let pool = null;
  if (state.isAdmin) {
    // Storage pools are listed for admins only; users get the default pool.
    pool = h("select", { id: "volume-pool", name: "pool_id" }, h("option", { value: "", text: "Default pool" }));
    form.appendChild(h("div", { class: "field" }, h("label", { for: "volume-pool", text: "Storage pool (optional)" }), pool));
    api("GET", "/api/v1/storage/pools").then((list) => {
      if (!ctx.alive) return;
      for (const p of (list && list.items) || []) {
        pool.appendChild(h("option", { value: p.id, text: `${show(p.name)}${p.free_gb !== undefined ? ` (${fmtNumber(p.free_gb, 0)} GiB free)` : ""}` }));
      }
    }).catch((e) => setAlert(error, `The storage pools could not be listed: ${e.message}`));
  }
  append(form, [error, status, h("p", null, submit)]);

  submitting(form, error, status, () => {
    if (!name.value.trim()) return refuse(error, "Give the volume a name.", name);
    const body = { name: name.value.trim(), size_gb: Number(size.value) };
    if (pool && pool.value) body.pool_id = pool.value;
    busy(submit, error, "The volume could not be created", async () => {
      const volume = await api("POST", "/api/v1/volumes", body);
      status.textContent = `Volume ${show(volume && volume.name)} created (${show(volume && volume.status)}).`;
      name.value = "";
      created();
    });
  });
  return form;
}

// ---------------------------------------------------------------------------------------------------------------
// #/credits

route(/^\/credits\/?$/, { nav: "credits" }, (ctx, section) => {
  pageHeading(section, "Credits");
  const error = alertBox("credits-error");
  const balance = h("p", { id: "credit-balance", class: "balance", text: "Loading…" });
  const entries = h("div", { id: "credit-entries-list" });
  let userId = "";
  if (state.isAdmin) {
    // Admins may read anyone's account (GET /api/v1/credits?user_id=).
    const input = h("input", { id: "credits-user", name: "user_id", type: "text", autocomplete: "off", placeholder: "your own" });
    section.appendChild(h("form", { id: "credits-user-form", class: "inline-form",
      onsubmit: (event) => {
        event.preventDefault();
        userId = input.value.trim();
        load();
      } },
    h("label", { for: "credits-user", text: "User id" }), input, h("button", { type: "submit", text: "Show credits" })));
  }
  append(section, [error, h("h2", { text: "Balance" }), balance, h("h2", { text: "Latest entries" }), entries]);

  async function load() {
    setAlert(error, "");
    try {
      const credits = await api("GET", `/api/v1/credits${query({ user_id: userId })}`);
      if (!ctx.alive) return;
      balance.textContent = fmtCredits(credits && credits.balance);
      const items = Array.isArray(credits && credits.entries) ? credits.entries : [];
      fill(entries, items.length ? dataTable([
        { label: "When", cell: (e) => fmtTime(e.created_at) },
        { label: "Amount", cell: (e) => h("span", { class: Number(e.amount) < 0 ? "debit" : "credit", text: fmtNumber(e.amount) }) },
        { label: "Kind", cell: (e) => show(e.kind) },
        { label: "Session", cell: (e) => (e.session_id ? h("a", { href: `#/sessions/${encodeURIComponent(e.session_id)}`, text: e.session_id }) : "—") },
        { label: "Period", cell: (e) => fmtTime(e.bucket_start) },
        { label: "Description", cell: (e) => show(e.description) },
      ], items, { id: "credit-entries", caption: "Ledger entries, newest first", rowProps: (e) => ({ "data-entry-id": e.id }) })
        : emptyNote("No entries yet."));
    } catch (e) {
      balance.textContent = "—";
      fill(entries);
      setAlert(error, `The credits could not be read: ${e.message}`);
    }
  }

  load();
});
