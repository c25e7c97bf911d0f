// The console's shell: who is signed in, the header (nav, admins' cluster selector, sign-out) and the hash router.
// Page scripts loaded after this one register their routes with route(); the first page is drawn once every script
// has run (DOMContentLoaded).
"use strict";

const CLUSTER_KEY = "gshare.cluster";

/** What every page may read: the signed-in user and, for admins, the clusters and the one selected. */
const state = { me: null, isAdmin: false, clusters: [], cluster: "" };

const routes = [];
let current = null;

/**
 * Registers a page. pattern: a RegExp on the hash without '#' (its groups are the page's params); options.nav: the
 * nav link to mark current; options.admin: admins only.
 */
function route(pattern, options, render) {
  routes.push({ pattern, nav: options.nav, admin: Boolean(options.admin), render });
}

/** The page's <h1> (focused on navigation, so screen readers hear where they are) and the tab title. */
function pageHeading(section, title) {
  document.title = `${title} · gShare`;
  const heading = h("h1", { tabindex: "-1", text: title });
  section.appendChild(heading);
  return heading;
}

/** The cluster an admin chose in the header ("" for all); users have no selector. */
function selectedCluster() {
  return state.isAdmin ? state.cluster : "";
}

function clusterName(id) {
  if (!id) return "—";
  const cluster = state.clusters.find((c) => c.id === id);
  return cluster && cluster.name ? cluster.name : id;
}

/**
 * A page's lifetime: its timers and streams end when the user leaves it, so a page never polls or writes after it
 * is gone. later() is setTimeout bound to the page; onLeave() registers a cleanup.
 */
function newContext() {
  const ctx = { alive: true, timers: new Set(), cleanups: [] };
  ctx.later = (fn, ms) => {
    if (!ctx.alive) return null;
    const timer = setTimeout(() => {
      ctx.timers.delete(timer);
      if (ctx.alive) fn();
    }, ms);
    ctx.timers.add(timer);
    return timer;
  };
  ctx.onLeave = (fn) => ctx.cleanups.push(fn);
  ctx.leave = () => {
    ctx.alive = false;
    ctx.timers.forEach((t) => clearTimeout(t));
    ctx.timers.clear();
    for (const fn of ctx.cleanups.splice(0)) {
      try {
        fn();
      } catch (e) {
        // a cleanup that fails must not stop the next page
      }
    }
  };
  return ctx;
}

function render(options) {
  if (!state.me) return;
  const focus = !options || options.focus !== false;
  if (current) current.leave();
  const ctx = newContext();
  current = ctx;

  const path = location.hash.replace(/^#/, "") || "/sessions";
  let found = null;
  let params = [];
  for (const r of routes) {
    const match = r.pattern.exec(path);
    if (match) {
      found = r;
      try {
        params = match.slice(1).map((p) => decodeURIComponent(p || ""));
      } catch (e) {
        found = null;
      }
      break;
    }
  }

  const section = h("section", { class: "page" });
  fill(document.getElementById("page"), section);
  markNav(found ? found.nav : null);
  if (!found) {
    pageHeading(section, "Page not found");
    append(section, [h("p", null, "There is no page at ", h("code", { text: path }), ". ",
      h("a", { href: "#/sessions", text: "Go to your sessions" }), ".")]);
  } else if (found.admin && !state.isAdmin) {
    pageHeading(section, "For administrators");
    section.appendChild(h("p", { text: "This page is for administrators; your role is " + show(state.me.role) + "." }));
  } else {
    try {
      found.render(ctx, section, params);
    } catch (e) {
      section.appendChild(h("p", { class: "alert", role: "alert", text: `This page failed to draw: ${e.message}` }));
    }
  }
  if (focus) {
    const heading = section.querySelector("h1");
    if (heading) heading.focus();
  }
}

function markNav(name) {
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.dataset.nav === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

function showError(message) {
  setAlert(document.getElementById("error"), message);
}

/** Signed out (or the sign-in ended): only the "Sign in" link is left. */
function showSignedOut() {
  state.me = null;
  if (current) current.leave();
  current = null;
  fill(document.getElementById("page"));
  document.getElementById("signed-out").hidden = false;
  document.getElementById("nav").hidden = true;
  document.getElementById("cluster-picker").hidden = true;
  document.getElementById("sign-out").hidden = true;
  document.getElementById("who").textContent = "";
  document.title = "Sign in · gShare";
}

async function loadClusters() {
  const select = document.getElementById("cluster-select");
  try {
    const list = await api("GET", "/api/v1/clusters");
    state.clusters = Array.isArray(list && list.items) ? list.items : [];
  } catch (e) {
    state.clusters = [];
    showError(`The clusters could not be listed: ${e.message}`);
  }
  let stored = "";
  try {
    stored = localStorage.getItem(CLUSTER_KEY) || "";
  } catch (e) {
    stored = ""; // storage refused (private mode): the choice just is not remembered
  }
  state.cluster = state.clusters.some((c) => c.id === stored) ? stored : "";
  fill(select, h("option", { value: "", text: "All clusters" }),
    state.clusters.map((c) => h("option", { value: c.id, text: `${show(c.name)} (${show(c.status)})` })));
  select.value = state.cluster;
}

async function start() {
  let me;
  try {
    me = await api("GET", "/api/v1/users/me");
  } catch (e) {
    if (e.status === 401) showSignedOut();
    else showError(`The console could not find who you are: ${e.message}`);
    return;
  }
  state.me = me || {};
  state.isAdmin = state.me.role === "admin" || state.me.role === "super_admin";
  document.getElementById("who").textContent = `${show(state.me.email)} (${show(state.me.role)})`;
  document.getElementById("nav").hidden = false;
  document.getElementById("sign-out").hidden = false;
  for (const link of document.querySelectorAll("#nav [data-admin]")) link.hidden = !state.isAdmin;
  if (state.isAdmin) {
    document.getElementById("cluster-picker").hidden = false;
    await loadClusters();
  }
  window.addEventListener("hashchange", () => render());
  render();
}

document.getElementById("cluster-select").addEventListener("change", (event) => {
  state.cluster = event.target.value;
  try {
    localStorage.setItem(CLUSTER_KEY, state.cluster);
  } catch (e) {
    // not remembered; still applied for this visit
  }
  render({ focus: false });
});

document.getElementById("sign-out").addEventListener("click", async () => {
  showError("");
  try {
    await api("POST", "/auth/logout");
    location.reload();
  } catch (e) {
    showError(`Signing out failed: ${e.message}`);
  }
});

// The skip link must not change the hash (that is the router's): it only moves focus to the content.
document.querySelector("a.skip").addEventListener("click", (event) => {
  event.preventDefault();
  document.getElementById("main").focus();
});

window.addEventListener("gshare:unauthorized", () => {
  if (state.me) showSignedOut();
});

document.addEventListener("DOMContentLoaded", start);
