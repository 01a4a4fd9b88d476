// node:sqlite and bun:sqlite share this shape (exec, prepare, and get/all/run on a statement), so
// both run the same code: prepared once at open, transactions with BEGIN and COMMIT. A scenario
// with `prepare: "each"` has every row's INSERT prepared anew, as a program without a statement
// cache does: parsing and planning each statement is where SQLite's own allocations are.

export function sqliteDriver(openDatabase, sql) {
  return {
    async open({ connection, prepare }) {
      const db = openDatabase(connection.file);
      for (const pragma of connection.pragmas) db.exec(`PRAGMA ${pragma}`);
      const prepared = Object.fromEntries(Object.entries(sql).map(([name, text]) => [name, db.prepare(text)]));
      const insertUser = prepare === "each" ? () => db.prepare(sql.insertUser) : () => prepared.insertUser;
      return { db, prepared, insertUser };
    },
    async selectUser({ prepared }, id) {
      return prepared.selectUser.get(id);
    },
    async selectUsers({ prepared }) {
      return prepared.selectUsers.all();
    },
    async insertUsers({ db, insertUser }, rows) {
      return transaction(db, () => {
        let written = 0;
        for (const row of rows) written += insertUser().run(row.id, row.name, row.email, row.created_at, row.score).changes;
        return written;
      });
    },
    async updateWorlds({ db, prepared }, ids, numbers) {
      return transaction(db, () => {
        const rows = ids.map((id) => prepared.selectWorld.get(id));
        ids.forEach((id, i) => prepared.updateWorld.run(numbers[i], id));
        return rows;
      });
    },
    async deleteUsersAbove({ prepared }, id) {
      prepared.deleteUsersAbove.run(id);
    },
    async facts({ db }) {
      return { sqlite_version: db.prepare("SELECT sqlite_version() AS version").get().version };
    },
    async close({ db }) {
      db.close();
    },
  };
}

function transaction(db, body) {
  db.exec("BEGIN");
  try {
    const result = body();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}
