// The Express app of the PostgreSQL apps, over any `db` (see postgres-api.js); `express` comes from
// the app's own folder, since this shared folder has no node_modules.
import { fortunesHtml, HTML_TYPE, usersApi } from "./postgres-api.js";

export function expressApp(express, db) {
  const api = usersApi(db);
  const app = express();
  app.set("etag", false);
  app.set("x-powered-by", false);
  const parseJson = express.json({ strict: false });
  const send = (res, answer) => (answer.json === undefined ? res.status(answer.status).end() : res.status(answer.status).json(answer.json));
  const route = (handler) => (req, res, next) => handler(req).then((answer) => send(res, answer), next);

  app.get("/users", route((req) => api.list(req.query.page)));
  app.get("/users/:id", route((req) => api.get(req.params.id)));
  app.post("/users", parseJson, route((req) => api.create(req.body)));
  app.put("/users/:id", parseJson, route((req) => api.update(req.params.id, req.body)));
  app.delete("/users/:id", route((req) => api.remove(req.params.id)));
  app.get("/fortunes", (req, res, next) => fortunesHtml(db).then((html) => res.type(HTML_TYPE).send(html), next));
  app.use((req, res) => res.status(404).json({ error: "not found" }));
  app.use((error, req, res, next) => {
    if (error.type === "entity.parse.failed") return res.status(400).json({ error: "body is not valid JSON" });
    return next(error);
  });
  return app;
}
