import { POSTGRES } from "../shared/sql.js";
import { loadDriver, runDatabaseApp } from "../shared/workload.js";

// Every statement is named, so node-postgres prepares it once per connection and then only binds.
const query = (client, name, values = []) => client.query({ name, text: POSTGRES[name], values });

async function transaction(pool, body) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await body(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

await runDatabaseApp(async () => {
  const { default: pg } = await loadDriver("pg", (specifier) => import(specifier));
  return postgresDriver(pg);
});

function postgresDriver(pg) {
  return {
    async open({ connection, connections }) {
      return new pg.Pool({ connectionString: connection.url, max: connections });
    },
    async selectUser(pool, id) {
      return (await query(pool, "selectUser", [id])).rows[0];
    },
    async selectUsers(pool) {
      return (await query(pool, "selectUsers")).rows;
    },
    insertUsers(pool, rows) {
      return transaction(pool, async (client) => {
        let written = 0;
        for (const row of rows) written += (await query(client, "insertUser", [row.id, row.name, row.email, row.created_at, row.score])).rowCount;
        return written;
      });
    },
    updateWorlds(pool, ids, numbers) {
      return transaction(pool, async (client) => {
        const rows = [];
        for (const id of ids) rows.push((await query(client, "selectWorld", [id])).rows[0]);
        for (let i = 0; i < ids.length; i++) await query(client, "updateWorld", [numbers[i], ids[i]]);
        return rows;
      });
    },
    async deleteUsersAbove(pool, id) {
      await query(pool, "deleteUsersAbove", [id]);
    },
    close(pool) {
      return pool.end();
    },
  };
}
