import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type RedisProcess, startRedis } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { configSchema, formatIssues } from '../src/config-schema.js';
import { envSchema } from '../src/load-config.js';
import { type RunningBin, runBin, startBin } from './run-bin.js';

// The files under deploy/ at the repository root, checked against the real server. No container runtime or
// Kubernetes runs here, so this checks what holds without them: the image starts the documented command, the
// manifests' probe paths and ports are the server's, their env names are ones the app reads, and every metric the
// dashboard queries is one a running server exposes.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEPLOY = join(ROOT, 'deploy');
const KUBERNETES = join(DEPLOY, 'kubernetes');

// --- Dockerfile ------------------------------------------------------------------------------------------------

interface Instruction {
  readonly name: string;
  readonly args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments dropped, grouped by stage. */
function dockerStages(text: string): Instruction[][] {
  const joined = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const stages: Instruction[][] = [];
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const instruction = { name: (match[1] as string).toUpperCase(), args: (match[2] as string).trim() };
    if (instruction.name === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

function only(stage: Instruction[], name: string): string {
  const found = stage.filter((instruction) => instruction.name === name);
  expect(found, `one ${name} in the stage`).toHaveLength(1);
  return (found[0] as Instruction).args;
}

// --- Kubernetes manifests ----------------------------------------------------------------------------------------

const envVarSchema = z.object({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z.object({ secretKeyRef: z.object({ name: z.string(), key: z.string() }) }).optional(),
});
const portRef = z.union([z.string(), z.number()]);
const probeSchema = z.object({ httpGet: z.object({ path: z.string(), port: portRef }) });
const deploymentSchema = z.object({
  kind: z.literal('Deployment'),
  metadata: z.object({ name: z.string() }),
  spec: z.object({
    selector: z.object({ matchLabels: z.record(z.string(), z.string()) }),
    template: z.object({
      metadata: z.object({
        labels: z.record(z.string(), z.string()),
        annotations: z.record(z.string(), z.string()).default({}),
      }),
      spec: z.object({
        terminationGracePeriodSeconds: z.number(),
        securityContext: z.object({ runAsNonRoot: z.boolean(), runAsUser: z.number() }).loose(),
        containers: z.array(
          z.object({
            name: z.string(),
            command: z.array(z.string()).optional(),
            args: z.array(z.string()).optional(),
            ports: z.array(z.object({ name: z.string().optional(), containerPort: z.number() })),
            env: z.array(envVarSchema),
            volumeMounts: z.array(z.object({ name: z.string(), mountPath: z.string() })).default([]),
            readinessProbe: probeSchema,
            livenessProbe: probeSchema,
            lifecycle: z.object({
              preStop: z.union([
                z.object({ exec: z.object({ command: z.array(z.string()) }) }),
                z.object({ sleep: z.object({ seconds: z.number() }) }),
              ]),
            }),
          }),
        ),
        volumes: z
          .array(z.object({ name: z.string(), configMap: z.object({ name: z.string() }).optional() }))
          .default([]),
      }),
    }),
  }),
});
const configMapSchema = z.object({
  kind: z.literal('ConfigMap'),
  metadata: z.object({ name: z.string() }),
  data: z.record(z.string(), z.string()),
});
const secretSchema = z.object({
  kind: z.literal('Secret'),
  metadata: z.object({ name: z.string() }),
  stringData: z.record(z.string(), z.string()),
});
const serviceSchema = z.object({
  kind: z.literal('Service'),
  spec: z.object({
    selector: z.record(z.string(), z.string()),
    ports: z.array(z.object({ port: z.number(), targetPort: portRef })),
  }),
});
const pdbSchema = z.object({
  kind: z.literal('PodDisruptionBudget'),
  spec: z.object({ selector: z.object({ matchLabels: z.record(z.string(), z.string()) }) }),
});
const hpaSchema = z.object({
  kind: z.literal('HorizontalPodAutoscaler'),
  spec: z.object({
    scaleTargetRef: z.object({ apiVersion: z.string(), kind: z.string(), name: z.string() }),
    metrics: z.array(
      z.object({ type: z.literal('Pods'), pods: z.object({ metric: z.object({ name: z.string() }) }) }),
    ),
  }),
});
const adapterRulesSchema = z.object({
  rules: z.object({
    custom: z.array(
      z.object({
        seriesQuery: z.string(),
        name: z.object({ matches: z.string(), as: z.string() }),
        metricsQuery: z.string(),
      }),
    ),
  }),
});

/** Every YAML document of a file, each checked to parse without an error. */
function yamlDocuments(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
    expect(
      document.errors.map((error) => error.message),
      file,
    ).toEqual([]);
    return document.toJS() as unknown;
  });
}

function kubernetesObjects(): Array<{ file: string; object: { kind: string } & Record<string, unknown> }> {
  return readdirSync(KUBERNETES)
    .filter((file) => file.endsWith('.yaml') && file !== 'prometheus-adapter-rules.yaml')
    .flatMap((file) =>
      yamlDocuments(join(KUBERNETES, file)).map((object) => ({
        file,
        object: z.looseObject({ apiVersion: z.string(), kind: z.string() }).parse(object),
      })),
    );
}

function one<T>(schema: z.ZodType<T>, kind: string): T {
  const found = kubernetesObjects().filter(({ object }) => object.kind === kind);
  expect(
    found.map(({ file }) => file),
    `one ${kind}`,
  ).toHaveLength(1);
  return schema.parse(found[0]?.object);
}

// --- Prometheus ----------------------------------------------------------------------------------------------

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression reads: identifiers left once strings, label matchers, ranges and grouping
 * label lists are taken out, minus function names (followed by `(`) and keywords.
 */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const word = match[0];
    const after = stripped.slice((match.index ?? 0) + word.length);
    if (/^\s*\(/.test(after) || PROMQL_KEYWORDS.has(word.toLowerCase())) continue;
    names.add(word);
  }
  return [...names];
}

