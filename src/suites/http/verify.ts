import { readFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";

/** A request of a scenario manifest (schemas/suites/http.schema.json#/$defs/request). */
export interface ScenarioRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly raw_body?: string;
}

export interface Expectation {
  readonly status: number;
  readonly content_type?: string;
  readonly text?: string;
  readonly json?: unknown;
  readonly file?: string;
  readonly json_file?: string;
  readonly empty?: true;
  readonly contains?: readonly string[];
}

export interface VerifyStep {
  readonly request: ScenarioRequest;
  readonly expect: Expectation;
}

/** What came back for one request, as the result records it. */
export interface ObservedResponse {
  readonly request: string;
  readonly status: number;
  /** How the body was delimited: content-length, chunked, or none. */
  readonly framing: string;
  readonly body_bytes: number;
  readonly headers: Record<string, string>;
}

// A type, not an interface, so that it fits the result's open `verification` object.
export type Verification = {
  status: "passed" | "failed";
  requests: number;
  /** `body_start`: the first bytes of a response whose status was wrong, where the server says why. */
  failures: { request: string; problem: string; body_start?: string }[];
  responses: ObservedResponse[];
};

/** The body a request carries on the wire, or undefined. */
export function requestBody(request: ScenarioRequest): string | undefined {
  return request.raw_body ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
}

export function describeRequest(request: ScenarioRequest): string {
  return `${request.method} ${request.path}`;
}

function mediaType(value: string): { type: string; charset: string | null } {
  const [type = "", ...params] = value.split(";").map((part) => part.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "") ?? null;
  return { type, charset };
}

