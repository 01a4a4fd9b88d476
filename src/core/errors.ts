/**
 * A problem with what the user asked for or with the machine (bad spec, no network, missing tool).
 * The CLI prints its message as one line and exits 2; anything else is a bug and exits 1.
 */
export class UserError extends Error {
  override readonly name = "UserError";
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
