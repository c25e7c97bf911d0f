// What admins set up so users can start sessions (docs/operator/catalogue.md): offerings (#/offerings), images and
// their pre-pull (#/images), node pools and storage pools (#/pools), policies (#/policies). Also the small helpers
// operators.js (users, teams, clusters) shares: labelled fields, list answers, teams and nodes.
"use strict";

/** A labelled control in the usual label-above-control layout; a hint is tied to the control for screen readers. */
function field(id, label, control, hint) {
  if (hint) control.setAttribute("aria-describedby", `${id}-hint`);
  return h("div", { class: "field" }, h("label", { for: id, text: label }), control,
    hint ? h("small", { id: `${id}-hint`, text: hint }) : null);
}

/** A list answer's items; anything else (absent, not an array) is no items, so a page never throws on it. */
function itemsOf(answer) {
  return Array.isArray(answer && answer.items) ? answer.items.filter((x) => x && typeof x === "object") : [];
}

/** A number input's value, or undefined when blank (the api reads an absent field as "no limit" / "unchanged"). */
function numberOrAbsent(input) {
  const text = input.value.trim();
  return text === "" ? undefined : Number(text);
}

/** Drops undefined members, so a body carries only what the admin filled in. */
function compact(body) {
  const out = {};
  for (const [key, value] of Object.entries(body)) if (value !== undefined) out[key] = value;
  return out;
}

async function listTeams() {
  return itemsOf(await api("GET", "/api/v1/teams"));
}

function teamLabel(teams, id) {
  if (!id) return "—";
  const team = teams.find((t) => t.id === id);
  return team && team.name ? team.name : id;
}

function nodeLabel(n) {
  return `${show(n.hostname || n.id)} (${clusterName(n.cluster_id)})`;
}

/**
 * Shows a started operation (a 202's `operation`) in `box`, polled every 2 s while it runs. A 409
 * operation_in_progress names the one already running (`operation_id`): that one is followed instead, so the admin
 * still sees progress.
 */
function followStarted(ctx, operationId, box, onEnd) {
  if (!operationId) return;
  fill(box, h("p", { class: "muted", text: `Following ${operationId}…` }));
  followOperation(ctx, operationId, box, onEnd);
}

function runningOperationOf(error) {
  return error && error.code === "operation_in_progress" && error.problem && typeof error.problem.operation_id === "string"
    ? error.problem.operation_id : null;
}

/** A button that opens a form under it (created when opened, removed when closed, so only one set of labels exists). */
function disclosure(label, accessibleName, build) {
  const area = h("div", { class: "row-edit" });
  const button = h("button", { type: "button", class: "secondary", text: label, "aria-label": accessibleName,
    "aria-expanded": "false" });
  const close = () => {
    fill(area);
    button.setAttribute("aria-expanded", "false");
    button.focus();
  };
  button.addEventListener("click", () => {
    if (button.getAttribute("aria-expanded") === "true") {
      close();
      return;
    }
    fill(area, build(close));
    button.setAttribute("aria-expanded", "true");
    const first = area.querySelector("input, select");
    if (first) first.focus();
  });
  return { button, area };
}

// ---------------------------------------------------------------------------------------------------------------
// #/offerings

function offeringShape(o) {
  if (o.mode === "fractional") return `slice: ${fmtNumber(o.gpumem_mib, 0)} MiB, ${fmtNumber(o.gpucores_percent, 0)}% cores`;
  if (o.mode === "exclusive") return `${fmtNumber(o.gpu_count, 0)} × whole GPU`;
  return "—";
}

