// Sessions: the list with the "New session" form (#/sessions) and one session's detail (#/sessions/<id>) with its
// commands, its current operation's steps and the live usage chart.
"use strict";

/** States a session passes through on its way somewhere: its detail is polled every 2 s while in one. */
const TRANSITIONAL = ["pending", "creating", "pausing", "resuming", "terminating"];
const ENDED = ["terminated", "failed"];

function stateBadge(stateName, props) {
  return h("span", Object.assign({ class: `state state-${stateName || "unknown"}`, text: show(stateName) }, props || {}));
}

function offeringLabel(o) {
  const shape = o.mode === "fractional"
    ? `slice of ${fmtNumber(o.gpumem_mib, 0)} MiB, ${fmtNumber(o.gpucores_percent, 0)}% cores`
    : `${fmtNumber(o.gpu_count, 0)} × whole GPU`;
  const missing = o.cluster_has === false ? ", no such card attached" : "";
  return `${show(o.name)}: ${show(o.gpu_model)}, ${shape}, ${fmtNumber(o.price_per_hour)} credits/hour${missing}`;
}

// ---------------------------------------------------------------------------------------------------------------
// #/sessions

route(/^\/sessions\/?$/, { nav: "sessions" }, (ctx, section) => {
  pageHeading(section, "Sessions");
  const listError = alertBox("sessions-error");
  const listArea = h("div", { id: "sessions-list" }, statusBox("sessions-loading", "Loading sessions…"));
  const refresh = h("button", { type: "button", id: "sessions-refresh", text: "Refresh list", onclick: () => loadList() });
  // Admins may list one node's sessions (GET /api/v1/sessions?node_id=); the api refuses the filter to users.
  const nodeFilter = state.isAdmin ? h("select", { id: "sessions-node-filter", name: "node_id" },
    h("option", { value: "", text: "All nodes" })) : null;
  const nodeFilterError = state.isAdmin ? alertBox("sessions-node-filter-error") : null;
  append(section, [
    h("div", { class: "inline-form" }, h("h2", { text: state.isAdmin ? "All sessions" : "Your sessions" }), refresh,
      nodeFilter ? h("span", { class: "inline-field" }, h("label", { for: "sessions-node-filter", text: "Node" }), nodeFilter) : null),
    nodeFilterError,
    listError,
    listArea,
    newSessionForm(ctx),
  ]);

  const columns = [
    { label: "Name", cell: (s) => h("a", { href: `#/sessions/${encodeURIComponent(s.id)}`, text: s.name || s.id }) },
    { label: "State", cell: (s) => stateBadge(s.state) },
    { label: "Cluster", cell: (s) => show(s.cluster_name || s.cluster_id) },
    { label: "Node", cell: (s) => show(s.node_hostname) },
    { label: "GPU", cell: (s) => [show(s.gpu_model), s.mode ? ` (${s.mode})` : ""] },
    { label: "Created", cell: (s) => fmtTime(s.created_at) },
  ];
  if (state.isAdmin) columns.splice(1, 0, { label: "User", cell: (s) => show(s.user_id) });

  let listed = 0; // only the answer to the latest list request (e.g. the latest node chosen) is shown

  async function loadList() {
    setAlert(listError, "");
    const mine = ++listed;
    try {
      const page = await api("GET", `/api/v1/sessions${query({ limit: 50, node_id: nodeId() })}`);
      if (!ctx.alive || mine !== listed) return;
      const items = Array.isArray(page && page.items) ? page.items : [];
      if (!items.length) {
        fill(listArea, emptyNote(nodeId() ? "No sessions on this node." : "No sessions yet: start one with the form below."));
        return;
      }
      const wrap = dataTable(columns, items, {
        id: "sessions-table", caption: "Sessions, newest first",
        rowProps: (s) => ({ "data-session-id": s.id, "data-state": s.state || "" }),
      });
      fill(listArea, wrap);
      if (page.next) listArea.appendChild(moreButton(wrap.querySelector("tbody"), page.next));
    } catch (e) {
      if (mine !== listed) return;
      fill(listArea);
      setAlert(listError, `The sessions could not be listed: ${e.message}`);
    }
  }

  /** The list comes a page at a time: "Load more" appends the page after the cursor. */
  function moreButton(tbody, cursor) {
    const button = h("button", { type: "button", id: "sessions-more", text: "Load more sessions" });
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const page = await api("GET", `/api/v1/sessions${query({ limit: 50, after: cursor, node_id: nodeId() })}`);
        for (const s of (page && page.items) || []) {
          tbody.appendChild(tableRow(columns, s, { rowProps: (x) => ({ "data-session-id": x.id, "data-state": x.state || "" }) }));
        }
        if (page && page.next) button.replaceWith(moreButton(tbody, page.next));
        else button.remove();
      } catch (e) {
        button.disabled = false;
        setAlert(listError, `More sessions could not be listed: ${e.message}`);
      }
    });
    return button;
  }

  function nodeId() {
    return nodeFilter ? nodeFilter.value : "";
  }

  /** The filter's choices: every node still known, removed ones too (their sessions stay in the history). */
  async function loadNodes() {
    try {
      const list = await api("GET", `/api/v1/nodes${query({ include_removed: "true" })}`);
      if (!ctx.alive) return;
      const nodes = (Array.isArray(list && list.items) ? list.items : []).filter((n) => n && n.id)
        .sort((a, b) => String(a.hostname || a.id).localeCompare(String(b.hostname || b.id)));
      append(nodeFilter, nodes.map((n) => h("option", { value: n.id,
        text: `${show(n.hostname || n.id)} (${clusterName(n.cluster_id)}${n.removed_at ? ", removed" : ""})` })));
    } catch (e) {
      setAlert(nodeFilterError, `The nodes could not be listed for the filter: ${e.message}`);
    }
  }

  if (nodeFilter) {
    nodeFilter.addEventListener("change", () => loadList());
    loadNodes();
  }
  loadList();
});

