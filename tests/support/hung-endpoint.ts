/**
 * A loopback endpoint that accepts connections, reads, and never answers: what a hung AWS endpoint
 * looks like to the SDK. Call at the top of a test file; it opens before the file's tests and
 * closes after them. And closedPort(): one that refuses them.
 */
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export function hungEndpoint(): { url: () => string } {
  let server: Server;
  let url = '';
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return { url: () => url };
}

/** A loopback port nothing listens on: the OS gave it out and it was closed again (ECONNREFUSED). */
export const closedPort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
