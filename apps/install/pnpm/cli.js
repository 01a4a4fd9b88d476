// The pinned pnpm's own entry, loaded into this process so the Node under test is the only process.
require("./node_modules/pnpm/bin/pnpm.cjs");