/** The "New session" form: offering, image, optional volume and cluster, name; availability shown on choosing. */
function newSessionForm(ctx) {
  const offering = h("select", { id: "offering-select", name: "offering_id", required: true },
    h("option", { value: "", text: "Loading offerings…" }));
  const image = h("select", { id: "image-select", name: "image_id", required: true },
    h("option", { value: "", text: "Loading images…" }));
  const volume = h("select", { id: "volume-select", name: "volume_id" }, h("option", { value: "", text: "No volume" }));
  const cluster = h("select", { id: "cluster-choice", name: "cluster_id" },
    h("option", { value: "", text: "Wherever it fits" }));
  const name = h("input", { id: "session-name", name: "name", type: "text", maxlength: "100", autocomplete: "off",
    placeholder: "notebook" });
  const availability = h("div", { id: "availability", role: "status", "aria-live": "polite", class: "availability" });
  const error = alertBox("new-session-error");
  const submit = h("button", { type: "submit", id: "start-session", text: "Start session" });

  const form = h("form", { id: "new-session-form", class: "card", "aria-labelledby": "new-session-heading", novalidate: "" },
    h("h2", { id: "new-session-heading", text: "New session" }),
    h("div", { class: "field" }, h("label", { for: "offering-select", text: "Offering" }), offering),
    availability,
    h("div", { class: "field" }, h("label", { for: "image-select", text: "Image" }), image),
    h("div", { class: "field" }, h("label", { for: "volume-select", text: "Volume (optional)" }), volume),
    h("div", { class: "field" }, h("label", { for: "cluster-choice", text: "Cluster (optional)" }), cluster),
    h("div", { class: "field" }, h("label", { for: "session-name", text: "Name" }), name),
    error,
    h("p", null, submit));

  let asked = 0; // only the answer to the latest offering choice is shown

  async function showAvailability() {
    const id = offering.value;
    const mine = ++asked;
    fill(cluster, h("option", { value: "", text: "Wherever it fits" }));
    if (!id) {
      fill(availability);
      return;
    }
    fill(availability, h("p", { text: "Checking where it could run…" }));
    try {
      const answer = await api("GET", `/api/v1/availability${query({ offering_id: id })}`);
      if (mine !== asked || !ctx.alive) return;
      const perCluster = Array.isArray(answer.clusters) ? answer.clusters : [];
      const here = perCluster.find((c) => c.cluster_id === answer.cluster_id);
      fill(availability,
        h("p", { class: "ok", id: "availability-answer" },
          "Can start now: it would run on ", h("strong", { text: show(answer.hostname) }),
          ` in cluster ${show(here ? here.cluster_name : answer.cluster_id)}`,
          answer.price_per_hour !== undefined ? `, at ${fmtNumber(answer.price_per_hour)} credits/hour.` : "."),
        perCluster.length > 1 ? h("ul", { class: "per-cluster" }, perCluster.map((c) => h("li", {
          text: c.available ? `${show(c.cluster_name)}: can start (on ${show(c.hostname)})`
            : `${show(c.cluster_name)}: cannot start there: ${show(c.detail || c.problem)}`,
        }))) : null);
      for (const c of perCluster) {
        cluster.appendChild(h("option", { value: c.cluster_id,
          text: `${show(c.cluster_name)}${c.available ? "" : " (no room now)"}` }));
      }
    } catch (e) {
      if (mine !== asked || !ctx.alive) return;
      // A refusal (409 unserviceable / insufficient_capacity / quota_exceeded, 402 insufficient_credits) is the
      // answer itself, in the api's words.
      fill(availability, h("p", { class: "no", id: "availability-answer", text: `Cannot start now: ${e.message}` }));
    }
  }

  offering.addEventListener("change", showAvailability);

  submitting(form, error, null, () => {
    if (!offering.value) return refuse(error, "Choose an offering.", offering);
    if (!image.value) return refuse(error, "Choose an image.", image);
    const body = { offering_id: offering.value, image_id: image.value };
    if (volume.value) body.volume_id = volume.value;
    if (cluster.value) body.cluster_id = cluster.value;
    if (name.value.trim()) body.name = name.value.trim();
    busy(submit, error, "The session could not start", async () => {
      const detail = await api("POST", "/api/v1/sessions", body);
      const id = detail && detail.session && detail.session.id;
      if (id) location.hash = `#/sessions/${encodeURIComponent(id)}`;
    }, { busyText: "Starting…" });
  });

  // The three lists load side by side; one failing leaves the others usable and says which failed.
  Promise.allSettled([
    api("GET", "/api/v1/offerings"), api("GET", "/api/v1/images"), api("GET", "/api/v1/volumes"),
  ]).then(([offerings, images, volumes]) => {
    if (!ctx.alive) return;
    const problems = [];
    if (offerings.status === "fulfilled") {
      const items = ((offerings.value && offerings.value.items) || []).filter((o) => o && o.active !== false);
      fill(offering, h("option", { value: "", text: items.length ? "Choose an offering" : "No offerings for sale" }),
        items.map((o) => h("option", { value: o.id, text: offeringLabel(o) })));
      if (items.length === 1) {
        offering.value = items[0].id;
        showAvailability();
      }
    } else {
      fill(offering, h("option", { value: "", text: "Offerings unavailable" }));
      problems.push(`offerings: ${offerings.reason.message}`);
    }
    if (images.status === "fulfilled") {
      const items = ((images.value && images.value.items) || []).filter((i) => i && i.active !== false);
      fill(image, h("option", { value: "", text: items.length ? "Choose an image" : "No images" }),
        items.map((i) => h("option", { value: i.id, text: `${show(i.name)} (${show(i.reference)})` })));
      if (items.length) image.value = items[0].id;
    } else {
      fill(image, h("option", { value: "", text: "Images unavailable" }));
      problems.push(`images: ${images.reason.message}`);
    }
    if (volumes.status === "fulfilled") {
      const usable = ((volumes.value && volumes.value.items) || [])
        .filter((v) => v && v.status !== "deleting" && v.status !== "reclaimed");
      append(volume, usable.map((v) => h("option", { value: v.id, text: `${show(v.name)} (${fmtNumber(v.size_gb, 0)} GiB, ${show(v.status)})` })));
    } else {
      problems.push(`volumes: ${volumes.reason.message}`);
    }
    if (problems.length) setAlert(error, `Some choices could not be loaded: ${problems.join("; ")}`);
  });

  return form;
}

