import { describe, expect, it } from "vitest";
import { loadedOnFirstCall } from "./on-first-call.js";

interface Greeter {
  greet(name: string): Promise<string>;
  letters(word: string): AsyncIterable<string>;
}

/** A greeter loaded by `load`, counting its loads; `failures` loads fail first. */
function countedGreeter(failures = 0) {
  const loads = { started: 0 };
  const greeter = loadedOnFirstCall<Greeter>(
    async () => {
      loads.started += 1;
      if (loads.started <= failures) throw new Error(`load ${loads.started} failed`);
      return {
        greet: async (name) => `hello ${name}`,
        async *letters(word) {
          yield* word;
        },
      };
    },
    { letters: true },
  );
  return { greeter, loads };
}

async function read<Value>(values: AsyncIterable<Value>): Promise<Value[]> {
  const read: Value[] = [];
  for await (const value of values) read.push(value);
  return read;
}

describe("a port loaded on first call", () => {
  it("is not loaded until a method is called, then loaded once for every call", async () => {
    const { greeter, loads } = countedGreeter();
    const greet = greeter.greet;
    expect(loads.started).toBe(0);
    expect(await greet("ada")).toBe("hello ada");
    expect(await greeter.greet("bob")).toBe("hello bob");
    expect(await read(greeter.letters("hey"))).toEqual(["h", "e", "y"]);
    expect(loads.started).toBe(1);
  });

  it("shares one load among the calls made while it loads", async () => {
    const { greeter, loads } = countedGreeter();
    const answers = await Promise.all([
      greeter.greet("ada"),
      read(greeter.letters("ok")),
      greeter.greet("bob"),
    ]);
    expect(answers).toEqual(["hello ada", ["o", "k"], "hello bob"]);
    expect(loads.started).toBe(1);
  });

  it("fails the calls of a failed load and loads again at the next call", async () => {
    const { greeter, loads } = countedGreeter(1);
    const failed = await Promise.allSettled([greeter.greet("ada"), greeter.greet("bob")]);
    expect(failed.map((call) => call.status)).toEqual(["rejected", "rejected"]);
    await expect(read(greeter.letters("no"))).resolves.toEqual(["n", "o"]);
    expect(await greeter.greet("ada")).toBe("hello ada");
    expect(loads.started).toBe(2);
  });

  it("starts a streamed method's load only when its values are read, as an async generator does", async () => {
    const { greeter, loads } = countedGreeter();
    const letters = greeter.letters("ab");
    expect(loads.started).toBe(0);
    expect(await read(letters)).toEqual(["a", "b"]);
  });

  it("is no promise itself, so awaiting it answers the port", async () => {
    const { greeter, loads } = countedGreeter();
    expect(await Promise.resolve(greeter)).toBe(greeter);
    expect(loads.started).toBe(0);
  });

  it("refuses, by its type, a port with a method that answers at once or a streamed method left unnamed", () => {
    const load = async () => ({ now: () => 1, greet: async () => "hello" });
    // @ts-expect-error now() answers at once: made async by the loading, its callers would get a promise.
    loadedOnFirstCall<{ now(): number; greet(): Promise<string> }>(load);
    // @ts-expect-error letters() streams: a call must know it does before the port is loaded.
    loadedOnFirstCall<Greeter>(async () => ({ greet: async () => "", letters: async function* () {} }));
  });
});
