import { BeaconError } from "../errors.js";

/**
 * What a class name may be, wherever one enters Beacon: a console path or filter, a rollout, an operation's
 * selector, an agent's heartbeat. Names become URL path segments, key parts in DynamoDB and Redis, and labels
 * in events, so they keep to characters that need no encoding anywhere: letters, digits, `.`, `_` and `-`,
 * starting with a letter or digit (so never `.` or `..`), at most 128 characters. schemas/console/openapi.json
 * states the same pattern.
 */
export const CLASS_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const isClassName = (name: string): boolean => CLASS_NAME_PATTERN.test(name);

/** For what creates something under a class name; reads of a name that cannot exist simply find nothing. */
export function assertClassName(name: string): void {
  if (!isClassName(name)) {
    throw new BeaconError(
      "invalid_request",
      "A class name is 1 to 128 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit",
    );
  }
}
