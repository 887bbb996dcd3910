/**
 * The upstream API of `npm start`: the Bookshelf demo API of fixtures/demo/openapi.yaml,
 * in memory, on loopback. It exists so the demo's tool calls reach a real HTTP server.
 */
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';

interface Book {
  id: string;
  title: string;
  author: string;
  year?: number;
}

export function bookshelfApp(): Hono {
  const books = new Map<string, Book>([
    ['1', { id: '1', title: 'The Pragmatic Programmer', author: 'Andrew Hunt, David Thomas', year: 1999 }],
    [
      '2',
      { id: '2', title: 'Designing Data-Intensive Applications', author: 'Martin Kleppmann', year: 2017 },
    ],
    ['3', { id: '3', title: 'A Philosophy of Software Design', author: 'John Ousterhout', year: 2018 }],
  ]);
  let nextId = 4;
  const app = new Hono();
  app.get('/books', (c) => {
    const q = (c.req.query('q') ?? '').toLowerCase();
    const limit = Number(c.req.query('limit') ?? 20);
    const found = [...books.values()].filter(
      (b) => !q || b.title.toLowerCase().includes(q) || b.author.toLowerCase().includes(q),
    );
    return c.json({ books: found.slice(0, limit) });
  });
  app.post('/books', async (c) => {
    const body = (await c.req.json().catch(() => null)) as Partial<Book> | null;
    if (!body || typeof body.title !== 'string' || typeof body.author !== 'string') {
      return c.json({ error: 'title and author are required' }, 400);
    }
    const book: Book = { id: String(nextId++), title: body.title, author: body.author };
    if (typeof body.year === 'number') book.year = body.year;
    books.set(book.id, book);
    return c.json(book, 201);
  });
  app.get('/books/:id', (c) => {
    const book = books.get(c.req.param('id'));
    return book ? c.json(book) : c.json({ error: `no book ${c.req.param('id')}` }, 404);
  });
  app.delete('/books/:id', (c) =>
    books.delete(c.req.param('id')) ? c.body(null, 204) : c.json({ error: 'no such book' }, 404),
  );
  return app;
}

export interface RunningApi {
  url: string;
  close(): Promise<void>;
}

export function startBookshelfApi(port = 0): Promise<RunningApi> {
  return new Promise((resolve) => {
    const server: ServerType = serve({ fetch: bookshelfApp().fetch, port, hostname: '127.0.0.1' }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
