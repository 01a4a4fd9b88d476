// Node has no WebSocket server of its own (only a client), so its native app is the `ws` package.
import { WebSocketServer } from "ws";
import { serveWithWs } from "../shared/ws-server.js";

serveWithWs(WebSocketServer, { port: Number(process.env.PORT), host: process.env.HOST });