// ---------------------------------------------------------------------------------------------------------------
// #/sessions/<id>

route(/^\/sessions\/([^/]+)\/?$/, { nav: "sessions" }, (ctx, section, [id]) => {
  const heading = pageHeading(section, `Session ${id}`);
  const error = alertBox("session-error");
  const info = h("div", { id: "session-info" }, statusBox("session-loading", "Loading the session…"));
  const actions = h("div", { id: "session-actions", class: "actions", role: "group", "aria-label": "Session commands" });
  const usage = usagePanel(ctx, id);
  append(section, [
    h("p", null, h("a", { href: "#/sessions", text: "← All sessions" })),
    actions,
    error,
    // Side by side on a wide screen (facts | live usage), one column on a phone.
    h("div", { class: "detail-grid" }, info, usage.element),
    operationHistory(id),
  ]);

  let lastJson = "";
  // A read failure clears on the next good read; a refused command stays until the next command.
  let readFailed = false;
  let pollTimer = null;

  /** One polling chain only: a new schedule replaces the pending one. */
  function poll(ms) {
    if (pollTimer) clearTimeout(pollTimer);
    pollTimer = ctx.later(load, ms);
  }

  async function load() {
    try {
      const detail = await api("GET", `/api/v1/sessions/${encodeURIComponent(id)}`);
      if (!ctx.alive) return;
      if (readFailed) setAlert(error, "");
      readFailed = false;
      display(detail);
      schedule(detail);
    } catch (e) {
      if (!ctx.alive) return;
      readFailed = true;
      setAlert(error, `The session could not be read: ${e.message}`);
      if (e.status === 404 || e.status === 403 || e.status === 401) {
        fill(info);
        fill(actions);
        usage.stop();
        return;
      }
      poll(5000); // a passing failure: try again, slower
    }
  }

  function schedule(detail) {
    const s = (detail && detail.session) || {};
    if (ENDED.includes(s.state)) return;
    // Transitional states change within seconds; a running or paused one only slowly (cost, warnings).
    poll(TRANSITIONAL.includes(s.state) ? 2000 : 15000);
  }

  function display(detail) {
    const s = (detail && detail.session) || {};
    heading.textContent = `Session ${s.name || s.id || id}`;
    document.title = `${heading.textContent} · gShare`;
    usage.follow(s, state.me);
    // Redraw only what changed, so a poll does not replace buttons under the pointer.
    const json = JSON.stringify(detail);
    if (json === lastJson) return;
    lastJson = json;
    fill(info, sessionInfo(detail));
    fill(actions, ...commandButtons(s));
  }

  function commandButtons(s) {
    const buttons = [];
    if (s.state === "running") buttons.push(command("Pause", "pause", "POST", "/pause"));
    if (s.state === "paused") buttons.push(command("Resume", "resume", "POST", "/resume"));
    if (s.state && !ENDED.includes(s.state) && s.state !== "terminating") {
      buttons.push(command("Terminate", "terminate", "DELETE", "", "danger"));
    }
    return buttons;
  }

  function command(label, name, method, suffix, extraClass) {
    return h("button", {
      type: "button", id: `session-${name}`, class: extraClass || null, text: label,
      onclick: async (event) => {
        const button = event.currentTarget;
        for (const b of actions.querySelectorAll("button")) b.disabled = true;
        readFailed = false;
        setAlert(error, "");
        try {
          const detail = await api(method, `/api/v1/sessions/${encodeURIComponent(id)}${suffix}`);
          if (!ctx.alive) return;
          lastJson = "";
          display(detail);
          // Follow the command's steps closely, whatever state the answer shows.
          poll(2000);
        } catch (e) {
          setAlert(error, `${label} failed: ${e.message}`);
          for (const b of actions.querySelectorAll("button")) b.disabled = false;
          button.focus();
        }
      },
    });
  }

  load();
});

