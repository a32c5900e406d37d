/**
 * node:crypto behind the checksum interface `@smithy/signature-v4` takes (a key makes it an HMAC):
 * SigV4 signing without the SDK's own hash packages, for the S3 calls (s3.ts) and the preflight's
 * calls to APIs the project has no client for (lib/preflight.ts).
 */
import { createHash, createHmac, type BinaryLike } from 'node:crypto';

const binary = (data: string | ArrayBuffer | ArrayBufferView): BinaryLike =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

export class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', binary(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(binary(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    throw new Error('not resettable');
  }
}
