// The web host: Debian's nginx as a TLS reverse proxy in front of the app, with a keepalive
// upstream (so nginx → app is an established connection between requests) and stub_status
// on a plain-HTTP port for the nginx exporter.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UnitFiles } from './layout.js';
import { writeUnit } from './units.js';

const NGINX = '/usr/sbin/nginx';

export interface WebOptions {
  readonly dir: string;
  readonly address: string;
  readonly httpsPort: number;
  readonly statusPort: number;
  readonly upstream: string;
  readonly cert: string;
  readonly key: string;
}

export function nginxConfig(o: WebOptions): string {
  const tmp = join(o.dir, 'tmp');
  return `# nginx for the lab's web host (written by the lab)
daemon on;
master_process on;
worker_processes 1;
pid ${join(o.dir, 'nginx.pid')};
error_log ${join(o.dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log ${join(o.dir, 'access.log')};
  client_body_temp_path ${tmp}/body;
  proxy_temp_path ${tmp}/proxy;
  fastcgi_temp_path ${tmp}/fastcgi;
  uwsgi_temp_path ${tmp}/uwsgi;
  scgi_temp_path ${tmp}/scgi;
  upstream app {
    server ${o.upstream} max_fails=0;
    keepalive 4;
    keepalive_timeout 300s;
  }
  server {
    listen ${o.address}:${String(o.httpsPort)} ssl;
    server_name shop.lab;
    ssl_certificate ${o.cert};
    ssl_certificate_key ${o.key};
    location / {
      proxy_pass http://app;
      proxy_bind ${o.address};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_connect_timeout 2s;
      proxy_read_timeout 15s;
    }
  }
  server {
    listen ${o.address}:${String(o.statusPort)};
    location = /stub_status { stub_status; }
  }
}
`;
}

/** Writes nginx.conf and the nginx unit's scripts. */
export function prepareWeb(o: WebOptions): { conf: string; unit: UnitFiles } {
  mkdirSync(join(o.dir, 'tmp'), { recursive: true });
  const conf = join(o.dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig(o));
  const unit = writeUnit(
    join(o.dir, 'bin'),
    'nginx',
    { pidfile: join(o.dir, 'nginx.pid'), log: join(o.dir, 'error.log') },
    {
      start: `exec ${NGINX} -q -c ${conf}`,
      stop: `exec ${NGINX} -q -c ${conf} -s stop`,
      reload: `${NGINX} -q -t -c ${conf}\nexec ${NGINX} -q -c ${conf} -s reload`,
    },
  );
  writeFileSync(unit.log, '', { flag: 'a' });
  return { conf, unit };
}
