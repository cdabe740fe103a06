// The console's build: static files in dist/console, served by the service at `/`.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    reportCompressedSize: false,
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:8700', '/health': 'http://127.0.0.1:8700' } },
});
