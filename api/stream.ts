/**
 * A JSON document written page by page as it is read: `open`, the pages (each the members' JSON texts joined by
 * commas) separated by commas, then `close` (`[` and `]` for an array; `{"events":[` and `]}` for one inside an
 * object). Memory stays one page whatever the length, the first bytes leave at once, and the event loop serves
 * others between pages (each page source yields to it). An error after the first bytes ends the stream (the client
 * sees a truncated document) and is reported to `onError`.
 */
export function streamJsonPages(
  pages: AsyncGenerator<string>,
  { open, close }: { open: string; close: string },
  onError: (err: unknown) => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let opened = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next: IteratorResult<string, unknown> = await pages.next();
          const { value, done } = next;
          if (done) {
            controller.enqueue(encoder.encode(opened ? close : open + close));
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode((opened ? ',' : open) + value));
          opened = true;
        } catch (err) {
          onError(err);
          controller.error(err);
        }
      },
      async cancel() {
        await pages.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}
