// Bun.serve's own WebSocket server: /echo echoes, /broadcast is one pub/sub topic (publish
// reaches every subscriber but the sender), / answers plain HTTP for the harness's readiness probe.
const ROOM = "room";

Bun.serve({
  port: Number(process.env.PORT),
  hostname: process.env.HOST,
  fetch(request, server) {
    const { pathname } = new URL(request.url);
    if (pathname === "/echo" || pathname === "/broadcast") {
      if (server.upgrade(request, { data: { room: pathname === "/broadcast" } })) return undefined;
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    return pathname === "/" ? new Response("ok") : new Response("not found", { status: 404 });
  },
  websocket: {
    open(socket) {
      if (socket.data.room) socket.subscribe(ROOM);
    },
    message(socket, message) {
      if (socket.data.room) socket.publish(ROOM, message);
      else socket.send(message);
    },
  },
});
