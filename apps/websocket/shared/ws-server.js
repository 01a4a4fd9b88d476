// The `ws` package's server, as a real-time app would write it: /echo echoes every message with
// its type (text or binary), /broadcast relays every message to every other member of one room,
// and / answers plain HTTP so the harness knows the server is up. Each app imports `ws` itself
// (from its own locked node_modules) and passes WebSocketServer in.
import { createServer } from "node:http";

export function serveWithWs(WebSocketServer, { port, host }) {
  const server = createServer((request, response) => {
    const found = request.url === "/";
    response.writeHead(found ? 200 : 404, { "content-type": "text/plain" });
    response.end(found ? "ok" : "not found");
  });
  const room = new Set();
  // One WebSocketServer for both paths: it is the form that runs on all three runtimes (Bun
  // replaces `ws` with its own implementation, which lacks parts of noServer/handleUpgrade).
  const sockets = new WebSocketServer({ server });
  sockets.on("connection", (socket, request) => {
    socket.on("error", (error) => console.error(`websocket error: ${error.message}`));
    const path = request.url.split("?")[0];
    if (path === "/echo") {
      socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary }));
    } else if (path === "/broadcast") {
      room.add(socket);
      socket.on("close", () => room.delete(socket));
      socket.on("message", (data, isBinary) => {
        for (const member of room) if (member !== socket && member.readyState === 1) member.send(data, { binary: isBinary });
      });
    } else {
      socket.close(1008, "no such path");
    }
  });
  server.listen(port, host);
}
