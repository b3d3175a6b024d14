/**
 * The designer's undo and redo: every edit records the state it leaves, undo steps back to the one before,
 * redo forward again until a new edit forgets the undone ones. Pure, over any immutable state.
 */
export interface History<State> {
  past: State[];
  present: State;
  future: State[];
}

/** How many edits back undo reaches: enough for a session's work, bounded for a long one. */
export const UNDO_DEPTH = 200;

export const historyOf = <State>(present: State): History<State> => ({ past: [], present, future: [] });

/** The history after an edit that left `next`; an edit that changed nothing is no step. */
export function record<State>(history: History<State>, next: State): History<State> {
  if (next === history.present) return history;
  return { past: [...history.past, history.present].slice(-UNDO_DEPTH), present: next, future: [] };
}

export function undo<State>(history: History<State>): History<State> {
  const previous = history.past.at(-1);
  if (previous === undefined) return history;
  return { past: history.past.slice(0, -1), present: previous, future: [history.present, ...history.future] };
}

export function redo<State>(history: History<State>): History<State> {
  const [next, ...later] = history.future;
  if (next === undefined) return history;
  return { past: [...history.past, history.present], present: next, future: later };
}