route(/^\/offerings\/?$/, { nav: "offerings", admin: true }, (ctx, section) => {
  pageHeading(section, "Offerings");
  const error = alertBox("offerings-error");
  const status = statusBox("offerings-status");
  const listArea = h("div", { id: "offerings-list" }, statusBox(null, "Loading offerings…"));
  const unofferedArea = h("div", { id: "unoffered-models-area" });
  const form = newOfferingForm(() => load());
  append(section, [
    error, status, listArea,
    h("h2", { id: "unoffered-heading", text: "GPU models without an offering" }),
    h("p", { class: "muted", text: "Cards of these models are in the inventory, but no active offering sells them: users cannot start sessions on them." }),
    unofferedArea,
    form.element,
  ]);

  // model -> names of the clusters whose (live) nodes report cards of it, from the inventory.
  let holders = null;

  const columns = [
    { label: "Name", cell: (o) => h("strong", { text: show(o.name) }) },
    { label: "GPU model", cell: (o) => h("span", { class: "offering-model", text: show(o.gpu_model) }) },
    { label: "Mode", cell: (o) => show(o.mode) },
    { label: "Count or slice", cell: (o) => offeringShape(o) },
    { label: "Price per hour", cell: (o) => `${fmtNumber(o.price_per_hour)} credits` },
    { label: "Active", cell: (o) => h("span", { class: "offering-active", text: yesNo(o.active) }) },
    { label: "Clusters", cell: (o) => clusterTag(o) },
    { label: "Actions", cell: (o) => offeringActions(o) },
  ];

  /**
   * "cluster has" comes from the api's cluster_has (cards of the model in an attached cluster); which clusters is
   * read from the inventory (GET /api/v1/nodes), which the api does not say per offering.
   */
  function clusterTag(o) {
    const where = holders ? holders.get(o.gpu_model) || [] : [];
    const has = typeof o.cluster_has === "boolean" ? o.cluster_has : holders ? where.length > 0 : null;
    if (has === null) return "—";
    return [h("span", { class: `tag ${has ? "tag-ok" : "tag-missing"} offering-cluster-has`, text: has ? "cluster has" : "no cluster has it" }),
      has && where.length ? h("div", { class: "muted", text: where.join(", ") }) : null];
  }

  function offeringActions(o) {
    const label = show(o.name);
    const alert = alertBox(`offering-alert-${o.id}`);
    const edit = disclosure("Edit", `Edit ${label}`, (close) => offeringEditForm(o, alert, close));
    return h("div", { class: "row-actions" },
      h("div", { class: "buttons" }, edit.button,
        h("button", { type: "button", class: "secondary", text: o.active === false ? "Activate" : "Deactivate",
          "aria-label": `${o.active === false ? "Activate" : "Deactivate"} ${label}`,
          onclick: (e) => change(e.currentTarget, o, alert, "PATCH", { active: o.active === false },
            `Offering ${label} ${o.active === false ? "activated" : "deactivated"}.`) }),
        h("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete ${label}`,
          onclick: (e) => change(e.currentTarget, o, alert, "DELETE", undefined,
            `Offering ${label} deleted; sessions that used it keep their model and price.`) })),
      edit.area, alert);
  }

  /** Name, price and shape can change (the api keeps the model and mode); only changed fields are sent. */
  function offeringEditForm(o, alert, close) {
    const key = o.id;
    const name = h("input", { id: `offering-edit-name-${key}`, type: "text", maxlength: "100", value: o.name || "", autocomplete: "off" });
    const price = h("input", { id: `offering-edit-price-${key}`, type: "number", min: "0", step: "any", value: show(o.price_per_hour) === "—" ? "" : String(o.price_per_hour) });
    const fields = [field(name.id, "New name", name), field(price.id, "New price per hour (credits)", price)];
    let count = null;
    let mem = null;
    let cores = null;
    if (o.mode === "exclusive") {
      count = h("input", { id: `offering-edit-count-${key}`, type: "number", min: "1", max: "64", step: "1", value: o.gpu_count === undefined || o.gpu_count === null ? "" : String(o.gpu_count) });
      fields.push(field(count.id, "GPU count", count));
    } else if (o.mode === "fractional") {
      mem = h("input", { id: `offering-edit-gpumem-${key}`, type: "number", min: "1", step: "1", value: o.gpumem_mib === undefined || o.gpumem_mib === null ? "" : String(o.gpumem_mib) });
      cores = h("input", { id: `offering-edit-gpucores-${key}`, type: "number", min: "1", max: "100", step: "1", value: o.gpucores_percent === undefined || o.gpucores_percent === null ? "" : String(o.gpucores_percent) });
      fields.push(field(mem.id, "Slice memory (MiB)", mem), field(cores.id, "Slice cores (%)", cores));
    }
    const save = h("button", { type: "submit", text: "Save", "aria-label": `Save ${show(o.name)}` });
    const form = h("form", { class: "card compact", "aria-label": `Edit offering ${show(o.name)}`, novalidate: "" }, fields,
      h("p", { class: "buttons" }, save, h("button", { type: "button", class: "secondary", text: "Cancel", onclick: close })));
    submitting(form, alert, null, () => {
      const body = {};
      if (name.value.trim() && name.value.trim() !== o.name) body.name = name.value.trim();
      const newPrice = numberOrAbsent(price);
      if (newPrice !== undefined && newPrice !== Number(o.price_per_hour)) body.price_per_hour = newPrice;
      if (count && numberOrAbsent(count) !== undefined && numberOrAbsent(count) !== o.gpu_count) body.gpu_count = numberOrAbsent(count);
      if (mem && numberOrAbsent(mem) !== undefined && numberOrAbsent(mem) !== o.gpumem_mib) body.gpumem_mib = numberOrAbsent(mem);
      if (cores && numberOrAbsent(cores) !== undefined && numberOrAbsent(cores) !== o.gpucores_percent) body.gpucores_percent = numberOrAbsent(cores);
      if (!Object.keys(body).length) return refuse(alert, "Nothing changed.");
      change(save, o, alert, "PATCH", body, `Offering ${show(body.name || o.name)} saved.`);
    });
    return form;
  }

  /** PATCH or DELETE the offering; on success the list is read again, which redraws the row and its buttons. */
  function change(button, o, alert, method, body, done) {
    return busy(button, alert, method === "DELETE" ? "Delete refused" : "The change was refused", async () => {
      await api(method, `/api/v1/offerings/${encodeURIComponent(o.id)}`, body);
      if (!ctx.alive) return;
      status.textContent = done;
      load();
    }, { keepDisabled: true });
  }

  function unofferedList(models) {
    if (!models.length) return emptyNote("Every GPU model in the inventory has an active offering.");
    return h("ul", { id: "unoffered-models", class: "plain tags" }, models.map((m) => h("li", { "data-model": m },
      h("span", { class: "tag tag-missing", text: m }), " ",
      h("button", { type: "button", class: "secondary small", text: "Offer it", "aria-label": `Create an offering for ${m}`,
        onclick: () => form.prefill(m) }))));
  }

  async function load() {
    setAlert(error, "");
    const [offerings, nodes] = await Promise.allSettled([api("GET", "/api/v1/offerings"), api("GET", "/api/v1/nodes")]);
    if (!ctx.alive) return;
    holders = null;
    const inventoryModels = new Set();
    if (nodes.status === "fulfilled") {
      holders = new Map();
      for (const n of itemsOf(nodes.value)) {
        for (const g of Array.isArray(n.gpus) ? n.gpus : []) {
          if (!g || !g.model) continue;
          inventoryModels.add(g.model);
          const names = holders.get(g.model) || [];
          const name = clusterName(n.cluster_id);
          if (!names.includes(name)) names.push(name);
          holders.set(g.model, names);
        }
      }
    }
    if (offerings.status !== "fulfilled") {
      fill(listArea);
      fill(unofferedArea);
      setAlert(error, `The offerings could not be listed: ${offerings.reason.message}`);
      return;
    }
    const answer = offerings.value || {};
    const items = itemsOf(answer);
    fill(listArea, items.length ? dataTable(columns, items, {
      id: "offerings-table", caption: "Offerings by GPU model",
      rowProps: (o) => ({ id: `offering-${o.id}`, "data-offering-id": o.id, "data-active": String(o.active !== false) }),
    }) : emptyNote("No offerings yet: create one below."));
    // The api lists models with cards and no active offering for admins (unoffered_models); should an api not send
    // it, the same is computed from the inventory's GPU models minus the active offerings' gpu_model.
    let unoffered = Array.isArray(answer.unoffered_models) ? answer.unoffered_models.filter((m) => typeof m === "string") : null;
    if (!unoffered && holders) {
      const sold = new Set(items.filter((o) => o.active !== false).map((o) => o.gpu_model));
      unoffered = [...inventoryModels].filter((m) => !sold.has(m)).sort();
    }
    fill(unofferedArea, unoffered ? unofferedList(unoffered)
      : h("p", { class: "alert", role: "alert", text: `The inventory could not be read: ${nodes.reason ? nodes.reason.message : "no answer"}` }));
    form.setModels([...new Set([...(unoffered || []), ...inventoryModels, ...items.map((o) => o.gpu_model).filter(Boolean)])].sort());
  }

  load();
});

