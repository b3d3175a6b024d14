import { describe, expect, it } from "vitest";
import { normalizeHeartbeat } from "../c2/heartbeat.js";
import { newErrorBulletins } from "./bulletins.js";

const listing = (bulletins: { id?: number; level: string }[]) => {
  const heartbeat = normalizeHeartbeat({
    agentInfo: { identifier: "pump-1" },
    flowInfo: { processorBulletins: bulletins.map((bulletin) => ({ ...bulletin, message: "m" })) },
  });
  return { ids: heartbeat.bulletinIds, errors: heartbeat.status?.errorBulletins };
};

describe("new ERROR bulletins", () => {
  it("are those above the highest id the agent listed before, however often it lists them again", () => {
    const first = listing([
      { id: 1, level: "ERROR" },
      { id: 2, level: "WARN" },
    ]);
    expect(first.ids).toEqual({ highest: 2, errors: [1] });
    expect(newErrorBulletins(first.ids, first.errors, undefined)).toBe(1);
    // The same two again, then with a new ERROR and a new WARN.
    expect(newErrorBulletins(first.ids, first.errors, 2)).toBe(0);
    const later = listing([
      { id: 1, level: "ERROR" },
      { id: 2, level: "WARN" },
      { id: 3, level: "error" },
      { id: 4, level: "WARN" },
    ]);
    expect(newErrorBulletins(later.ids, later.errors, 2)).toBe(1);
  });

  it("are every one listed after a restart, whose ids start from 1 again", () => {
    const restarted = listing([
      { id: 1, level: "ERROR" },
      { id: 2, level: "ERROR" },
    ]);
    expect(newErrorBulletins(restarted.ids, restarted.errors, 4_000)).toBe(2);
  });

  it("are every ERROR bulletin listed when none carries an id, and none without bulletins", () => {
    const anonymous = listing([{ level: "ERROR" }, { level: "ERROR" }, { level: "INFO" }]);
    expect(anonymous.ids).toEqual({ errors: [] });
    expect(newErrorBulletins(anonymous.ids, anonymous.errors, 7)).toBe(2);
    const quiet = normalizeHeartbeat({ agentInfo: { identifier: "pump-1" }, flowInfo: {} });
    expect(quiet.bulletinIds).toBeUndefined();
    expect(newErrorBulletins(quiet.bulletinIds, quiet.status?.errorBulletins, 7)).toBeUndefined();
  });
});
