// A promise raced against a timer: the answer, or an Error with `message` after `seconds`.
// The timer is cleared either way; the work itself is not stopped (callers that can abort
// use the connectors runtime's signal instead).
export function withTimeout<T>(p: Promise<T>, seconds: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(message));
    }, seconds * 1000);
  });
  return Promise.race([p, limit]).finally(() => {
    clearTimeout(timer);
  });
}