/** The "New offering" form: exclusive sells a GPU count, fractional a slice (memory and cores). */
function newOfferingForm(created) {
  const name = h("input", { id: "offering-name", name: "name", type: "text", required: true, maxlength: "100", autocomplete: "off", placeholder: "a100-1x" });
  const model = h("input", { id: "offering-model", name: "gpu_model", type: "text", required: true, maxlength: "200", autocomplete: "off", list: "offering-model-options" });
  const models = h("datalist", { id: "offering-model-options" });
  const mode = h("select", { id: "offering-mode", name: "mode" },
    h("option", { value: "exclusive", text: "exclusive: whole GPUs" }), h("option", { value: "fractional", text: "fractional: a slice of a GPU" }));
  const count = h("input", { id: "offering-count", name: "gpu_count", type: "number", min: "1", max: "64", step: "1", value: "1" });
  const mem = h("input", { id: "offering-gpumem", name: "gpumem_mib", type: "number", min: "1", step: "1", placeholder: "20480" });
  const cores = h("input", { id: "offering-gpucores", name: "gpucores_percent", type: "number", min: "1", max: "100", step: "1", placeholder: "25" });
  const price = h("input", { id: "offering-price", name: "price_per_hour", type: "number", min: "0", step: "any", required: true });
  const active = h("input", { id: "offering-active", name: "active", type: "checkbox", checked: true });
  const error = alertBox("new-offering-error");
  const status = statusBox("new-offering-status");
  const submit = h("button", { type: "submit", id: "create-offering", text: "Create offering" });
  const countField = field("offering-count", "GPU count", count);
  const memField = field("offering-gpumem", "Slice memory (MiB)", mem);
  const coresField = field("offering-gpucores", "Slice cores (%)", cores);
  const element = h("form", { id: "new-offering-form", class: "card", "aria-labelledby": "new-offering-heading", novalidate: "" },
    h("h2", { id: "new-offering-heading", text: "New offering" }),
    field("offering-name", "Name", name),
    field("offering-model", "GPU model", model, "Exactly as the inventory reports it (e.g. NVIDIA A100-SXM4-80GB)."), models,
    field("offering-mode", "Mode", mode), countField, memField, coresField,
    field("offering-price", "Price per hour (credits)", price),
    h("p", { class: "check" }, active, h("label", { for: "offering-active", text: "Active (users can start it)" })),
    error, status, h("p", null, submit));

  function showShape() {
    const fractional = mode.value === "fractional";
    countField.hidden = fractional;
    memField.hidden = !fractional;
    coresField.hidden = !fractional;
  }
  mode.addEventListener("change", showShape);
  showShape();

  submitting(element, error, status, () => {
    const missing = [[name, "a name"], [model, "a GPU model"], [price, "a price per hour"]].find(([input]) => !input.value.trim());
    if (missing) return refuse(error, `Give the offering ${missing[1]}.`, missing[0]);
    const fractional = mode.value === "fractional";
    const body = compact({
      name: name.value.trim(), gpu_model: model.value.trim(), mode: mode.value,
      gpu_count: fractional ? undefined : numberOrAbsent(count),
      gpumem_mib: fractional ? numberOrAbsent(mem) : undefined,
      gpucores_percent: fractional ? numberOrAbsent(cores) : undefined,
      price_per_hour: numberOrAbsent(price), active: active.checked,
    });
    busy(submit, error, "The offering could not be created", async () => {
      const offering = await api("POST", "/api/v1/offerings", body);
      status.textContent = `Offering ${show(offering && offering.name)} created${offering && offering.cluster_has === false ? " (no attached cluster has this model yet)" : ""}.`;
      name.value = "";
      created();
    });
  });

  return {
    element,
    setModels(list) {
      fill(models, list.map((m) => h("option", { value: m })));
    },
    prefill(m) {
      model.value = m;
      name.focus();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// #/images

route(/^\/images\/?$/, { nav: "images", admin: true }, (ctx, section) => {
  pageHeading(section, "Images");
  const chosen = selectedCluster();
  const error = alertBox("images-error");
  const status = statusBox("images-status");
  const where = h("select", { id: "prepull-cluster", name: "cluster_ids" },
    h("option", { value: "", text: "Every connected cluster" }),
    state.clusters.filter((c) => c.status !== "detached").map((c) => h("option", { value: c.id, text: `${show(c.name)} (${show(c.status)})` })));
  if (chosen && state.clusters.some((c) => c.id === chosen)) where.value = chosen;
  const listArea = h("div", { id: "images-list" }, statusBox(null, "Loading images…"));
  append(section, [
    h("fieldset", { class: "card filters" }, h("legend", { text: "Pre-pull options (used by every Pre-pull button)" }),
      field("prepull-cluster", "Pre-pull on", where, "Every ready GPU node there; nodes that have the image already are skipped.")),
    error, status, listArea,
    newImageForm(() => load()),
  ]);

  const columns = [
    { label: "Name", cell: (i) => h("strong", { text: show(i.name) }) },
    { label: "Reference", cell: (i) => h("code", { class: "image-reference", text: show(i.reference) }) },
    { label: "Web UI", cell: (i) => `port ${show(i.port)}, path ${show(i.path)}` },
    { label: "Active", cell: (i) => h("span", { class: "image-active", text: yesNo(i.active) }) },
    { label: "Description", cell: (i) => show(i.description) },
    { label: "Actions", cell: (i) => imageActions(i) },
  ];

  function imageActions(i) {
    const label = show(i.name);
    const alert = alertBox(`image-alert-${i.id}`);
    const progress = h("div", { id: `image-op-${i.id}`, class: "image-op" });
    return h("div", { class: "row-actions" },
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "image-prepull-button", text: "Pre-pull", "aria-label": `Pre-pull ${label}`,
          onclick: (e) => prepull(e.currentTarget, i, alert, progress) }),
        h("button", { type: "button", class: "secondary", text: i.active === false ? "Activate" : "Deactivate",
          "aria-label": `${i.active === false ? "Activate" : "Deactivate"} ${label}`,
          onclick: (e) => setActive(e.currentTarget, i, alert) })),
      h("a", { href: `#/operations/image-prepull-${encodeURIComponent(i.id)}`, text: "Pre-pull progress" }),
      alert, progress);
  }

  function prepull(button, i, alert, progress) {
    const body = where.value ? { cluster_ids: [where.value] } : {};
    const summary = h("p", { class: "muted prepull-nodes" });
    const opBox = h("div");
    // 409 operation_in_progress: one runs already for this image; its progress is what the admin wants to see.
    const followRunning = (e) => {
      const running = runningOperationOf(e);
      if (running) {
        fill(progress, opBox);
        followStarted(ctx, running, opBox);
      }
    };
    return busy(button, alert, "Pre-pull refused", async () => {
      const answer = await api("POST", `/api/v1/images/${encodeURIComponent(i.id)}/prepull`, body);
      if (!ctx.alive) return;
      const byCluster = answer && answer.nodes && typeof answer.nodes === "object" ? Object.entries(answer.nodes) : [];
      const total = byCluster.reduce((sum, [, hosts]) => sum + (Array.isArray(hosts) ? hosts.length : 0), 0);
      summary.textContent = `Pulling ${show(i.reference)} on ${total} node${total === 1 ? "" : "s"}: ` +
        (byCluster.map(([id, hosts]) => `${clusterName(id)}: ${Array.isArray(hosts) && hosts.length ? hosts.join(", ") : "none"}`).join("; ") || "—");
      fill(progress, summary, opBox);
      followStarted(ctx, answer && answer.operation && answer.operation.id, opBox);
    }, { onError: followRunning });
  }

  function setActive(button, i, alert) {
    return busy(button, alert, "The change was refused", async () => {
      await api("PATCH", `/api/v1/images/${encodeURIComponent(i.id)}`, { active: i.active === false });
      if (!ctx.alive) return;
      status.textContent = `Image ${show(i.name)} ${i.active === false ? "activated" : "deactivated"}.`;
      load();
    }, { keepDisabled: true });
  }

  async function load() {
    setAlert(error, "");
    try {
      const items = itemsOf(await api("GET", "/api/v1/images"));
      if (!ctx.alive) return;
      fill(listArea, items.length ? dataTable(columns, items, {
        id: "images-table", caption: "Session images",
        rowProps: (i) => ({ id: `image-${i.id}`, "data-image-id": i.id, "data-active": String(i.active !== false) }),
      }) : emptyNote("No images yet: add one below."));
    } catch (e) {
      fill(listArea);
      setAlert(error, `The images could not be listed: ${e.message}`);
    }
  }

  load();
});

