// Operator pages (admins): clusters, nodes (drain, uncordon, delete), alerts, audit, and one operation's progress
// (#/operations/<id>). The header's cluster selector filters them.
"use strict";

// ---------------------------------------------------------------------------------------------------------------
// #/clusters

route(/^\/clusters\/?$/, { nav: "clusters", admin: true }, (ctx, section) => {
  pageHeading(section, "Clusters");
  const error = alertBox("clusters-error");
  const detached = h("input", { id: "include-detached", type: "checkbox" });
  const listArea = h("div", { id: "clusters-list" }, statusBox(null, "Loading clusters…"));
  append(section, [
    h("p", { class: "check" }, detached, h("label", { for: "include-detached", text: "Include detached clusters" })),
    error, listArea,
  ]);
  detached.addEventListener("change", load);

  async function load() {
    setAlert(error, "");
    try {
      const list = await api("GET", `/api/v1/clusters${query({ include_detached: detached.checked ? "true" : "" })}`);
      if (!ctx.alive) return;
      const items = Array.isArray(list && list.items) ? list.items : [];
      const chosen = selectedCluster();
      fill(listArea, items.length ? dataTable([
        { label: "Name", cell: (c) => h("strong", { text: show(c.name) }) },
        { label: "Status", cell: (c) => [h("span", { class: "cluster-status", text: show(c.status) }),
          c.status_reason ? h("div", { class: "muted", text: c.status_reason }) : null] },
        { label: "Nodes", cell: (c) => `${fmtNumber(c.node_count, 0)}${c.offline_nodes ? ` (${c.offline_nodes} offline)` : ""}` },
        { label: "GPUs", cell: (c) => fmtNumber(c.gpu_count, 0) },
        { label: "Session domain", cell: (c) => show(c.session_domain) },
        { label: "Worker last seen", cell: (c) => fmtTime(c.worker_last_seen_at) },
        { label: "Idle reaping", cell: (c) => (c.idle_reaping ? `${c.idle_reaping.enabled ? `on (${show(c.idle_reaping.source)})` : "off"}` : "—") },
        { label: "Kubernetes", cell: (c) => `${show(c.apiserver_version)}${c.simulated ? " (simulated)" : ""}` },
        { label: "Id", cell: (c) => h("code", { text: show(c.id) }) },
        { label: "Operations", cell: (c) => h("a", { href: `#/operations/cluster-attach-${encodeURIComponent(c.id)}`, text: "Attach progress" }) },
      ], items, {
        id: "clusters-table", caption: "Registered clusters",
        rowProps: (c) => ({ id: `cluster-${c.id}`, "data-cluster-id": c.id, class: c.id === chosen ? "selected" : null }),
      }) : emptyNote("No clusters registered."));
    } catch (e) {
      fill(listArea);
      setAlert(error, `The clusters could not be listed: ${e.message}`);
    }
  }

  load();
});

// ---------------------------------------------------------------------------------------------------------------
// #/nodes

