import { BYTES, JSON_TEXT } from "../shared/codec.js";

export const CONTENT_TYPES = { [JSON_TEXT]: "application/json", [BYTES]: "application/octet-stream" };
export const kindOf = (contentType) => (contentType === CONTENT_TYPES[BYTES] ? BYTES : JSON_TEXT);
