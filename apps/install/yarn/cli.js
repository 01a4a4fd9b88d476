// The pinned Yarn bundle, loaded into this process so the Node under test is the only process.
require("./node_modules/@yarnpkg/cli-dist/bin/yarn.js");
