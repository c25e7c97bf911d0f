// Operator pages (admins): clusters (connection test, token rotation, detach, how to attach one), nodes (drain,
// uncordon, delete), alerts, audit, users and teams, and one operation's progress (#/operations/<id>). The header's
// cluster selector filters them. Uses catalogue.js's helpers (field, itemsOf, listTeams, followStarted).
"use strict";

// ---------------------------------------------------------------------------------------------------------------
// #/clusters

route(/^\/clusters\/?$/, { nav: "clusters", admin: true }, (ctx, section) => {
  pageHeading(section, "Clusters");
  const error = alertBox("clusters-error");
  const detached = h("input", { id: "include-detached", type: "checkbox" });
  const listArea = h("div", { id: "clusters-list" }, statusBox(null, "Loading clusters…"));
  const status = statusBox("clusters-status");
  append(section, [
    h("p", { class: "check" }, detached, h("label", { for: "include-detached", text: "Include detached clusters" })),
    error, status, listArea, attachHelp(),
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
        // The api gives the operator token's expiry in the connection test's answer only (operator_token).
        { label: "Operator token", cell: () => h("span", { class: "cluster-token muted", text: "Test the connection to read its expiry." }) },
        { label: "Actions", cell: (c) => clusterActions(c) },
      ], items, {
        id: "clusters-table", caption: "Registered clusters",
        rowProps: (c) => ({ id: `cluster-${c.id}`, "data-cluster-id": c.id, class: c.id === chosen ? "selected" : null }),
      }) : emptyNote("No clusters registered."));
    } catch (e) {
      fill(listArea);
      setAlert(error, `The clusters could not be listed: ${e.message}`);
    }
  }

  /** Test connection, Rotate token and Detach (not for a detached cluster: the api refuses every one of them). */
  function clusterActions(c) {
    const label = show(c.name);
    const alert = alertBox(`cluster-alert-${c.id}`);
    const result = h("div", { id: `cluster-test-${c.id}`, class: "cluster-test", "aria-live": "polite" });
    const progress = h("div", { id: `cluster-op-${c.id}`, class: "cluster-op" });
    if (c.status === "detached") return h("p", { class: "muted", text: `Detached ${fmtTime(c.detached_at)}.` });
    const confirmArea = h("div", { class: "confirm" });
    const detach = h("button", { type: "button", class: "danger cluster-detach-button", text: "Detach", "aria-label": `Detach ${label}`,
      onclick: () => askDetach() });
    // Detaching removes the worker and the cluster's nodes from gShare: asked once more, in the row, not in a dialog.
    function askDetach() {
      detach.disabled = true;
      const yes = h("button", { type: "button", class: "danger", text: "Yes, detach", "aria-label": `Yes, detach ${label}`,
        onclick: () => {
          fill(confirmArea);
          start("Detach", "DELETE", "", detach);
        } });
      const no = h("button", { type: "button", class: "secondary", text: "Cancel", onclick: () => {
        fill(confirmArea);
        detach.disabled = false;
        detach.focus();
      } });
      fill(confirmArea, h("p", { text: `Detach ${label}? Its worker, Secret and RBAC are removed and its nodes leave gShare; sessions must be ended or paused first.` }),
        h("div", { class: "buttons" }, yes, no));
      yes.focus();
    }
    const test = h("button", { type: "button", class: "cluster-test-button", text: "Test connection", "aria-label": `Test connection ${label}`,
      onclick: () => testConnection(c, test, alert, result) });
    const rotate = h("button", { type: "button", class: "secondary cluster-rotate-button", text: "Rotate token", "aria-label": `Rotate token ${label}`,
      onclick: () => start("Rotate token", "POST", "/rotate-token", rotate) });

    // A refusal is said in the api's words, e.g. Detach's 409 naming the sessions and allocations still on the cluster.
    function start(what, method, suffix, button) {
      return busy(button, alert, `${what} refused`, async () => {
        const answer = await api(method, `/api/v1/clusters/${encodeURIComponent(c.id)}${suffix}`);
        if (!ctx.alive) return;
        followStarted(ctx, answer && answer.operation && answer.operation.id, progress, (op) => ended(c, what, op));
      }, { onError: (e) => followStarted(ctx, runningOperationOf(e), progress, (op) => ended(c, what, op)) });
    }

    return h("div", { class: "row-actions" }, h("div", { class: "buttons" }, test, rotate, detach), confirmArea, alert, result, progress);
  }

  /** When an operation ends: say so, and refresh that row's status in place (its progress stays readable). */
  async function ended(c, what, op) {
    status.textContent = `${what} of ${show(c.name)}: ${show(op && op.status)}.`;
    try {
      const fresh = await api("GET", `/api/v1/clusters/${encodeURIComponent(c.id)}`);
      const cell = document.querySelector(`#cluster-${CSS.escape(c.id)} .cluster-status`);
      if (ctx.alive && cell && fresh) cell.textContent = show(fresh.status);
    } catch (e) {
      // the row keeps what it showed; the next load says what failed
    }
  }

  /** The worker's answer in words: the verdict, each check, what it saw, and the operator token's expiry. */
  function testConnection(c, button, alert, result) {
    return busy(button, alert, "The connection test failed", async () => {
      fill(result, h("p", { class: "muted", text: "Testing: the cluster's worker is asked to describe its cluster (up to 90 s)…" }));
      const t = (await api("POST", `/api/v1/clusters/${encodeURIComponent(c.id)}/connection-test`)) || {};
      if (!ctx.alive) return;
      const checks = t.checks && typeof t.checks === "object" ? Object.entries(t.checks) : [];
      const nodes = Array.isArray(t.nodes) ? t.nodes : [];
      fill(result, h("div", { class: `connection-test test-${t.status || "unknown"}`, "data-status": t.status || "" },
        h("p", null, h("strong", { text: `Connection: ${show(t.status)}` }), t.reason ? `: ${t.reason}` : "."),
        checks.length ? h("ul", { class: "checks" }, checks.map(([name, ok]) => h("li", { "data-check": name, "data-ok": String(ok === true) },
          `${checkText(name)}: `, h("strong", { text: ok === true ? "passed" : "failed" })))) : null,
        t.apiserver_version || nodes.length ? h("p", { class: "muted", text: [
          t.apiserver_version ? `Kubernetes ${t.apiserver_version}${t.simulated ? " (simulated)" : ""}` : "",
          `${nodes.length} node${nodes.length === 1 ? "" : "s"}`, t.gpu_count !== undefined ? `${fmtNumber(t.gpu_count, 0)} GPUs` : "",
        ].filter(Boolean).join(", ") + "." }) : null));
      const token = tokenText(t.operator_token);
      const cell = document.querySelector(`#cluster-${CSS.escape(c.id)} .cluster-token`);
      if (cell) {
        cell.textContent = token;
        cell.classList.remove("muted");
      }
    }, { onError: () => fill(result) });
  }

  load();
});