/** The series names a Prometheus text exposition declares (a histogram's _bucket/_sum/_count included). */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name as string);
    if (type === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

const dashboardSchema = z.object({
  panels: z.array(
    z.object({
      type: z.string(),
      title: z.string(),
      targets: z.array(z.object({ expr: z.string() })).default([]),
    }),
  ),
  templating: z.object({
    list: z.array(z.object({ name: z.string(), type: z.string(), definition: z.string().optional() })),
  }),
});

// --- The setup the manifests describe, run for real ----------------------------------------------------------------

const deployment = () => one(deploymentSchema, 'Deployment');
const container = () => {
  const containers = deployment().spec.template.spec.containers;
  expect(containers).toHaveLength(1);
  return containers[0] as (typeof containers)[number];
};
const configMap = () => one(configMapSchema, 'ConfigMap');
const envValue = (name: string) => container().env.find((variable) => variable.name === name);

/** The config file the ConfigMap mounts, as the server reads it. */
function mountedConfig(): { path: string; text: string; json: Record<string, unknown> } {
  const path = envValue('REALTIME_CONFIG')?.value;
  if (!path) throw new Error('the Deployment sets no REALTIME_CONFIG');
  const mount = container().volumeMounts.find((volumeMount) => path.startsWith(`${volumeMount.mountPath}/`));
  if (!mount) throw new Error(`no volume is mounted where REALTIME_CONFIG points (${path})`);
  const volume = deployment().spec.template.spec.volumes.find((entry) => entry.name === mount.name);
  expect(volume?.configMap?.name).toBe(configMap().metadata.name);
  const text = configMap().data[posix.relative(mount.mountPath, path)];
  if (text === undefined)
    throw new Error(`the ConfigMap has no key ${posix.relative(mount.mountPath, path)}`);
  return { path, text, json: z.record(z.string(), z.unknown()).parse(JSON.parse(text)) };
}

function serverConfig(): { port: number; shutdown_grace_period: number } {
  const { json } = mountedConfig();
  const name = typeof json.default === 'string' ? json.default : 'herald';
  const servers = z
    .record(
      z.string(),
      z.object({ port: z.number().default(8080), shutdown_grace_period: z.number().default(5) }).loose(),
    )
    .parse(json.servers ?? { herald: {} });
  const server = servers[name];
  if (!server) throw new Error(`the config has no servers.${name}`);
  return server;
}

/** The named or numbered container port a probe or Service refers to. */
function containerPort(ref: string | number): number {
  if (typeof ref === 'number') return ref;
  const port = container().ports.find((entry) => entry.name === ref);
  if (!port) throw new Error(`no container port is named ${ref}`);
  return port.containerPort;
}

function healthcheck(): { port: number; path: string } {
  const runtime = dockerStages(readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8')).at(-1) ?? [];
  const args = only(runtime, 'HEALTHCHECK');
  const match = /REALTIME_PORT \|\| (\d+)\) \+ '(\/[^']*)'/.exec(args);
  if (!match) throw new Error(`HEALTHCHECK does not request the server's port and a path: ${args}`);
  return { port: Number(match[1]), path: match[2] as string };
}

