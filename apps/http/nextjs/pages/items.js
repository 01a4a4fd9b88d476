// Rendered on every request (getServerSideProps, no cache): 100 items that depend on ?page=N.
export async function getServerSideProps({ query, res }) {
  const page = /^[1-9][0-9]{0,5}$/.test(String(query.page ?? "")) ? Number(query.page) : 1;
  res.setHeader("cache-control", "no-store");
  const items = Array.from({ length: 100 }, (_, i) => ({ id: (page - 1) * 100 + i + 1, value: (page * 7919 + i * 104729) % 1000003 }));
  return { props: { page, items } };
}

export default function Items({ page, items }) {
  return (
    <main>
      <h1>{`Page ${page}`}</h1>
      <ul>
        {items.map((item) => (
          <li key={item.id}>{`item ${item.id}: ${item.value}`}</li>
        ))}
      </ul>
    </main>
  );
}
