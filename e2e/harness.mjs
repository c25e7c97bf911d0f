// The parts the browser tests run against, started the way a newcomer's `make dev` starts them: the dev runtime
// (embedded PostgreSQL, the Temporal dev server, the simulated cluster, the api jar, the embedded OpenID Connect
// provider, and its ingress: a real nginx configured as ingress-nginx configures a session Ingress, with auth-url,
// auth-signin and the auth answer's Set-Cookie passed on, in front of a stand-in for the session pods' servers).
import { spawn } from "node:child_process";
import { createServer as createNetServer } from "node:net";
import { existsSync, mkdirSync, readFileSync, createWriteStream } from "node:fs";
import { resolve, join } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..");
export const OUT = join(ROOT, "e2e", "target");

/** Ports handed out in this process: never twice, even before the first taker binds it. */
const picked = new Set();

/**
 * A port free now, below the kernel's ephemeral range (32768 and up on Linux): the dev runtime binds its parts one
 * after another while the Temporal dev server and the JVMs take ephemeral ports, which once took a port picked for a
 * part that had not bound it yet (as TestRuntimes.freePort does for the Java tests).
 */
export async function freePort() {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (picked.has(port)) continue;
    picked.add(port);
    if (await bindable(port)) return port;
  }
  throw new Error("no free port between 20000 and 32000");
}

function bindable(port) {
  return new Promise((ok) => {
    const server = createNetServer();
    server.once("error", () => ok(false));
    server.listen(port, "127.0.0.1", () => server.close(() => ok(true)));
  });
}

export function tool(name) {
  const path = join(ROOT, ".tools", "bin", name);
  if (!existsSync(path)) throw new Error(`no ${path}: run make tools (hack/tools.sh) first`);
  return path;
}

async function waitFor(what, check, seconds) {
  const deadline = Date.now() + seconds * 1000;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what} did not happen within ${seconds}s${last ? `: ${last.message}` : ""}`);
}

/** Starts the dev runtime's jar with free ports and its own data directory; resolves once its banner is printed. */
export async function startDevRuntime() {
  const jar = join(ROOT, "dev-runtime", "target", "gshare-dev.jar");
  if (!existsSync(jar)) throw new Error(`no ${jar}: run make build first`);
  const ports = {
    http: await freePort(), management: await freePort(), temporal: await freePort(), temporalUi: await freePort(),
    postgres: await freePort(), simulator: await freePort(), oidc: await freePort(), ingress: await freePort(),
  };
  const work = join(OUT, "work");
  mkdirSync(work, { recursive: true });
  const logs = join(OUT, "logs");
  mkdirSync(logs, { recursive: true });
  const args = ["-Xmx512m", "-jar", jar,
    "--http-port", ports.http, "--management-port", ports.management, "--temporal-port", ports.temporal,
    "--temporal-ui-port", ports.temporalUi, "--postgres-port", ports.postgres, "--simulator-port", ports.simulator,
    "--oidc-port", ports.oidc, "--temporal-cli", tool("temporal"),
    "--ingress-port", ports.ingress, "--nginx", tool("nginx"),
    "--api-jar", join(ROOT, "api", "target", "gshare-api.jar"),
    "--worker-jar", join(ROOT, "cluster-worker", "target", "gshare-cluster-worker.jar"),
    "--local-deployer-jar", join(ROOT, "local-deployer", "target", "gshare-local-deployer.jar"),
    "--log-dir", logs].map(String);
  // Its state file (.gshare-dev/runtime.env) goes into the working directory: not the developer's checkout.
  const child = spawn("java", args, { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  const out = createWriteStream(join(logs, "dev-runtime.out"));
  let banner = "";
  child.stdout.on("data", (d) => { out.write(d); banner += d; });
  child.stderr.on("data", (d) => out.write(d));
  let exited = null;
  child.on("exit", (code) => { exited = code; });
  await waitFor("the dev runtime's banner", () => {
    if (exited !== null) throw new Error(`the dev runtime exited with ${exited}; see ${join(logs, "dev-runtime.out")}`);
    return banner.includes("gShare dev runtime is up");
  }, 420);
  const api = `http://127.0.0.1:${ports.http}`;
  const env = Object.fromEntries(readFileSync(join(work, ".gshare-dev", "runtime.env"), "utf8").split("\n")
    .filter((l) => l.includes("=") && !l.startsWith("#")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
  const adminToken = readFileSync(join(env.GSHARE_DATA_DIR, "admin.token"), "utf8").trim();
  return {
    api, ports, adminToken, child,
    stop: () => new Promise((r) => { if (exited !== null) return r(); child.on("exit", r); child.kill("SIGTERM"); }),
  };
}

/** The API as the super admin sees it (setup only: everything under test goes through the browser). */
export async function apiCall(runtime, method, path, body) {
  const response = await fetch(runtime.api + path, {
    method, headers: { Authorization: `Bearer ${runtime.adminToken}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

export { waitFor };
