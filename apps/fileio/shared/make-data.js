// Makes a file I/O scenario's data as the harness does, for a standalone reproduction:
//   make-data.js OPERATION SHAPE_JSON DIR
// makes DIR with the operation's input in DIR/input and an empty DIR/output, the layout of a trial.
// Plain JavaScript on node: built-ins, so Node, Deno and Bun all run it.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { writeInput } from "./data.js";

const [operation, shapeText, dir] = process.argv.slice(2);
await mkdir(dir);
await writeInput(operation, JSON.parse(shapeText), join(dir, "input"));
await mkdir(join(dir, "output"));
