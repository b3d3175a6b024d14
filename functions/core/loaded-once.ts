/** `load`'s value, loaded by the first call; calls while it loads share that load, and one that fails is tried again. */
export interface LoadedOnce<Value> {
  (): Promise<Value>;
  /** The value once loaded, undefined before. */
  loaded(): Value | undefined;
}

export function loadedOnce<Value>(load: () => Promise<Value>): LoadedOnce<Value> {
  let loading: Promise<Value> | undefined;
  let value: Value | undefined;
  const get = () => {
    loading ??= Promise.resolve()
      .then(load)
      .then(
        (loadedValue) => {
          value = loadedValue;
          return loadedValue;
        },
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
    return loading;
  };
  return Object.assign(get, { loaded: () => value });
}
