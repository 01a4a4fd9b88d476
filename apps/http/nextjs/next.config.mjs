import { fileURLToPath } from "node:url";

export default {
  // The client asks for identity anyway; no compression keeps every runtime's bytes the same.
  compress: false,
  poweredByHeader: false,
  generateEtags: false,
  // The app folder is the project, not the harness's repository around it.
  outputFileTracingRoot: fileURLToPath(new URL(".", import.meta.url)),
};
