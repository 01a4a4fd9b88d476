// Deno.serve with Deno.upgradeWebSocket: /echo echoes, /broadcast relays to every other member of
// one room, / answers plain HTTP for the harness's readiness probe.
const room = new Set();

function accept(request, pathname) {
  const { socket, response } = Deno.upgradeWebSocket(request);
  // Binary messages arrive as ArrayBuffers (as Buffers do on ws and Bun), not as Blobs to read first.
  socket.binaryType = "arraybuffer";
  if (pathname === "/echo") {
    socket.onmessage = (event) => socket.send(event.data);
  } else {
    socket.onopen = () => room.add(socket);
    socket.onclose = () => room.delete(socket);
    socket.onmessage = (event) => {
      for (const member of room) if (member !== socket && member.readyState === WebSocket.OPEN) member.send(event.data);
    };
  }
  return response;
}

Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: Deno.env.get("HOST"), onListen() {} }, (request) => {
  const { pathname } = new URL(request.url);
  if (pathname === "/echo" || pathname === "/broadcast") {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    return accept(request, pathname);
  }
  return pathname === "/" ? new Response("ok") : new Response("not found", { status: 404 });
});
