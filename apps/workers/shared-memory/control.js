// What both ends of the shared-memory app agree on beside the codec's payload kinds.
/** The record kind that ends a channel: the worker answers it and stops. */
export const CLOSE = 255;
/** Bytes of each ring: a record may take half of it, so 4 MiB carries the largest payload (1 MiB). */
export const RING_CAPACITY = 4 * 1024 * 1024;
