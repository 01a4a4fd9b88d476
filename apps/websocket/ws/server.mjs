// The `ws` package on every runtime (on Bun, `import "ws"` gives Bun's built-in replacement).
import { WebSocketServer } from "ws";
import { serveWithWs } from "../shared/ws-server.js";

serveWithWs(WebSocketServer, { port: Number(process.env.PORT), host: process.env.HOST });
