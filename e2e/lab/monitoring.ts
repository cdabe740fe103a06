// The lab's monitoring configuration: what Prometheus scrapes (every target labelled with
// the `service` it watches and its `host`, which is how discovery names services), the
// alert rules (one or more per fault, each labelled with `service`), the blackbox modules,
// and Alertmanager's route to the service's webhook. Intervals are short (1 s scrapes and
// evaluation, group_wait 0 s) so a fault becomes an episode within seconds.
import { VOLUME_BYTES } from './volume.js';

export interface MonitorTargets {
  readonly app: string;
  readonly nginxExporter: string;
  readonly postgresExporter: string;
  readonly blackbox: string;
  readonly nodeExporters: { readonly web: string; readonly app: string; readonly db: string };
  readonly siteUrl: string;
  readonly healthUrl: string;
}

const SERVICE_OF = { web: 'nginx', app: 'app', db: 'postgresql' } as const;

function probeJob(
  name: string,
  module: string,
  target: string,
  service: string,
  host: string,
  blackbox: string,
  interval: string,
): string {
  return `  - job_name: ${name}
    scrape_interval: ${interval}
    scrape_timeout: ${interval}
    metrics_path: /probe
    params: { module: [${module}] }
    static_configs: [{ targets: ['${target}'], labels: { service: ${service}, host: ${host} } }]
    relabel_configs:
      - { source_labels: [__address__], target_label: __param_target }
      - { source_labels: [__param_target], target_label: instance }
      - { target_label: __address__, replacement: '${blackbox}' }
`; // prettier-ignore
}

export function prometheusConfig(t: MonitorTargets, alertmanager: string): string {
  const nodes = (Object.keys(SERVICE_OF) as (keyof typeof SERVICE_OF)[])
    .map(
      (h) =>
        `      - { targets: ['${t.nodeExporters[h]}'], labels: { service: ${SERVICE_OF[h]}, host: ${h} } }`,
    )
    .join('\n');
  return `# Prometheus for the lab (written by the lab)
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: [rules.yml]
alerting:
  alertmanagers:
    - static_configs: [{ targets: ['${alertmanager}'] }]
scrape_configs:
  - job_name: app
    static_configs: [{ targets: ['${t.app}'], labels: { service: app, host: app } }]
  - job_name: nginx
    static_configs: [{ targets: ['${t.nginxExporter}'], labels: { service: nginx, host: web } }]
  - job_name: postgresql
    # The exporter takes seconds to give up on a stopped server; a 1 s timeout would lose pg_up.
    scrape_interval: 5s
    scrape_timeout: 5s
    static_configs: [{ targets: ['${t.postgresExporter}'], labels: { service: postgresql, host: db } }]
  - job_name: node
    scrape_interval: 2s
    scrape_timeout: 2s
    static_configs:
${nodes}
${probeJob('site', 'site', t.siteUrl, 'nginx', 'web', t.blackbox, '3s')}${probeJob('app-health', 'health', t.healthUrl, 'app', 'app', t.blackbox, '1s')}`;
}

export function blackboxConfig(ca: string): string {
  return `modules:
  site:
    prober: http
    timeout: 10s
    http:
      valid_status_codes: [200]
      preferred_ip_protocol: ip4
      tls_config: { ca_file: ${ca} }
  health:
    prober: http
    timeout: 2s
    http:
      valid_status_codes: [200]
      preferred_ip_protocol: ip4
`;
}

export interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly for: string;
  readonly service: string;
  readonly severity: 'critical' | 'warning';
  readonly summary: string;
}

/** The alert rules, each labelled with the service it is about. */
export function alertRules(volume: string): Rule[] {
  const vol = `mountpoint="${volume}"`;
  return [
    { alert: 'LabSiteDown', expr: 'probe_success{job="site"} == 0', for: '2s', service: 'nginx', severity: 'critical', summary: 'the shop site does not answer 200 over https' },
    { alert: 'LabNginxDown', expr: 'nginx_up == 0', for: '0s', service: 'nginx', severity: 'critical', summary: 'nginx does not answer its status page' },
    { alert: 'LabAppDown', expr: 'up{job="app"} == 0', for: '2s', service: 'app', severity: 'critical', summary: 'the app does not answer its metrics endpoint' },
    { alert: 'LabAppUnhealthy', expr: 'probe_success{job="app-health"} == 0', for: '2s', service: 'app', severity: 'critical', summary: 'the app health check fails' },
    { alert: 'LabAppErrors', expr: 'sum(rate(lab_app_requests_total{code=~"5.."}[15s])) > 0', for: '2s', service: 'app', severity: 'warning', summary: 'the app answers server errors' },
    { alert: 'LabPostgresDown', expr: 'pg_up == 0', for: '0s', service: 'postgresql', severity: 'critical', summary: 'PostgreSQL does not accept connections' },
    { alert: 'LabPgConnectionsExhausted', expr: 'sum(pg_stat_activity_count) / max(pg_settings_max_connections) > 0.8', for: '2s', service: 'postgresql', severity: 'critical', summary: 'PostgreSQL connection slots are nearly all taken' },
    { alert: 'LabDiskFull', expr: `(node_filesystem_avail_bytes{host="app",${vol}} / node_filesystem_size_bytes{host="app",${vol}} < 0.1) or (lab_volume_avail_bytes{host="app"} / lab_volume_size_bytes{host="app"} < 0.1)`, for: '0s', service: 'app', severity: 'critical', summary: `the app volume (${String(VOLUME_BYTES / 1048576)} MiB) is over 90% full` },
    { alert: 'LabMemoryPressure', expr: '(max_over_time(node_memory_MemAvailable_bytes{host="app"}[10m]) - node_memory_MemAvailable_bytes{host="app"} > 3 * 1024 * 1024 * 1024) or (node_memory_MemAvailable_bytes{host="app"} / node_memory_MemTotal_bytes{host="app"} < 0.1)', for: '4s', service: 'app', severity: 'warning', summary: 'available memory fell by more than 3 GiB (or is under 10%)' },
    { alert: 'LabCpuSaturation', expr: '1 - avg by (host) (rate(node_cpu_seconds_total{host="app",mode="idle"}[30s])) > 0.9', for: '30s', service: 'app', severity: 'warning', summary: 'CPU busy above 90%' },
    { alert: 'LabCertExpiring', expr: 'probe_ssl_earliest_cert_expiry{job="site"} - time() < 7 * 86400', for: '0s', service: 'nginx', severity: 'warning', summary: 'the site certificate expires within 7 days' },
    { alert: 'LabSlowUpstream', expr: 'probe_http_duration_seconds{job="site",phase="processing"} > 1', for: '5s', service: 'nginx', severity: 'warning', summary: 'the site waits over 1 s for its upstream' },
  ]; // prettier-ignore
}

export function rulesFile(rules: readonly Rule[]): string {
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  return [
    'groups:',
    '  - name: lab',
    '    rules:',
    ...rules.flatMap((r) => [
      `      - alert: ${r.alert}`,
      `        expr: ${q(r.expr)}`,
      `        for: ${r.for}`,
      `        labels: { severity: ${r.severity}, service: ${r.service} }`,
      `        annotations: { summary: ${q(r.summary)} }`,
    ]),
    '',
  ].join('\n');
}

export function alertmanagerConfig(webhookUrl: string, ingestToken: string): string {
  return `# Alertmanager for the lab: everything to the service's webhook at once.
route:
  receiver: svc
  group_by: [alertname, service]
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: svc
    webhook_configs:
      - url: ${webhookUrl}
        send_resolved: true
        http_config:
          authorization:
            credentials: ${ingestToken}
`;
}
