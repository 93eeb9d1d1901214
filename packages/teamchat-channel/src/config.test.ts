import { describe, expect, it } from 'vitest';
import { teamChatRouteMethod } from './channel.js';
import { isTeamChatChannelName, parseTeamChatConfig } from './config.js';
import { TeamChatError } from './errors.js';

const WEBHOOK = 'https://chat.example.com/hooks/hook-id/s3cr3t-token';

describe('parseTeamChatConfig', () => {
  it('takes a string as the webhook and fills in every default', () => {
    expect(parseTeamChatConfig('teamchat', WEBHOOK)).toEqual({
      webhook: WEBHOOK,
      timeout: 10,
      connect_timeout: 5,
      verify: true,
      http_errors: true,
      headers: {},
      retries: 0,
      retry_max_wait: 60,
    });
  });

  it('names every key at fault without showing the webhook', () => {
    const error = (() => {
      try {
        parseTeamChatConfig('teamchat-alerts', {
          webhook: 'chat.example.com/hooks/hook-id/s3cr3t-token',
          timeout: 0,
          extra: 1,
        } as never);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(TeamChatError);
    expect((error as TeamChatError).code).toBe('invalid_config');
    const message = (error as TeamChatError).message;
    expect(message).toMatch(/^teamchat-alerts: /);
    expect(message).toContain('webhook: must be an absolute http(s) URL');
    expect(message).toContain('timeout:');
    expect(message).toContain('extra');
    expect(message).not.toContain('s3cr3t');
  });

  it('refuses a name that is not teamchat or teamchat-<instance>', () => {
    expect(() => parseTeamChatConfig('slack', WEBHOOK)).toThrow(/cannot name a team-chat channel/);
    expect(['teamchat', 'teamchat-alerts', 'teamchat-on_call-2'].every(isTeamChatChannelName)).toBe(true);
    expect(['teamchat-', 'Teamchat', 'teamchat alerts', 'teamchat--x'].some(isTeamChatChannelName)).toBe(
      false,
    );
  });
});

describe('teamChatRouteMethod', () => {
  it('names the notifiable method a channel takes its route from', () => {
    expect(teamChatRouteMethod('teamchat')).toBe('routeNotificationForTeamchat');
    expect(teamChatRouteMethod('teamchat-alerts')).toBe('routeNotificationForTeamchatAlerts');
    expect(teamChatRouteMethod('teamchat-on_call')).toBe('routeNotificationForTeamchatOnCall');
  });
});
