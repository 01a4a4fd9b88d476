import { value } from "./graph/m0.js";

if (value() > 0) console.log("ready");
