#!/usr/bin/env node
// The floor of the contacts benchmark: what one HTTP read of a contact costs with nothing but
// node:http and one `pg` query by primary key on the same crm.contacts table (no authentication,
// no limits, no validation, no messaging). GET /contacts/{id} -> the row as JSON, 404 when absent.
//
//   DATABASE_URL=postgres://... PORT=3419 node bench/contacts-floor.mjs
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
const port = Number(process.env.PORT ?? 3419);

const server = http.createServer(async (req, res) => {
  const match = /^\/contacts\/([0-9a-f]{24})$/.exec(req.url ?? '');
  if (!match) {
    res.writeHead(404).end();
    return;
  }
  try {
    const { rows } = await pool.query('SELECT * FROM crm.contacts WHERE id = $1', [match[1]]);
    if (rows.length === 0) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: 0, message: 'OK', timestamp: Math.floor(Date.now() / 1000), data: { contact: rows[0] } }));
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
});

server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`floor listening on ${port}\n`));
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
