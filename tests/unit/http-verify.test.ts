import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../benchmarks/lib/cli.ts";
import {
  bodyProblem,
  bytesDifference,
  contentTypeProblem,
  framingProblem,
  jsonDifference,
  responseProblems,
  verificationSummary,
} from "../../src/suites/http/verify.ts";

test("a content type matches on media type; a charset is compared only when the scenario names one", () => {
  assert.equal(contentTypeProblem("application/json", "application/json; charset=utf-8"), null);
  assert.equal(contentTypeProblem("text/plain; charset=utf-8", "text/plain;charset=UTF-8"), null);
  assert.match(contentTypeProblem("text/plain; charset=utf-8", "text/plain; charset=latin1") ?? "", /expected "text\/plain; charset=utf-8"/);
  assert.match(contentTypeProblem("application/json", "text/html") ?? "", /Content-Type "text\/html"/);
  assert.match(contentTypeProblem("application/json", undefined) ?? "", /no Content-Type/);
});

test("framing needs exactly one of Content-Length and Transfer-Encoding, and a truthful length", () => {
  assert.equal(framingProblem(200, { "content-length": "27" }, 27), null);
  assert.equal(framingProblem(200, { "transfer-encoding": "chunked" }, 27), null);
  assert.equal(framingProblem(204, {}, 0), null);
  assert.match(framingProblem(200, { "content-length": "30" }, 27) ?? "", /Content-Length 30 but 27/);
  assert.match(framingProblem(200, {}, 27) ?? "", /neither/);
  assert.match(framingProblem(200, { "content-length": "27", "transfer-encoding": "chunked" }, 27) ?? "", /both/);
});

test("a byte difference names the offset and shows both sides there", () => {
  assert.equal(bytesDifference(Buffer.from("Hello, World!"), Buffer.from("Hello, World!")), null);
  const shown = bytesDifference(Buffer.from("Hello, World!"), Buffer.from("Hello, Wordl!")) ?? "";
  assert.match(shown, /byte 10/);
  assert.match(shown, /expected "Hello, World!", got "Hello, Wordl!"/);
});

test("a JSON difference is the pointer of the first differing value", () => {
  assert.equal(jsonDifference({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), null);
  assert.equal(jsonDifference({ a: 1, b: 2 }, { b: 2, a: 1 }), null, "key order is not a difference");
  assert.equal(jsonDifference({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] }), "/a/1/b: expected 2, got 3");
  assert.equal(jsonDifference({ a: 1 }, { a: 1, c: true }), "/c: unexpected true");
  assert.equal(jsonDifference({ a: 1, d: "x" }, { a: 1 }), '/d: missing, expected "x"');
  assert.equal(jsonDifference([1, 2], [1]), "/: expected an array of 2, got 1");
});

test("bodies compare as text, as JSON, or against a file of the scenario", () => {
  const dir = tempDir("http-verify");
  writeFileSync(join(dir, "a.txt"), "file bytes\n");
  writeFileSync(join(dir, "doc.json"), '{"page": 1}');
  assert.equal(bodyProblem({ status: 200, file: "a.txt" }, Buffer.from("file bytes\n"), dir), null);
  assert.match(bodyProblem({ status: 200, file: "a.txt" }, Buffer.from("file bytez\n"), dir) ?? "", /byte 9/);
  assert.equal(bodyProblem({ status: 200, json_file: "doc.json" }, Buffer.from('{"page":1}'), dir), null);
  assert.match(bodyProblem({ status: 200, json_file: "doc.json" }, Buffer.from('{"page":2}'), dir) ?? "", /\/page: expected 1, got 2/);
  assert.match(bodyProblem({ status: 200, json: {} }, Buffer.from("<html>"), dir) ?? "", /not JSON/);
  assert.match(bodyProblem({ status: 204, empty: true }, Buffer.from("x"), dir) ?? "", /expected no body/);
  assert.equal(bodyProblem({ status: 404 }, Buffer.from("anything"), dir), null, "status-only expectations ignore the body");
});

test("a response cached from another parameter fails, and a compressed answer fails", () => {
  const step = { request: { method: "GET", path: "/compute/5" }, expect: { status: 200, content_type: "application/json", json: { n: 5, prime: true } } };
  const cached = { status: 200, headers: { "content-type": "application/json", "content-length": "27" }, body: Buffer.from('{"n":7,"prime":true}       ') };
  const problems = responseProblems(step, cached, ".");
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /\/n: expected 5, got 7/);
  const compressed = { status: 200, headers: { "content-type": "application/json", "content-length": "20", "content-encoding": "br" }, body: Buffer.from('{"n":5,"prime":true}') };
  assert.match(responseProblems(step, compressed, ".").join(), /Content-Encoding br/);
});

test("the summary line gives the first problem and counts the rest", () => {
  const summary = verificationSummary({
    status: "failed",
    requests: 2,
    failures: [
      { request: "GET /json", problem: "status 500, expected 200" },
      { request: "GET /json/extra", problem: "status 500, expected 404" },
    ],
    responses: [],
  });
  assert.equal(summary, "verification failed: GET /json: status 500, expected 200 (and 1 more problem)");
});

test("a wrong status shows the start of its body in the summary, on one line and cut to fit", () => {
  const reason = `TypeError: Buffer is not defined\n    at handler (app.js:3:9)${" padding".repeat(40)}`;
  const summary = verificationSummary({
    status: "failed",
    requests: 1,
    failures: [{ request: "POST /items", problem: "status 400, expected 201", body_start: reason }],
    responses: [],
  });
  assert.match(summary, /^verification failed: POST \/items: status 400, expected 201, body "TypeError: Buffer is not defined at handler \(app\.js:3:9\) padding/);
  assert.ok(!summary.includes("\n") && summary.endsWith('…"'), summary);
});
