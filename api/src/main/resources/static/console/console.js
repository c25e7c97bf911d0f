// The console's start: who is signed in (the browser's cookie), their sessions, sign-out. Every API error is
// shown in words from its problem+json detail.
"use strict";

function csrf() {
  const match = document.cookie.split("; ").find((c) => c.startsWith("gshare_csrf="));
  return match ? decodeURIComponent(match.substring("gshare_csrf=".length)) : "";
}

async function api(method, path) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRF-Token"] = csrf();
  const response = await fetch(path, { method, headers, credentials: "same-origin" });
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(body.detail || body.title || `${method} ${path} answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

function showError(message) {
  const error = document.getElementById("error");
  error.textContent = message;
  error.hidden = !message;
}

async function start() {
  let me;
  try {
    me = await api("GET", "/api/v1/users/me");
  } catch (e) {
    if (e.status === 401) {
      document.getElementById("signed-out").hidden = false;
      return;
    }
    showError(e.message);
    return;
  }
  document.getElementById("who").textContent = `${me.email} (${me.role})`;
  document.getElementById("signed-in").hidden = false;
  try {
    const page = await api("GET", "/api/v1/sessions");
    const list = document.getElementById("sessions");
    for (const s of page.items || []) {
      const item = document.createElement("li");
      item.textContent = `${s.name || s.id}: ${s.state}`;
      list.appendChild(item);
    }
    if (!(page.items || []).length) list.textContent = "No sessions yet.";
  } catch (e) {
    showError(e.message);
  }
}

document.getElementById("sign-out").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    await api("POST", "/auth/logout");
    location.reload();
  } catch (e) {
    showError(e.message);
  }
});

start();