/** The detail's facts as a definition list, plus warnings and the current operation. */
function sessionInfo(detail) {
  const s = detail.session || {};
  const gpus = Array.isArray(detail.gpus) ? detail.gpus : [];
  const url = safeUrl(s.url);
  const idle = s.idle || null;
  const rows = [
    ["State", stateBadge(s.state, { id: "session-state" })],
    ["State reason", h("span", { id: "session-state-reason", text: show(s.state_reason) })],
    ["URL", url ? h("a", { id: "session-url", href: url, target: "_blank", rel: "noopener noreferrer", text: url })
      : h("span", { id: "session-url-none", text: ENDED.includes(s.state) ? "none (ended)" : "not yet (it appears once the session runs)" })],
    ["Cluster", show(s.cluster_name || s.cluster_id)],
    ["Node", h("span", { id: "session-node", text: show(s.node_hostname) })],
    ["GPU", `${show(s.gpu_model)}${s.mode ? ` (${s.mode})` : ""}`],
    ["GPUs held", h("span", { id: "session-gpus" }, gpus.length ? h("ul", { class: "plain" }, gpus.map((g) => h("li", {
      text: [show(g.uuid), g.hostname ? `on ${g.hostname}` : "",
        g.gpumem_mib ? `${fmtNumber(g.gpumem_mib, 0)} MiB` : "", g.gpucores_percent ? `${g.gpucores_percent}% cores` : ""]
        .filter(Boolean).join(", "),
    }))) : "none")],
    ["Cost so far", h("span", { id: "session-cost", text: fmtCredits(detail.cost_so_far) })],
    ["Price", s.price_per_hour !== undefined ? `${fmtNumber(s.price_per_hour)} credits/hour` : "—"],
    ["Image", show(s.image_reference)],
    ["Volume", s.volume_id ? h("a", { href: "#/volumes", text: s.volume_id }) : "none"],
    ["Last pause", show(s.pause_kind)],
    ["Created", fmtTime(s.created_at)],
    ["Started", fmtTime(s.started_at)],
    ["Ended", fmtTime(s.ended_at)],
    ["Id", h("code", { text: show(s.id) })],
  ];
  const box = h("div", null,
    detail.warning ? h("p", { id: "session-warning", class: "warning", role: "status", text: `Warning: ${detail.warning}` }) : null,
    idle && idle.warning ? h("p", { id: "session-idle-warning", class: "warning", role: "status",
      text: `Idle: ${idle.warning}${idle.pause_at ? ` (pause at ${fmtTime(idle.pause_at)})` : ""}` }) : null,
    h("dl", { class: "facts" }, rows.map(([term, value]) => [h("dt", { text: term }), h("dd", null, value)])));
  if (idle && (idle.idle_since || idle.last_activity_at)) {
    box.appendChild(h("p", { class: "muted", id: "session-idle",
      text: `GPU activity (${show(idle.source)}): idle since ${fmtTime(idle.idle_since)}, last active ${fmtTime(idle.last_activity_at)}.` }));
  }
  const op = detail.operation;
  box.appendChild(h("section", { id: "session-operation", "aria-labelledby": "session-operation-heading" },
    h("h2", { id: "session-operation-heading", text: "Current operation" }),
    op ? renderOperation(op) : emptyNote("No command is running.")));
  return box;
}