route(/^\/nodes\/?$/, { nav: "nodes", admin: true }, (ctx, section) => {
  pageHeading(section, "Nodes");
  const chosen = selectedCluster();
  const error = alertBox("nodes-error");
  const status = statusBox("nodes-status");
  const removed = h("input", { id: "include-removed", type: "checkbox" });
  const mode = h("select", { id: "drain-mode", name: "mode" },
    h("option", { value: "migrate", text: "migrate: move sessions to other nodes" }),
    h("option", { value: "pause", text: "pause: pause its sessions" }),
    h("option", { value: "terminate", text: "terminate: end its sessions" }));
  const deadline = h("input", { id: "drain-deadline", name: "deadline_seconds", type: "number", min: "30", max: "86400",
    step: "1", value: "900" });
  const reason = h("input", { id: "drain-reason", name: "reason", type: "text", maxlength: "500", autocomplete: "off" });
  const listArea = h("div", { id: "nodes-list" }, statusBox(null, "Loading nodes…"));
  append(section, [
    h("p", { class: "muted", text: chosen ? `Cluster: ${clusterName(chosen)} (change it in the header).` : "All clusters (choose one in the header)." }),
    h("fieldset", { class: "card filters" }, h("legend", { text: "Drain options (used by every Drain button)" }),
      h("div", { class: "field" }, h("label", { for: "drain-mode", text: "Drain mode" }), mode),
      h("div", { class: "field" }, h("label", { for: "drain-deadline", text: "Drain deadline (seconds)" }), deadline),
      h("div", { class: "field" }, h("label", { for: "drain-reason", text: "Drain reason (optional)" }), reason)),
    h("p", { class: "check" }, removed, h("label", { for: "include-removed", text: "Include nodes removed from their cluster" })),
    error, status, listArea,
  ]);
  removed.addEventListener("change", load);

  const columns = [
    { label: "Hostname", cell: (n) => h("strong", { class: "node-hostname", text: show(n.hostname) }) },
    { label: "Cluster", cell: (n) => clusterName(n.cluster_id) },
    { label: "Liveness", cell: (n) => h("span", { class: `node-liveness liveness-${n.liveness || "unknown"}`, text: show(n.liveness) }) },
    { label: "Drain", cell: (n) => h("span", { class: "node-drain", text: n.drain_state ? `${n.drain_state}${n.drain_reason ? `: ${n.drain_reason}` : ""}` : "not drained" }) },
    { label: "Schedulable", cell: (n) => h("span", { class: "node-schedulable", text: yesNo(n.schedulable) }) },
    { label: "GPU mode", cell: (n) => show(n.gpu_mode) },
    { label: "GPUs", cell: (n) => gpuList(n.gpus) },
    { label: "Last seen", cell: (n) => [fmtTime(n.last_seen_at), n.removed_at ? h("div", { class: "muted", text: `removed ${fmtTime(n.removed_at)}` }) : null] },
    { label: "Actions", cell: (n) => nodeActions(n) },
  ];

  function gpuList(gpus) {
    const list = Array.isArray(gpus) ? gpus : [];
    if (!list.length) return "none";
    return h("ul", { class: "plain gpus" }, list.map((g) => h("li", {
      text: [`#${show(g.index)} ${show(g.model)}`, g.memory_mib ? `${fmtNumber(g.memory_mib, 0)} MiB` : "",
        g.healthy === false ? "unhealthy" : "", g.cordoned ? "cordoned" : ""].filter(Boolean).join(", "),
      title: g.uuid || "",
    })));
  }

  function nodeActions(n) {
    const label = show(n.hostname);
    const alert = alertBox(`node-alert-${n.id}`);
    const progress = h("div", { id: `node-op-${n.id}`, class: "node-op" });
    const row = h("div", { class: "row-actions" },
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "node-drain-button", text: "Drain", "aria-label": `Drain ${label}`,
          onclick: (e) => drain(e.currentTarget, n, alert, progress) }),
        h("button", { type: "button", class: "node-uncordon-button", text: "Uncordon", "aria-label": `Uncordon ${label}`,
          onclick: (e) => uncordon(e.currentTarget, n, alert, progress) }),
        // Always clickable: the api decides (409 node_live / node_busy, said in words below).
        h("button", { type: "button", class: "danger node-delete-button", text: "Delete", "aria-label": `Delete ${label}`,
          onclick: (e) => remove(e.currentTarget, n, alert) })),
      alert, progress);
    return row;
  }

  async function drain(button, n, alert, progress) {
    setAlert(alert, "");
    const body = { mode: mode.value };
    const seconds = deadline.value.trim();
    if (seconds) body.deadline_seconds = Number(seconds);
    if (reason.value.trim()) body.reason = reason.value.trim();
    button.disabled = true;
    try {
      const answer = await api("POST", `/api/v1/nodes/${encodeURIComponent(n.id)}/drain`, body);
      if (!ctx.alive) return;
      updateRow(n.id, answer && answer.node);
      follow(n, answer && answer.operation && answer.operation.id, progress, "Drain");
    } catch (e) {
      setAlert(alert, `Drain refused: ${e.message}`);
    } finally {
      button.disabled = false;
    }
  }

  async function uncordon(button, n, alert, progress) {
    setAlert(alert, "");
    button.disabled = true;
    try {
      const answer = await api("POST", `/api/v1/nodes/${encodeURIComponent(n.id)}/uncordon`);
      if (!ctx.alive) return;
      updateRow(n.id, answer && answer.node);
      follow(n, answer && answer.operation && answer.operation.id, progress, "Uncordon");
    } catch (e) {
      setAlert(alert, `Uncordon refused: ${e.message}`);
    } finally {
      button.disabled = false;
    }
  }

  async function remove(button, n, alert) {
    setAlert(alert, "");
    button.disabled = true;
    try {
      await api("DELETE", `/api/v1/nodes/${encodeURIComponent(n.id)}`);
      if (!ctx.alive) return;
      const row = document.getElementById(`node-${n.id}`);
      if (row) row.remove();
      status.textContent = `Node ${show(n.hostname)} deleted.`;
    } catch (e) {
      // 409 node_busy (sessions still on it) or node_live (still reported): the api's words, in this node's row.
      setAlert(alert, `Delete refused: ${e.message}`);
      button.disabled = false;
    }
  }

  /** Shows the operation's steps in the node's row, then refreshes the row when it ends. */
  function follow(n, operationId, progress, what) {
    if (!operationId) return;
    fill(progress, h("p", { class: "muted", text: `${what}: following ${operationId}…` }));
    followOperation(ctx, operationId, progress, () => refreshRows());
  }

  /** Updates the drain, liveness and schedulable cells of a node's row in place (its alert and progress stay). */
  function updateRow(id, node) {
    const row = document.getElementById(`node-${id}`);
    if (!row || !node) return;
    const set = (selector, text) => {
      const cell = row.querySelector(selector);
      if (cell && text !== undefined) cell.textContent = text;
    };
    if ("drain_state" in node) set(".node-drain", node.drain_state ? `${node.drain_state}${node.drain_reason ? `: ${node.drain_reason}` : ""}` : "not drained");
    else if (node.liveness) set(".node-drain", "not drained");
    if (node.liveness) set(".node-liveness", node.liveness);
    if ("schedulable" in node) set(".node-schedulable", yesNo(node.schedulable));
  }

  async function fetchNodes() {
    const list = await api("GET", `/api/v1/nodes${query({ cluster_id: chosen, include_removed: removed.checked ? "true" : "" })}`);
    return Array.isArray(list && list.items) ? list.items : [];
  }

  async function refreshRows() {
    try {
      const nodes = await fetchNodes();
      if (ctx.alive) nodes.forEach((n) => updateRow(n.id, n));
    } catch (e) {
      // the rows keep what they showed; the next load says what failed
    }
  }

  async function load() {
    setAlert(error, "");
    try {
      const nodes = await fetchNodes();
      if (!ctx.alive) return;
      fill(listArea, nodes.length ? dataTable(columns, nodes, {
        id: "nodes-table", caption: chosen ? `Nodes of ${clusterName(chosen)}` : "Nodes of every cluster",
        rowProps: (n) => ({ id: `node-${n.id}`, "data-node-id": n.id, "data-hostname": n.hostname || "" }),
      }) : emptyNote("No nodes reported."));
      // A drain under way when the page opened: its operation id is known (node-drain-<node id>), so show it.
      for (const n of nodes.filter((x) => x.drain_state === "draining")) {
        const progress = document.getElementById(`node-op-${n.id}`);
        if (progress) follow(n, `node-drain-${n.id}`, progress, "Drain");
      }
    } catch (e) {
      fill(listArea);
      setAlert(error, `The nodes could not be listed: ${e.message}`);
    }
  }

  load();
});

