import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { ConsoleClient } from "../api/client";
import type { Session } from "../session";

/** What every signed-in page reaches: the session, the API client that carries its token, sign-out. */
export interface Console {
  session: Session;
  client: ConsoleClient;
  signOut(): void;
}

export const ConsoleContext = createContext<Console | undefined>(undefined);

export function useConsole(): Console {
  const value = useContext(ConsoleContext);
  if (value === undefined) throw new Error("useConsole outside a signed-in page");
  return value;
}
