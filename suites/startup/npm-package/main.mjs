import express from "express";

const app = express();
app.get("/", (_req, res) => res.send("ok"));
if (typeof app.listen === "function") console.log("ready");
