/**
 * A problem with what the user asked for or with the machine (bad spec, no network, missing tool).
 * The CLI prints its message as one line and exits 2; anything else is a bug and exits 1.
 */
export class UserError extends Error {
  override readonly name = "UserError";
}

/**
 * A cell with no standalone reproduction (a scenario this checkout lacks or has at another
 * version, one that needs PostgreSQL): `reason` without the command, which the site shows in the
 * reproduction's place.
 */
export class NoReproduction extends UserError {
  constructor(
    readonly reason: string,
    command = "repro",
  ) {
    super(`${command}: ${reason}`);
  }
}

/**
 * A trial that failed: the subject is recorded as failed with this message and not measured again.
 * Here rather than in src/suites/ because shared tools (src/tools/server.ts) raise it too.
 */
export class TrialFailure extends Error {
  override readonly name = "TrialFailure";
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * node:util's parseArgs error (an unknown option, a missing value) as one line: a value that
 * starts with a dash makes it three, and an older Node adds a hint about positionals that the
 * commands' own usage says better.
 */
export function parseArgsProblem(error: unknown): string {
  return errorMessage(error)
    .replace(/\. To specify a positional[^]*$/, "")
    .split("\n")
    .join(" ");
}
