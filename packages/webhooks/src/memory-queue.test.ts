import { describe, it } from 'vitest';
import { createMemoryWebhookQueue } from './memory-queue.js';
import { webhookQueueContract } from './testing.js';

describe('createMemoryWebhookQueue', () => {
  for (const contractCase of webhookQueueContract()) {
    it(contractCase.name, () =>
      contractCase.run(async ({ leaseMs }) => createMemoryWebhookQueue({ leaseMs })),
    );
  }
});
