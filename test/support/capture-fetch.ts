/** A request the code under test sent with `fetch`, captured instead of sent. */
export interface CapturedRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** Runs `call` with `fetch` replaced: its (last) request is captured and answered by `answer`. */
export async function captureFetch(
  call: () => Promise<unknown>,
  answer: (init: RequestInit) => Response,
): Promise<CapturedRequest> {
  const original = global.fetch;
  let captured: CapturedRequest | undefined;
  global.fetch = (async (url: string | URL, init: RequestInit) => {
    captured = {
      url: new URL(url),
      method: init.method!,
      headers: init.headers as Record<string, string>,
      body: String(init.body ?? ''),
    };
    return answer(init);
  }) as typeof fetch;
  try {
    await call();
  } finally {
    global.fetch = original;
  }
  return captured!;
}