function newImageForm(created) {
  const name = h("input", { id: "image-name", name: "name", type: "text", required: true, maxlength: "100", autocomplete: "off", placeholder: "jupyter" });
  const reference = h("input", { id: "image-reference", name: "reference", type: "text", required: true, maxlength: "500",
    autocomplete: "off", spellcheck: "false", placeholder: "registry.example.com/gshare/jupyter:2026.11" });
  const port = h("input", { id: "image-port", name: "port", type: "number", min: "1", max: "65535", step: "1", placeholder: "8888" });
  const path = h("input", { id: "image-path", name: "path", type: "text", maxlength: "200", autocomplete: "off", placeholder: "/" });
  const description = h("input", { id: "image-description", name: "description", type: "text", maxlength: "1000", autocomplete: "off" });
  const error = alertBox("new-image-error");
  const status = statusBox("new-image-status");
  const submit = h("button", { type: "submit", id: "create-image", text: "Create image" });
  const form = h("form", { id: "new-image-form", class: "card", "aria-labelledby": "new-image-heading", novalidate: "" },
    h("h2", { id: "new-image-heading", text: "New image" }),
    field("image-name", "Name", name),
    field("image-reference", "Reference", reference, "An image reference, without spaces."),
    field("image-port", "Port (optional)", port, "Where its web UI listens; 8888 (Jupyter) when blank."),
    field("image-path", "Path (optional)", path, "Starts with /; / when blank."),
    field("image-description", "Description (optional)", description),
    error, status, h("p", null, submit));

  submitting(form, error, status, () => {
    if (!name.value.trim()) return refuse(error, "Give the image a name.", name);
    if (!reference.value.trim()) return refuse(error, "Give the image a reference.", reference);
    const body = compact({
      name: name.value.trim(), reference: reference.value.trim(), port: numberOrAbsent(port),
      path: path.value.trim() || undefined, description: description.value.trim() || undefined,
    });
    busy(submit, error, "The image could not be created", async () => {
      const image = await api("POST", "/api/v1/images", body);
      status.textContent = `Image ${show(image && image.name)} created; pre-pull it so the first session starts at once.`;
      for (const input of [name, reference, port, path, description]) input.value = "";
      created();
    });
  });
  return form;
}

// ---------------------------------------------------------------------------------------------------------------
// #/pools: node pools (nodes dedicated to a team) and storage pools (where volumes live)

