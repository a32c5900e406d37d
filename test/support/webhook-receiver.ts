/**
 * A webhook endpoint on 127.0.0.1 for tests (the local runtime allows plain http to loopback):
 * it records every request it gets and answers `status` with `answer` (200 `ok` unless a test
 * changes them, e.g. to fail deliveries for a while). `stop()` closes it and its connections.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receipt {
  headers: IncomingHttpHeaders;
  body: string;
  /** the parsed payload: `{type, project_id, created_at, data: {object}}` for our events */
  json: any;
}

export class WebhookReceiver {
  readonly receipts: Receipt[] = [];
  status = 200;
  answer = 'ok';
  url = '';
  private server?: Server;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        this.receipts.push({ headers: req.headers, body, json });
        res.writeHead(this.status, { 'content-type': 'text/plain' }).end(this.answer);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => {
      if (!this.server) return resolve(undefined);
      this.server.close(resolve);
      this.server.closeAllConnections();
    });
  }
}
