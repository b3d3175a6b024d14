/**
 * `npm run bench:handshake`'s code, small: a few handshakes, each side's CPU measured in its own process. It checks
 * what was measured, never how fast.
 */
import { expect, it } from "vitest";
import { measureHandshakes } from "./handshakes.js";

it("sets up mutual-TLS connections to the gateway and names what each side spent on them", async () => {
  const figures = await measureHandshakes(10);
  expect(figures).toMatchObject({ handshakes: 10, tlsVersion: "TLSv1.3" });
  for (const ms of [figures.serverCpuMs, figures.clientCpuMs, figures.wallMs]) expect(ms).toBeGreaterThan(0);
}, 120_000);
