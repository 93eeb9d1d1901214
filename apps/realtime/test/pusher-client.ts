import PusherModule from 'pusher-js';

// pusher-js ships CommonJS typings that nodenext reads as a namespace: take the class from its default export.
export const PusherClient = PusherModule as unknown as typeof PusherModule.default;
export type PusherClient = InstanceType<typeof PusherClient>;
