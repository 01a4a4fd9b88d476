import { UserError } from "./errors.ts";

/** A setting in whole seconds from the environment variable `name`: `fallback` when unset or empty, refused below `least`. */
export function wholeSecondsSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, least: number, hint: string): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  const seconds = Number(text);
  if (!Number.isInteger(seconds) || seconds < least) throw new UserError(`${name}: '${text}' is not a whole number of seconds (${hint})`);
  return seconds;
}
