import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import type { Schemas } from "../web/src/api/client.js";
import { dateTimeOption } from "./audit.js";
import { bundleFileName, bundleOutcome } from "./bundles.js";
import { certificateSubject } from "./certificates.js";
import { completionWords } from "./completion.js";
import { ExitCode, UsageError } from "./exit.js";
import { beaconInProcess } from "./in-process.js";
import { beaconProgram } from "./program.js";
import { collect } from "./webhooks.js";

const beacon = beaconInProcess;

const NEW_COMMANDS = [
  ["flows", "diff"],
  ["bundles", "request"],
  ["bundles", "list"],
  ["bundles", "wait"],
  ["bundles", "download"],
  ["certificates", "list"],
  ["certificates", "show"],
  ["certificates", "issue"],
  ["certificates", "revoke"],
  ["webhooks", "list"],
  ["webhooks", "show"],
  ["webhooks", "create"],
  ["webhooks", "delete"],
  ["webhooks", "test"],
  ["webhooks", "enable"],
  ["webhooks", "deliveries"],
  ["audit", "list"],
];

describe("bundles, certificates, webhooks, audit and flows diff on the command line", () => {
  it("answer --help on every command", async () => {
    for (const args of [["bundles"], ["certificates"], ["webhooks"], ["audit"], ...NEW_COMMANDS]) {
      const { code, stdout } = await beacon([...args, "--help"]);
      expect(code, args.join(" ")).toBe(ExitCode.ok);
      expect(stdout).toMatch(new RegExp(`^Usage: beacon ${args.join(" ")}`));
    }
  });

  it("are completed, as the program names them", () => {
    const words = completionWords(beaconProgram({ io: { out() {}, err() {} }, env: {}, exitCode: 0 }));
    expect(words.get("")).toEqual(expect.arrayContaining(["bundles", "certificates", "webhooks", "audit"]));
    expect(words.get("flows")).toContain("diff");
    expect(words.get("bundles wait")).toEqual(expect.arrayContaining(["--timeout", "--interval", "--json"]));
    expect(words.get("bundles download")).toEqual(expect.arrayContaining(["--output", "-o"]));
    expect(words.get("certificates issue")).toEqual(
      expect.arrayContaining(["--csr", "--agent", "--fleet", "--out"]),
    );
    expect(words.get("audit list")).toEqual(
      expect.arrayContaining(["--from", "--to", "--actor", "--operation"]),
    );
  });

  it("exit 2 on a usage error, before any request", async () => {
    const signedIn = { BEACON_URL: "http://127.0.0.1:9", BEACON_TOKEN: "token" };
    const cases: [string[], RegExp][] = [
      [["flows", "diff", "pumps", "abc", "v2"], /abc names no flow version/],
      [["flows", "diff", "pumps", "v1"], /missing required argument 'to'/],
      [["flows", "diff", "pumps", "v1", "v2", "-U", "-1"], /expected a whole number ≥ 0/],
      [["bundles", "wait", "op~a", "--timeout", "0"], /expected a whole number ≥ 1/],
      [["bundles", "request"], /missing required argument 'agentId'/],
      [["certificates", "issue", "--agent", "a"], /required option '--csr <file>'/],
      [
        ["certificates", "issue", "--csr", "/no/such.csr", "--agent", "a"],
        /Cannot read \/no\/such.csr: ENOENT/,
      ],
      [["certificates", "issue", "--csr", "/no/such.csr"], /--agent <agentId> or --fleet <name>/],
      [["webhooks", "create", "--url", "https://hooks.example.com"], /required option '--event <type>'/],
      [["audit", "list", "--from", "yesterday"], /expected a date \(2026-11-30\)/],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await beacon(args, signedIn);
      expect({ args, code, stderr }).toMatchObject({ code: ExitCode.usage });
      expect(stderr).toMatch(message);
    }
  });

  it("read whom a certificate is for from exactly one of --agent and --fleet", () => {
    expect(certificateSubject({ agent: "edge-1" })).toEqual({ kind: "agent", agentId: "edge-1" });
    expect(certificateSubject({ fleet: "pumps" })).toEqual({ kind: "fleet", fleetName: "pumps" });
    expect(() => certificateSubject({})).toThrow(UsageError);
    expect(() => certificateSubject({ agent: "a", fleet: "f" })).toThrow(UsageError);
  });

  it("read times as dates or ISO 8601 times, and repeated options in order", () => {
    expect(dateTimeOption("2026-11-30")).toBe("2026-11-30T00:00:00.000Z");
    expect(dateTimeOption("2026-11-30T09:15:00+01:00")).toBe("2026-11-30T08:15:00.000Z");
    for (const wrong of ["now", "1700000000", "2026-13-40"]) {
      expect(() => dateTimeOption(wrong), wrong).toThrow(InvalidArgumentError);
    }
    expect(collect("rollout.*", collect("agent.offline"))).toEqual(["agent.offline", "rollout.*"]);
  });

  it("tell a ready bundle from a failed or pending one, and name its file", () => {
    const operation = (state: Schemas["OperationState"]) => ({ state }) as Schemas["Operation"];
    expect(bundleOutcome(operation("done"))).toBe("ready");
    for (const state of ["failed", "timed_out", "cancelled"] as const) {
      expect(bundleOutcome(operation(state))).toBe("failed");
    }
    for (const state of ["queued", "delivered", "awaiting_effect"] as const) {
      expect(bundleOutcome(operation(state))).toBe("waiting");
    }
    expect(bundleFileName("op-1~edge-1")).toBe("debug-op-1~edge-1.tar.gz");
  });
});
