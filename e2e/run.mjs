// The console in a real browser (Debian's chromium, playwright-core) against the dev runtime's parts, its OpenID
// Connect provider and a real nginx in front of the session pods: the scenarios of the console issue, each a row of
// the table printed at the end. Screenshots of the main pages go to e2e/target/screenshots. Exit 1 when a row fails.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { OUT, apiCall, startDevRuntime, waitFor } from "./harness.mjs";

const SHOTS = join(OUT, "screenshots");
mkdirSync(SHOTS, { recursive: true });
const results = [];
const cleanups = [];

async function scenario(name, body) {
  const started = Date.now();
  try {
    await body();
    results.push({ name, ok: true, seconds: (Date.now() - started) / 1000 });
  } catch (e) {
    results.push({ name, ok: false, seconds: (Date.now() - started) / 1000, error: e.stack || String(e) });
  }
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** A fresh browser profile (its own cookies) whose console errors are collected; the browser's own 4xx lines aside. */
async function newBrowserUser(browser, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) page.errors.push(m.text());
  });
  cleanups.push(() => context.close());
  return page;
}

/** Signs in through the embedded provider's login page, as a person types it. */
async function signIn(page, api, email, roles = []) {
  await page.goto(`${api}/auth/login`);
  await page.locator("input[name=username]").fill(email);
  const claims = { email };
  if (roles.length) claims.gshare_roles = roles;
  await page.locator("textarea[name=claims]").fill(JSON.stringify(claims));
  await page.locator("input[type=submit]").click();
  await page.waitForURL(`${api}/**`);
  await page.locator("#who").filter({ hasText: email }).waitFor();
}

/** Every visible form control on the page has a label a screen reader announces (label element, aria-label(ledby)). */
async function unlabelledControls(page) {
  return page.evaluate(() => [...document.querySelectorAll("main input, main select, main textarea")]
    .filter((el) => el.type !== "hidden" && el.offsetParent !== null)
    .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby"))
    .map((el) => el.id || el.name || el.outerHTML.slice(0, 80)));
}

async function stateIs(page, state, seconds = 90) {
  await page.locator("#session-state").filter({ hasText: new RegExp(`^${state}$`) }).waitFor({ timeout: seconds * 1000 });
}

