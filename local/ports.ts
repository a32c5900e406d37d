import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by
 * default), from which it also picks the local port of every outgoing connection. A port found
 * free there and bound a moment later (DynamoDB Local's JVM takes seconds to start) can be taken in
 * between by any outgoing connection of the machine: a runtime then failed to start with
 * EADDRINUSE during a test run. Ports are therefore chosen below the range.
 */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    // not Linux: the IANA dynamic range starts at 49152
  }
  return 49152;
}

const LOWEST = 10_000;
const ABOVE = ephemeralRangeStart();

const isFree = (port: number, host: string): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });

/**
 * A port nothing listens on right now, for DynamoDB Local's JVM (which cannot listen on port 0 and
 * say where; every Node server of the runtime listens on port 0 instead): a random one
 * below the ephemeral range (see above), so only another program choosing the same port in the same
 * moment could take it.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (ABOVE - LOWEST));
    if (await isFree(port, host)) return port;
  }
  throw new Error(`no free port found between ${LOWEST} and ${ABOVE}`);
}
