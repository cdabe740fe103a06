// A file made in the page offered to the person as a download (the browser's own save, no
// round trip to the service): exports, usage statements, sealed keychain files.

/** Save `blob` as `name`. The object URL lives long enough for a slow save to start. */
export function saveBlob(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 10_000);
}
