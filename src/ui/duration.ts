/** Durations as people read and write them. */
import { UserError } from "../core/errors.ts";

/** Seconds as a person reads a duration: `48 s`, `3 min 12 s`, `4 h 40 min`. */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const minutes = Math.round(whole / 60);
  if (minutes >= 60) return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
}

/** `6h`, `1h20m`, `90m`, `45s` or plain seconds, as seconds. */
export function parseDuration(text: string, option: string): number {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$/.exec(text.trim());
  const [hours = "0", minutes = "0", seconds = "0"] = match?.slice(1).map((part) => part ?? "0") ?? [];
  const total = Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
  if (!match || text.trim() === "" || total <= 0) throw new UserError(`${option} must be a duration such as 6h, 1h20m, 90m or 45s, not '${text}'`);
  return total;
}
