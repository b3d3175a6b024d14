/**
 * Who an operation a rollout created was created by, as the operation lists name it: `beacon:rollout:<rolloutId>`.
 * It imports nothing, so the web console reads the same spelling to link such an operation to its rollout.
 */
const ROLLOUT_CREATOR = "beacon:rollout:";
export const rolloutCreator = (rolloutId: string): string => `${ROLLOUT_CREATOR}${rolloutId}`;
/** The rollout that created an operation, from its `createdBy`; undefined when a person did. */
export const rolloutOfCreator = (createdBy: string): string | undefined =>
  createdBy.startsWith(ROLLOUT_CREATOR) ? createdBy.slice(ROLLOUT_CREATOR.length) : undefined;
