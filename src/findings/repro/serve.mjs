// Starts a server app of a reproduction: `serve.mjs ENTRY`. It only adds an orderly exit on
// SIGTERM, so a runtime started with --cpu-prof writes its profile when the script stops it.
// Plain JavaScript on node: built-ins, so Node, Deno and Bun all run it.
import process from "node:process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

process.on("SIGTERM", () => process.exit(0));
await import(pathToFileURL(resolve(process.argv[2])).href);
