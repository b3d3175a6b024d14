import { loadedOnce } from "../core/loaded-once.js";

/** A method whose answer comes later: a promise, or values a caller reads as they come. */
type Deferred = (...args: never[]) => Promise<unknown> | AsyncIterable<unknown>;

/** `Port` when each of its members is such a method; any other member (a sync method, a field) becomes never. */
export type DeferredPort<Port> = { [Name in keyof Port]: Port[Name] extends Deferred ? Port[Name] : never };

/** The names of `Port`'s methods that answer with values read as they come rather than with a promise. */
type StreamedNames<Port> = {
  [Name in keyof Port]: Port[Name] extends (...args: never[]) => Promise<unknown> ? never : Name;
}[keyof Port];

/** Every streamed method named, so that a call knows what to answer before the port is loaded. */
type Streamed<Port> = [StreamedNames<Port>] extends [never]
  ? []
  : [streamed: Record<StreamedNames<Port>, true>];

/**
 * A `Port` whose instance is loaded by its first call (once: later calls, and calls while it loads, share it; a
 * load that failed is tried again by the next call), so a module a function's requests seldom need, and the
 * packages it imports, are compiled and evaluated by the first request that needs them rather than at every cold
 * start. Each method answers later already, so none changes its kind; a port with another kind of method is
 * refused by the type, and its streamed methods (an async iterable's) are named in `streamed`.
 */
export function loadedOnFirstCall<Port extends DeferredPort<Port>>(
  load: () => Promise<Port>,
  ...[streamed]: Streamed<Port>
): Port {
  const instance = loadedOnce(load);
  const streamedNames = new Set(Object.keys(streamed ?? {}));
  const methods = new Map<string, unknown>();
  const call = async (name: string, args: unknown[]) => {
    const port = await instance();
    return Reflect.apply(Reflect.get(port, name) as (...args: unknown[]) => unknown, port, args);
  };
  const methodNamed = (name: string) =>
    streamedNames.has(name)
      ? async function* (...args: unknown[]) {
          yield* (await call(name, args)) as AsyncIterable<unknown>;
        }
      : (...args: unknown[]) => call(name, args);
  return new Proxy({} as Port, {
    get(_unloaded, name) {
      // Not a method of any port: a promise's `then` looked for on a port awaited, or a symbol.
      if (typeof name !== "string" || name === "then") return undefined;
      if (!methods.has(name)) methods.set(name, methodNamed(name));
      return methods.get(name);
    },
  });
}
