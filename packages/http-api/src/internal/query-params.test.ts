import { describe, expect, it } from 'vitest';
import { parseQueryParams } from './query-params.js';

/** The reading the hand-written parser must match: URLSearchParams, repeats joined with commas. */
function standard(query: string): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    record[key] = key in record ? `${record[key]},${value}` : value;
  }
  return record;
}

describe('parseQueryParams', () => {
  it('reads a query signed by the pusher SDK', () => {
    const query =
      'auth_key=k&auth_timestamp=1764079000&auth_version=1.0&body_md5=0cc175b9c0f1b6a831c399e269772661&auth_signature=ab12';
    expect(parseQueryParams(query)).toEqual({
      auth_key: 'k',
      auth_timestamp: '1764079000',
      auth_version: '1.0',
      body_md5: '0cc175b9c0f1b6a831c399e269772661',
      auth_signature: 'ab12',
    });
  });

  it.each([
    '',
    'a=1',
    'a=1&a=2&b=',
    'a&b=2',
    '=v&k=',
    'a=1&&b=2&',
    '&&',
    'a==b&c=d=e',
    'info=user_count,subscription_count',
    'filter_by_prefix=presence-%C3%A9t%C3%A9',
    'name=a+b&x=%zz&y=%41',
    'k=caf\u00e9&\u00e9=1',
  ])('reads %j as URLSearchParams does', (query) => {
    expect(parseQueryParams(query)).toEqual(standard(query));
  });
});
