import assert from "node:assert/strict";
import { test } from "node:test";
import { loadApps, type App } from "../../src/apps/manifest.ts";
import { FORTUNES } from "../../src/suites/http/database.ts";
import { notServed } from "../../src/suites/http/index.ts";
import { bodyProblem } from "../../src/suites/http/verify.ts";

type Fields = { processes: number; scenarios?: string[] };
const apps = loadApps<Fields>("http");
const app = (name: string) => apps.find((a) => a.name === name) as App<Fields>;

test("an app that names its scenarios serves only those, and a named scenario only such apps", () => {
  assert.equal(notServed(app("express-pg"), "api-db", apps), null);
  assert.equal(notServed(app("nextjs"), "ssr", apps), null);
  assert.equal(notServed(app("native"), "json", apps), null);
  assert.equal(notServed(app("express-pg"), "json", apps), "app express-pg serves only api-db, fortunes");
  assert.match(notServed(app("native"), "api-db", apps)!, /^scenario api-db is served only by the apps made for it: .*express-pg.*hono-postgres/);
  assert.match(notServed(app("express"), "ssr", apps)!, /served only by the apps made for it: nextjs$/);
});

test("a contains expectation fails a page that lacks a text and names it", () => {
  const expect = { status: 200, contains: ["<li>item 101: 1</li>", "<h1>Page 2</h1>"] };
  assert.equal(bodyProblem(expect, Buffer.from("<h1>Page 2</h1><ul><li>item 101: 1</li></ul>"), "."), null);
  assert.equal(bodyProblem(expect, Buffer.from("<h1>Page 1</h1><ul><li>item 1: 1</li></ul>"), "."), 'body lacks "<li>item 101: 1</li>" (and 1 more expected texts)');
});

test("the fortune table holds TechEmpower's rows: a script tag to escape and a non-ASCII one", () => {
  assert.equal(FORTUNES.length, 12);
  assert.match(FORTUNES[10]!, /^<script>alert\("This should not be displayed/);
  assert.equal(FORTUNES[11], "フレームワークのベンチマーク");
});
