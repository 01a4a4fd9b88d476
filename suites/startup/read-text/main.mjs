import { readFileSync } from "node:fs";

// Every text read whole and decoded as UTF-8 in one call, as a CLI reads its templates at start.
const expected = JSON.parse(readFileSync(new URL("./texts/expected.json", import.meta.url), "utf8"));
let characters = 0;
let lines = 0;
for (let i = 0; i < expected.files; i++) {
  const text = readFileSync(new URL(`./texts/t${i}.txt`, import.meta.url), "utf8");
  characters += text.length;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines += 1;
}
if (characters === expected.characters && lines === expected.lines) console.log("ready");
else console.log(`read ${characters} characters and ${lines} lines, expected ${expected.characters} and ${expected.lines}`);