/** Same media type; a charset the scenario names must be the one sent (case aside). */
export function contentTypeProblem(expected: string, actual: string | undefined): string | null {
  if (actual === undefined) return `no Content-Type, expected ${JSON.stringify(expected)}`;
  const want = mediaType(expected);
  const got = mediaType(actual);
  if (want.type !== got.type || (want.charset !== null && want.charset !== got.charset)) {
    return `Content-Type ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
  }
  return null;
}

/** Content-Length or Transfer-Encoding, exactly one, and a Content-Length that tells the truth. */
export function framingProblem(status: number, headers: Record<string, string>, bodyBytes: number): string | null {
  const length = headers["content-length"];
  const encoding = headers["transfer-encoding"];
  if (length !== undefined && encoding !== undefined) return "both Content-Length and Transfer-Encoding";
  if (length !== undefined && Number(length) !== bodyBytes) return `Content-Length ${length} but ${bodyBytes} body bytes`;
  if (encoding !== undefined && encoding.toLowerCase() !== "chunked") return `Transfer-Encoding ${JSON.stringify(encoding)}`;
  const bodyless = status === 204 || status === 304;
  if (length === undefined && encoding === undefined && !bodyless) return "neither Content-Length nor Transfer-Encoding";
  return null;
}

function excerpt(bytes: Buffer, at: number): string {
  return JSON.stringify(bytes.subarray(Math.max(0, at - 20), at + 40).toString("utf8"));
}

/** Where two byte strings first differ, shown as text around that point; null when identical. */
export function bytesDifference(expected: Buffer, actual: Buffer): string | null {
  if (expected.equals(actual)) return null;
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++;
  return `body differs at byte ${at} (expected ${expected.length} bytes, got ${actual.length}): expected ${excerpt(expected, at)}, got ${excerpt(actual, at)}`;
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** The JSON pointer of the first place two JSON values differ, with both values there; null when equal. */
export function jsonDifference(expected: unknown, actual: unknown, path = ""): string | null {
  if (isDeepStrictEqual(expected, actual)) return null;
  const bothArrays = Array.isArray(expected) && Array.isArray(actual);
  const bothObjects =
    typeof expected === "object" && expected !== null && !Array.isArray(expected) &&
    typeof actual === "object" && actual !== null && !Array.isArray(actual);
  if (bothArrays && expected.length !== actual.length) {
    return `${path || "/"}: expected an array of ${expected.length}, got ${actual.length}`;
  }
  if (bothArrays || bothObjects) {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    for (const key of new Set([...Object.keys(e), ...Object.keys(a)])) {
      if (!(key in a)) return `${path}/${key}: missing, expected ${shortJson(e[key])}`;
      if (!(key in e)) return `${path}/${key}: unexpected ${shortJson(a[key])}`;
      const inner = jsonDifference(e[key], a[key], `${path}/${key}`);
      if (inner) return inner;
    }
  }
  return `${path || "/"}: expected ${shortJson(expected)}, got ${shortJson(actual)}`;
}

/** Why a body is not what the scenario expects, or null. Files are read relative to `scenarioDir`. */
export function bodyProblem(expect: Expectation, body: Buffer, scenarioDir: string): string | null {
  if (expect.empty) return body.length === 0 ? null : `expected no body, got ${body.length} bytes: ${excerpt(body, 0)}`;
  if (expect.text !== undefined) return bytesDifference(Buffer.from(expect.text, "utf8"), body);
  if (expect.contains !== undefined) {
    const text = body.toString("utf8");
    const missing = expect.contains.filter((part) => !text.includes(part));
    return missing.length === 0 ? null : `body lacks ${JSON.stringify(missing[0])}${missing.length > 1 ? ` (and ${missing.length - 1} more expected texts)` : ""}`;
  }
  if (expect.file !== undefined) return bytesDifference(readFileSync(join(scenarioDir, expect.file)), body);
  const wanted =
    expect.json_file !== undefined ? JSON.parse(readFileSync(join(scenarioDir, expect.json_file), "utf8")) : expect.json;
  if (wanted === undefined) return null; // the scenario checks status and headers only
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return `body is not JSON: ${excerpt(body, 0)}`;
  }
  const difference = jsonDifference(wanted, parsed);
  return difference === null ? null : `JSON body differs at ${difference}`;
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function send(agent: Agent, baseUrl: string, request: ScenarioRequest): Promise<RawResponse> {
  const body = requestBody(request);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      new URL(request.path, baseUrl),
      {
        method: request.method,
        agent,
        timeout: 10_000,
        // The same request headers as the load: no compression, keep-alive.
        headers: { "accept-encoding": "identity", ...(body === undefined ? {} : { "content-type": "application/json" }) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.once("end", () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
          }
          resolve({ status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
        response.once("error", reject);
      },
    );
    outgoing.once("timeout", () => outgoing.destroy(new Error("no answer within 10 s")));
    outgoing.once("error", reject);
    outgoing.end(body);
  });
}

/** Problems of one response against its expectation; an empty list when it passes. */
export function responseProblems(step: VerifyStep, response: RawResponse, scenarioDir: string): string[] {
  const { expect } = step;
  const problems: string[] = [];
  if (response.status !== expect.status) problems.push(`status ${response.status}, expected ${expect.status}`);
  const framing = framingProblem(response.status, response.headers, response.body.length);
  if (framing) problems.push(framing);
  const encoding = response.headers["content-encoding"];
  if (encoding !== undefined && encoding !== "identity") problems.push(`Content-Encoding ${encoding} although the request asked for identity`);
  if (expect.content_type !== undefined) {
    const type = contentTypeProblem(expect.content_type, response.headers["content-type"]);
    if (type) problems.push(type);
  }
  // A wrong status already says the body is wrong; comparing it too would only add noise.
  if (response.status === expect.status) {
    const body = bodyProblem(expect, response.body, scenarioDir);
    if (body) problems.push(body);
  }
  return problems;
}

/** Sends every step in order to the server at `baseUrl` and checks each answer. */
export async function verifyServer(baseUrl: string, steps: readonly VerifyStep[], scenarioDir: string): Promise<Verification> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const verification: Verification = { status: "passed", requests: steps.length, failures: [], responses: [] };
  try {
    for (const step of steps) {
      const name = describeRequest(step.request);
      let response: RawResponse;
      try {
        response = await send(agent, baseUrl, step.request);
      } catch (error) {
        verification.failures.push({ request: name, problem: `request failed: ${(error as Error).message}` });
        break; // a server that stopped answering answers nothing after
      }
      const { status, headers, body } = response;
      const framing = headers["content-length"] !== undefined ? "content-length" : headers["transfer-encoding"] !== undefined ? "chunked" : "none";
      verification.responses.push({ request: name, status, framing, body_bytes: body.length, headers });
      // A wrong status leaves the body uncompared, yet the body is where a server names its error.
      const bodyStart = status !== step.expect.status && body.length > 0 ? { body_start: body.subarray(0, BODY_START_BYTES).toString("utf8") } : {};
      for (const problem of responseProblems(step, response, scenarioDir)) verification.failures.push({ request: name, problem, ...bodyStart });
    }
  } finally {
    agent.destroy();
  }
  if (verification.failures.length > 0) verification.status = "failed";
  return verification;
}

/** How much of a failing response's body a result keeps. */
const BODY_START_BYTES = 512;
/** How much of it fits in the one-line reason. */
const BODY_IN_SUMMARY = 160;

/** One line for a result's `error`: the first problem (with the start of the body a wrong status came with), and how many more there were. */
export function verificationSummary(verification: Verification): string {
  const [first, ...rest] = verification.failures;
  if (!first) return "verification passed";
  const flat = first.body_start?.replace(/\s+/g, " ").trim();
  const body = flat ? `, body ${JSON.stringify(flat.length > BODY_IN_SUMMARY ? `${flat.slice(0, BODY_IN_SUMMARY)}…` : flat)}` : "";
  const more = rest.length > 0 ? ` (and ${rest.length} more problem${rest.length === 1 ? "" : "s"})` : "";
  return `verification failed: ${first.request}: ${first.problem}${body}${more}`;
}
