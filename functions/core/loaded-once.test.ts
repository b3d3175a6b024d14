import { describe, expect, it } from "vitest";
import { loadedOnce } from "./loaded-once.js";

describe("a value loaded once", () => {
  it("is undefined until loaded, then the one value every call answers", async () => {
    let loads = 0;
    const value = loadedOnce(async () => ({ load: ++loads }));
    expect(value.loaded()).toBeUndefined();
    const [first, second] = await Promise.all([value(), value()]);
    expect(first).toBe(second);
    expect(value.loaded()).toBe(first);
    expect(loads).toBe(1);
  });

  it("shares a failed load with the calls that waited for it, and loads again at the next call", async () => {
    let loads = 0;
    const value = loadedOnce(async () => {
      loads++;
      if (loads === 1) throw new Error("not yet");
      return { load: loads };
    });
    const waiting = [value(), value()];
    for (const call of waiting) await expect(call).rejects.toThrow("not yet");
    expect(value.loaded()).toBeUndefined();
    expect(await value()).toEqual({ load: 2 });
    expect(value.loaded()).toEqual({ load: 2 });
    expect(loads).toBe(2);
  });
});