/** A connection test's check names (RuntimeChecks) in words; an unknown one is shown by its name. */
const CHECK_TEXT = {
  worker_polling: "The cluster's worker answers",
  runtime_class_nvidia: "RuntimeClass nvidia exists",
  hami_device_plugin: "The HAMi device plugin is installed",
  ingress_controller: "An ingress controller serves the session domain",
  gpu_nodes_ready: "A Ready node reports GPUs",
};

function checkText(name) {
  return CHECK_TEXT[name] || String(name).replace(/_/g, " ");
}

function tokenText(token) {
  if (!token || typeof token !== "object") return "No operator token recorded.";
  const parts = [`Expires ${fmtTime(token.expires_at)}`];
  if (token.last_rotated_at) parts.push(`last written ${fmtTime(token.last_rotated_at)}`);
  if (token.worker_uses_latest === true) parts.push("the worker uses it");
  else if (token.worker_jti) parts.push(`the worker still uses an older token (expires ${fmtTime(token.worker_token_expires_at)})`);
  else parts.push("the worker has not used it yet");
  return `${parts.join("; ")}.`;
}

/** Attaching is done from a shell with the cluster's kubeconfig (hack/attach-cluster.sh), not by uploading it here. */
function attachHelp() {
  const command = [
    "hack/attach-cluster.sh \\",
    "  --kubeconfig ~/remote.kubeconfig \\",
    "  --name lab-c2 \\",
    `  --control-plane ${location.origin} \\`,
    "  --session-domain gshare.lab-c2.example.com \\",
    "  --ingress-node master-c2",
  ].join("\n");
  return h("section", { id: "attach-cluster", class: "card", "aria-labelledby": "attach-cluster-heading" },
    h("h2", { id: "attach-cluster-heading", text: "Attach a cluster" }),
    h("p", { text: "Run this from a machine with the cluster's kubeconfig and an admin token in GSHARE_TOKEN. It checks the cluster (apiserver address, NVIDIA driver and runtime on each GPU node), installs the RuntimeClass, GPU labels, HAMi and ingress-nginx, then registers the cluster and follows its attach:" }),
    // Scrolls sideways inside itself on a phone (focusable, so keyboards can scroll it) rather than breaking lines.
    h("pre", { class: "command", tabindex: "0", role: "region", "aria-label": "Attach command" }, h("code", { id: "attach-command", text: command })),
    h("ul", { class: "options" },
      h("li", null, h("code", { text: "--gpu-nodes NODE,..." }), " and ", h("code", { text: "--gpu-mode exclusive|fractional" }), ": which nodes are GPU nodes, and the mode of those without one"),
      h("li", null, h("code", { text: "--storage-values FILE" }), ": installs the volume storage driver"),
      h("li", null, h("code", { text: "--gateway envoy" }), ": routes sessions through the Gateway API"),
      h("li", null, h("code", { text: "--help" }), ": every option")),
    h("p", { class: "muted", text: "Run it again after a failure: every step converges. The new cluster then appears above, with its Attach progress." }));
}

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
          onclick: (e) => nodeCommand("Drain", "/drain", e.currentTarget, n, alert, progress, drainBody()) }),
        h("button", { type: "button", class: "node-uncordon-button", text: "Uncordon", "aria-label": `Uncordon ${label}`,
          onclick: (e) => nodeCommand("Uncordon", "/uncordon", e.currentTarget, n, alert, progress) }),
        // Always clickable: the api decides (409 node_live / node_busy, said in words below).
        h("button", { type: "button", class: "danger node-delete-button", text: "Delete", "aria-label": `Delete ${label}`,
          onclick: (e) => remove(e.currentTarget, n, alert) })),
      alert, progress);
    return row;
  }

  /** The drain options above the table, as POST …/drain takes them. */
  function drainBody() {
    const body = { mode: mode.value };
    const seconds = deadline.value.trim();
    if (seconds) body.deadline_seconds = Number(seconds);
    if (reason.value.trim()) body.reason = reason.value.trim();
    return body;
  }

  /** Drain or Uncordon: the row shows the node's new state at once, then the operation's steps. */
  function nodeCommand(what, suffix, button, n, alert, progress, body) {
    return busy(button, alert, `${what} refused`, async () => {
      const answer = await api("POST", `/api/v1/nodes/${encodeURIComponent(n.id)}${suffix}`, body);
      if (!ctx.alive) return;
      updateRow(n.id, answer && answer.node);
      follow(n, answer && answer.operation && answer.operation.id, progress, what);
    });
  }

  // A refusal, 409 node_busy (sessions still on it) or node_live (still reported), is the api's words in the row.
  function remove(button, n, alert) {
    return busy(button, alert, "Delete refused", async () => {
      await api("DELETE", `/api/v1/nodes/${encodeURIComponent(n.id)}`);
      if (!ctx.alive) return;
      const row = document.getElementById(`node-${n.id}`);
      if (row) row.remove();
      status.textContent = `Node ${show(n.hostname)} deleted.`;
    }, { keepDisabled: true });
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
// #/users: users (role, team, disabled) and teams. Role changes to or from admin need a super admin: the api's 403
// says so in that row.

const ROLES = ["user", "admin", "super_admin"];

route(/^\/users\/?$/, { nav: "users", admin: true }, (ctx, section) => {
  pageHeading(section, "Users and teams");
  const error = alertBox("users-error");
  const status = statusBox("users-status");
  const listArea = h("div", { id: "users-list" }, statusBox(null, "Loading users…"));
  const teamsError = alertBox("teams-error");
  const teamsArea = h("div", { id: "teams-list" }, statusBox(null, "Loading teams…"));
  const userForm = newUserForm(() => load());
  const teamForm = newTeamForm(() => load());
  append(section, [
    h("h2", { text: "Users" }),
    state.me && state.me.role !== "super_admin"
      ? h("p", { class: "muted", text: "Only a super admin makes or unmakes admins; the api refuses it to you, and says so." }) : null,
    error, status, listArea, userForm.element,
    h("h2", { id: "teams-heading", text: "Teams" }),
    teamsError, teamsArea, teamForm,
  ]);

  let teams = [];

  /** Role, team and disabled in the row; "Save" sends only what changed, so an unchanged role is never re-checked. */
  function userChange(u) {
    const key = u.id;
    const label = show(u.email);
    const role = h("select", { id: `user-role-${key}`, class: "user-role" }, ROLES.map((r) => h("option", { value: r, text: r })));
    if (u.role && !ROLES.includes(u.role)) role.appendChild(h("option", { value: u.role, text: u.role }));
    role.value = u.role || "user";
    const team = fillTeamSelect(h("select", { id: `user-team-${key}`, class: "user-team" }), teams, "No team");
    // A team the list does not know (it failed, or the user's team is gone) stays choosable, by id.
    if (u.team_id && !teams.some((t) => t.id === u.team_id)) team.appendChild(h("option", { value: u.team_id, text: u.team_id }));
    team.value = u.team_id || "";
    const disabled = h("input", { id: `user-disabled-${key}`, class: "user-disabled", type: "checkbox", checked: u.disabled === true });
    const alert = alertBox(`user-alert-${key}`);
    const save = h("button", { type: "submit", text: "Save", "aria-label": `Save ${label}` });
    const form = h("form", { class: "row-form", "aria-label": `Change ${label}`, novalidate: "" },
      h("div", { class: "field" }, h("label", { for: role.id, text: "Role" }), role),
      h("div", { class: "field" }, h("label", { for: team.id, text: "Team" }), team),
      h("p", { class: "check" }, disabled, h("label", { for: disabled.id, text: "Disabled" })),
      h("p", null, save), alert);
    submitting(form, alert, null, () => {
      const body = {};
      if (role.value !== (u.role || "user")) body.role = role.value;
      // "" takes the user out of their team (the api reads an empty team_id so).
      if (team.value !== (u.team_id || "")) body.team_id = team.value;
      if (disabled.checked !== (u.disabled === true)) body.disabled = disabled.checked;
      if (!Object.keys(body).length) return refuse(alert, "Nothing changed.");
      // Refusals in the api's words: 403 (a role change only a super admin may make), 409 (your own role or account).
      busy(save, alert, "The change was refused", async () => {
        const fresh = await api("PATCH", `/api/v1/users/${encodeURIComponent(u.id)}`, body);
        if (!ctx.alive) return;
        status.textContent = `User ${label} saved${fresh ? `: ${show(fresh.role)}, ${fresh.team_id ? teamLabel(teams, fresh.team_id) : "no team"}${fresh.disabled ? ", disabled" : ""}` : ""}.`;
        load();
      }, { keepDisabled: true });
    });
    return form;
  }

  async function load() {
    setAlert(error, "");
    setAlert(teamsError, "");
    const [usersAnswer, teamsAnswer] = await Promise.allSettled([api("GET", "/api/v1/users"), listTeams()]);
    if (!ctx.alive) return;
    teams = teamsAnswer.status === "fulfilled" ? teamsAnswer.value : [];
    userForm.setTeams(teams);
    const users = usersAnswer.status === "fulfilled" ? itemsOf(usersAnswer.value) : [];
    if (usersAnswer.status === "fulfilled") {
      fill(listArea, users.length ? dataTable([
        { label: "Email", cell: (u) => [h("strong", { class: "user-email", text: show(u.email) }),
          u.id === (state.me && state.me.id) ? h("span", { class: "muted", text: " (you)" }) : null] },
        { label: "Name", cell: (u) => show(u.display_name) },
        { label: "Role", cell: (u) => h("span", { class: "user-role-now", text: show(u.role) }) },
        { label: "Team", cell: (u) => (u.team_id ? teamLabel(teams, u.team_id) : "no team") },
        { label: "Disabled", cell: (u) => h("span", { class: "user-disabled-now", text: yesNo(u.disabled) }) },
        { label: "Created", cell: (u) => fmtTime(u.created_at) },
        { label: "Change", cell: (u) => userChange(u) },
      ], users, {
        id: "users-table", caption: "Users",
        rowProps: (u) => ({ id: `user-${u.id}`, "data-user-id": u.id, "data-email": u.email || "" }),
      }) : emptyNote("No users."));
    } else {
      fill(listArea);
      setAlert(error, `The users could not be listed: ${usersAnswer.reason.message}`);
    }
    if (teamsAnswer.status === "fulfilled") {
      fill(teamsArea, teams.length ? dataTable([
        { label: "Name", cell: (t) => h("strong", { text: show(t.name) }) },
        { label: "Members", cell: (t) => (usersAnswer.status === "fulfilled" ? fmtNumber(users.filter((u) => u.team_id === t.id).length, 0) : "—") },
        { label: "Id", cell: (t) => h("code", { text: show(t.id) }) },
      ], teams, { id: "teams-table", caption: "Teams", rowProps: (t) => ({ id: `team-${t.id}`, "data-team-id": t.id }) })
        : emptyNote("No teams yet."));
    } else {
      fill(teamsArea);
      setAlert(teamsError, `The teams could not be listed: ${teamsAnswer.reason.message}`);
    }
  }

  load();
});

function newUserForm(created) {
  const email = h("input", { id: "user-email", name: "email", type: "email", required: true, maxlength: "320", autocomplete: "off" });
  const displayName = h("input", { id: "user-display-name", name: "display_name", type: "text", maxlength: "200", autocomplete: "off" });
  const role = h("select", { id: "user-role", name: "role" }, ROLES.map((r) => h("option", { value: r, text: r })));
  const team = h("select", { id: "user-team", name: "team_id" });
  const setTeams = (teams) => fillTeamSelect(team, teams, "No team");
  setTeams([]);
  const error = alertBox("new-user-error");
  const status = statusBox("new-user-status");
  const submit = h("button", { type: "submit", id: "create-user", text: "Create user" });
  const element = h("form", { id: "new-user-form", class: "card", "aria-labelledby": "new-user-heading", novalidate: "" },
    h("h3", { id: "new-user-heading", text: "New user" }),
    field("user-email", "Email", email, "They sign in with this address at your identity provider."),
    field("user-display-name", "Display name (optional)", displayName),
    field("user-role", "Role", role), field("user-team", "Team (optional)", team),
    error, status, h("p", null, submit));
  submitting(element, error, status, () => {
    if (!email.value.trim()) return refuse(error, "Give the user an email address.", email);
    // A refusal is the api's words, e.g. 403: only a super admin creates admins; 409: the email is taken.
    busy(submit, error, "The user could not be created", async () => {
      const user = await api("POST", "/api/v1/users", compact({
        email: email.value.trim(), display_name: displayName.value.trim() || undefined, role: role.value,
        team_id: team.value || undefined,
      }));
      status.textContent = `User ${show(user && user.email)} created (${show(user && user.role)}).`;
      email.value = "";
      displayName.value = "";
      created();
    });
  });
  return { element, setTeams };
}

function newTeamForm(created) {
  const name = h("input", { id: "team-name", name: "name", type: "text", required: true, maxlength: "100", autocomplete: "off" });
  const error = alertBox("new-team-error");
  const status = statusBox("new-team-status");
  const submit = h("button", { type: "submit", id: "create-team", text: "Create team" });
  const form = h("form", { id: "new-team-form", class: "card", "aria-labelledby": "new-team-heading", novalidate: "" },
    h("h3", { id: "new-team-heading", text: "New team" }),
    field("team-name", "Team name", name), error, status, h("p", null, submit));
  submitting(form, error, status, () => {
    if (!name.value.trim()) return refuse(error, "Give the team a name.", name);
    busy(submit, error, "The team could not be created", async () => {
      const team = await api("POST", "/api/v1/teams", { name: name.value.trim() });
      status.textContent = `Team ${show(team && team.name)} created.`;
      name.value = "";
      created();
    });
  });
  return form;
}

// ---------------------------------------------------------------------------------------------------------------
// #/operations/<id>: any long operation (a cluster attach, a node drain, ...), followed while it runs. Users may
// open their own (a session's); the api refuses others in words.

route(/^\/operations\/([^/]+)\/?$/, { nav: null }, (ctx, section, [id]) => {
  pageHeading(section, `Operation ${id}`);
  const box = h("div", { id: "operation" }, statusBox(null, "Loading the operation…"));
  section.appendChild(box);
  followOperation(ctx, id, box);
});