/** The HEALTHCHECK's command, as the exec form the image runs. */
function healthcheckCommand(): string[] {
  const runtime = dockerStages(readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8')).at(-1) ?? [];
  return z.array(z.string()).parse(JSON.parse(only(runtime, 'HEALTHCHECK').replace(/^.*?\bCMD\s+/, '')));
}

describe('deploy/Dockerfile', () => {
  it("starts the documented command: the root start script's bin and flags, from the deployed app folder", () => {
    const stages = dockerStages(readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8'));
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runtime = stages.at(-1) as Instruction[];
    const command = z.array(z.string()).parse(JSON.parse(only(runtime, 'CMD')));
    const workdir = only(runtime, 'WORKDIR');

    // The runtime stage copies one folder from the build stage, which `pnpm deploy`s the realtime app into it.
    const copy = /^--from=\S+\s+(\S+)\s+(\S+)$/.exec(only(runtime, 'COPY'));
    const deployed = copy?.[1];
    const target = copy?.[2];
    if (!deployed || !target) throw new Error('the runtime stage copies no folder from the build stage');
    const appPackage = z
      .object({ name: z.string(), bin: z.object({ realtime: z.string() }) })
      .parse(JSON.parse(readFileSync(join(ROOT, 'apps/realtime/package.json'), 'utf8')));
    const deploys = stages
      .flat()
      .filter((instruction) => instruction.name === 'RUN')
      .map((instruction) => /pnpm --filter (\S+) deploy\b.*?\s(\/\S+)/.exec(instruction.args))
      .filter((match) => match !== null);
    expect(deploys.map((match) => [match[1], match[2]])).toEqual([[appPackage.name, deployed]]);

    // `node <script> ...` in the image, mapped back to the repository: <target>/x is apps/realtime/x.
    const script = posix.resolve(workdir, command[1] ?? '');
    expect(script.startsWith(`${target}/`), `${script} lies in the copied app folder ${target}`).toBe(true);
    const inRepository = posix.join('apps/realtime', posix.relative(target, script));
    expect(inRepository).toBe(posix.join('apps/realtime', appPackage.bin.realtime));

    const rootPackage = z
      .object({ scripts: z.object({ start: z.string() }) })
      .parse(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')));
    const documented = (rootPackage.scripts.start.split('&&').at(-1) ?? '').trim().split(/\s+/);
    expect([command[0], inRepository, ...command.slice(2)]).toEqual(documented);
  });

  it('exposes the port the server listens on and runs as a non-root numeric user', () => {
    const runtime = dockerStages(readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8')).at(-1) ?? [];
    expect(Number(only(runtime, 'EXPOSE'))).toBe(serverConfig().port);
    expect(healthcheck().port).toBe(serverConfig().port);
    const user = only(runtime, 'USER');
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    // The pod runs as that same user, so runAsNonRoot holds.
    expect(deployment().spec.template.spec.securityContext).toEqual(
      expect.objectContaining({ runAsNonRoot: true, runAsUser: Number(user.split(':')[0]) }),
    );
  });
});

describe('deploy/Dockerfile names only what exists', () => {
  const stages = () => dockerStages(readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8'));

  it('copies files of the repository root and installs the pnpm the repository pins', () => {
    const build = stages()[0] ?? [];
    const copied = build
      .filter((instruction) => instruction.name === 'COPY')
      .flatMap((instruction) => instruction.args.split(/\s+/).slice(0, -1))
      .filter((source) => source !== '.');
    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied) expect(existsSync(join(ROOT, source)), source).toBe(true);
    const pinned = z
      .object({ packageManager: z.string() })
      .parse(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))).packageManager;
    const installs = build
      .filter((instruction) => instruction.name === 'RUN')
      .map((instruction) => /npm install --global (pnpm@\S+)/.exec(instruction.args)?.[1])
      .filter((found) => found !== undefined);
    expect(installs).toEqual([pinned]);
  });

  it('removes from the deployed folder only files the app has (a stale name would leave them in the image)', () => {
    const removal = stages()
      .flat()
      .filter((instruction) => instruction.name === 'RUN')
      .map((instruction) => /rm -rf ((?:\/out\/\S+\s*)+)/.exec(instruction.args)?.[1])
      .find((found) => found !== undefined);
    if (!removal) throw new Error('the build stage removes nothing from the deployed folder');
    const paths = removal.trim().split(/\s+/);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths)
      expect(existsSync(join(ROOT, 'apps/realtime', posix.relative('/out', path))), path).toBe(true);
  });

  it('starts programs the image has: node for the server and its HEALTHCHECK, sleep for preStop', () => {
    const runtime = stages().at(-1) ?? [];
    const start = z.array(z.string()).parse(JSON.parse(only(runtime, 'CMD')));
    const check = healthcheckCommand();
    const preStop = container().lifecycle.preStop;
    // Kubernetes' own `sleep` action needs no program in the image.
    const waits = 'exec' in preStop ? [preStop.exec.command[0]] : [];
    const programs = [start[0], check[0], ...waits];
    expect(programs).toEqual(['node', 'node', ...('exec' in preStop ? ['sleep'] : [])]);
    // Every official Node image (Debian and Alpine) has node and sleep on PATH; here, this machine's are checked.
    for (const program of new Set(programs))
      expect(spawnSync('sh', ['-c', `command -v ${program}`]).status, program).toBe(0);
  });
});

describe('deploy/kubernetes', () => {
  it('parses, and the kustomization lists only files that exist', () => {
    const objects = kubernetesObjects();
    expect(new Set(objects.map(({ object }) => object.kind))).toEqual(
      new Set([
        'Kustomization',
        'ConfigMap',
        'Secret',
        'Deployment',
        'Service',
        'PodDisruptionBudget',
        'HorizontalPodAutoscaler',
      ]),
    );
    const kustomization = z
      .object({ resources: z.array(z.string()) })
      .parse(objects.find(({ object }) => object.kind === 'Kustomization')?.object);
    for (const resource of kustomization.resources)
      expect(readdirSync(KUBERNETES), resource).toContain(resource);
  });

  it('uses one port everywhere: the config, the container, the probes, the Service and the scrape annotation', () => {
    const port = serverConfig().port;
    expect(container().ports.map((entry) => entry.containerPort)).toEqual([port]);
    expect(containerPort(container().readinessProbe.httpGet.port)).toBe(port);
    expect(containerPort(container().livenessProbe.httpGet.port)).toBe(port);
    const service = one(serviceSchema, 'Service');
    for (const entry of service.spec.ports) expect(containerPort(entry.targetPort)).toBe(port);
    expect(Number(deployment().spec.template.metadata.annotations['prometheus.io/port'])).toBe(port);
  });

  it('sets the per-address limits together with trusted_proxies for the ingress, valid for the server', () => {
    const parsed = configSchema.safeParse(mountedConfig().json);
    expect(parsed.success ? [] : formatIssues(parsed.error.issues)).toEqual([]);
    const server = parsed.success ? parsed.data.servers[parsed.data.default] : undefined;
    expect(server?.max_connections_per_ip).toBeGreaterThan(0);
    expect(server?.max_upgrades_per_ip_per_second).toBeGreaterThan(0);
    // Behind the ingress every peer is the ingress: without trusted proxies the caps would hold all clients at once.
    expect(server?.trusted_proxies.length).toBeGreaterThan(0);
    expect(server?.slow_consumer).toBe('close');
  });

  it('keeps the image command, and sets only environment variables that apps/realtime/src/load-config.ts reads', () => {
    expect(container().command).toBeUndefined();
    expect(container().args).toBeUndefined();
    const read = Object.keys(envSchema.shape);
    for (const variable of container().env) expect(read, variable.name).toContain(variable.name);
    expect(envValue('REALTIME_SCALING_ENABLED')?.value).toBe('true');
    expect(envValue('REALTIME_REDIS_URL')?.valueFrom?.secretKeyRef).toBeDefined();
    expect(envValue('REALTIME_APP_SECRET')?.valueFrom?.secretKeyRef).toBeDefined();
    // Every secret reference names a key of the example Secret.
    const secret = one(secretSchema, 'Secret');
    for (const variable of container().env) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (!ref) continue;
      expect(ref.name).toBe(secret.metadata.name);
      expect(Object.keys(secret.stringData)).toContain(ref.key);
    }
  });

  it('gives the pod time for the preStop wait and the drain before it is killed', () => {
    const preStop = container().lifecycle.preStop;
    if ('exec' in preStop) expect(preStop.exec.command[0]).toBe('sleep');
    const wait = 'sleep' in preStop ? preStop.sleep.seconds : Number(preStop.exec.command.at(-1));
    expect(wait).toBeGreaterThan(0);
    expect(deployment().spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(
      wait + serverConfig().shutdown_grace_period,
    );
  });

  it('selects the Deployment’s pods from the Service, the PodDisruptionBudget and the autoscaler', () => {
    const labels = deployment().spec.template.metadata.labels;
    expect(labels).toMatchObject(deployment().spec.selector.matchLabels);
    expect(labels).toMatchObject(one(serviceSchema, 'Service').spec.selector);
    expect(labels).toMatchObject(one(pdbSchema, 'PodDisruptionBudget').spec.selector.matchLabels);
    const hpa = one(hpaSchema, 'HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment().metadata.name,
    });
  });
});

