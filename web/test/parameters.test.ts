import { describe, expect, it } from "vitest";
import { declaredIn } from "../src/parameters.js";

describe("the parameters a class's flow versions declare", () => {
  it("are offered once per name, in the order first met, sensitive when any version says so", () => {
    expect(
      declaredIn([
        [
          {
            name: "kafka.brokers",
            sensitive: false,
            description: "Where to send",
            default: "localhost:9092",
          },
          { name: "kafka.password", sensitive: false, default: "changeit" },
        ],
        undefined,
        [
          { name: "kafka.password", sensitive: true, description: "The broker's password" },
          { name: "site id", sensitive: false, description: "The site", default: "site-0" },
          { name: "kafka.brokers", sensitive: false, description: "Elsewhere", default: "broker:9092" },
        ],
      ]),
    ).toEqual([
      { name: "kafka.brokers", sensitive: false, description: "Where to send", default: "localhost:9092" },
      // A version declaring it sensitive makes it so; the default an older version gave is not offered.
      { name: "kafka.password", sensitive: true },
      { name: "site id", sensitive: false, description: "The site", default: "site-0" },
    ]);
  });

  it("are none when no version declares any", () => {
    expect(declaredIn([])).toEqual([]);
    expect(declaredIn([undefined, []])).toEqual([]);
  });
});
