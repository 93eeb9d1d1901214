import { describe, expect, it } from 'vitest';
import { isOriginAllowed } from './origin.js';

describe('isOriginAllowed', () => {
  it.each<[string, readonly string[], string | undefined, boolean]>([
    // '*' allows everything, even a client that sends no Origin.
    ['any origin with *', ['*'], 'https://app.example.com', true],
    ['a dev server with *', ['*'], 'http://localhost:3000', true],
    ['the opaque origin with *', ['*'], 'null', true],
    ['a missing Origin with *', ['*'], undefined, true],
    ['any origin when * is one entry among others', ['https://app.example.com', '*'], 'https://x.test', true],

    // An entry with a scheme is an exact origin.
    ['the same origin', ['https://app.example.com'], 'https://app.example.com', true],
    ['the same origin in upper case', ['https://app.example.com'], 'HTTPS://APP.EXAMPLE.COM', true],
    ['the origin on another scheme', ['https://app.example.com'], 'http://app.example.com', false],
    ['the origin on another port', ['https://app.example.com'], 'https://app.example.com:8443', false],
    ['a subdomain of an exact origin', ['https://app.example.com'], 'https://x.app.example.com', false],
    ['the parent of an exact origin', ['https://app.example.com'], 'https://example.com', false],
    [
      'a look-alike of an exact origin',
      ['https://app.example.com'],
      'https://app.example.com.evil.test',
      false,
    ],

    // A host without a scheme allows both schemes, and any port unless it names one.
    ['a host over https', ['app.example.com'], 'https://app.example.com', true],
    ['a host over http', ['app.example.com'], 'http://app.example.com', true],
    ['another host', ['app.example.com'], 'https://api.example.com', false],
    ['a subdomain of a host', ['app.example.com'], 'https://x.app.example.com', false],
    ['a host on a dev port', ['localhost'], 'http://localhost:5173', true],
    ['a host on another port', ['app.example.com'], 'https://app.example.com:8443', true],
    ['a host on the port it names', ['app.example.com:8443'], 'https://app.example.com:8443', true],
    [
      'a host on a port other than the one it names',
      ['app.example.com:8443'],
      'https://app.example.com:9000',
      false,
    ],
    ['a host without the port it names', ['app.example.com:8443'], 'https://app.example.com', false],

    // '*.example.com' allows subdomains only.
    ['a subdomain', ['*.example.com'], 'https://app.example.com', true],
    ['a subdomain over http', ['*.example.com'], 'http://app.example.com', true],
    ['a deeper subdomain', ['*.example.com'], 'https://a.b.example.com', true],
    ['a subdomain on another port', ['*.example.com'], 'https://app.example.com:8443', true],
    ['a subdomain in upper case', ['*.example.com'], 'https://APP.Example.COM', true],
    ['the apex domain', ['*.example.com'], 'https://example.com', false],
    ['a domain ending in the same letters', ['*.example.com'], 'https://evil-example.com', false],
    ['a domain without the dot', ['*.example.com'], 'https://aexample.com', false],
    [
      'a look-alike with the pattern as a subdomain',
      ['*.example.com'],
      'https://app.example.com.evil.test',
      false,
    ],
    ['another top-level domain', ['*.example.com'], 'https://app.example.org', false],

    // 'https://*.example.com' also fixes the scheme.
    ['a subdomain over the named scheme', ['https://*.example.com'], 'https://app.example.com', true],
    ['a subdomain over another scheme', ['https://*.example.com'], 'http://app.example.com', false],
    ['the apex under a scheme pattern', ['https://*.example.com'], 'https://example.com', false],
    ['a look-alike under a scheme pattern', ['https://*.example.com'], 'https://evil-example.com', false],

    // Several entries: any one may allow.
    [
      'an origin matching the first entry',
      ['https://admin.test', '*.example.com'],
      'https://admin.test',
      true,
    ],
    [
      'an origin matching a later entry',
      ['https://admin.test', '*.example.com'],
      'https://a.example.com',
      true,
    ],
    ['an origin matching no entry', ['https://admin.test', '*.example.com'], 'https://other.test', false],

    // Without '*', a client must send a usable Origin.
    ['a missing Origin', ['https://app.example.com', '*.example.com', 'localhost'], undefined, false],
    ['an empty Origin', ['https://app.example.com', '*.example.com', 'localhost'], '', false],
    ['the opaque origin null', ['https://app.example.com', '*.example.com', 'localhost'], 'null', false],
    [
      'an Origin that is not a URL',
      ['https://app.example.com', '*.example.com', 'localhost'],
      'not a url',
      false,
    ],
    ['any origin with an empty list', [], 'https://app.example.com', false],
    ['a missing Origin with an empty list', [], undefined, false],
  ])('answers %s: allowed %j, origin %j → %s', (_name, allowed, origin, expected) => {
    expect(isOriginAllowed(origin, allowed)).toBe(expected);
  });
});
