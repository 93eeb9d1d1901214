import { describe, expect, it } from 'vitest';
import { createLightRequest } from './light-request.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('createLightRequest', () => {
  it('looks like a Request to handlers: method, url, headers and instanceof', () => {
    const request = createLightRequest(
      'POST',
      'http://h/apps/1/events?x=1',
      new Headers({ 'x-a': '1' }),
      undefined,
    );
    expect(request).toBeInstanceOf(Request);
    expect(request.method).toBe('POST');
    expect(new URL(request.url).searchParams.get('x')).toBe('1');
    expect(request.headers.get('x-a')).toBe('1');
  });

  it('streams the body bytes once through body', async () => {
    const request = createLightRequest('POST', 'http://h/', new Headers(), bytes('{"a":"é"}'));
    const reader = request.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toBe('{"a":"é"}');
    expect((await reader?.read())?.done).toBe(true);
  });

  it('reads the body as text, JSON and bytes', async () => {
    const make = () => createLightRequest('POST', 'http://h/', new Headers(), bytes('{"n":1}'));
    expect(await make().text()).toBe('{"n":1}');
    expect(await make().json()).toEqual({ n: 1 });
    expect(new Uint8Array(await make().arrayBuffer())).toEqual(bytes('{"n":1}'));
  });

  it('has no body when none was sent', async () => {
    const request = createLightRequest('GET', 'http://h/', new Headers(), undefined);
    expect(request.body).toBeNull();
    expect(await request.text()).toBe('');
  });

  it('builds the real Request for anything else, such as clone() and formData()', async () => {
    const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
    const request = createLightRequest('POST', 'http://h/form', headers, bytes('a=1&b=two'));
    const copy = request.clone();
    expect(copy.url).toBe('http://h/form');
    const form = await request.formData();
    expect(form.get('b')).toBe('two');
    expect(request.signal).toBeInstanceOf(AbortSignal);
  });
});
