import type { AgentAssignment } from "./ports.js";

/** Whether the assignment still holds the agent: the class's target is still the one it was assigned over. */
export const assignmentHolds = (
  assignment: AgentAssignment | undefined,
  classTarget: string | undefined,
): assignment is AgentAssignment => assignment !== undefined && assignment.over === classTarget;
