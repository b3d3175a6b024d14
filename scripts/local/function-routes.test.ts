import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { debugBundleUrl } from "../../functions/core/c2/routes.js";
import { FunctionLog, functionLogIn } from "./function-logs.js";
import { BUNDLE_INTAKE_LOG_NAME, loadBundleIntake } from "./function-routes.js";

describe("the streaming bundle intake the local agent API routes to", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "beacon-function-routes-"));
  const terminal: string[] = [];
  let logs: FunctionLog;
  let intake: Awaited<ReturnType<typeof loadBundleIntake>>;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    logs = FunctionLog.open({
      file: functionLogIn(dir),
      terminalLevel: "warn",
      terminal: (line) => terminal.push(line),
    });
    intake = await loadBundleIntake(logs);
    const { route } = intake;
    if (!("stream" in route)) throw new Error("the bundle intake's route does not stream");
    server = createServer((request, response) => void route.stream(request, response, undefined));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await intake.shutdown();
    logs.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("logs an upload to the function log, and to the terminal as one readable line", async () => {
    // No client certificate: refused before anything is stored, with a warning.
    const response = await fetch(debugBundleUrl(url, "op-1"), {
      method: "POST",
      body: "bundle",
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);

    const records = readFileSync(logs.file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toContainEqual(
      expect.objectContaining({
        function_name: BUNDLE_INTAKE_LOG_NAME,
        level: "WARN",
        message: "debug bundle refused",
      }),
    );
    expect(terminal).toHaveLength(1);
    expect(terminal[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} WARN {2}bundle-intake: debug bundle refused {2}status=4\d\d /,
    );
  });
});