/** Every workflow run on the session, with Temporal UI links: read only when opened (it asks Temporal). */
function operationHistory(id) {
  const body = h("div", { id: "session-operations" });
  const details = h("details", { class: "history" }, h("summary", { text: "Operation history" }), body);
  let loaded = false;
  details.addEventListener("toggle", async () => {
    if (!details.open || loaded) return;
    loaded = true;
    fill(body, statusBox(null, "Loading…"));
    try {
      const list = await api("GET", `/api/v1/operations${query({ object_kind: "session", object_id: id })}`);
      const items = (list && list.items) || [];
      fill(body, items.length ? dataTable([
        { label: "Operation", cell: (o) => h("a", { href: `#/operations/${encodeURIComponent(o.id)}`, text: show(o.id) }) },
        { label: "Type", cell: (o) => show(o.type) },
        { label: "Status", cell: (o) => show(o.status) },
        { label: "Started", cell: (o) => fmtTime(o.started_at) },
        { label: "Ended", cell: (o) => fmtTime(o.ended_at) },
        { label: "Temporal", cell: (o) => (safeUrl(o.temporal_ui_url) ? externalLink(o.temporal_ui_url, "open") : "—") },
      ], items, { caption: "Operations on this session, newest first" }) : emptyNote("No operations recorded."));
    } catch (e) {
      loaded = false;
      fill(body, h("p", { class: "alert", role: "alert", text: `The operations could not be listed: ${e.message}` }));
    }
  });
  return details;
}

// ---------------------------------------------------------------------------------------------------------------
// Live usage: Server-Sent Events from the node's usage agent, drawn as two small SVG line charts.

const USAGE_POINTS = 120;
const NOT_AVAILABLE = "live usage is not available (the operator has not enabled the usage agent)";
const SVG_NS = "http://www.w3.org/2000/svg";

