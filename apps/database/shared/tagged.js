// postgres.js and Bun.sql share the tagged-template API (sql`...${value}` binds the value, sql.begin
// runs a transaction), so both run this code. Each template's text is the same statement as in
// sql.js, and both drivers prepare it once per connection (their default).

export function taggedDriver(connect) {
  return {
    async open({ connection, connections }) {
      return connect(connection.url, connections);
    },
    async selectUser(sql, id) {
      return (await sql`SELECT * FROM users WHERE id = ${id}`)[0];
    },
    async selectUsers(sql) {
      return [...(await sql`SELECT * FROM users LIMIT 1000`)];
    },
    insertUsers(sql, rows) {
      return sql.begin(async (tx) => {
        let written = 0;
        for (const row of rows) {
          written += (
            await tx`INSERT INTO users (id, name, email, created_at, score) VALUES (${row.id}, ${row.name}, ${row.email}, ${row.created_at}::timestamptz, ${row.score})`
          ).count;
        }
        return written;
      });
    },
    updateWorlds(sql, ids, numbers) {
      return sql.begin(async (tx) => {
        const rows = [];
        for (const id of ids) rows.push((await tx`SELECT * FROM world WHERE id = ${id}`)[0]);
        for (let i = 0; i < ids.length; i++) await tx`UPDATE world SET randomnumber = ${numbers[i]} WHERE id = ${ids[i]}`;
        return rows;
      });
    },
    async deleteUsersAbove(sql, id) {
      await sql`DELETE FROM users WHERE id > ${id}`;
    },
    close(sql) {
      return sql.end();
    },
  };
}