// ---------------------------------------------------------------------------------------------------------------
// #/alerts

route(/^\/alerts\/?$/, { nav: "alerts", admin: true }, (ctx, section) => {
  pageHeading(section, "Alerts");
  const chosen = selectedCluster();
  const error = alertBox("alerts-error");
  const filter = h("select", { id: "alert-status", name: "status" },
    h("option", { value: "", text: "All" }), h("option", { value: "firing", text: "Firing" }),
    h("option", { value: "resolved", text: "Resolved" }));
  const listArea = h("div", { id: "alerts-list" }, statusBox(null, "Loading alerts…"));
  append(section, [
    h("p", { class: "inline-form" }, h("label", { for: "alert-status", text: "Status" }), filter),
    chosen ? h("p", { class: "muted", text: `Showing ${clusterName(chosen)}'s alerts and those of no cluster.` }) : null,
    error, listArea,
  ]);
  filter.addEventListener("change", load);

  async function load() {
    setAlert(error, "");
    try {
      const list = await api("GET", `/api/v1/alerts${query({ status: filter.value })}`);
      if (!ctx.alive) return;
      const items = (Array.isArray(list && list.items) ? list.items : [])
        .filter((a) => !chosen || !a.cluster_id || a.cluster_id === chosen);
      fill(listArea, items.length ? dataTable([
        { label: "Started", cell: (a) => fmtTime(a.starts_at) },
        { label: "Alert", cell: (a) => show(a.name) },
        { label: "Severity", cell: (a) => show(a.severity) },
        { label: "Status", cell: (a) => h("span", { class: `alert-status status-${a.status || "unknown"}`, text: show(a.status) }) },
        { label: "Summary", cell: (a) => show(a.summary) },
        { label: "Object", cell: (a) => (a.object_kind || a.object_id ? `${show(a.object_kind)} ${show(a.object_id)}` : "—") },
        { label: "Cluster", cell: (a) => (a.cluster_id ? clusterName(a.cluster_id) : "—") },
        { label: "Ended", cell: (a) => fmtTime(a.ends_at) },
        { label: "Delivery", cell: (a) => [show(a.delivered_status), a.attempts ? ` (${a.attempts} attempts)` : "",
          a.last_error ? h("div", { class: "muted", text: a.last_error }) : null] },
      ], items, { id: "alerts-table", caption: "Alerts, newest first", rowProps: (a) => ({ "data-alert-id": a.id }) })
        : emptyNote("No alerts."));
    } catch (e) {
      fill(listArea);
      setAlert(error, `The alerts could not be listed: ${e.message}`);
    }
  }

  load();
});

