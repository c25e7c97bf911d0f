// The console's shared core: the API helper (cookie auth + double-submit CSRF), problem+json errors in words, DOM
// building without innerHTML (API data only ever becomes text), sending forms and button actions, formatting, and
// the operation view every page uses.
// Loaded first; the page scripts (sessions.js, account.js, catalogue.js, operators.js) and app.js (router, header)
// build on it.
// Kept at /console/console.js: DefaultDenyIT fetches this path to check the console's files are public.
"use strict";

/** The readable CSRF cookie the api set at sign-in; echoed in X-CSRF-Token on every state-changing call. */
function csrf() {
  const match = document.cookie.split("; ").find((c) => c.startsWith("gshare_csrf="));
  return match ? decodeURIComponent(match.substring("gshare_csrf=".length)) : "";
}

/**
 * Calls the API with the browser's cookie. Answers the parsed JSON (null for 204); throws an Error whose message is
 * the problem's detail (else title) in words, with status, code and the whole problem attached.
 */
async function api(method, path, body) {
  const headers = { Accept: "application/json, application/problem+json" };
  if (method !== "GET") headers["X-CSRF-Token"] = csrf();
  const init = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    const error = new Error(`the console could not reach the api (${e && e.message ? e.message : "network error"})`);
    error.status = 0;
    throw error;
  }
  if (response.status === 204) return null;
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const problem = answer && typeof answer === "object" ? answer : {};
    const error = new Error(problemText(problem) || `${method} ${path} answered ${response.status}`);
    error.status = response.status;
    error.code = problem.code;
    error.problem = problem;
    // A 401 anywhere means the sign-in ended (expired or revoked): app.js shows the sign-in link.
    if (response.status === 401) window.dispatchEvent(new CustomEvent("gshare:unauthorized"));
    throw error;
  }
  return answer;
}

/** A problem's words: detail (else title), plus the fields a 422 names. */
function problemText(problem) {
  let text = problem.detail || problem.title || "";
  if (Array.isArray(problem.errors) && problem.errors.length) {
    const fields = problem.errors
      .map((e) => (e && typeof e === "object" ? [e.field, e.message].filter(Boolean).join(": ") : ""))
      .filter(Boolean);
    // Named only where the detail does not already say it.
    const missing = fields.filter((f) => !text.includes(f.split(": ").pop()));
    if (missing.length) text += ` (${missing.join("; ")})`;
  }
  return text;
}

/** Builds a query string from the defined, non-empty values only. */
function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/**
 * Creates an element. props: attributes, plus `class`, `text`, `on<event>` handlers and boolean properties
 * (hidden, disabled, checked, required, selected); children: nodes or strings (always text, never markup).
 */
function h(tag, props, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = String(value);
    else if (key === "for") element.htmlFor = value;
    else if (key.startsWith("on") && typeof value === "function") element.addEventListener(key.substring(2), value);
    else if (["hidden", "disabled", "checked", "required", "selected", "multiple"].includes(key)) element[key] = Boolean(value);
    else if (key === "value") element.value = String(value);
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

/** Replaces an element's children (nodes, strings or arrays of them, like h()). */
function fill(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** An alert region next to what it is about: hidden while empty, so screen readers announce only real messages. */
function alertBox(id) {
  return h("p", { id, class: "alert", role: "alert", hidden: true });
}

function setAlert(element, message) {
  if (!element) return;
  element.textContent = message || "";
  element.hidden = !message;
}

/** A status line (polite live region) for confirmations and "loading". */
function statusBox(id, text) {
  return h("p", { id, class: "status", role: "status", "aria-live": "polite", text: text || "" });
}

/** Only http(s) addresses become links: an API string must never turn into a javascript: URL. */
function safeUrl(url) {
  if (typeof url !== "string" || !url) return null;
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch (e) {
    return null;
  }
}

function externalLink(url, text, props) {
  const href = safeUrl(url);
  if (!href) return document.createTextNode(text || String(url || "—"));
  return h("a", Object.assign({ href, target: "_blank", rel: "noopener noreferrer" }, props || {}), text || href);
}

// --- forms and buttons that call the api: every page sends them the same way ---

/** Sends a form by script (no page load): its alert and status line (either may be null) are cleared, then handle(). */
function submitting(form, alertEl, statusEl, handle) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    setAlert(alertEl, "");
    if (statusEl) statusEl.textContent = "";
    handle();
  });
}

/** Refuses a form before anything is sent: says why, focuses what to fix; answers nothing, for `return refuse(…)`. */
function refuse(alertEl, message, control) {
  setAlert(alertEl, message);
  if (control) control.focus();
}

/**
 * Runs work() (an api call and what follows it) behind `button`: clears the alert, disables the button meanwhile so a
 * second press cannot send it twice, and says a failure as "<refused>: <the api's words>" (the words alone when
 * refused is empty). options: keepDisabled, re-enabled on failure only (the work reloads the list, which redraws the
 * button); busyText, the button's text meanwhile; onError(error), more to do after the failure is said.
 */
async function busy(button, alertEl, refused, work, options) {
  const opts = options || {};
  const text = button.textContent;
  setAlert(alertEl, "");
  button.disabled = true;
  if (opts.busyText) button.textContent = opts.busyText;
  try {
    await work();
    if (opts.keepDisabled) return;
  } catch (e) {
    setAlert(alertEl, refused ? `${refused}: ${e.message}` : e.message);
    if (opts.onError) opts.onError(e);
  }
  button.disabled = false;
  if (opts.busyText) button.textContent = text;
}

