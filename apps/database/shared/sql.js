// The statements every driver runs, per engine (the placeholders differ), so no app words a query its own way.

/** `p(n, type)` words the n-th parameter, with a cast where the engine needs one. */
const statements = (p) => ({
  selectUser: `SELECT * FROM users WHERE id = ${p(1)}`,
  selectUsers: "SELECT * FROM users LIMIT 1000",
  insertUser: `INSERT INTO users (id, name, email, created_at, score) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4, "timestamptz")}, ${p(5)})`,
  selectWorld: `SELECT * FROM world WHERE id = ${p(1)}`,
  updateWorld: `UPDATE world SET randomnumber = ${p(1)} WHERE id = ${p(2)}`,
  deleteUsersAbove: `DELETE FROM users WHERE id > ${p(1)}`,
});

export const SQLITE = statements(() => "?");
export const POSTGRES = statements((n, type) => (type ? `$${n}::${type}` : `$${n}`));
