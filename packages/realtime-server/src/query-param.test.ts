import { describe, expect, it } from 'vitest';
import { queryParam } from './query-param.js';

describe('queryParam', () => {
  it('reads the value URLSearchParams would read', () => {
    const queries = [
      'protocol=7&client=js&version=8.4.0&flash=false',
      '?protocol=7',
      'client=js&protocol=6',
      'protocol=',
      'protocol',
      'protocols=7&protocol=5',
      'xprotocol=7',
      'protocol=7&protocol=8',
      '&&protocol=7&',
      'protocol=a=b',
      'protocol=%37',
      'proto%63ol=7',
      'protocol=7+1',
      '',
      '?',
      'client=js',
    ];
    for (const query of queries) {
      expect(queryParam(query, 'protocol'), query).toBe(new URLSearchParams(query).get('protocol'));
    }
  });
});
