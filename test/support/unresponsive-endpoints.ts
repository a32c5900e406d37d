/**
 * Webhook endpoints on 127.0.0.1 that never answer, for tests of what a slow endpoint costs:
 * - `hangingEndpoint()` accepts the connection and reads the request, then never answers;
 * - `unacceptingEndpoint()` never even accepts: a listening socket in a perl process that never
 *   calls accept(), its accept queue filled by connections of our own, so Linux drops every
 *   further SYN and a connect waits (as for a host behind a firewall that drops packets). Node
 *   cannot make one: a Node server accepts every connection the kernel completes. perl is part of
 *   every Debian and Ubuntu base system.
 * `stop()` ends each, with its connections.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface UnresponsiveEndpoint {
  url: string;
  /** requests read (the hanging endpoint) */
  requests: number;
  stop(): Promise<void>;
}

export async function hangingEndpoint(): Promise<UnresponsiveEndpoint> {
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    endpoint.requests += 1;
    held.push(res); // never answered
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint: UnresponsiveEndpoint = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests: 0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return endpoint;
}

const LISTENER = `
use Socket;
socket(my $s, PF_INET, SOCK_STREAM, 0) or die $!;
bind($s, pack_sockaddr_in(0, inet_aton('127.0.0.1'))) or die $!;
listen($s, 0) or die $!;
my ($port) = unpack_sockaddr_in(getsockname($s));
$| = 1;
print "$port\\n";
while (<STDIN>) {}
`;

/** Resolves once `socket` connects (true) or after `ms` without (false). */
const connects = (socket: Socket, ms: number) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });

export async function unacceptingEndpoint(): Promise<UnresponsiveEndpoint> {
  const child: ChildProcess = spawn('perl', ['-e', LISTENER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  // fill the accept queue: once a connection no longer completes, every later SYN is dropped
  const fillers: Socket[] = [];
  for (let i = 0; i < 16; i++) {
    const socket = connect(port, '127.0.0.1');
    fillers.push(socket);
    if (!(await connects(socket, 500))) break;
  }
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests: 0,
    stop: async () => {
      for (const socket of fillers) socket.destroy();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      child.kill();
      await exited;
    },
  };
}
