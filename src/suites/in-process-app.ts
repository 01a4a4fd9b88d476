/**
 * What the reproduction of an in-process app holds whatever its suite (workers, database, fileio):
 * the app with the code it shares, the protocol it speaks, its entry and its flags. Each suite adds
 * the input, the figure and what it makes for the app.
 */
import { join } from "node:path";
import { entryFile, type App } from "../apps/manifest.ts";
import type { RuntimeName } from "../runtimes/catalog.ts";
import { IN_PROCESS_PROTOCOL_DIR } from "../tools/in-process.ts";
import type { InProcessReproduction } from "./suite.ts";

type AppPart = Pick<InProcessReproduction, "kind" | "folders" | "appDir" | "entry" | "flags">;

/** `folders`: what the app needs besides the protocol; by default its own folder and its siblings' shared/. */
export function inProcessApp(app: App, runtime: RuntimeName, flags: readonly string[], folders: readonly string[] = [app.dir, join(app.dir, "..", "shared")]): AppPart {
  return { kind: "in-process", folders: [...folders, IN_PROCESS_PROTOCOL_DIR], appDir: app.dir, entry: entryFile(app, runtime), flags };
}
