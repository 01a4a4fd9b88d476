// How the apps that carry bytes (the shared-memory ring, HTTP) turn a payload into bytes and back:
// a Uint8Array as it is, anything else as JSON text in UTF-8. postMessage apps use the runtime's
// structured clone instead; WebSocket uses binary frames for bytes and text frames for JSON.
export const JSON_TEXT = 0;
export const BYTES = 1;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encode(value) {
  return value instanceof Uint8Array ? { kind: BYTES, bytes: value } : { kind: JSON_TEXT, bytes: encoder.encode(JSON.stringify(value)) };
}

export function decode(kind, bytes) {
  if (kind === BYTES) return bytes;
  if (kind === JSON_TEXT) return JSON.parse(decoder.decode(bytes));
  throw new Error(`unknown payload kind ${kind}`);
}
