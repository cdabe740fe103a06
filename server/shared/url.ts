/** A URL without its query string: links, sign-in codes and tokens may travel there. */
export const pathOnly = (url: string): string => url.split('?')[0] ?? '';
