// The pinned npm's own entry, loaded into this process so the Node under test is the only process.
require("./node_modules/npm/bin/npm-cli.js");