route(/^\/pools\/?$/, { nav: "pools", admin: true }, (ctx, section) => {
  pageHeading(section, "Pools");
  const nodeError = alertBox("node-pools-error");
  const nodeStatus = statusBox("node-pools-status");
  const nodeArea = h("div", { id: "node-pools-list" }, statusBox(null, "Loading node pools…"));
  const sharedArea = h("div", { id: "shared-pool" });
  const storageError = alertBox("storage-pools-error");
  const storageStatus = statusBox("storage-pools-status");
  const storageArea = h("div", { id: "storage-pools-list" }, statusBox(null, "Loading storage pools…"));
  const nodePoolForm = newNodePoolForm(() => loadNodePools());
  append(section, [
    h("section", { id: "node-pools", "aria-labelledby": "node-pools-heading" },
      h("h2", { id: "node-pools-heading", text: "Node pools" }),
      h("p", { class: "muted", text: "Nodes dedicated to a team. Nodes in no pool are the shared pool; deleting a pool returns its nodes there." }),
      nodeError, nodeStatus, nodeArea, sharedArea, nodePoolForm.element),
    h("section", { id: "storage-pools", "aria-labelledby": "storage-pools-heading" },
      h("h2", { id: "storage-pools-heading", text: "Storage pools" }),
      h("p", { class: "muted", text: "Where volumes live: a StorageClass served by a storage server on a source cluster. Each pool's capacity is its own." }),
      storageError, storageStatus, storageArea, newStoragePoolForm(() => loadStoragePools())),
  ]);

  let teams = [];
  let nodes = null; // null: the inventory could not be read, so nodes cannot be assigned here

  function poolNodes(pool) {
    const ids = Array.isArray(pool.node_ids) ? pool.node_ids : [];
    if (!ids.length) return "none";
    return h("ul", { class: "plain" }, ids.map((id) => {
      const n = nodes && nodes.find((x) => x.id === id);
      return h("li", { text: n ? nodeLabel(n) : id });
    }));
  }

  function poolActions(pool, pools) {
    const label = show(pool.name);
    const alert = alertBox(`node-pool-alert-${pool.id}`);
    const edit = disclosure("Change", `Change ${label}`, (close) => poolEditor(pool, pools, alert, close));
    return h("div", { class: "row-actions" },
      h("div", { class: "buttons" }, edit.button,
        h("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete ${label}`,
          onclick: (e) => deletePool(e.currentTarget, pool, alert) })),
      edit.area, alert);
  }

  /** The pool's team and its nodes; saving sends only what changed (PATCH team, then PUT the node list). */
  function poolEditor(pool, pools, alert, close) {
    const teamSelect = fillTeamSelect(h("select", { id: `node-pool-team-${pool.id}` }), teams, "No team (free)");
    teamSelect.value = pool.team_id || "";
    const current = new Set(Array.isArray(pool.node_ids) ? pool.node_ids : []);
    const boxes = [];
    let nodeSet;
    if (nodes) {
      nodeSet = h("fieldset", { class: "node-choices" }, h("legend", { text: `Nodes of ${show(pool.name)}` }),
        nodes.length ? nodes.map((n) => {
          const id = `node-pool-${pool.id}-node-${n.id}`;
          const box = h("input", { id, type: "checkbox", value: n.id, checked: current.has(n.id) });
          boxes.push(box);
          const elsewhere = n.pool_id && n.pool_id !== pool.id ? `, now in ${show((pools.find((p) => p.id === n.pool_id) || {}).name || n.pool_id)}` : "";
          return h("p", { class: "check" }, box, h("label", { for: id, text: `${nodeLabel(n)}${elsewhere}` }));
        }) : emptyNote("No nodes reported."));
    } else {
      nodeSet = h("p", { class: "muted", text: "The inventory could not be read, so nodes cannot be chosen here; reload the page." });
    }
    const save = h("button", { type: "submit", text: "Save", "aria-label": `Save ${show(pool.name)}` });
    const form = h("form", { class: "card compact", "aria-label": `Change node pool ${show(pool.name)}`, novalidate: "" },
      field(teamSelect.id, "Team", teamSelect), nodeSet,
      h("p", { class: "buttons" }, save, h("button", { type: "button", class: "secondary", text: "Cancel", onclick: close })));
    submitting(form, alert, null, () => {
      const chosenIds = boxes.filter((b) => b.checked).map((b) => b.value);
      const teamChanged = teamSelect.value !== (pool.team_id || "");
      const nodesChanged = nodes !== null && (chosenIds.length !== current.size || chosenIds.some((id) => !current.has(id)));
      if (!teamChanged && !nodesChanged) return refuse(alert, "Nothing changed.");
      busy(save, alert, "The change was refused", async () => {
        // "" frees the pool from its team (the api's PATCH reads an empty team_id so).
        if (teamChanged) await api("PATCH", `/api/v1/node-pools/${encodeURIComponent(pool.id)}`, { team_id: teamSelect.value });
        if (nodesChanged) await api("PUT", `/api/v1/node-pools/${encodeURIComponent(pool.id)}/nodes`, { node_ids: chosenIds });
        if (!ctx.alive) return;
        nodeStatus.textContent = `Node pool ${show(pool.name)} saved.`;
        loadNodePools();
      }, { keepDisabled: true });
    });
    return form;
  }

  function deletePool(button, pool, alert) {
    return busy(button, alert, "Delete refused", async () => {
      await api("DELETE", `/api/v1/node-pools/${encodeURIComponent(pool.id)}`);
      if (!ctx.alive) return;
      nodeStatus.textContent = `Node pool ${show(pool.name)} deleted; its nodes are in the shared pool again.`;
      loadNodePools();
    }, { keepDisabled: true });
  }

  async function loadNodePools() {
    setAlert(nodeError, "");
    const [poolsAnswer, teamsAnswer, nodesAnswer] = await Promise.allSettled([
      api("GET", "/api/v1/node-pools"), listTeams(), api("GET", "/api/v1/nodes"),
    ]);
    if (!ctx.alive) return;
    teams = teamsAnswer.status === "fulfilled" ? teamsAnswer.value : [];
    nodes = nodesAnswer.status === "fulfilled" ? itemsOf(nodesAnswer.value) : null;
    nodePoolForm.setTeams(teams);
    const problems = [];
    if (teamsAnswer.status !== "fulfilled") problems.push(`teams: ${teamsAnswer.reason.message}`);
    if (nodesAnswer.status !== "fulfilled") problems.push(`nodes: ${nodesAnswer.reason.message}`);
    if (poolsAnswer.status !== "fulfilled") {
      fill(nodeArea);
      fill(sharedArea);
      setAlert(nodeError, `The node pools could not be listed: ${poolsAnswer.reason.message}`);
      return;
    }
    if (problems.length) setAlert(nodeError, `Some names could not be read: ${problems.join("; ")}`);
    const pools = itemsOf(poolsAnswer.value);
    fill(nodeArea, pools.length ? dataTable([
      { label: "Name", cell: (p) => h("strong", { text: show(p.name) }) },
      { label: "Team", cell: (p) => (p.team_id ? teamLabel(teams, p.team_id) : "no team") },
      { label: "Nodes", cell: (p) => poolNodes(p) },
      { label: "Description", cell: (p) => show(p.description) },
      { label: "Actions", cell: (p) => poolActions(p, pools) },
    ], pools, {
      id: "node-pools-table", caption: "Node pools",
      rowProps: (p) => ({ id: `node-pool-${p.id}`, "data-pool-id": p.id }),
    }) : emptyNote("No node pools: every node is in the shared pool."));
    if (nodes) {
      const shared = nodes.filter((n) => !n.pool_id);
      fill(sharedArea, h("p", { id: "shared-pool-nodes", text: shared.length
        ? `Shared pool (${shared.length} node${shared.length === 1 ? "" : "s"}): ${shared.map(nodeLabel).join(", ")}.`
        : "Shared pool: no nodes." }));
    } else {
      fill(sharedArea);
    }
  }

  // --- storage pools ---

  function capacity(p) {
    const allocated = `${fmtNumber(p.allocated_gb, 0)} GiB allocated`;
    if (p.total_gb === undefined || p.total_gb === null) {
      return `capacity not reported yet (${show(p.capacity_source)}); ${allocated}`;
    }
    return `${fmtNumber(p.free_gb, 0)} GiB free of ${fmtNumber(p.total_gb, 0)} GiB; ${allocated}`;
  }

  function readiness(p) {
    const list = Array.isArray(p.clusters) ? p.clusters.filter((c) => c && typeof c === "object") : [];
    if (!list.length) return "—";
    return h("ul", { class: "plain" }, list.map((c) => h("li", {
      class: `readiness-${c.status || "unknown"}`,
      text: `${show(c.cluster_name || clusterName(c.cluster_id))}: ${show(c.status)}`,
    })));
  }

  function storageActions(p) {
    const label = show(p.name);
    const alert = alertBox(`storage-pool-alert-${p.id}`);
    return h("div", { class: "row-actions" },
      h("div", { class: "buttons" },
        p.is_default ? null : h("button", { type: "button", class: "secondary", text: "Make default", "aria-label": `Make ${label} the default`,
          onclick: (e) => storageChange(e.currentTarget, alert, "PATCH", p, { is_default: true }, `Storage pool ${label} is now the default.`) }),
        h("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete ${label}`,
          onclick: (e) => storageChange(e.currentTarget, alert, "DELETE", p, undefined, `Storage pool ${label} deleted.`) })),
      alert);
  }

  // A refusal, e.g. 409 conflict while volumes not reclaimed live in it, is said in the api's words.
  function storageChange(button, alert, method, p, body, done) {
    return busy(button, alert, method === "DELETE" ? "Delete refused" : "The change was refused", async () => {
      await api(method, `/api/v1/storage/pools/${encodeURIComponent(p.id)}`, body);
      if (!ctx.alive) return;
      storageStatus.textContent = done;
      loadStoragePools();
    }, { keepDisabled: true });
  }

  async function loadStoragePools() {
    setAlert(storageError, "");
    try {
      const pools = itemsOf(await api("GET", "/api/v1/storage/pools"));
      if (!ctx.alive) return;
      fill(storageArea, pools.length ? dataTable([
        { label: "Name", cell: (p) => [h("strong", { text: show(p.name) }), p.is_default ? [" ", h("span", { class: "tag tag-ok", text: "default" })] : null] },
        { label: "Source cluster", cell: (p) => clusterName(p.cluster_id) },
        { label: "StorageClass", cell: (p) => h("code", { text: show(p.storage_class) }) },
        { label: "Scope", cell: (p) => (p.scope === "selected"
          ? `selected: ${(Array.isArray(p.cluster_ids) ? p.cluster_ids : []).map(clusterName).join(", ") || "—"}` : show(p.scope)) },
        { label: "Capacity", cell: (p) => [h("span", { class: "storage-capacity", text: capacity(p) }),
          h("div", { class: "muted", text: `source: ${show(p.capacity_source)}${p.capacity_source === "manual" ? ` (${fmtNumber(p.manual_capacity_gb, 0)} GiB)` : ""}` })] },
        { label: "Clusters", cell: (p) => readiness(p) },
        { label: "Actions", cell: (p) => storageActions(p) },
      ], pools, {
        id: "storage-pools-table", caption: "Storage pools",
        rowProps: (p) => ({ id: `storage-pool-${p.id}`, "data-pool-id": p.id }),
      }) : emptyNote("No storage pools registered."));
    } catch (e) {
      fill(storageArea);
      setAlert(storageError, `The storage pools could not be listed: ${e.message}`);
    }
  }

  loadNodePools();
  loadStoragePools();
});