function usagePanel(ctx, sessionId) {
  const status = h("p", { id: "usage-status", class: "status", role: "status", "aria-live": "polite" });
  const latest = h("p", { id: "usage-latest", class: "muted" });
  const cpu = lineChart("usage-cpu", "CPU (cores)");
  const memory = lineChart("usage-memory", "Memory");
  const element = h("section", { id: "usage", "aria-labelledby": "usage-heading" },
    h("h2", { id: "usage-heading", text: "Live usage" }), status,
    h("div", { id: "usage-chart", class: "charts" }, cpu.figure, memory.figure), latest);
  const points = [];
  let source = null;
  let silence = null;
  let gotSample = false;
  let refused = false;

  function stop() {
    if (source) source.close();
    source = null;
    if (silence) clearTimeout(silence);
    silence = null;
  }
  ctx.onLeave(stop);

  function open() {
    stop();
    gotSample = false;
    status.textContent = "Connecting to the live usage stream…";
    const es = new EventSource(`/api/v1/sessions/${encodeURIComponent(sessionId)}/usage/stream`);
    source = es;
    // The stream sends the last two minutes at once; silence means no agent samples this session.
    silence = setTimeout(() => {
      if (!gotSample && source === es) status.textContent = `No samples yet: ${NOT_AVAILABLE}.`;
    }, 10000);
    es.addEventListener("usage", (event) => {
      let sample;
      try {
        sample = JSON.parse(event.data);
      } catch (e) {
        return; // a malformed line is skipped, the next second brings another
      }
      if (!sample || typeof sample !== "object") return;
      gotSample = true;
      points.push(sample);
      while (points.length > USAGE_POINTS) points.shift();
      status.textContent = `Live: ${points.length} sample${points.length === 1 ? "" : "s"}, one a second.`;
      draw();
    });
    es.addEventListener("error", () => {
      if (source !== es) return;
      // After samples, a closed stream (its 30-minute lifetime) reconnects by itself; otherwise the stream is
      // refused or absent: say so and stop asking.
      if (gotSample && es.readyState === EventSource.CONNECTING) {
        status.textContent = "The live usage stream was interrupted; reconnecting…";
        return;
      }
      stop();
      refused = true;
      status.textContent = `No live chart: ${NOT_AVAILABLE}.`;
    });
  }

  function draw() {
    cpu.draw(points.map((p) => Number(p.cpu_cores) || 0), (v) => `${fmtNumber(v, 2)} cores`);
    memory.draw(points.map((p) => Number(p.memory_bytes) || 0), (v) => fmtBytes(v));
    const last = points[points.length - 1] || {};
    const parts = [
      `CPU ${fmtNumber(last.cpu_cores, 2)} cores`,
      `memory ${fmtBytes(last.memory_bytes)}`,
      `disk read ${fmtBytes(last.io_read_bytes_per_second)}/s`,
      `disk write ${fmtBytes(last.io_write_bytes_per_second)}/s`,
    ];
    if (last.gpu_memory_bytes !== undefined && last.gpu_memory_bytes !== null) parts.push(`GPU memory ${fmtBytes(last.gpu_memory_bytes)}`);
    if (last.gpu_util_percent !== undefined && last.gpu_util_percent !== null) parts.push(`GPU ${fmtNumber(last.gpu_util_percent, 0)}%`);
    latest.textContent = `Latest (${fmtTime(last.sampled_at)}): ${parts.join(", ")}.`;
  }

  /** Streams only for a running session, and only to its owner (the api answers 404 to anyone else). */
  function follow(session, me) {
    if (session.state !== "running") {
      if (source) stop();
      if (!refused) status.textContent = session.state ? `Live usage is shown while the session runs (it is ${session.state}).` : "";
      return;
    }
    if (me && session.user_id && me.id !== session.user_id) {
      stop();
      status.textContent = "Live usage is shown to the session's owner only.";
      return;
    }
    if (!source && !refused) open();
  }

  return { element, follow, stop };
}

/** A labelled SVG line chart of up to USAGE_POINTS values, scaled to its own maximum. */
function lineChart(id, title) {
  const width = 240;
  const height = 60;
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("id", `${id}-chart`);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${title}: no samples yet`);
  const axis = document.createElementNS(SVG_NS, "line");
  for (const [k, v] of [["x1", 0], ["y1", height - 1], ["x2", width], ["y2", height - 1], ["class", "axis"]]) axis.setAttribute(k, String(v));
  const line = document.createElementNS(SVG_NS, "polyline");
  line.setAttribute("id", id);
  line.setAttribute("class", "series");
  line.setAttribute("points", "");
  svg.append(axis, line);
  const caption = h("figcaption", { text: title });
  const figure = h("figure", { class: "chart" }, caption, svg);
  return {
    figure,
    draw(values, label) {
      const max = Math.max(...values, 1e-9);
      const step = width / (USAGE_POINTS - 1);
      const offset = USAGE_POINTS - values.length; // the newest point is always at the right edge
      line.setAttribute("points", values.map((v, i) =>
        `${((offset + i) * step).toFixed(1)},${(height - 2 - (v / max) * (height - 6)).toFixed(1)}`).join(" "));
      const now = values.length ? values[values.length - 1] : 0;
      caption.textContent = `${title}: now ${label(now)}, peak ${label(max)}`;
      svg.setAttribute("aria-label", `${title} over the last ${values.length} seconds: now ${label(now)}, peak ${label(max)}`);
    },
  };
}