// ---------------------------------------------------------------------------------------------------------------
// #/audit

route(/^\/audit\/?$/, { nav: "audit", admin: true }, (ctx, section) => {
  pageHeading(section, "Audit");
  const error = alertBox("audit-error");
  const fields = [
    ["audit-action", "action", "Action", "e.g. node.deleted"],
    ["audit-actor", "actor", "Actor", ""],
    ["audit-object-kind", "object_kind", "Object kind", "e.g. session"],
    ["audit-object-id", "object_id", "Object id", ""],
  ];
  const inputs = {};
  const form = h("form", { id: "audit-filter", class: "card filters", "aria-label": "Audit filters" },
    fields.map(([id, name, label, placeholder]) => {
      inputs[name] = h("input", { id, name, type: "text", autocomplete: "off", placeholder: placeholder || null });
      return h("div", { class: "field" }, h("label", { for: id, text: label }), inputs[name]);
    }),
    h("p", null, h("button", { type: "submit", text: "Filter" })));
  const listArea = h("div", { id: "audit-list" }, statusBox(null, "Loading audit events…"));
  append(section, [form, error, listArea]);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });

  async function load() {
    setAlert(error, "");
    const params = {};
    for (const [name, input] of Object.entries(inputs)) params[name] = input.value.trim();
    try {
      const list = await api("GET", `/api/v1/audit${query(params)}`);
      if (!ctx.alive) return;
      const items = Array.isArray(list && list.items) ? list.items : [];
      fill(listArea, items.length ? dataTable([
        { label: "When", cell: (a) => [fmtTime(a.occurred_at),
          a.last_at && a.last_at !== a.occurred_at ? h("div", { class: "muted", text: `last ${fmtTime(a.last_at)}` }) : null] },
        { label: "Action", cell: (a) => show(a.action) },
        { label: "Outcome", cell: (a) => show(a.outcome) },
        { label: "Actor", cell: (a) => show(a.actor) },
        { label: "Object", cell: (a) => (a.object_kind || a.object_id ? `${show(a.object_kind)} ${show(a.object_id)}` : "—") },
        { label: "Reason", cell: (a) => show(a.reason) },
        { label: "Count", cell: (a) => fmtNumber(a.occurrences, 0) },
      ], items, { id: "audit-table", caption: "Audit events, newest first", rowProps: (a) => ({ "data-audit-id": a.id }) })
        : emptyNote("No audit events match."));
    } catch (e) {
      fill(listArea);
      setAlert(error, `The audit events could not be listed: ${e.message}`);
    }
  }

  load();
});

// ---------------------------------------------------------------------------------------------------------------
// #/operations/<id>: any long operation (a cluster attach, a node drain, ...), followed while it runs. Users may
// open their own (a session's); the api refuses others in words.

route(/^\/operations\/([^/]+)\/?$/, { nav: null }, (ctx, section, [id]) => {
  pageHeading(section, `Operation ${id}`);
  const box = h("div", { id: "operation" }, statusBox(null, "Loading the operation…"));
  section.appendChild(box);
  followOperation(ctx, id, box);
});