describe('deploy/ against a server started as the Deployment starts it', () => {
  let redis: RedisProcess;
  let bin: RunningBin;
  let exposition = '';
  const appSecret = `deploy-test-${process.pid}`;

  /** The Deployment's environment, with the Secret's values and the mounted config file made real here. */
  function podEnv(configFile: string): NodeJS.ProcessEnv {
    const secrets: Record<string, string> = {
      'app-secret': appSecret,
      'redis-url': `redis://127.0.0.1:${redis.port}`,
    };
    const env: NodeJS.ProcessEnv = {};
    for (const variable of container().env) {
      const ref = variable.valueFrom?.secretKeyRef;
      const value = ref ? secrets[ref.key] : variable.value;
      if (value === undefined) throw new Error(`no value for ${variable.name}`);
      env[variable.name] = variable.name === 'REALTIME_CONFIG' ? configFile : value;
    }
    return env;
  }

  beforeAll(async () => {
    // The Deployment enables scaling: the server joins a redis-server of its own.
    redis = await startRedis();
    const dir = mkdtempSync(join(tmpdir(), 'herald-deploy-'));
    const config = mountedConfig();
    const file = join(dir, basename(config.path));
    writeFileSync(file, config.text);
    // --port 0 (added by startBin) instead of 8080, which may be taken on this machine; the port itself is checked
    // against the config above. The webhook list (an env var the app reads) only makes the dispatcher register
    // the herald_webhook_* metrics, which a server without webhooks does not expose.
    bin = await startBin([], {
      env: {
        ...podEnv(file),
        REALTIME_APP_WEBHOOKS: JSON.stringify([
          { url: 'http://127.0.0.1:9/hook', event_types: ['channel_occupied'] },
        ]),
      },
    });
    exposition = await (await fetch(`http://127.0.0.1:${bin.port}/metrics`)).text();
  }, 60_000);

  afterAll(async () => {
    await bin?.stop();
    await redis?.stop();
  });

  it('starts from the ConfigMap and the Secret, joined to Redis, serving the config’s app', () => {
    expect(bin.stdout).toContain('joined the cluster');
    expect(bin.stdout).toMatch(/App id:\s+my-app/);
  });

  it('refuses to start with NODE_ENV=production when the Secret gives no app secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-deploy-'));
    const file = join(dir, 'realtime.config.json');
    writeFileSync(file, mountedConfig().text);
    const { REALTIME_APP_SECRET: _dropped, ...env } = podEnv(file);
    const result = await runBin(['server', '--port', '0', '--host', '127.0.0.1'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('applications.0.secret: is the demo placeholder');
  });

  it('answers 200 on the readiness, liveness and HEALTHCHECK paths, and 404 on a path it does not serve', async () => {
    const paths = [
      container().readinessProbe.httpGet.path,
      container().livenessProbe.httpGet.path,
      healthcheck().path,
    ];
    expect(new Set(paths)).toEqual(new Set(['/ready', '/up']));
    for (const path of paths) {
      const response = await fetch(`http://127.0.0.1:${bin.port}${path}`);
      expect(response.status, path).toBe(200);
      await response.body?.cancel();
    }
    // The server does not answer 200 to anything: a misspelt probe path would fail above.
    const missing = await fetch(`http://127.0.0.1:${bin.port}/readyz`);
    expect(missing.status).toBe(404);
    await missing.body?.cancel();
  });

  it('passes its HEALTHCHECK command as written (node -e, REALTIME_PORT), and fails it where nothing answers', async () => {
    const [program = '', ...args] = healthcheckCommand();
    const run = (port: number) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(program === 'node' ? process.execPath : program, args, {
          env: { PATH: process.env.PATH, REALTIME_PORT: String(port) },
          stdio: 'ignore',
        });
        child.once('exit', resolve);
      });
    expect(await run(bin.port)).toBe(0);
    expect(await run(await freePort())).toBe(1);
  });

  it('exposes every metric the Grafana dashboard queries', () => {
    // The extraction itself finds a name in the shapes the dashboard uses.
    expect(
      metricNames('histogram_quantile(0.95, sum by (le) (rate(x_bucket{pod=~"$pod"}[$__rate_interval])))'),
    ).toEqual(['x_bucket']);
    const dashboard = dashboardSchema.parse(
      JSON.parse(readFileSync(join(DEPLOY, 'grafana/herald-realtime.json'), 'utf8')),
    );
    const exposed = exposedNames(exposition);
    const queried = new Set<string>();
    for (const panel of dashboard.panels) {
      if (panel.type === 'row') continue;
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets) {
        const names = metricNames(expr);
        expect(names.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of names) queried.add(name);
      }
    }
    for (const variable of dashboard.templating.list) {
      const match = /label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)/.exec(variable.definition ?? '');
      if (match) queried.add(match[1] as string);
    }
    // Connections, messages, bytes, subscriptions, HTTP, cluster, webhooks, app store, process: all of them.
    expect(queried.size).toBeGreaterThanOrEqual(25);
    const missing = [...queried].filter((name) => !exposed.has(name));
    expect(missing).toEqual([]);
  });

  it('counts upgrades refused by the per-address limits, by reason, from the first scrape', () => {
    for (const reason of ['connections_per_ip', 'upgrades_per_ip']) {
      expect(exposition).toContain(`herald_upgrades_refused_total{reason="${reason}"} 0`);
    }
  });

  it('exposes the metric the autoscaler’s prometheus-adapter rule turns into its custom metric', () => {
    const adapter = adapterRulesSchema.parse(
      yamlDocuments(join(KUBERNETES, 'prometheus-adapter-rules.yaml'))[0],
    );
    const hpa = one(hpaSchema, 'HorizontalPodAutoscaler');
    for (const metric of hpa.spec.metrics) {
      const rule = adapter.rules.custom.find((entry) => entry.name.as === metric.pods.metric.name);
      if (!rule) throw new Error(`no adapter rule exposes ${metric.pods.metric.name}`);
      const series = metricNames(rule.seriesQuery);
      expect(series).toHaveLength(1);
      expect(exposedNames(exposition).has(series[0] as string), rule.seriesQuery).toBe(true);
      expect(series[0]).toMatch(new RegExp(rule.name.matches));
    }
  });
});
