// The console page: one Alpine component over the server's console routes.

import Alpine from 'alpinejs';
import { ConsoleApiError, call, useCsrf } from './api.js';
import { drawChart, resizeCharts, type Series } from './charts.js';
import { describe, KINDS, type LogEntry, type LogRecord } from './describe.js';
import './console.css';

interface AppView {
  id: string;
  name: string;
  key: string;
  enabled: boolean;
  connections: number;
  channels: number;
  messagesPerSecond: { in: number; out: number };
  webhooks: number;
  webhookBacklog: number;
}

interface ChannelView {
  name: string;
  subscriptionCount: number;
  userCount?: number;
}

interface ChannelDetailsView extends ChannelView {
  kind: string;
  members?: Array<{ id: string; info: unknown }>;
  cache?: { event: string; data: string; ttl: number };
}

interface Delivery {
  id: string;
  state: string;
  names: string[];
  url: string;
  status?: number;
  error?: string;
  attempts: number;
  latencyMs: number;
  resendOf?: string;
}

const TABS = [
  { id: 'apps', label: 'Apps' },
  { id: 'log', label: 'Live log' },
  { id: 'channels', label: 'Channels' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'usage', label: 'Usage' },
] as const;
type Tab = (typeof TABS)[number]['id'];

/** Entries kept in the log; older ones drop off. */
const LOG_LIMIT = 500;
const REFRESH_MS = 2000;

function heraldConsole() {
  let source: EventSource | undefined;
  let seq = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    signedIn: undefined as boolean | undefined,
    token: '',
    signInError: '',
    tabs: TABS,
    tab: 'apps' as Tab,
    kinds: KINDS,
    apps: [] as AppView[],
    appId: '',
    secrets: {} as Record<string, string>,
    log: [] as LogEntry[],
    logState: '',
    logChannel: '',
    logKind: '',
    prefix: '',
    channels: [] as ChannelView[],
    selected: undefined as ChannelDetailsView | undefined,
    pub: { channel: 'console-test', event: 'test-event', data: '{"hello":"world"}' },
    pubStatus: '',
    hooks: { targets: 0, backlog: 0, deliveries: [] as Delivery[] },
    hookStatus: '',
    usage: undefined as { hour: Series; day: Series } | undefined,

    async start() {
      window.addEventListener('resize', resizeCharts);
      try {
        const session = await call<{ csrf: string; csrfHeader: string }>('session');
        useCsrf(session.csrfHeader, session.csrf);
        this.signedIn = true;
        await this.loadApps();
        this.appChanged();
        timer = setInterval(() => void this.refresh(), REFRESH_MS);
      } catch (error) {
        if (error instanceof ConsoleApiError && error.status === 401) this.signedIn = false;
        else throw error;
      }
    },

    async signIn() {
      try {
        await call('session', { method: 'POST', body: { token: this.token } });
        window.location.reload();
      } catch (error) {
        this.signInError = error instanceof Error ? error.message : 'Sign-in failed';
      }
    },

    async signOut() {
      await call('session', { method: 'DELETE' });
      window.location.reload();
    },

    async loadApps() {
      this.apps = (await call<{ apps: AppView[] }>('apps')).apps;
      if (!this.apps.some((app) => app.id === this.appId)) this.appId = this.apps[0]?.id ?? '';
    },

    appChanged() {
      this.log = [];
      this.selected = undefined;
      this.watch();
      void this.refresh();
    },

    show(tab: Tab) {
      this.tab = tab;
      void this.refresh();
    },

    moveTab(step: number) {
      const index = TABS.findIndex((t) => t.id === this.tab);
      const next = TABS[(index + step + TABS.length) % TABS.length] as (typeof TABS)[number];
      this.show(next.id);
      document.getElementById(`tab-${next.id}`)?.focus();
    },

    /** Opens the app's live log stream (replacing the previous app's). */
    watch() {
      source?.close();
      if (!this.appId) return;
      source = new EventSource(`api/apps/${encodeURIComponent(this.appId)}/log`);
      this.logState = 'connecting…';
      source.onopen = () => {
        this.logState = 'live';
      };
      source.onerror = () => {
        this.logState = 'reconnecting…';
      };
      source.addEventListener('debug', (message) => {
        const record = JSON.parse((message as MessageEvent<string>).data) as LogRecord;
        seq += 1;
        this.log.unshift({ ...record, seq, ...describe(record) });
        if (this.log.length > LOG_LIMIT) this.log.length = LOG_LIMIT;
      });
    },

    filteredLog(): LogEntry[] {
      const channel = this.logChannel.trim();
      return this.log.filter(
        (entry) =>
          (!this.logKind || entry.kind === this.logKind) &&
          (!channel || (entry.channel ?? '').includes(channel)),
      );
    },

    clock(at: number): string {
      const time = new Date(at);
      return `${time.toLocaleTimeString([], { hour12: false })}.${String(time.getMilliseconds()).padStart(3, '0')}`;
    },

    async refresh() {
      if (!this.signedIn || !this.appId) return;
      const app = encodeURIComponent(this.appId);
      if (this.tab === 'apps') await this.loadApps();
      if (this.tab === 'channels') await this.loadChannels();
      if (this.tab === 'webhooks') this.hooks = await call(`apps/${app}/webhooks`);
      if (this.tab === 'usage') {
        this.usage = await call(`apps/${app}/usage`);
        // Drawn once the panel is shown, so the charts take its width.
        requestAnimationFrame(() => {
          if (!this.usage) return;
          drawChart('chart-hour', this.usage.hour);
          drawChart('chart-day', this.usage.day);
        });
      }
    },

    async loadChannels() {
      const app = encodeURIComponent(this.appId);
      const query = this.prefix ? `?prefix=${encodeURIComponent(this.prefix)}` : '';
      this.channels = (await call<{ channels: ChannelView[] }>(`apps/${app}/channels${query}`)).channels;
      if (this.selected) await this.inspect(this.selected.name);
    },

    async inspect(name: string) {
      const app = encodeURIComponent(this.appId);
      this.selected = await call<ChannelDetailsView>(`apps/${app}/channels/${encodeURIComponent(name)}`);
    },

    async publish() {
      try {
        await call(`apps/${encodeURIComponent(this.appId)}/events`, { method: 'POST', body: this.pub });
        this.pubStatus = `Published ${this.pub.event} to ${this.pub.channel}.`;
      } catch (error) {
        this.pubStatus = error instanceof Error ? error.message : 'Publishing failed';
      }
    },

    async reveal(appId: string) {
      this.secrets[appId] = (
        await call<{ secret: string }>(`apps/${encodeURIComponent(appId)}/secret`, {
          method: 'POST',
        })
      ).secret;
    },

    async resend(id: string) {
      try {
        await call(`apps/${encodeURIComponent(this.appId)}/webhooks/${encodeURIComponent(id)}/resend`, {
          method: 'POST',
        });
        this.hookStatus = 'Queued to be sent again.';
        await this.refresh();
      } catch (error) {
        this.hookStatus = error instanceof Error ? error.message : 'Sending again failed';
      }
    },

    totals(range: 'hour' | 'day'): string {
      const series = this.usage?.[range];
      if (!series) return '';
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      return `${sum(series.in)} messages in, ${sum(series.out)} out, at most ${Math.max(0, ...series.connections)} connections`;
    },

    destroy() {
      source?.close();
      if (timer) clearInterval(timer);
    },
  };
}

Alpine.data('heraldConsole', heraldConsole);
Alpine.start();
