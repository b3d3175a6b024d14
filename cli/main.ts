/**
 * `beacon`: runs a command line and answers its exit code. 0: done; 1: the API refused, or could not be
 * reached, its message on stderr; 2: the command line was wrong (`--help` says how), before any request;
 * 3: what a command waited for did not come in time; 4: `beacon diff` found changes to make; 130: interrupted.
 */
import { CommanderError } from "commander";
import { ApiError } from "../web/src/api/client.js";
import { ExitCode, InterruptedError, UsageError } from "./exit.js";
import type { Io } from "./output.js";
import { beaconProgram } from "./program.js";

export async function run(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const environment = { io, env, exitCode: ExitCode.ok as number };
  try {
    await beaconProgram(environment).parseAsync(argv, { from: "user" });
    return environment.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and the version are asked for; anything else commander refused was already explained.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (error instanceof UsageError) {
      io.err(`beacon: ${error.message}\n`);
      return ExitCode.usage;
    }
    if (error instanceof InterruptedError) {
      io.err(`beacon: ${error.message}\n`);
      return ExitCode.interrupted;
    }
    if (error instanceof ApiError) {
      io.err(`beacon: ${error.message} (${error.status} ${error.code})\n`);
      return ExitCode.refused;
    }
    // fetch says only "fetch failed"; its cause says why (ECONNREFUSED, a name that does not resolve).
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    io.err(`beacon: ${error instanceof Error ? error.message : String(error)}${cause}\n`);
    return ExitCode.refused;
  }
}