function newNodePoolForm(created) {
  const name = h("input", { id: "node-pool-name", name: "name", type: "text", required: true, maxlength: "100", autocomplete: "off" });
  const team = h("select", { id: "node-pool-team", name: "team_id" });
  const setTeams = (teams) => fillTeamSelect(team, teams, "No team yet");
  setTeams([]);
  const description = h("input", { id: "node-pool-description", name: "description", type: "text", maxlength: "1000", autocomplete: "off" });
  const error = alertBox("new-node-pool-error");
  const status = statusBox("new-node-pool-status");
  const submit = h("button", { type: "submit", id: "create-node-pool", text: "Create node pool" });
  const element = h("form", { id: "new-node-pool-form", class: "card", "aria-labelledby": "new-node-pool-heading", novalidate: "" },
    h("h3", { id: "new-node-pool-heading", text: "New node pool" }),
    field("node-pool-name", "Pool name", name), field("node-pool-team", "Team (optional)", team),
    field("node-pool-description", "Description (optional)", description),
    error, status, h("p", null, submit));
  submitting(element, error, status, () => {
    if (!name.value.trim()) return refuse(error, "Give the pool a name.", name);
    busy(submit, error, "The node pool could not be created", async () => {
      const pool = await api("POST", "/api/v1/node-pools", compact({
        name: name.value.trim(), team_id: team.value || undefined, description: description.value.trim() || undefined,
      }));
      status.textContent = `Node pool ${show(pool && pool.name)} created; choose its nodes with "Change".`;
      name.value = "";
      description.value = "";
      created();
    });
  });
  return { element, setTeams };
}