async function main() {
  const runtime = await startDevRuntime();
  cleanups.push(() => runtime.stop());
  const cluster = (await apiCall(runtime, "GET", "/api/v1/clusters")).items[0];
  const domain = cluster.session_domain;
  expect(domain.endsWith(".localhost"), `the dev runtime's session domain ${domain} is not under .localhost`);
  // No resolver rules: the browser resolves *.localhost to loopback itself, where the dev runtime's nginx listens,
  // as a newcomer's browser does.
  const browser = await chromium.launch({
    executablePath: process.env.GSHARE_CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  cleanups.push(() => browser.close());
  const api = runtime.api;
  const user = await newBrowserUser(browser);
  let sessionId;

  await scenario("a user signs in through the identity provider", async () => {
    await signIn(user, api, "demo@example.com");
    expect((await user.locator("#who").textContent()).includes("(user)"), "the demo user is not a user");
    await user.screenshot({ path: join(SHOTS, "sessions.png"), fullPage: true });
  });

  await scenario("a user creates a session from the keyboard, watches it reach running and its live usage chart fill", async () => {
    await user.goto(`${api}/#/sessions`);
    const offering = user.locator("#offering-select");
    await offering.locator("option").nth(1).waitFor({ state: "attached" });
    const h100 = await offering.locator("option", { hasText: /H100/ }).first().getAttribute("value");
    await offering.selectOption(h100);
    await user.locator("#availability-answer").filter({ hasText: "Can start now" }).waitFor();
    const unlabelled = await unlabelledControls(user);
    expect(unlabelled.length === 0, `the sessions page has form controls without a label: ${unlabelled.join(", ")}`);
    // From the keyboard: focus the name by its label, type it, Enter submits the form.
    await user.getByLabel("Name").focus();
    await user.keyboard.type("e2e notebook");
    await user.keyboard.press("Enter");
    await user.waitForURL(/#\/sessions\/ses_/);
    sessionId = user.url().split("/").pop();
    await stateIs(user, "running");
    await user.locator("#session-url").waitFor();
    // The node's usage agent samples the session's cgroup every second: the live chart fills.
    await user.locator("#usage-cpu").waitFor({ state: "attached", timeout: 30_000 });
    await user.locator("#usage-latest").filter({ hasText: /\d/ }).waitFor({ timeout: 30_000 });
    await user.screenshot({ path: join(SHOTS, "session-detail.png"), fullPage: true });
  });

  const sessionUrl = () => `http://${domain}:${runtime.ports.ingress}/s/${sessionId}/`;

  await scenario("its URL, clicked in the console, opens through nginx on the session domain and lands on the session", async () => {
    expect(sessionId, "no session from the scenario before");
    await user.goto(`${api}/#/sessions/${sessionId}`);
    const link = user.locator("#session-url");
    expect(await link.getAttribute("href") === sessionUrl(), `the console links ${await link.getAttribute("href")}`);
    const [tab] = await Promise.all([user.context().waitForEvent("page"), link.click()]);
    await tab.locator("#upstream-session").waitFor();
    expect(await tab.locator("#upstream-session").textContent() === sessionId, "landed on another session");
    expect((await tab.locator("#upstream-user").textContent()).startsWith("usr_"), "the ingress passed on no user");
    expect(new URL(tab.url()).host === `${domain}:${runtime.ports.ingress}`, `ended on ${tab.url()}`);
    await tab.screenshot({ path: join(SHOTS, "session-upstream.png") });
    // Later visits carry the session domain's own cookie: no more trips through the console.
    await tab.goto(`${sessionUrl()}lab`);
    expect(new URL(tab.url()).search === "", `a second visit went through sign-in again: ${tab.url()}`);
    await tab.close();
  });

  await scenario("the user pauses and resumes the session; paused, its URL has no upstream (503)", async () => {
    await user.goto(`${api}/#/sessions/${sessionId}`);
    await stateIs(user, "running");
    await user.getByRole("button", { name: "Pause" }).click();
    await stateIs(user, "paused", 120);
    const tab = await user.context().newPage();
    const paused = await tab.goto(sessionUrl());
    expect(paused.status() === 503, `a paused session's URL answered ${paused.status()}`);
    await user.getByRole("button", { name: "Resume" }).click();
    await stateIs(user, "running", 120);
    const resumed = await tab.goto(sessionUrl());
    expect(resumed.status() === 200, `the resumed session's URL answered ${resumed.status()}`);
    await tab.close();
  });

  await scenario("another user gets 403 on that URL and sees nothing of the session", async () => {
    const eve = await newBrowserUser(browser);
    await signIn(eve, api, "eve@example.com");
    await eve.goto(`${api}/#/sessions`);
    await eve.getByText(/No sessions yet|Sessions, newest first/).first().waitFor();
    expect(await eve.locator(`tr[data-session-id="${sessionId}"]`).count() === 0, "eve sees the demo user's session");
    const response = await eve.goto(`${sessionUrl()}lab`);
    expect(response.status() === 403, `eve got ${response.status()} on the session URL`);
    expect((await eve.content()).includes("Cannot open this session"), "the refusal does not say why");
    expect(eve.errors.length === 0, `console errors: ${eve.errors.join("; ")}`);
  });

  await scenario("an admin drains a node and watches the progress; deleting a live node shows the 409", async () => {
    const admin = await newBrowserUser(browser);
    await signIn(admin, api, "ops@example.com", ["gshare-admins"]);
    expect((await admin.locator("#who").textContent()).includes("(admin)"), "the role claim did not make an admin");
    await admin.goto(`${api}/#/nodes`);
    const row = admin.locator("tr[data-hostname=sim-a100-0]");
    await row.waitFor();
    const nodeId = await row.getAttribute("data-node-id");
    await admin.getByRole("button", { name: "Delete sim-a100-0" }).click();
    const refusal = admin.locator(`#node-alert-${nodeId}`);
    await refusal.filter({ hasText: /./ }).waitFor();
    expect(/refused/i.test(await refusal.textContent()), `no refusal shown: ${await refusal.textContent()}`);
    await admin.getByRole("button", { name: "Drain sim-a100-0" }).click();
    await admin.locator(`#node-op-${nodeId} .operation`).waitFor();
    await admin.locator(`#node-op-${nodeId} .operation[data-status=completed]`).waitFor({ timeout: 120_000 });
    await row.locator(".node-drain").filter({ hasText: /drained/ }).waitFor();
    await admin.screenshot({ path: join(SHOTS, "nodes.png"), fullPage: true });
    expect(admin.errors.length === 0, `console errors: ${admin.errors.join("; ")}`);
  });

  await scenario("an admin tests a cluster's connection and reads every operator page", async () => {
    const admin = await newBrowserUser(browser);
    await signIn(admin, api, "ops2@example.com", ["gshare-admins"]);
    await admin.goto(`${api}/#/clusters`);
    await admin.getByRole("button", { name: `Test connection ${cluster.name}` }).click();
    await admin.locator(`#cluster-test-${cluster.id} .connection-test[data-status=connected]`).waitFor({ timeout: 90_000 });
    await admin.screenshot({ path: join(SHOTS, "clusters.png"), fullPage: true });
    const pages = { offerings: "#offerings-table", images: "#images-table", pools: "#node-pools-table",
      policies: "#policies-table", users: "#users-table", alerts: "#alerts-table", audit: "#audit-table" };
    for (const [route, table] of Object.entries(pages)) {
      await admin.goto(`${api}/#/${route}`);
      // A page with nothing to list shows a note in words instead of an empty table.
      await admin.locator(`${table}, main p.empty`).first().waitFor();
      const unlabelled = await unlabelledControls(admin);
      expect(unlabelled.length === 0, `#/${route} has form controls without a label: ${unlabelled.join(", ")}`);
      const shown = await admin.locator("main .alert:not([hidden])").allTextContents();
      expect(shown.every((text) => !/could not/i.test(text)), `#/${route} shows an error: ${shown.join("; ")}`);
      await admin.screenshot({ path: join(SHOTS, `${route}.png`), fullPage: true });
    }
    // The demo offerings are on models the simulated cluster has.
    await admin.goto(`${api}/#/offerings`);
    await admin.locator(".offering-cluster-has", { hasText: /^cluster has/ }).first().waitFor();
    expect(admin.errors.length === 0, `console errors: ${admin.errors.join("; ")}`);
  });

  await scenario("the console works at a phone's width", async () => {
    const phone = await newBrowserUser(browser, { width: 375, height: 740 });
    await signIn(phone, api, "demo@example.com");
    await phone.goto(`${api}/#/sessions/${sessionId}`);
    await stateIs(phone, "running");
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    await phone.screenshot({ path: join(SHOTS, "session-detail-phone.png"), fullPage: true });
    expect(phone.errors.length === 0, `console errors: ${phone.errors.join("; ")}`);
  });

  await scenario("no console errors on the user's pages", async () => {
    expect(user.errors.length === 0, `console errors: ${user.errors.join("; ")}`);
  });
}

let failed = false;
try {
  await main();
} catch (e) {
  results.push({ name: "start the dev runtime, nginx and the browser", ok: false, seconds: 0, error: e.stack || String(e) });
} finally {
  for (const cleanup of cleanups.reverse()) {
    await cleanup().catch(() => {});
  }
}
console.log("\n scenario".padEnd(100) + "result   time");
for (const r of results) {
  console.log(` ${r.name}`.padEnd(99) + (r.ok ? " ok      " : " FAILED  ") + `${r.seconds.toFixed(1)}s`);
  if (!r.ok) {
    failed = true;
    console.log(`   ${r.error.split("\n").slice(0, 6).join("\n   ")}`);
  }
}
console.log(`\n screenshots: ${SHOTS}`);
process.exit(failed || results.length === 0 ? 1 : 0);
