/**
 * Loads handler modules the way Lambda would: the same file the stack deploys
 * (`functions/<handler>.ts`), imported once and kept warm for later invocations.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyHandler = (event: any, context: any) => Promise<any>;

const functionsDir = join(__dirname, '..', '..', 'functions');
const loaded = new Map<string, Promise<AnyHandler>>();

export function loadHandler(handlerPath: string): Promise<AnyHandler> {
  let handler = loaded.get(handlerPath);
  if (!handler) {
    const url = pathToFileURL(join(functionsDir, `${handlerPath}.ts`)).href;
    handler = import(url).then((module) => {
      const fn = module.handler ?? module.default?.handler;
      if (typeof fn !== 'function') throw new Error(`functions/${handlerPath}.ts exports no handler`);
      return fn as AnyHandler;
    });
    loaded.set(handlerPath, handler);
  }
  return handler;
}