/** Register a storage pool: its source cluster, StorageClass, scope (all or selected clusters), capacity source. */
function newStoragePoolForm(created) {
  const clusters = state.clusters.filter((c) => c.status !== "detached");
  const name = h("input", { id: "storage-pool-name", name: "name", type: "text", required: true, maxlength: "100", autocomplete: "off", placeholder: "zfs-main" });
  const source = h("select", { id: "storage-pool-cluster", name: "cluster_id", required: true },
    h("option", { value: "", text: clusters.length ? "Choose the source cluster" : "No clusters registered" }),
    clusters.map((c) => h("option", { value: c.id, text: show(c.name) })));
  const storageClass = h("input", { id: "storage-pool-class", name: "storage_class", type: "text", required: true, maxlength: "253",
    autocomplete: "off", spellcheck: "false", value: "gshare-data" });
  const scope = h("select", { id: "storage-pool-scope", name: "scope" },
    h("option", { value: "all", text: "all: every cluster may mount it" }), h("option", { value: "selected", text: "selected: only the clusters below" }));
  const boxes = clusters.map((c) => h("input", { id: `storage-pool-cluster-${c.id}`, type: "checkbox", value: c.id }));
  const scopeClusters = h("fieldset", { id: "storage-pool-clusters", class: "node-choices" },
    h("legend", { text: "Clusters that may mount it" }),
    clusters.length ? clusters.map((c, i) => h("p", { class: "check" }, boxes[i], h("label", { for: boxes[i].id, text: show(c.name) })))
      : emptyNote("No clusters registered."));
  const capacitySource = h("select", { id: "storage-pool-capacity-source", name: "capacity_source" },
    h("option", { value: "csi", text: "csi: measured by the CSI driver" }),
    h("option", { value: "manual", text: "manual: entered here" }),
    h("option", { value: "node_disk", text: "node_disk: the storage node's root disk" }));
  const manual = h("input", { id: "storage-pool-manual-gb", name: "manual_capacity_gb", type: "number", min: "1", step: "1" });
  const manualField = field("storage-pool-manual-gb", "Manual capacity (GiB)", manual);
  const isDefault = h("input", { id: "storage-pool-default", name: "is_default", type: "checkbox" });
  const error = alertBox("new-storage-pool-error");
  const status = statusBox("new-storage-pool-status");
  const submit = h("button", { type: "submit", id: "create-storage-pool", text: "Register storage pool" });
  const form = h("form", { id: "new-storage-pool-form", class: "card", "aria-labelledby": "new-storage-pool-heading", novalidate: "" },
    h("h3", { id: "new-storage-pool-heading", text: "New storage pool" }),
    field("storage-pool-name", "Pool name", name),
    field("storage-pool-cluster", "Source cluster", source, "Where the storage server lives."),
    field("storage-pool-class", "StorageClass", storageClass),
    field("storage-pool-scope", "Scope", scope), scopeClusters,
    field("storage-pool-capacity-source", "Capacity source", capacitySource), manualField,
    h("p", { class: "check" }, isDefault, h("label", { for: "storage-pool-default", text: "Default pool (volumes that name no pool go here)" })),
    error, status, h("p", null, submit));

  function showChoices() {
    scopeClusters.hidden = scope.value !== "selected";
    manualField.hidden = capacitySource.value !== "manual";
  }
  scope.addEventListener("change", showChoices);
  capacitySource.addEventListener("change", showChoices);
  showChoices();

  submitting(form, error, status, () => {
    if (!name.value.trim()) return refuse(error, "Give the pool a name.", name);
    if (!source.value) return refuse(error, "Choose the source cluster.", source);
    // cluster_ids only with scope selected, manual_capacity_gb only with manual: the api refuses them otherwise.
    const body = compact({
      name: name.value.trim(), cluster_id: source.value, storage_class: storageClass.value.trim(), scope: scope.value,
      cluster_ids: scope.value === "selected" ? boxes.filter((b) => b.checked).map((b) => b.value) : undefined,
      capacity_source: capacitySource.value,
      manual_capacity_gb: capacitySource.value === "manual" ? numberOrAbsent(manual) : undefined,
      is_default: isDefault.checked,
    });
    busy(submit, error, "The storage pool could not be registered", async () => {
      const pool = await api("POST", "/api/v1/storage/pools", body);
      status.textContent = `Storage pool ${show(pool && pool.name)} registered.`;
      name.value = "";
      created();
    });
  });
  return form;
}

// ---------------------------------------------------------------------------------------------------------------
// #/policies: the default policy and each team's (its own, or the default it follows)

/** The policy fields as PolicyController's PolicyInput takes them; blank means absent (no limit, or the default). */
const POLICY_FIELDS = [
  { key: "max_concurrent_sessions", id: "policy-max-concurrent", label: "Max concurrent sessions", min: "0", hint: "Blank: no limit." },
  { key: "max_runtime_minutes", id: "policy-max-runtime", label: "Max runtime (minutes)", min: "1", hint: "Blank: no limit." },
  { key: "max_runtime_action", id: "policy-max-runtime-action", label: "At max runtime", options: [["pause", "pause the session"], ["terminate", "end the session"]] },
  { key: "idle_timeout_minutes", id: "policy-idle-timeout", label: "Idle timeout (minutes)", min: "1", hint: "Blank: never reaped for idleness." },
  { key: "idle_timeout_minutes_fractional", id: "policy-idle-timeout-fractional", label: "Idle timeout of slices (minutes)", min: "1", hint: "Blank: the same as above." },
  { key: "overflow", id: "policy-overflow", label: "Overflow", options: [["shared_pool", "shared_pool: may use the shared pool"], ["none", "none: the team's pools only"]] },
  { key: "placement", id: "policy-placement", label: "Placement", options: [["binpack", "binpack: fill GPUs, keep whole ones free"], ["spread", "spread"]] },
  { key: "min_balance_to_start", id: "policy-min-balance", label: "Minimum balance to start (credits)", min: "0", step: "any", hint: "Blank: 0." },
  { key: "volume_quota_gb", id: "policy-volume-quota-gb", label: "Volume GiB per user", min: "0", hint: "Blank: no limit." },
  { key: "volume_quota_count", id: "policy-volume-quota-count", label: "Volumes per user", min: "0", hint: "Blank: no limit." },
  { key: "team_volume_quota_gb", id: "policy-team-volume-quota-gb", label: "Volume GiB per team", min: "0", hint: "Blank: no limit." },
  { key: "team_volume_quota_count", id: "policy-team-volume-quota-count", label: "Volumes per team", min: "0", hint: "Blank: no limit." },
];

