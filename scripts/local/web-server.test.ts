import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentSecurityPolicy } from "../../web/serving.js";
import { ensureConsoleIssuer, makeJwtAuthorizer } from "./console-issuer.js";
import type { Gateway } from "./gateway.js";
import { startWebServer } from "./web-server.js";

const INDEX = "<!doctype html><title>Beacon console</title>";
/** Where the page sends an asset's parts: S3Proxy's origin locally. */
const STORAGE_ORIGIN = "http://127.0.0.1:4569";
const SCRIPT = "console.log('the console');".repeat(50);

let dir: string;
let web: Gateway;
/** Stands in for the console gateway: echoes what reached it. */
let consoleApi: Server;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${web.url}${path}`,
      { method: options.method ?? "GET", headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    outgoing.once("error", reject);
    outgoing.end(options.body);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "beacon-web-server-"));
  const root = join(dir, "build");
  await mkdir(join(root, "assets"), { recursive: true });
  await mkdir(join(root, ".vite"), { recursive: true });
  await writeFile(join(root, "index.html"), INDEX);
  await writeFile(join(root, "assets", "index-abc123.js"), SCRIPT);
  await writeFile(join(root, ".vite", "manifest.json"), "{}");
  await writeFile(join(dir, "secret.txt"), "outside the build");
  consoleApi = createServer((incoming: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      response.writeHead(207, { "content-type": "application/json", "x-from": "console-api" });
      response.end(
        JSON.stringify({
          method: incoming.method,
          url: incoming.url,
          authorization: incoming.headers.authorization,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
  });
  consoleApi.listen(0, "127.0.0.1");
  await new Promise((resolve) => consoleApi.once("listening", resolve));
  web = await startWebServer({
    port: 0,
    root,
    storageOrigin: STORAGE_ORIGIN,
    consoleApiUrl: `http://127.0.0.1:${(consoleApi.address() as AddressInfo).port}`,
    issuer: await ensureConsoleIssuer(join(dir, "issuer")),
  });
});

afterAll(async () => {
  await web?.close();
  consoleApi?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the local web console server", () => {
  it("serves the page for every route of the app, with the security headers", async () => {
    for (const path of ["/", "/agents", "/agents/edge-1?class=a"]) {
      const reply = await send(path);
      expect(reply.status).toBe(200);
      expect(reply.body.toString()).toBe(INDEX);
      expect(reply.headers["content-security-policy"]).toBe(contentSecurityPolicy(STORAGE_ORIGIN));
      expect(reply.headers["x-content-type-options"]).toBe("nosniff");
      expect(reply.headers["cache-control"]).toBe("no-cache");
    }
    expect(contentSecurityPolicy(STORAGE_ORIGIN)).toContain("script-src 'self'");
    expect(contentSecurityPolicy(STORAGE_ORIGIN)).toContain(`connect-src 'self' ${STORAGE_ORIGIN};`);
    expect(contentSecurityPolicy(STORAGE_ORIGIN)).not.toContain("unsafe");
  });

  it("serves hashed assets for good, gzipped when the browser takes gzip", async () => {
    const reply = await send("/assets/index-abc123.js", { headers: { "accept-encoding": "gzip, br" } });
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(reply.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(reply.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(reply.body).toString()).toBe(SCRIPT);
    expect(reply.body.length).toBeLessThan(SCRIPT.length);
    expect((await send("/assets/index-abc123.js")).body.toString()).toBe(SCRIPT);
  });

  it("serves nothing outside the build, nor its hidden files", async () => {
    for (const path of [
      "/../secret.txt",
      "/assets/..%2f..%2fsecret.txt",
      "/.vite/manifest.json",
      "/missing.js",
    ]) {
      const reply = await send(path);
      expect(reply.status, path).toBe(404);
      expect(reply.body.toString(), path).not.toContain("outside the build");
    }
    expect((await send("/", { method: "POST" })).status).toBe(405);
  });

  it("passes /api/ to the console API as it came, and its reply back", async () => {
    const reply = await send("/api/v1/agents?class=a", {
      method: "POST",
      headers: { authorization: "Bearer t", "content-type": "application/json" },
      body: '{"x":1}',
    });
    expect(reply.status).toBe(207);
    expect(reply.headers["x-from"]).toBe("console-api");
    expect(JSON.parse(reply.body.toString())).toEqual({
      method: "POST",
      url: "/api/v1/agents?class=a",
      authorization: "Bearer t",
      body: '{"x":1}',
    });
  });

  it("signs a token for the tenant and role asked for, which the console gateway accepts", async () => {
    const reply = await send("/local/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tenant: "acme", role: "operator" }),
    });
    expect(reply.status).toBe(200);
    const { token } = JSON.parse(reply.body.toString()) as { token: string };
    const authorizer = await makeJwtAuthorizer(await ensureConsoleIssuer(join(dir, "issuer")));
    const verified = await authorizer.authorize(`Bearer ${token}`);
    expect(verified?.claims).toMatchObject({ "custom:tenant": "acme", "custom:role": "operator" });
  });

  it("limits the token's role to the classes asked for, separated by commas", async () => {
    const reply = await send("/local/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tenant: "acme", role: "operator", classes: "pumps,valves" }),
    });
    expect(reply.status).toBe(200);
    const { token } = JSON.parse(reply.body.toString()) as { token: string };
    const authorizer = await makeJwtAuthorizer(await ensureConsoleIssuer(join(dir, "issuer")));
    const verified = await authorizer.authorize(`Bearer ${token}`);
    expect(verified?.claims).toMatchObject({ "custom:classes": "pumps,valves" });
  });

  it("signs nothing for a request another site's form could send, or for a bad tenant or role", async () => {
    const form = await send("/local/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "tenant=acme&role=admin",
    });
    expect(form.status).toBe(415);
    expect(form.headers["access-control-allow-origin"]).toBeUndefined();
    for (const body of [
      { tenant: "a/b", role: "admin" },
      { tenant: "acme", role: "root" },
      { tenant: "acme", role: "admin", classes: "pumps,,valves" },
      {},
    ]) {
      const reply = await send("/local/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.toString()).not.toContain("token");
    }
    expect((await send("/local/token")).status).toBe(405);
  });
});