/** Fills a team <select>: `emptyLabel` (value "") then every team by name; the chosen team stays chosen if listed. */
function fillTeamSelect(select, teams, emptyLabel) {
  const keep = select.value;
  fill(select, h("option", { value: "", text: emptyLabel }),
    teams.map((t) => h("option", { value: t.id, text: show(t.name) })));
  if (teams.some((t) => t.id === keep)) select.value = keep;
  return select;
}

// --- formatting: every field may be absent (the api omits nulls), so each helper answers "—" for nothing ---

function show(value) {
  return value === undefined || value === null || value === "" ? "—" : String(value);
}

function fmtTime(value) {
  if (!value) return "—";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

function fmtNumber(value, digits) {
  if (value === undefined || value === null || value === "") return "—";
  const number = Number(value);
  if (!Number.isFinite(number)) return String(value);
  return number.toLocaleString(undefined, { maximumFractionDigits: digits === undefined ? 4 : digits });
}

function fmtCredits(value) {
  return value === undefined || value === null ? "—" : `${fmtNumber(value, 4)} credits`;
}

function fmtBytes(value) {
  if (value === undefined || value === null) return "—";
  let number = Number(value);
  if (!Number.isFinite(number)) return String(value);
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let unit = 0;
  while (Math.abs(number) >= 1024 && unit < units.length - 1) {
    number /= 1024;
    unit += 1;
  }
  return `${number.toLocaleString(undefined, { maximumFractionDigits: unit === 0 ? 0 : 1 })} ${units[unit]}`;
}

function yesNo(value) {
  return value === true ? "yes" : value === false ? "no" : "—";
}

/**
 * A table that scrolls sideways on a phone. columns: [{label, cell: row => node|string}]; options: id, caption,
 * rowProps(row) for each <tr>'s attributes.
 */
function dataTable(columns, rows, options) {
  const opts = options || {};
  const table = h("table", { id: opts.id },
    opts.caption ? h("caption", { text: opts.caption }) : null,
    h("thead", null, h("tr", null, columns.map((c) => h("th", { scope: "col", text: c.label })))),
    h("tbody", null, rows.map((row) => tableRow(columns, row, opts))));
  // The wrapper scrolls; focusable with a name so keyboard users can scroll it too.
  return h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": opts.caption || opts.label || "table" },
    table);
}

function tableRow(columns, row, opts) {
  return h("tr", opts.rowProps ? opts.rowProps(row) : null, columns.map((c) => h("td", { "data-label": c.label }, c.cell(row))));
}

function emptyNote(text) {
  return h("p", { class: "empty", text });
}

// --- operations (long workflows): their status and steps, followed by polling every 2 s while running ---

/**
 * An operation as a person follows it. Accepts both shapes: GET /api/v1/operations/{id} (id, status, steps,
 * next_step, error, temporal_ui_url) and a session detail's `operation` (operation_id, status, steps, error).
 */
function renderOperation(op) {
  const steps = Array.isArray(op.steps) ? op.steps : [];
  const done = steps.filter((s) => s && (s.status === "done" || s.status === "skipped")).length;
  const running = op.status === "running";
  const next = op.next_step || (steps.find((s) => s && (s.status === "running" || s.status === "pending")) || {}).name;
  const box = h("div", { class: "operation", "data-operation-id": op.id || op.operation_id || "", "data-status": op.status || "" });
  append(box, [
    h("p", { class: "op-status" },
      h("strong", { text: op.kind ? `${op.kind}: ` : "Operation: " }),
      h("span", { class: "op-state", text: show(op.status) }),
      running && next ? ` (now: ${next})` : null),
    steps.length ? h("progress", { max: String(steps.length), value: String(done), "aria-label": "Operation progress" }) : null,
    steps.length ? h("ol", { class: "op-steps" }, steps.map((s) => stepItem(s || {}))) : h("p", { class: "empty", text: "No steps reported yet." }),
  ]);
  if (op.error) box.appendChild(h("p", { class: "alert", role: "alert", text: `Failed: ${op.error}` }));
  const link = safeUrl(op.temporal_ui_url);
  if (link) box.appendChild(h("p", null, externalLink(link, "Open in the Temporal UI", { class: "temporal-link" })));
  return box;
}

function stepItem(step) {
  return h("li", { "data-status": step.status || "" },
    h("span", { class: "step-name", text: show(step.name) }), " — ",
    h("span", { class: "step-status", text: show(step.status) }),
    step.detail ? h("span", { class: "step-detail", text: `: ${step.detail}` }) : null);
}

/**
 * Shows operation `id` in `container`, polling every 2 s while it runs, for as long as the page (ctx) is shown.
 * onEnd(op) is called once when it stops running.
 */
function followOperation(ctx, id, container, onEnd) {
  let ended = false;
  const tick = async () => {
    if (!ctx.alive) return;
    try {
      const op = await api("GET", `/api/v1/operations/${encodeURIComponent(id)}`);
      fill(container, renderOperation(op));
      if (op.status === "running") {
        ctx.later(tick, 2000);
      } else if (!ended) {
        ended = true;
        if (onEnd) onEnd(op);
      }
    } catch (e) {
      // Said in words where the progress would be; a network blip is retried a little later, a refusal is final.
      fill(container, h("p", { class: "alert", role: "alert", text: `Operation ${id}: ${e.message}` }));
      if (e.status === 0 || e.status >= 500) ctx.later(tick, 5000);
    }
  };
  tick();
}
