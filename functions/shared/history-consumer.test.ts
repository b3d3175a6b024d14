import { describe, expect, it } from "vitest";
import { EnvNames } from "./env-names.js";
import { historyConsumerConfig } from "./history-consumer.js";

describe("the history consumer's configuration", () => {
  it("keeps history 14 days unless BEACON_HISTORY_RETENTION_DAYS says otherwise", () => {
    expect(historyConsumerConfig({ [EnvNames.tableName]: "beacon" })).toEqual({
      tableName: "beacon",
      retentionDays: 14,
    });
    expect(
      historyConsumerConfig({ [EnvNames.tableName]: "beacon", [EnvNames.historyRetentionDays]: "30" })
        .retentionDays,
    ).toBe(30);
  });

  it("fails the cold start on a missing table or a retention that is no positive number", () => {
    expect(() => historyConsumerConfig({})).toThrow(EnvNames.tableName);
    expect(() =>
      historyConsumerConfig({ [EnvNames.tableName]: "beacon", [EnvNames.historyRetentionDays]: "forever" }),
    ).toThrow(EnvNames.historyRetentionDays);
  });
});
