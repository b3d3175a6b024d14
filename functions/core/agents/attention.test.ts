import { describe, expect, it } from "vitest";
import {
  ATTENTION_REASONS,
  attentionReasonsOf,
  ERROR_BULLETIN_WINDOW_MS,
  errorBulletinsUntil,
  isBackPressured,
} from "./attention.js";

const NOW = Date.UTC(2026, 10, 30, 12);
const DAY = 86_400_000;
const rule = { now: NOW, certificateWarningDays: 14 };

describe("ERROR bulletins", () => {
  it("hold the agent for the window after the latest ERROR bulletin", () => {
    const bulletins = [
      { level: "ERROR", timestamp: NOW - 60_000 },
      { level: "ERROR", timestamp: NOW - 120_000 },
      { level: "WARN", timestamp: NOW },
    ];
    expect(errorBulletinsUntil(bulletins, NOW)).toBe(NOW - 60_000 + ERROR_BULLETIN_WINDOW_MS);
  });

  it("count one without a time, or from an agent whose clock runs ahead, as raised now", () => {
    expect(errorBulletinsUntil([{ level: "ERROR" }], NOW)).toBe(NOW + ERROR_BULLETIN_WINDOW_MS);
    // A window set otherwise (BEACON_ERROR_BULLETIN_WINDOW_SECONDS).
    expect(errorBulletinsUntil([{ level: "ERROR", timestamp: NOW - 60_000 }], NOW, 90_000)).toBe(
      NOW + 30_000,
    );
    expect(errorBulletinsUntil([{ level: "ERROR", timestamp: NOW - 60_000 }], NOW, 60_000)).toBeUndefined();
    expect(errorBulletinsUntil([{ level: "ERROR", timestamp: NOW + DAY }], NOW)).toBe(
      NOW + ERROR_BULLETIN_WINDOW_MS,
    );
  });

  it("say nothing of a heartbeat with none, only other levels, or only ones older than the window", () => {
    expect(errorBulletinsUntil(undefined, NOW)).toBeUndefined();
    expect(errorBulletinsUntil([], NOW)).toBeUndefined();
    expect(errorBulletinsUntil([{ level: "WARN", timestamp: NOW }], NOW)).toBeUndefined();
    expect(
      errorBulletinsUntil([{ level: "ERROR", timestamp: NOW - ERROR_BULLETIN_WINDOW_MS }], NOW),
    ).toBeUndefined();
  });
});

describe("back pressure", () => {
  it("is any queue the heartbeat's reading found at its limit", () => {
    expect(
      isBackPressured([
        { id: "q", backPressure: false },
        { id: "r", backPressure: true },
      ]),
    ).toBe(true);
  });

  it("is not queues below their limits or without limits, nor no queue", () => {
    expect(isBackPressured([{ id: "q", size: 3, sizeMax: 10_000, backPressure: false }, { id: "r" }])).toBe(
      false,
    );
    expect(isBackPressured([])).toBe(false);
  });

  it("is unknown when the heartbeat reports no queues", () => {
    expect(isBackPressured(undefined)).toBeUndefined();
  });
});

describe("an agent's attention reasons", () => {
  it("are none for an online agent with nothing wrong, or nothing known", () => {
    expect(attentionReasonsOf({ status: "online" }, rule)).toEqual([]);
    expect(
      attentionReasonsOf(
        {
          status: "online",
          errorBulletinsUntil: NOW,
          backPressured: false,
          lastOperationFailed: false,
          flow: "current",
          certificateNotAfter: NOW + 15 * DAY,
        },
        rule,
      ),
    ).toEqual([]);
  });

  it("name each reason that holds, alone", () => {
    expect(attentionReasonsOf({ status: "offline" }, rule)).toEqual(["offline"]);
    expect(attentionReasonsOf({ status: "online", errorBulletinsUntil: NOW + 1 }, rule)).toEqual([
      "errorBulletins",
    ]);
    expect(attentionReasonsOf({ status: "online", backPressured: true }, rule)).toEqual(["backPressure"]);
    expect(attentionReasonsOf({ status: "online", lastOperationFailed: true }, rule)).toEqual([
      "operationFailed",
    ]);
    expect(attentionReasonsOf({ status: "online", flow: "offTarget" }, rule)).toEqual(["offTarget"]);
    expect(attentionReasonsOf({ status: "online", flow: "pinned" }, rule)).toEqual(["pinned"]);
    expect(attentionReasonsOf({ status: "online", certificateNotAfter: NOW + 14 * DAY }, rule)).toEqual([
      "certificateExpiring",
    ]);
    expect(attentionReasonsOf({ status: "online", certificateNotAfter: NOW - DAY }, rule)).toEqual([
      "certificateExpiring",
    ]);
  });

  it("name every reason that holds, in the console's order", () => {
    expect(
      attentionReasonsOf(
        {
          status: "offline",
          errorBulletinsUntil: NOW + 1,
          backPressured: true,
          lastOperationFailed: true,
          flow: "pinned",
          certificateNotAfter: NOW,
        },
        rule,
      ),
    ).toEqual(ATTENTION_REASONS.filter((reason) => reason !== "offTarget"));
  });
});
