import { describe, expect, it } from 'vitest';
import { replaceManagedBlock } from './markers.js';

describe('replaceManagedBlock', () => {
  it('creates a file holding only the block', () => {
    expect(replaceManagedBlock(null, 'rules')).toBe('<assist-guidelines>\nrules\n</assist-guidelines>\n');
  });

  it('appends the block after text the user wrote', () => {
    expect(replaceManagedBlock('# Mine\n\n', 'rules')).toBe(
      '# Mine\n\n<assist-guidelines>\nrules\n</assist-guidelines>\n',
    );
  });

  it('replaces only what is between the markers', () => {
    const file = 'top\n<assist-guidelines>\nold\n</assist-guidelines>\nbottom\n';
    expect(replaceManagedBlock(file, 'new')).toBe(
      'top\n<assist-guidelines>\nnew\n</assist-guidelines>\nbottom\n',
    );
  });
});