function policySummary(p) {
  if (!p) return "—";
  const limit = (v, unit) => (v === undefined || v === null ? "no limit" : `${fmtNumber(v, 2)}${unit}`);
  return h("ul", { class: "plain policy-limits" }, [
    `sessions: ${limit(p.max_concurrent_sessions, "")}`,
    `runtime: ${limit(p.max_runtime_minutes, " min")}${p.max_runtime_minutes ? ` then ${show(p.max_runtime_action)}` : ""}`,
    `idle: ${p.idle_timeout_minutes ? `${fmtNumber(p.idle_timeout_minutes, 0)} min` : "never"}`,
    `overflow: ${show(p.overflow)}`, `placement: ${show(p.placement)}`,
    `min balance: ${fmtNumber(p.min_balance_to_start)}`,
    `volumes per user: ${limit(p.volume_quota_gb, " GiB")}, ${limit(p.volume_quota_count, "")}`,
    `volumes per team: ${limit(p.team_volume_quota_gb, " GiB")}, ${limit(p.team_volume_quota_count, "")}`,
  ].map((text) => h("li", { text })));
}

route(/^\/policies\/?$/, { nav: "policies", admin: true }, (ctx, section) => {
  pageHeading(section, "Policies");
  const error = alertBox("policies-error");
  const status = statusBox("policies-status");
  const listArea = h("div", { id: "policies-list" }, statusBox(null, "Loading policies…"));
  const editorArea = h("div", { id: "policy-editor" });
  append(section, [
    h("p", { class: "muted", text: "The default policy applies to users without a team and to teams without their own." }),
    error, status, listArea, editorArea,
  ]);

  let teams = [];

  /** Each row: the default, then each team with the policy in force (its own when the answer names the team). */
  async function load() {
    setAlert(error, "");
    try {
      const [defaults, teamList] = await Promise.all([api("GET", "/api/v1/policies/default"), listTeams()]);
      if (!ctx.alive) return;
      teams = teamList;
      const answers = await Promise.allSettled(teams.map((t) => api("GET", `/api/v1/teams/${encodeURIComponent(t.id)}/policy`)));
      if (!ctx.alive) return;
      const rows = [{ key: "default", name: "Default", policy: defaults || {}, own: true }].concat(teams.map((t, i) => {
        const a = answers[i];
        const policy = a.status === "fulfilled" ? a.value || {} : null;
        return { key: t.id, team: t, name: show(t.name), policy, own: Boolean(policy && policy.team_id === t.id),
          problem: a.status === "fulfilled" ? null : a.reason.message };
      }));
      fill(listArea, dataTable([
        { label: "Applies to", cell: (r) => h("strong", { text: r.name }) },
        { label: "Source", cell: (r) => (r.team ? (r.policy ? (r.own ? "its own policy" : "follows the default") : "—") : "default policy") },
        { label: "Limits", cell: (r) => (r.policy ? policySummary(r.policy) : h("span", { class: "alert", role: "alert", text: `Could not be read: ${r.problem}` })) },
        { label: "Actions", cell: (r) => (r.policy ? h("button", { type: "button", class: "secondary", text: "Edit",
          "aria-label": `Edit the policy of ${r.team ? r.name : "default"}`, onclick: () => openEditor(r) }) : "—") },
      ], rows, { id: "policies-table", caption: "Policies", rowProps: (r) => ({ id: `policy-${r.key}`, "data-team-id": r.team ? r.team.id : "" }) }));
    } catch (e) {
      fill(listArea);
      setAlert(error, `The policies could not be read: ${e.message}`);
    }
  }

  /** One editor for the chosen row: saving replaces the whole policy, so every field is sent as shown. */
  function openEditor(row) {
    const p = row.policy || {};
    const inputs = {};
    const fields = POLICY_FIELDS.map((f) => {
      let control;
      if (f.options) {
        control = h("select", { id: f.id, name: f.key }, f.options.map(([value, text]) => h("option", { value, text })));
        if (p[f.key]) control.value = p[f.key];
      } else {
        control = h("input", { id: f.id, name: f.key, type: "number", min: f.min, step: f.step || "1",
          value: p[f.key] === undefined || p[f.key] === null ? "" : String(p[f.key]) });
      }
      inputs[f.key] = control;
      return field(f.id, f.label, control, f.hint);
    });
    const formError = alertBox("policy-form-error");
    const save = h("button", { type: "submit", id: "save-policy", text: "Save policy" });
    const remove = row.team && row.own
      ? h("button", { type: "button", id: "remove-team-policy", class: "danger", text: "Remove team policy" }) : null;
    const title = row.team ? `Policy of team ${row.name}` : "Default policy";
    const form = h("form", { id: "policy-form", class: "card", "aria-labelledby": "policy-form-heading", novalidate: "" },
      h("h2", { id: "policy-form-heading", tabindex: "-1", text: title }),
      row.team && !row.own ? h("p", { class: "muted", text: "This team follows the default policy; saving gives it its own, starting from the values below." }) : null,
      h("div", { class: "filters" }, fields),
      formError,
      h("p", { class: "buttons" }, save, remove, h("button", { type: "button", class: "secondary", text: "Close", onclick: () => fill(editorArea) })));
    const path = row.team ? `/api/v1/teams/${encodeURIComponent(row.team.id)}/policy` : "/api/v1/policies/default";
    // Save and Remove both replace what the list shows: on success the editor closes and the list is read again.
    const send = (button, refused, method, body, done) => busy(button, formError, refused, async () => {
      await api(method, path, body);
      if (!ctx.alive) return;
      status.textContent = done;
      fill(editorArea);
      load();
    }, { keepDisabled: true });
    submitting(form, formError, null, () => {
      const body = {};
      for (const f of POLICY_FIELDS) {
        const value = f.options ? inputs[f.key].value : numberOrAbsent(inputs[f.key]);
        if (value !== undefined && value !== "") body[f.key] = value;
      }
      send(save, "The policy was refused", "PUT", body, `${title} saved.`);
    });
    if (remove) {
      remove.addEventListener("click", () => send(remove, "Removing the team policy was refused", "DELETE", undefined,
        `Team ${row.name} follows the default policy again.`));
    }
    fill(editorArea, form);
    form.querySelector("h2").focus();
  }

  load();
});
