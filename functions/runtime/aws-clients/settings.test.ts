import { describe, expect, it } from "vitest";
import { madeOnFirstUse } from "./settings.js";

describe("a client made on first use", () => {
  class Client {
    static made = 0;
    destroyed = false;
    constructor(readonly name: string) {
      Client.made++;
    }
    destroy() {
      this.destroyed = true;
    }
    describe() {
      return `${this.name}${this.destroyed ? " (destroyed)" : ""}`;
    }
  }

  it("is made by its first use, once, and answers as the client would", () => {
    Client.made = 0;
    const client = madeOnFirstUse(() => new Client("stream"));
    expect(Client.made).toBe(0);
    expect(client.describe()).toBe("stream");
    expect(client.name).toBe("stream");
    client.destroy();
    expect(client.describe()).toBe("stream (destroyed)");
    expect(Client.made).toBe(1);
  });

  it("is not made to be destroyed", () => {
    Client.made = 0;
    madeOnFirstUse(() => new Client("unused")).destroy();
    expect(Client.made).toBe(0);
  });
});
